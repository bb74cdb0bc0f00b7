"""Forms printed on a tinted panel (the IRS 1040's green): the boxes are white fills set on the tint,
with no stroke of their own, and the tint is one big rectangle filled and not stroked. What a reader
sees as walls are the white boxes' edges against the tint; the tint's own edge, where a white box is
painted over it, is hidden. Real widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_fields

TINT = (0.914, 1.0, 0.925)


def _fill(page, rect, colour) -> None:
    page.draw_rect(pymupdf.Rect(rect), color=None, fill=colour, width=0)


def _rule(page, a, b) -> None:
    page.draw_line(pymupdf.Point(*a), pymupdf.Point(*b), color=(0, 0, 0), width=0.5)


def _value(page, rect, value: str) -> None:
    w = pymupdf.Widget()
    w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, f"t{rect[0]:.0f}_{rect[1]:.0f}"
    w.rect, w.text_fontsize, w.text_font = pymupdf.Rect(rect), 8, "Helv"
    w.field_value = value
    page.add_widget(w)


def _tinted_form() -> bytes:
    """A name row whose first box runs across the tint's left edge (the box is white on both sides of
    it), two check boxes, and an income line whose amount boxes are white cells on the tint, stacked edge to edge."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _fill(page, (93.6, 36, 577, 300), TINT)
    for box in ((36, 72, 216, 96), (216, 72, 468, 96), (482.4, 192, 554.4, 204), (554.4, 192, 576, 204),
                (482.4, 204, 554.4, 216), (554.4, 204, 576, 216)):
        _fill(page, box, (1, 1, 1))
    _rule(page, (36, 72), (576, 72))
    _rule(page, (36, 96), (576, 96))
    _rule(page, (216, 72), (216, 96))
    _rule(page, (36, 192), (576, 192))
    _rule(page, (113.8, 216), (576, 216))
    _rule(page, (554.4, 192), (554.4, 216))
    page.insert_text((40, 78.5), "Your first name and initial", fontsize=7, fontname="helv")
    page.insert_text((220, 78.5), "Last name", fontsize=7, fontname="helv")
    for x, label in ((470, "You"), (520, "Spouse")):  # check boxes: the page shows itself a form
        page.draw_rect(pymupdf.Rect(x, 160, x + 8, 168), color=(0, 0, 0), fill=(1, 1, 1), width=0.5)
        page.insert_text((x + 11, 167), label, fontsize=6.5, fontname="hebo")
    page.insert_text((118, 212), "1", fontsize=9, fontname="Times-Bold")
    page.insert_text((137, 212), "Wages, salaries, and tips. This should be shown in box 1", fontsize=9,
                     fontname="Times-Roman")
    page.insert_text((471, 212), "1", fontsize=9, fontname="Times-Bold")
    _value(page, (36, 82, 216, 96), "Jordan A. Whitfield")
    _value(page, (216, 82, 468, 96), "Sato")
    _value(page, (482.4, 204, 554.4, 216), "48,250")
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_white_boxes_on_a_tint_are_the_boxes(engine):
    """Failed before: the tint's left edge was taken for a wall through the first name box (the
    caption straddled it, so no cell or row held caption and value), and the white amount box,
    having no stroke, was no box at all (its value was not found)."""
    fields = {f.key: f.value for f in ingest_fields(_tinted_form(), "tinted.pdf", engine) if f.key}
    assert fields.get("Your first name and initial") == "Jordan A. Whitfield"
    assert fields.get("Last name") == "Sato"
    assert fields.get("Wages, salaries, and tips. This should be shown in box 1") == "48,250"
