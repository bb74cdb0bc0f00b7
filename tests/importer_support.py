"""Shared helpers for the importer tests: where the fixtures and real parser outputs live, a PDF
drawn at given boxes, and "does the PDF text under this box match the imported text"."""
from __future__ import annotations

import difflib
import os
import re
import unicodedata
from pathlib import Path

import pymupdf
import pytest

from core.model import Document

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REALDATA = Path(os.environ.get("RLI_REALDATA") or Path(__file__).resolve().parents[1].parent / "shared" / "realdata")
PEER = REALDATA / "peer_outputs"


def need_peer(relative: str) -> Path:
    path = PEER / relative
    if not path.exists():
        pytest.skip(f"real parser output {relative} is not here ({PEER} absent: a fresh clone has no realdata)")
    return path


def pdf_with_texts(page_size: tuple[float, float], placements, pages: int = 1) -> bytes:
    """A PDF with each (page, text, (x0, y0, x1, y1)) written inside its top-left-origin box."""
    pdf = pymupdf.open()
    for _ in range(pages):
        pdf.new_page(width=page_size[0], height=page_size[1])
    for page, text, box in placements:
        height = box[3] - box[1]
        size = max(4.0, min(10.0, height * 0.7))
        pdf[page - 1].insert_text((box[0] + 1, box[3] - height * 0.2), text, fontname="japan", fontsize=size)
    return pdf.tobytes()


def squash(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).lower()


def words_under(page: pymupdf.Page, bbox) -> str:
    """PDF words whose centre lies inside the box (1 pt tolerance), in reading order."""
    out = []
    for w in page.get_text("words", sort=True):
        cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
        if bbox[0] - 1 <= cx <= bbox[2] + 1 and bbox[1] - 1 <= cy <= bbox[3] + 1:
            out.append(w[4])
    return " ".join(out)


def box_text_match(doc: Document, pdf_path_or_bytes, skip=("table", "picture")) -> tuple[int, int, list[str]]:
    """How many imported elements with text have (nearly) the same text in the PDF under their box."""
    pdf = pymupdf.open(pdf_path_or_bytes) if isinstance(pdf_path_or_bytes, (str, Path)) \
        else pymupdf.open(stream=pdf_path_or_bytes, filetype="pdf")
    matched, total, misses = 0, 0, []
    for e in doc.elements():
        if not e.text.strip() or e.category.value in skip:
            continue
        under = words_under(pdf[e.page - 1], e.bbox)
        ratio = difflib.SequenceMatcher(None, squash(e.text), squash(under)).ratio()
        total += 1
        if ratio >= 0.8:
            matched += 1
        else:
            misses.append(f"{e.category.value} {e.text[:30]!r} vs {under[:30]!r}")
    return matched, total, misses


def category_counts(doc: Document) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in doc.elements():
        counts[e.category.value] = counts.get(e.category.value, 0) + 1
    return counts
