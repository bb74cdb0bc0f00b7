"""A form written as sentences with blanks in them (docassemble's Transfer of Ownership: "I, ______, do hereby
grant everything I own to my dear friend ______"): the blanks are drawn rules, the values typed on them in the
filler's face, the sentence in the form's. No colon, no box, no caption of its own shows it a form. Real
widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf

from bench.forms import ingest_fields
from core.forms.labels import lines_on_blanks
from core.forms.rulings import Rulings
from core.forms.units import Unit
from form_fixtures import add_text_widget

SENTENCES = ((("I, ", "Jordan A. Whitfield", ", do hereby grant everything I own to my dear")),
             (("friend ", "Maria Gonzalez", ", including but not limited to my prized")),
             (("collection of ", "1,234.56", " stamps.")))


def _letter_with_blanks() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((222, 90), "Transfer of Ownership", fontsize=18, fontname="tibo")
    for k, (before, value, after) in enumerate(SENTENCES):
        y = 120 + 20 * k
        page.insert_text((72, y), before, fontsize=11, fontname="tiro")
        x = 72 + pymupdf.get_text_length(before, fontname="tiro", fontsize=11)
        page.draw_line((x, y + 1), (324, y + 1), color=(0, 0, 0), width=0.7)
        add_text_widget(page, f"blank{k}", pymupdf.Rect(x, y - 12, 324, y + 1), value, 10)
        page.insert_text((324, y), after, fontsize=11, fontname="tiro")
    page.insert_text((72, 200), "Signed,", fontsize=11, fontname="tiro")
    doc.bake()
    return doc.tobytes()


def test_values_typed_on_the_blanks_of_a_letter_are_fields():
    """Failed before: the page was not taken for a form, so no field was read."""
    values = {f.value for f in ingest_fields(_letter_with_blanks(), "letter.pdf", "fast")}
    assert {value for _, value, _ in SENTENCES} <= values


def _unit(uid: str, box: tuple[float, float, float, float], font: str) -> Unit:
    return Unit(uid, 1, box, uid, "e", None, size=10.0, font=font)


def test_an_underlined_heading_is_no_value_on_a_blank():
    """A rule as long as the text over it underlines it: no blank was left to write on."""
    heading = _unit("Methods", (72, 100, 130, 112), "Arial-BoldMT")
    body = _unit("We measured the samples twice", (72, 130, 300, 142), "Times-Roman")
    value = _unit("Jordan Lee", (72, 160, 130, 172), "Arial-BoldMT")
    rules = Rulings(h=((112.5, 72, 130), (172.5, 72, 330)), v=())
    assert lines_on_blanks([heading, body], rules) == []
    # the same face written on a blank far longer than itself is a value, once no text off a blank uses it
    assert lines_on_blanks([body, value], rules) == [value]
