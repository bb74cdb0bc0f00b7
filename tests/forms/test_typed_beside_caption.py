"""A caption and its value in one ruled cell, side by side: "CASE NUMBER 1,234.56", the caption printed
at the cell's left, the value typed right after it (DD Form 293). The value is set in the face the
filler typed in, the caption in the form's own. Real widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_fields
from form_fixtures import add_text_widget

ROWS = ((("CASE NUMBER", "1,234.56"), ("DATE OF DISCHARGE (YYYYMMDD)", "20260401")),
        (("5a. SSN WHILE SERVING", "123456789"), ("5b. DoD ID NUMBER", "12/31/25")))


def _captions_with_values_beside() -> bytes:
    """Two rows of two cells, each a caption (Times) and a text widget right after it (Helvetica), and
    a row of check boxes under them."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for r, row in enumerate(ROWS):
        y = 110 + 16 * r
        for c, (caption, value) in enumerate(row):
            x = 20 + 290 * c
            page.draw_rect(pymupdf.Rect(x, y, x + 290, y + 16), color=(0, 0, 0), width=0.5)
            page.insert_text((x + 2, y + 11), caption, fontsize=8, fontname="tiro")
            start = x + 8 + pymupdf.get_text_length(caption, fontname="tiro", fontsize=8)
            add_text_widget(page, f"f{r}{c}", pymupdf.Rect(start, y + 1, x + 288, y + 15), value, 8)
    for k, label in enumerate(("ARMY", "NAVY", "AIR FORCE")):
        page.draw_rect(pymupdf.Rect(30 + 80 * k, 160, 40 + 80 * k, 170), color=(0, 0, 0), width=0.5)
        page.insert_text((43 + 80 * k, 168), label, fontsize=7.5, fontname="tiro")
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_value_typed_after_its_caption_in_one_cell_is_its_value(engine):
    """Failed before: each caption took the cell to its right (the next caption and its value)."""
    fields = {f.key: f.value for f in ingest_fields(_captions_with_values_beside(), "beside.pdf", engine) if f.key}
    for row in ROWS:
        for caption, value in row:
            assert fields.get(caption) == value
