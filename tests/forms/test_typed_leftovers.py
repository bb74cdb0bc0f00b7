"""Values the pairing rules found no place for, read by the face they were typed in: amounts typed in
a column after a dot leader and a "$" (a Massachusetts cover sheet's damages column). The captions are
printed in the form's face (Times), the values in the filler's (Helvetica); real widgets, filled and
baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_fields
from form_fixtures import add_text_widget

AMOUNTS = (("1. Total hospital expenses", "1,234.56"), ("2. Total doctor expenses", "50,461"),
           ("3. Total chiropractic expenses", "7004-B"), ("4. Total physical therapy expenses", "12/31/25"))
NAMED = (("PLAINTIFF(S):", "Jordan A. Whitfield"), ("COUNTY:", "Kim Min-jun"), ("ATTORNEY:", "hanako.sato@example.jp"))


def _damages_statement() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for k, (caption, value) in enumerate(NAMED):  # captions ending in a colon, each with a box after it
        y = 60 + 22 * k
        page.insert_text((20, y + 11), caption, fontsize=9, fontname="tiro")
        page.draw_rect(pymupdf.Rect(100, y, 380, y + 16), color=(0, 0, 0), width=0.5)
        add_text_widget(page, f"n{k}", pymupdf.Rect(101, y + 1, 379, y + 15), value, 10)
    page.insert_text((20, 150), "A. Documented medical expenses to date:", fontsize=9, fontname="tiro")
    for k, (caption, value) in enumerate(AMOUNTS):  # no box drawn: a dot leader and a "$" lead to the amount
        y = 160 + 11 * k
        dots = int((430 - 40 - pymupdf.get_text_length(caption + " ", fontname="tiro", fontsize=8))
                   / pymupdf.get_text_length(".", fontname="tiro", fontsize=8))
        page.insert_text((40, y + 8), caption + " " + "." * dots, fontsize=8, fontname="tiro")
        page.insert_text((440, y + 8), "$", fontsize=8, fontname="tiro")
        add_text_widget(page, f"a{k}", pymupdf.Rect(470, y, 560, y + 10), value, 8)
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_amounts_typed_after_dot_leaders_are_values_keyed_by_their_lines(engine):
    fields = [f for f in ingest_fields(_damages_statement(), "damages.pdf", engine) if f.value]
    by_value = {f.value: f.key for f in fields}
    for caption, value in AMOUNTS:
        assert by_value.get(value) == caption, (value, by_value)
    for caption, value in NAMED:
        assert by_value.get(value) == caption.rstrip(":")
