"""Values typed on underlines right after their captions, rows of blanks stacked one under another
("Street or mailing address: ____ / City: ____ State: __ Zip: ____", the California FW-001): the
widget starts right after its caption's colon, so the typed value stands a hair from it, and each row
of captions sits just under the underline of the row above. Real widgets, filled and baked, as
bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_fields
from core.forms.labels import typed_families, typed_lines
from core.forms.rulings import Rulings
from core.forms.units import Unit
from core.categories import Category
from form_fixtures import add_text_widget

ROWS = ((("Street or mailing address:", "ADDRESS", 390),),
        (("City:", "CITY", 250), ("State:", "STATE", 312), ("Zip:", "ZIP", 390)),
        (("Phone:", "221B Baker Street, London", 315),),
        (("Your job, if you have one (job title):", "K9", 390),),
        (("Name of employer:", "Jordan A. Whitfield", 390),))


def _rows_of_underlined_blanks() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 80), "Your Information (person asking the court to waive the fees)", fontsize=12,
                     fontname="hebo")
    for r, row in enumerate(ROWS):
        y = 100 + 15 * r
        x = 40.0
        for c, (caption, value, end) in enumerate(row):
            page.insert_text((x, y), caption, fontsize=12, fontname="tiro")
            start = x + pymupdf.get_text_length(caption, fontname="tiro", fontsize=12) + 1
            page.draw_line((start, y + 1), (end, y + 1), color=(0, 0, 0), width=0.5)
            add_text_widget(page, f"f{r}{c}", pymupdf.Rect(start, y - 11, end, y + 1), value, 11)
            x = end + 3
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_each_caption_takes_the_value_typed_on_its_own_underline(engine):
    """Failed before: "Zip:" and "State:" took the address row's underline above them (empty), and the
    typed values were read as keys of the blanks under them."""
    fields = [f for f in ingest_fields(_rows_of_underlined_blanks(), "underlines.pdf", engine) if not f.is_selection]
    by_key = {f.key: f.value for f in fields if f.key}
    for row in ROWS:
        for caption, value, _ in row:
            assert by_key.get(caption.rstrip(":")) == value, (caption, by_key)
    values = {value for row in ROWS for _, value, _ in row}
    assert not values & set(by_key)  # a typed value is no key


def _unit(uid: str, text: str, box: tuple[float, float, float, float], font: str) -> Unit:
    return Unit(uid, 1, box, text, uid, Category.TEXT, font=font, size=box[3] - box[1])


def test_a_value_typed_right_after_a_colon_is_typed_beside_its_caption():
    """The filler's face is typed when its lines stand right after captions ending in a colon, however
    small the blank (failed before: half a text height was asked for, and "State: STATE" stood closer)."""
    texts = [_unit("c1", "City:", (61, 247, 83, 260), "TimesNewRomanPSMT"),
             _unit("v1", "CITY", (84, 248, 108, 259), "Helvetica"),
             _unit("c2", "State:", (261, 247, 286, 260), "TimesNewRomanPSMT"),
             _unit("v2", "STATE", (288, 248, 314, 259), "Helvetica"),
             _unit("c3", "Zip:", (316, 247, 330, 260), "TimesNewRomanPSMT"),
             _unit("v3", "ZIP", (331, 248, 348, 259), "Helvetica")]
    assert typed_families(texts) == {"helvetica"}
    # a sentence whose face changes midway is no caption and value
    prose = [_unit("p1", "The court may order", (61, 300, 160, 312), "TimesNewRomanPSMT"),
             _unit("p2", "you to answer", (161, 300, 230, 312), "Arial"),
             _unit("p3", "questions about", (61, 320, 160, 332), "TimesNewRomanPSMT"),
             _unit("p4", "your finances", (161, 320, 230, 332), "Arial")]
    assert typed_families(prose) == frozenset()


def test_a_row_of_amounts_after_a_line_number_is_typed_beside_its_caption():
    """A 1040's line: its caption, the line's number printed again before the amount box, the dollars
    and the cents typed in the filler's face. The number is no caption (the caption is before it), and
    the cents are typed after the dollars: the face is typed (failed before: no line counted, the
    number stood between each amount and its caption and the cents had only the dollars before them)."""
    rows = []
    for k, (caption, dollars, cents) in enumerate((
            ("Unemployment compensation and Alaska Permanent Fund dividends (see instructions).", "K9", "059"),
            ("Federal income tax withheld from Form(s) W-2 and 1099.", "Jordan A. Whitfield", "160"),
            ("Earned income credit (EIC) (see instructions).", "04/15/2026", "059"))):
        y = 252 + 24 * k
        rows += [_unit(f"n{k}", str(k + 3), (118, y, 125, y + 10), "TimesLTStd-Bold"),
                 _unit(f"c{k}", caption, (137, y + 1, 453, y + 11), "TimesLTStd-Roman"),
                 _unit(f"m{k}", str(k + 3), (471, y, 478, y + 10), "TimesLTStd-Bold"),
                 _unit(f"d{k}", dollars, (552 - 4.5 * len(dollars), y, 552, y + 11), "Helvetica"),
                 _unit(f"e{k}", cents, (561, y, 574, y + 11), "Helvetica")]
    assert typed_families(rows) == {"helvetica"}
    assert {f"{p}{k}" for p in "de" for k in range(3)} <= typed_lines(rows)


def test_a_column_of_values_typed_under_one_caption_is_typed_all_the_way_down():
    """A court form's list of accounts (fee_waiver, page 2): one caption over the column, then a value
    typed on each ruled row in the filler's face and size. Only the first has a caption over it; the
    rows under it are the same column (failed before: 1 of 3 lines typed, the face not typed, and the
    first value became the key of the amount beside it)."""
    caption = _unit("c", "All financial accounts (List bank name and amount):", (348, 152, 531, 161), "ArialMT")
    column = [_unit(f"v{k}", text, (365 + k % 2, 157 + 13 * k, 365 + 6 * len(text), 173 + 13 * k), "Helvetica")
              for k, text in enumerate(("Jordan A. Whitfield", "2026-03-14", "K9"))]
    rows = Rulings(h=((172.5, 363, 511), (185.5, 363, 511), (198.5, 363, 511)), v=())
    assert typed_lines([caption, *column], rows) >= {"v0", "v1", "v2"}
    assert "helvetica" in typed_families([caption, *column], rows)
    # a line in another size under it is no next row of the column, nor one whose left edge is off
    other_size = _unit("s", "K9", (365, 183, 380, 193), "Helvetica")
    set_off = _unit("o", "K9", (380, 183, 395, 199), "Helvetica")
    assert not {"s", "o"} & typed_lines([caption, column[0], column[1], other_size, set_off], rows)


def test_a_paragraph_under_a_heading_in_another_face_is_no_column_of_values():
    """A fill-in-the-blanks story (formalpdf's text_in_text): its first line stands under a heading in
    another face, its next lines as close under it as a column's rows, but no rule parts them: they
    are print, not values (the column rule without the rule made 26 of its lines values)."""
    heading = _unit("h", "VACATIONS", (28, 120, 110, 134), "Helvetica-Bold")
    story = [_unit(f"p{k}", text, (28, 141 + 13 * k, 28 + 5 * len(text), 153 + 13 * k), "TimesNewRomanPSMT")
             for k, text in enumerate(("A vacation is when you take", "a trip to some", "place with your",
                                       "family where you", "go swimming or"))]
    beyond_the_heading = {"p2", "p3", "p4"}  # the first two stand close enough under it for a caption's
    assert not beyond_the_heading & typed_lines([heading, *story], Rulings(h=(), v=()))
    assert not beyond_the_heading & typed_lines([heading, *story])
