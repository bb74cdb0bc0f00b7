"""Images as input: a PNG, JPEG or TIFF becomes a PDF with one page per image (a multi-page TIFF
gives several), each page the image's size at its resolution, so ingest reads it as a scanned PDF
and OCRs it (core.ingest.ocr)."""
from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

import pymupdf

from core.errors import BadInput, FileTooLarge

IMAGE_MAGIC = {b"\x89PNG\r\n\x1a\n": "PNG", b"\xff\xd8\xff": "JPEG", b"II*\x00": "TIFF", b"MM\x00*": "TIFF"}
DEFAULT_DPI = 200  # for an image that does not say its resolution (or says an implausible one)
MAX_PIXELS = 40_000_000  # a frame over this is downscaled to it (OCR time grows with pixels)


class CorruptImage(BadInput):
    pass


@dataclass(frozen=True)
class ImagePdf:
    pdf_bytes: bytes
    notices: dict[int, str]  # page number → what was done to its image (downscaled)


def image_kind(data: bytes) -> str | None:
    """PNG / JPEG / TIFF by the file's first bytes, None for anything else."""
    return next((kind for magic, kind in IMAGE_MAGIC.items() if data.startswith(magic)), None)


def image_to_pdf(data: bytes, filename: str, max_pixels: int = MAX_PIXELS) -> ImagePdf:
    """One PDF page per frame; a frame over `max_pixels` is downscaled to it. A damaged image is
    refused with a message, and so is one over Pillow's decompression-bomb limit (89 million
    pixels): decoding it alone would take gigabytes."""
    from PIL import Image

    kind = image_kind(data) or "image"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            frames = [_frame_png(image, i, max_pixels) for i in range(getattr(image, "n_frames", 1))]
    except (BadInput, MemoryError):
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
        raise FileTooLarge(f"{filename} is too large an image to read ({err}); "
                           "scan or export it at a lower resolution") from None
    except Exception as err:  # noqa: BLE001 - Pillow raises OSError, SyntaxError, ValueError… on damaged files
        raise CorruptImage(f"{filename} is a damaged or unreadable {kind} ({type(err).__name__}: {err}); "
                           "re-export or re-scan it and try again") from None
    out = pymupdf.open()
    notices = {}
    for number, (png, width_pt, height_pt, note) in enumerate(frames, start=1):
        page = out.new_page(width=width_pt, height=height_pt)
        page.insert_image(page.rect, stream=png)
        if note:
            notices[number] = note
    return ImagePdf(out.tobytes(garbage=1, deflate=True), notices)


def _frame_png(image, index: int, max_pixels: int) -> tuple[bytes, float, float, str | None]:
    """Frame `index` as PNG bytes, its page size in points and what was done to it."""
    image.seek(index)
    frame = image.convert("L" if image.mode in ("1", "L", "I;16", "I") else "RGB")
    frame.load()
    dpi = _resolution(image)
    width_pt, height_pt = frame.width * 72 / dpi, frame.height * 72 / dpi
    note = None
    if frame.width * frame.height > max_pixels:
        scale = (max_pixels / (frame.width * frame.height)) ** 0.5
        old = frame.size
        frame = frame.resize((max(1, int(frame.width * scale)), max(1, int(frame.height * scale))))
        note = (f"image downscaled from {old[0]}×{old[1]} to {frame.width}×{frame.height} pixels "
                f"(over {max_pixels:,} pixels)")
    buf = io.BytesIO()
    frame.save(buf, format="PNG")
    return buf.getvalue(), width_pt, height_pt, note


def _resolution(image) -> float:
    dpi = image.info.get("dpi")
    try:
        value = float(dpi[0]) if dpi else 0.0
    except (TypeError, ValueError, IndexError):
        value = 0.0
    return value if 50 <= value <= 2400 else DEFAULT_DPI


def with_page_notices(document, notices: dict[int, str]):
    """`document` with `notices` prepended to its pages' own (e.g. OCR's)."""
    from dataclasses import replace

    if not notices:
        return document
    pages = tuple(replace(p, notice="; ".join(n for n in (notices.get(p.number), p.notice) if n))
                  for p in document.pages)
    return replace(document, pages=pages)
