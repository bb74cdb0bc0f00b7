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


def tategaki_pdf(text: str, *, heading: str = "", size: float = 11.0, per_column: int = 30,
                 width: float = 595.0, height: float = 842.0) -> bytes:
    """A born-digital page of vertical writing: `text` set upright one character at a time in
    columns of `per_column` characters, right to left, under an optional horizontal `heading`
    (a tategaki page with a title across the top, as in a magazine or a notice)."""
    doc = pymupdf.open()
    page = doc.new_page(width=width, height=height)
    top = 72.0
    if heading:
        page.insert_text((72, top), heading, fontname="japan", fontsize=size * 1.4)
        top += size * 3
    pitch = size * 1.8  # a column's width and the gap to the next
    chars = [ch for ch in text if not ch.isspace()]
    for index, ch in enumerate(chars):
        column, row = divmod(index, per_column)
        x = width - 72 - (column + 1) * pitch
        if x < 60:
            break  # the page is full
        page.insert_text((x, top + size * (row + 1)), ch, fontname="japan", fontsize=size)
    return doc.tobytes()
