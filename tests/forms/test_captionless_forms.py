"""Filled forms that print no captions, flattened: boxes with typed values and nothing to name
them, or rows of check boxes and radio buttons with no label. A reviewer expects the values as
fields with no key and the marks with their states; the page's geometry (boxes standing apart, a
comb's equal cells, a row of equal marks) shows the form, not its words. Real widgets, filled and
baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_fields


def _text_widget(page, rect, value: str, comb: int = 0, multiline: bool = False) -> None:
    w = pymupdf.Widget()
    w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, f"t{rect[0]:.0f}_{rect[1]:.0f}"
    w.rect, w.text_fontsize = pymupdf.Rect(rect), 12
    w.border_color, w.border_width = (0, 0, 0), 1
    if comb:
        w.text_maxlen, w.field_flags = comb, 1 << 24
    if multiline:
        w.field_flags = 1 << 12
    if any(ord(ch) > 0x2E7F for ch in value):
        w.text_font = "japan"
    w.field_value = value
    page.add_widget(w)


def _bare_text_fields() -> bytes:
    """A page of bare text fields, filled and baked: one line each, one tall multi-line box with a
    line at its top, and two combs (Latin and Japanese); no caption anywhere."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _text_widget(page, (40, 24, 265, 46), "Jordan A. Whitfield")
    _text_widget(page, (280, 24, 505, 46), "Portland, OR 97205")
    _text_widget(page, (40, 60, 265, 150), "1,234.56", multiline=True)
    _text_widget(page, (40, 165, 265, 187), "12/31/25", comb=11)
    _text_widget(page, (280, 165, 505, 187), "令和8年4月1日", comb=11)
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_values_in_bare_boxes_and_combs_are_fields_with_no_key(engine):
    """Failed before: no caption, no colon, no check box, and the combs' values ran across their
    cells' walls (no box of their own), so the page was no form and gave no field at all."""
    fields = ingest_fields(_bare_text_fields(), "bare.pdf", engine)
    got = sorted("".join(f.value.split()) for f in fields if not f.key)
    assert got == sorted(["JordanA.Whitfield", "Portland,OR97205", "1,234.56", "12/31/25", "令和8年4月1日"])
    assert all(not f.key for f in fields)  # no typed value is taken for another one's caption
