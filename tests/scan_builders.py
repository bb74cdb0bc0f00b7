"""Scanned copies of born-digital PDFs, built in code: each page rendered at `dpi` in grey, turned
by `skew` degrees, with Gaussian noise, wrapped as an image-only PDF of the same page size (what a
flatbed scanner or a fax gives). Used by tests/ingest/test_ocr.py and bench/ocr.py."""
from __future__ import annotations

import io

import numpy as np
import pymupdf
from PIL import Image


def scanned_page_png(page: pymupdf.Page, *, dpi: int = 200, noise: float = 10.0, skew: float = 0.5,
                     seed: int = 0) -> bytes:
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    image = image.rotate(skew, resample=Image.BICUBIC, expand=False, fillcolor=255)
    pixels = np.asarray(image).astype(np.float32)
    pixels += np.random.default_rng(seed).normal(0.0, noise, pixels.shape)
    buf = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(buf, format="PNG", dpi=(dpi, dpi))
    return buf.getvalue()


def scanned_pdf(pdf_bytes: bytes, pages: list[int] | None = None, **scan) -> bytes:
    """An image-only PDF of `pages` (0-based; all by default) of `pdf_bytes`."""
    src = pymupdf.open(stream=pdf_bytes, filetype="pdf")
    out = pymupdf.open()
    for index in pages if pages is not None else range(src.page_count):
        page = src.load_page(index)
        new = out.new_page(width=page.rect.width, height=page.rect.height)
        new.insert_image(new.rect, stream=scanned_page_png(page, seed=index, **scan))
    return out.tobytes(garbage=1, deflate=True)
