"""A short bar of a bar chart is no check box (core.ingest.vectors._shortest_bar): drawn as an
outlined rectangle about as wide as it is high, it passed the check-box test, and the layout engine
made the white paper's five "130" bars (p3, 図表Ⅰ-4-1-2) unselected check boxes. A column of check
boxes, or a check box filled in the colour of a bar that does not share its base, stays marks."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pymupdf
import pytest

from core.categories import Category
from core.ingest.pipeline import ingest_bytes
from core.review.corrections import corrected_document
from core.store.workspace import Workspace

BLUE = (0.40, 0.60, 0.82)
DARK = (0.13, 0.12, 0.12)


def _bar(page: pymupdf.Page, rect: pymupdf.Rect, one_path: bool) -> None:
    """A bar as chart software writes it: fill and outline in one path, or (as the white paper's
    chart does) a filled rectangle with a separate outline drawn over it."""
    if one_path:
        page.draw_rect(rect, color=DARK, fill=BLUE, width=0.5)
    else:
        page.draw_rect(rect, color=None, fill=BLUE)
        page.draw_rect(rect, color=DARK, fill=None, width=0.5)


def _bar_chart_page(one_path: bool) -> bytes:
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    page.insert_text((72, 80), "Figure 1 Parameters (billions)", fontsize=10)
    for row, length in enumerate((240, 120, 60, 7, 7, 7)):
        top = 110 + row * 22
        page.insert_text((72, top + 7), f"Model {row + 1}", fontsize=8)
        _bar(page, pymupdf.Rect(150, top, 150 + length, top + 9), one_path)
        page.insert_text((150 + length + 4, top + 7), str(length * 10), fontsize=8)
    return pdf.tobytes()


def _check_box_page() -> bytes:
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    for row, label in enumerate(("Yes", "No", "Not sure")):
        top = 110 + row * 22
        page.draw_rect(pymupdf.Rect(150, top, 159, top + 9), color=DARK, fill=BLUE if row == 0 else None, width=0.5)
        page.insert_text((164, top + 7), label, fontsize=8)
    # a coloured banner elsewhere on the page, not sharing the boxes' base or height
    page.draw_rect(pymupdf.Rect(300, 400, 500, 430), color=None, fill=BLUE)
    page.insert_text((72, 90), "Do you agree?", fontsize=10)
    return pdf.tobytes()


def _marks(data: bytes, engine: str) -> list:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp))
        record = ingest_bytes(ws, data, "built.pdf", engine=engine).record
        doc = corrected_document(ws, record.doc_id)
        ws.close()
    return [e for p in doc.pages for e in p.elements if e.category is Category.SELECTION_MARK]


@pytest.mark.parametrize("one_path", [True, False], ids=["fill-and-outline", "outline-over-fill"])
@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_the_short_bars_of_a_bar_chart_are_not_check_boxes(engine, one_path):
    assert _marks(_bar_chart_page(one_path), engine) == []


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_column_of_check_boxes_stays_check_boxes(engine):
    marks = _marks(_check_box_page(), engine)
    assert len(marks) == 3
