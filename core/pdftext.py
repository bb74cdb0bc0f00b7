"""Text under a box on a stored PDF page: what a reviewer's new or moved box contains.

The one place corrections touch pymupdf. A character belongs to the box when its centre lies
inside it, so a box drawn a little too tall does not pull in half of the next line.
"""
from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Callable

import pymupdf

from core.model import BBox

TextReader = Callable[[int, BBox], str]

# pymupdf documents are not thread-safe and Streamlit serves sessions from threads.
_LOCK = threading.Lock()


@lru_cache(maxsize=8)
def _open(path: str, mtime_ns: int) -> pymupdf.Document:
    return pymupdf.open(path)


def read_text(pdf_path: Path, page_number: int, bbox: BBox) -> str:
    """Text of the characters whose centres lie in `bbox` on 1-based `page_number`, line by line."""
    path = Path(pdf_path)
    with _LOCK:
        pdf = _open(str(path), path.stat().st_mtime_ns)
        page = pdf[page_number - 1]
        raw = page.get_text("rawdict", clip=pymupdf.Rect(bbox))
    lines: list[str] = []
    for block in raw.get("blocks", ()):
        for line in block.get("lines", ()):
            text = "".join(
                ch["c"] for span in line.get("spans", ()) for ch in span.get("chars", ())
                if _centre_inside(ch["bbox"], bbox)
            ).strip()
            if text:
                lines.append(text)
    return "\n".join(lines)


def pdf_text_reader(pdf_path: Path) -> TextReader:
    return lambda page, bbox: read_text(pdf_path, page, bbox)


def _centre_inside(char_bbox, bbox: BBox) -> bool:
    cx = (char_bbox[0] + char_bbox[2]) / 2
    cy = (char_bbox[1] + char_bbox[3]) / 2
    return bbox[0] <= cx <= bbox[2] and bbox[1] <= cy <= bbox[3]
