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
    return _read_text(str(path), path.stat().st_mtime_ns, page_number, tuple(bbox))


@lru_cache(maxsize=4096)  # the box the reviewer previewed is read again when the log is replayed
def _read_text(path: str, mtime_ns: int, page_number: int, bbox: BBox) -> str:
    with _LOCK:
        raw = _open(path, mtime_ns)[page_number - 1].get_text("rawdict", clip=pymupdf.Rect(bbox))
    x0, y0, x1, y1 = bbox
    lines: list[str] = []
    for block in raw.get("blocks", ()):
        for line in block.get("lines", ()):
            text = "".join(
                c["c"] for span in line.get("spans", ()) for c in span.get("chars", ())
                if x0 <= (c["bbox"][0] + c["bbox"][2]) / 2 <= x1 and y0 <= (c["bbox"][1] + c["bbox"][3]) / 2 <= y1
            ).strip()
            if text:
                lines.append(text)
    return "\n".join(lines)


def pdf_text_reader(pdf_path: Path) -> TextReader:
    return lambda page, bbox: read_text(pdf_path, page, bbox)
