"""A form that prints each caption under its line, at the line's left end ("________ / LAST", the
fill-pdf HR form): the value typed on the line belongs to the caption under it, not to the caption
over it (which is the row above's). Real widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_fields
from form_fixtures import add_text_widget

COLUMNS = ((("LAST", "Whitfield-Sato"), ("FIRST", "Jordan Alex"), ("MIDDLE", "Avery Lynn")),
           (("STREET", "221B Baker Street"), ("CITY", "Portland"), ("PHONE", "555-0134")))

BESIDE = (("Date of hire:", "04/15/2026"), ("Department:", "Payroll"), ("Employee no.:", "K9-0042"))


def _captions_under_their_lines() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 70), "EMPLOYEE INFORMATION", fontsize=13, fontname="tiro")
    for c, column in enumerate(COLUMNS):
        x = 40 + 280 * c
        for r, (caption, value) in enumerate(column):
            y = 110 + 41 * r  # the line; its caption just under it
            page.draw_line((x, y), (x + 240, y), color=(0.5, 0.5, 0.5), width=0.5)
            page.insert_text((x + 1, y + 9), caption, fontsize=9, fontname="tiro")
            add_text_widget(page, caption, pymupdf.Rect(x, y - 15, x + 240, y - 1), value, 11)
    for r, (caption, value) in enumerate(BESIDE):  # and a few captions with their blank after them
        y = 260 + 20 * r
        page.insert_text((40, y), caption, fontsize=10, fontname="tiro")
        start = 42 + pymupdf.get_text_length(caption, fontname="tiro", fontsize=10)
        add_text_widget(page, caption, pymupdf.Rect(start, y - 11, start + 150, y + 2), value, 11)
    page.insert_text((40, 340), "Keep a copy of this form for your records. Return it to the office.", fontsize=10,
                     fontname="tiro")
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_value_on_a_line_belongs_to_the_caption_under_it(engine):
    """Failed before: each caption took the value typed on the line below it (the next row's)."""
    fields = {f.key: f.value for f in ingest_fields(_captions_under_their_lines(), "under.pdf", engine) if f.key}
    for column in COLUMNS:
        for caption, value in column:
            assert fields.get(caption) == value, (caption, fields)
