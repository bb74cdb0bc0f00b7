"""Geometry pairing of flattened forms: the sample form against its truth, labels of check boxes,
pages that are not forms, and US-style ruled rows drawn in code."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest

from core.categories import Category
from core.forms.fields import extract_fields
from core.forms.form_field import FormField
from core.forms.labels import form_signal, label_candidates, mark_label
from core.forms.units import page_units
from core.ingest.pipeline import ingest_bytes, ingest_path
from core.model import Document, Element, Page
from core.review.corrections import corrected_document
from core.store.opening import open_workspace
from tests.conftest import REALDATA

ROOT = Path(__file__).resolve().parents[2]


def _n(s: str) -> str:
    import unicodedata

    return "".join(unicodedata.normalize("NFKC", s or "").split())


def test_geometry_pairs_the_flattened_sample_form_like_its_truth(flat_fields):
    _, fields, truth = flat_fields
    got = {(_n(f.key), _n(f.value), f.value_type, f.selection_state) for f in fields}
    want = {(_n(t["key"]), _n(t["value"]), t["value_type"], t["selection_state"] or "unknown")
            for t in truth["form_fields"]}
    assert want - got == set(), f"missed: {sorted(want - got)}"
    assert len(fields) == len(truth["form_fields"]), f"extra: {sorted(got - want)}"
    assert all(f.source == "geometry" for f in fields)


def test_geometry_keeps_empty_boxes_and_groups_check_boxes_under_their_row_label(flat_fields):
    _, fields, _ = flat_fields
    empty = {f.key for f in fields if f.value_type == "empty_value"}
    assert {"仮払金", "備考", "所属長承認日", "経理部受付日"} <= empty
    marks = [f for f in fields if f.is_selection and f.group == "経費区分"]
    assert len(marks) == 6 and {f.key for f in marks if f.selection_state == "selected"} == {"交通費", "宿泊費", "日当"}


def test_a_check_box_takes_the_label_on_its_left_when_none_is_on_its_right():

    doc_id = "0123456789abcdef"
    label = Element("l1", 1, 0, Category.TEXT, (100, 100, 300, 112), "check here", "fast")
    mark = Element("m1", 1, 1, Category.SELECTION_MARK, (320, 101, 330, 111), "☐", "fast", state="unselected")
    doc = Document(doc_id, "x.pdf", "0" * 64, "fast", (Page(1, 595, 842, elements=(label, mark)),))
    fields = extract_fields(doc)
    assert [(f.key, f.selection_state, f.source_element_ids) for f in fields] == \
        [("check here", "unselected", ("l1", "m1"))]
    units = page_units(doc, doc.page(1))
    assert mark_label(mark.bbox, label_candidates(units), set()).id == "l1"


def test_prose_pages_yield_no_fields():
    lines = [Element(f"t{i}", 1, i, Category.TEXT, (60, 100 + 14 * i, 300, 112 + 14 * i), f"本文の{i}行目です", "fast")
             for i in range(5)]
    lines.append(Element("t9", 1, 9, Category.TEXT, (320, 100, 540, 112), "右の段の文章", "fast"))
    doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (Page(1, 595, 842, elements=tuple(lines)),))
    assert extract_fields(doc) == ()


@pytest.mark.parametrize("relative", ["pdfs/ja/kyokuyo_kessan_tanshin_H26_p15_twotables.pdf",
                                      "pdfs/spreads_landscape/mitsubishi_electric_ar2021_p62-63_spread.pdf"])
def test_ruled_financial_tables_are_not_read_as_form_fields(relative, tmp_path):

    path = REALDATA / relative
    if not path.exists():
        pytest.skip(f"{path} is absent: the real third-party files are not part of the repository")
    ws = open_workspace(tmp_path / "ws")
    record = ingest_path(ws, path, engine="fast").record
    assert extract_fields(corrected_document(ws, record.doc_id)) == ()


def test_the_sample_regulation_has_no_form_fields(tmp_path):

    path = ROOT / "sample_docs" / "keihi_seisan_kitei.pdf"
    if not path.exists():
        pytest.skip("sample_docs missing: run python sample_docs/generate.py")
    ws = open_workspace(tmp_path / "ws")
    record = ingest_path(ws, path, engine="fast").record
    assert extract_fields(corrected_document(ws, record.doc_id)) == ()


def test_dates_with_colons_in_a_timeline_do_not_make_a_page_a_form():

    lines = [Element(f"t{i}", 1, i, Category.TEXT, (60, 100 + 20 * i, 140, 112 + 20 * i), f"20{17 + i}年{i + 1}月:",
                     "fast") for i in range(4)]
    page = Page(1, 595, 842, elements=tuple(lines))
    doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (page,))
    assert not form_signal(page, page_units(doc, page))
    labels = [replace(e, text=t) for e, t in zip(lines, ("氏名:", "住所:", "電話:", "備考:"))]
    page = Page(1, 595, 842, elements=tuple(labels))
    assert form_signal(page, page_units(replace(doc, pages=(page,)), page))


# ---- US-style ruled rows (tiny flattened PDFs drawn in code) ----------------------------------
def fields_of(tmp_path, pdf: pymupdf.Document, name: str) -> tuple[FormField, ...]:
    """The fields geometry finds in `pdf`, ingested with the fast engine into a new workspace."""
    ws = open_workspace(tmp_path / "ws")
    try:
        return extract_fields(corrected_document(ws, ingest_bytes(ws, pdf.tobytes(), name, engine="fast").record.doc_id))
    finally:
        ws.close()


def _drawn_form_fields(tmp_path, draw) -> tuple[FormField, ...]:

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    draw(page)
    for i, label in enumerate(("Name:", "Phone:", "Email:")):  # the colon labels that show a form
        page.insert_text((36, 700 + 14 * i), label, fontsize=9)
    return fields_of(tmp_path, pdf, "drawn.pdf")


def _line(page, a, b, width=0.5) -> None:
    page.draw_line(pymupdf.Point(*a), pymupdf.Point(*b), width=width)


def _amount_lines(page) -> None:
    """Two numbered lines: label, dot leaders, the line number in its own box, then dollars and cents."""
    for n, (label, top) in enumerate((("Tentative total tax", 300), ("Total payments and credits", 324)), start=6):
        page.insert_text((45, top + 9), str(n), fontsize=9)
        page.insert_text((65, top + 9), label, fontsize=9)
        x = 65 + pymupdf.get_text_length(label, fontsize=9) + 8
        while x < 452:
            page.insert_text((x, top + 9), ".", fontsize=9)
            x += 12
        page.insert_text((469, top + 9), str(n), fontsize=9)
        for wall in (461, 482, 554):
            _line(page, (wall, top), (wall, top + 12))
        _line(page, (461, top + 12), (576, top + 12))


def test_a_line_number_box_is_skipped_and_the_cents_box_continues_the_amount_field(tmp_path):
    fields = _drawn_form_fields(tmp_path, _amount_lines)
    pairs = {f.key: f for f in fields}
    assert set(pairs) == {"Tentative total tax", "Total payments and credits"}
    for f in pairs.values():
        assert f.value == "" and f.value_type == "empty_value"
        x0, _, x1, _ = f.value_bbox
        assert abs(x0 - 482) <= 2 and abs(x1 - 576) <= 2  # dollars and cents, not the "6"/"7" box


def test_a_comma_and_century_labels_the_year_blank_after_it(tmp_path):
    def draw(page):
        page.insert_text((65, 109), "Tax year beginning", fontsize=9)
        _line(page, (150, 110), (220, 110))
        page.insert_text((222, 109), ", 20", fontsize=9)
        _line(page, (240, 110), (256, 110))
        page.insert_text((260, 109), "and ending", fontsize=9)
        _line(page, (310, 110), (380, 110))
        page.insert_text((382, 109), ", 20", fontsize=9)
        _line(page, (400, 110), (416, 110))

    fields = _drawn_form_fields(tmp_path, draw)
    blanks = sorted(round(f.value_bbox[0]) for f in fields if f.value_type == "empty_value")
    assert blanks == [150, 240, 310, 400]
    assert all(f.key in ("Tax year beginning", "and ending", ", 20") for f in fields)


def test_a_lone_number_after_a_comma_is_not_a_label_where_nothing_is_ruled(tmp_path):
    def draw(page):
        page.insert_text((65, 109), "Name:", fontsize=9)
        page.insert_text((120, 109), "Jane Doe", fontsize=9)
        page.insert_text((65, 129), "Signed in Boston", fontsize=9)
        page.insert_text((150, 129), ", 20", fontsize=9)
        page.insert_text((180, 129), "March 3", fontsize=9)

    fields = _drawn_form_fields(tmp_path, draw)
    assert ", 20" not in {f.key for f in fields}


def test_a_vertical_heading_of_stacked_words_is_not_a_key(tmp_path):
    def draw(page):
        for i, word in enumerate(("Print", "or", "Type")):
            page.insert_text((36, 108 + 13 * i), word, fontsize=10)
        for top in (94, 118, 142):
            _line(page, (86, top), (576, top))
        _line(page, (86, 94), (86, 142))
        _line(page, (576, 94), (576, 142))
        page.insert_text((90, 103), "Name", fontsize=9)
        page.insert_text((90, 127), "Number, street, and room or suite no.", fontsize=9)

    keys = {f.key for f in _drawn_form_fields(tmp_path, draw)}
    assert not keys & {"Print", "or", "Type"}
    assert {"Name", "Number, street, and room or suite no."} <= keys


def test_the_header_row_of_a_printed_code_table_is_not_a_field(tmp_path):
    def draw(page):
        page.insert_text((36, 100), "Application", fontsize=9)
        page.insert_text((36, 111), "Is For:", fontsize=9)
        page.insert_text((240, 100), "Form", fontsize=9)
        page.insert_text((240, 111), "Code", fontsize=9)
        for i in range(6):
            page.insert_text((36, 124 + 12 * i), f"Form 10{i}{i}-X", fontsize=9)
            page.insert_text((247, 124 + 12 * i), f"0{i + 1}", fontsize=9)

    values = {f.value for f in _drawn_form_fields(tmp_path, draw)}
    assert "Code" not in values and not values & {f"0{i + 1}" for i in range(6)}


@pytest.mark.parametrize("tick,font,state", [("G", "ZapfDingbats", "selected"), ("✓", "Helvetica", "selected"),
                                              ("1", "Helvetica", "unknown")])
def test_a_dingbat_or_symbol_inside_an_unknown_square_checks_it_but_a_digit_does_not(tick, font, state):
    from core.model import freeze_attrs

    square = Element("s1", 1, 0, Category.DECORATIVE, (73, 503, 90, 520), "", "fast",
                     attrs=freeze_attrs({"kind": "square", "filled": False}))
    glyph = Element("g1", 1, 1, Category.TEXT, (77, 506, 86, 517), tick, "fast",
                    attrs=freeze_attrs({"fonts": (font,)}))
    label = Element("l1", 1, 2, Category.TEXT, (101, 506, 189, 518), "Bachelor's degree", "fast")
    doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (Page(1, 612, 792, elements=(square, glyph, label)),))
    marks = [u for u in page_units(doc, doc.page(1)) if u.kind == "mark"]
    assert [m.state for m in marks] == [state]


# ---- filled-in forms, flattened -----------------------------------------------------------------
def _cell_form(value_size: float) -> Document:
    """A US-style ruled row ("City" at the top of its cell, "State" beside it) whose printed caption
    and filled-in value were read as one text block, as a flattened form's figure region is."""
    block = Element("blk", 1, 0, Category.PICTURE, (38, 598, 460, 626), "City State K9 45", "fast", attrs=(
        ("lines", ((38, 598, 52, 606, "City", 8.0, 0), (424, 598, 443, 606, "State", 8.0, 0),
                   (39, 611, 51, 622, "K9", value_size, 0), (429, 611, 441, 622, "45", value_size, 0))),
        ("size", 8.0)))
    colons = [Element(f"c{i}", 1, i + 1, Category.TEXT, (36, 700 + 14 * i, 70, 709 + 14 * i), label, "fast")
              for i, label in enumerate(("Name:", "Phone:", "Email:"))]
    rulings = {"1": {"h": ((596.0, 36.0, 577.0), (630.0, 36.0, 577.0)),
                     "v": ((36.0, 596.0, 630.0), (420.0, 596.0, 630.0), (577.0, 596.0, 630.0))}}
    page = Page(1, 612, 792, elements=(block, *colons))
    return Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (page,), meta=(("rulings", rulings),))


def test_a_filled_value_set_in_another_size_under_its_caption_is_the_value_not_the_caption_running_on():
    """Failed before: text below a caption in the caption's own block was taken for the caption's
    second line whatever its size, so the filled-in value was lost (CMS-1490S, filled and baked)."""
    pairs = {f.key: f.value for f in extract_fields(_cell_form(10.0))}
    assert pairs.get("City") == "K9" and pairs.get("State") == "45"
    # set in the caption's own size it still reads as the label running on: no value taken
    assert "K9" not in {f.value for f in extract_fields(_cell_form(8.0))}


def test_a_filled_amount_box_keeps_its_own_value_even_in_words_and_the_cents_box_is_not_glued_on(tmp_path):
    """Failed before: "AB016 Lee" in a dollars box read as a label (no field), and a cents box
    holding its own filled text was glued onto the dollars value."""
    def draw(page):
        _amount_lines(page)
        page.insert_text((486, 309), "AB016 Lee", fontsize=8)
        page.insert_text((558, 309), "73", fontsize=8)
        page.insert_text((486, 333), "50,461", fontsize=8)

    fields = _drawn_form_fields(tmp_path, draw)
    tax, paid = (min((f for f in fields if f.key == k), key=lambda f: f.value_bbox[0])  # the cents box is a field too
                 for k in ("Tentative total tax", "Total payments and credits"))
    assert tax.value == "AB016 Lee" and 482 <= tax.value_bbox[0] and tax.value_bbox[2] <= 556
    assert paid.value == "50,461"


def _boxed_form(tmp_path, filled: bool) -> tuple[FormField, ...]:
    """Captions printed left of bordered text widgets (no colon, no check box), one of them a comb
    of ten cells, filled or not, then baked: the page keeps boxes and text, no widget."""

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    rows = (("Applicant name", "Jordan A. Whitfield", 0), ("Amount claimed", "1,234.56", 0), ("Member code", "K9X", 10))
    for i, (caption, value, comb) in enumerate(rows):
        top = 60 + 36 * i
        page.insert_text((21, top + 14), caption, fontname="tiro", fontsize=10)
        w = pymupdf.Widget()
        w.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
        w.field_name = f"f{i}"
        w.rect = pymupdf.Rect(147, top, 147 + (30 * comb if comb else 440), top + 20)
        w.border_color, w.border_width, w.text_fontsize = (0, 0, 0), 1, 10
        if comb:
            w.text_maxlen, w.field_flags = comb, 1 << 24  # comb: one character per cell
        w.field_value = value if filled else ""
        page.add_widget(w)
        if comb:  # the comb's cell walls, as a form designer prints them
            for k in range(1, comb):
                _line(page, (147 + 30 * k, top), (147 + 30 * k, top + 20), width=1)
    pdf.bake()
    return fields_of(tmp_path, pdf, "boxed.pdf")


def test_captions_each_beside_a_ruled_box_show_a_form_and_a_comb_field_is_one_value(tmp_path):
    """Failed before: with no colon label and no check box the page was not taken for a form, so a
    filled, flattened form of captioned boxes gave no field at all; and a comb's characters, one per
    cell, were read as the first cell's value alone."""
    pairs = {f.key: f for f in _boxed_form(tmp_path, filled=True)}
    assert {k: f.value.replace(" ", "") for k, f in pairs.items()} == \
        {"Applicant name": "JordanA.Whitfield", "Amount claimed": "1,234.56", "Member code": "K9X"}
    empty = {f.key: f.value_type for f in _boxed_form(tmp_path / "empty", filled=False)}
    assert empty == {"Applicant name": "empty_value", "Amount claimed": "empty_value", "Member code": "empty_value"}


def test_a_filled_box_right_after_a_value_box_is_a_value_of_the_same_key_and_a_filled_digit_is_no_line_number(tmp_path):
    """Failed before: the cents box after a filled dollars box, and the second digit of a two-box
    code, were no field at all; and a code digit typed in a box (in another size than the form's
    print) was taken for the line's printed number and dropped."""
    def draw(page):
        _amount_lines(page)
        page.insert_text((486, 309), "50,461", fontsize=8)
        page.insert_text((560, 309), "73", fontsize=8)
        label = "Enter the form code for the return"
        page.insert_text((65, 200), label, fontsize=9)
        x = 65 + pymupdf.get_text_length(label, fontsize=9) + 8
        while x < 535:
            page.insert_text((x, 200), ".", fontsize=9)
            x += 12
        _line(page, (547, 191), (576, 191))
        _line(page, (547, 201), (576, 201))
        for wall in (547, 562, 576):
            _line(page, (wall, 191), (wall, 201))
        page.insert_text((552, 199), "3", fontsize=8)
        page.insert_text((567, 199), "1", fontsize=8)

    fields = _drawn_form_fields(tmp_path, draw)
    tax = sorted((f.value_bbox[0], f.value) for f in fields if f.key == "Tentative total tax")
    assert [v for _, v in tax] == ["50,461", "73"] and tax[1][0] >= 554
    code = sorted((f.value_bbox[0], f.value) for f in fields if f.key == "Enter the form code for the return")
    assert [v for _, v in code] == ["3", "1"]


def test_each_stored_line_keeps_its_font_so_a_unit_knows_it(tmp_path):
    """Failed before: ingest kept an element's fonts but not which line was set in which, so a
    caption and the value typed under it in one block could not be told apart by font."""

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    page.insert_text((60, 100), "City or town", fontname="tiro", fontsize=9)
    page.insert_text((60, 111), "Portland OR", fontname="helv", fontsize=9)
    ws = open_workspace(tmp_path / "ws")
    doc = corrected_document(ws, ingest_bytes(ws, pdf.tobytes(), "fonts.pdf", engine="fast").record.doc_id)
    ws.close()
    fonts = {u.text: u.font for u in page_units(doc, doc.page(1))}
    assert fonts == {"City or town": "Times-Roman", "Portland OR": "Helvetica"}


def test_blanks_printed_as_underscores_are_lines_to_write_on(tmp_path):
    """Failed before: "what?______" was one text, not a caption and a blank, and a questionnaire of
    such blanks (no colon label, no box) was not taken for a form: the values written on the
    blanks were no field."""

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    for i, (question, caption, value) in enumerate((("Did you eat before bed?", "what?", "toast"),
                                                     ("Did you drink alcohol?", "how much?", "one glass"))):
        y = 120 + 14 * i
        page.insert_text((40, y), question, fontsize=10)
        page.insert_text((300, y), caption + "_" * 20, fontsize=10)
        w = pymupdf.Widget()  # the value typed on the blank, then baked into the page
        w.field_type, w.field_name, w.text_fontsize = pymupdf.PDF_WIDGET_TYPE_TEXT, f"t{i}", 7
        w.rect = pymupdf.Rect(345, y - 9, 440, y + 1)
        w.field_value = value
        page.add_widget(w)
    pdf.bake()
    ws = open_workspace(tmp_path / "ws")
    doc = corrected_document(ws, ingest_bytes(ws, pdf.tobytes(), "blanks.pdf", engine="fast").record.doc_id)
    ws.close()
    assert {f.key: f.value for f in extract_fields(doc)} == {"what?": "toast", "how much?": "one glass"}


def test_a_dingbat_tick_printed_alone_is_a_ticked_check_box_but_a_dingbat_bullet_before_text_is_not(tmp_path):
    """A flattened check box whose appearance draws no border prints only its tick (a layout model
    may also take the box's square into a figure): the tick is the box. A dingbat on the line of the
    text it leads is a bullet."""
    def draw(page):
        for i, label in enumerate(("Full membership", "Reduced membership")):
            y = 200 + 24 * i
            page.insert_text((100, y), "4", fontname="zadb", fontsize=12)  # ✔, no box drawn around it
            page.insert_text((120, y), label, fontsize=11)
        page.insert_text((100, 400), "4", fontname="zadb", fontsize=11)  # a bullet: its text follows on its line
        page.insert_text((111, 400), "Bring your badge to every meeting", fontsize=11)

    fields = _drawn_form_fields(tmp_path, draw)
    ticked = {f.key: f.selection_state for f in fields if f.is_selection}
    assert ticked == {"Full membership": "selected", "Reduced membership": "selected"}


def test_a_line_typed_under_a_question_is_its_answer_but_print_under_it_is_not(tmp_path):
    """A filled questionnaire, flattened: the answer is typed in a smaller size on the line under the
    question, a little apart. Text under a question in the question's own size is more print."""
    def draw(page):
        page.insert_text((36, 100), "Temperature: What is the temperature of the room? Is it too hot or too cold?",
                         fontsize=10)
        page.insert_text((38, 124), "Warm, about 24 degrees", fontsize=7)  # typed
        page.insert_text((36, 200), "Did you sleep well?", fontsize=10)
        page.insert_text((38, 224), "Write the hours slept in the table", fontsize=10)  # printed

    fields = {f.key: f.value for f in _drawn_form_fields(tmp_path, draw)}
    assert fields.get("Temperature: What is the temperature of the room? Is it too hot or too cold?") \
        == "Warm, about 24 degrees"
    assert "Did you sleep well?" not in fields and "Write the hours slept in the table" not in fields.values()


def _bare_boxes(page) -> None:
    """A form that prints no captions (a test form of bare fields, filled and flattened): values
    each alone in a box of its own, one turned; beside them a small ruled table of printed cells."""
    page.draw_rect((300, 130, 450, 152), color=(0, 0, 0), fill=(0.8, 0.8, 0.8))
    page.insert_text((304, 146), "221B Baker Street", fontsize=11)
    page.draw_rect((200, 100, 220, 220), color=(0, 0, 0))
    page.insert_text((214, 215), "45", fontsize=11, rotate=90)
    page.draw_rect((300, 60, 420, 80), color=(0, 0, 0))
    page.insert_text((304, 75), "1,234.56", fontsize=11)
    for r in range(2):
        for c in range(2):
            page.draw_rect((300 + 60 * c, 400 + 20 * r, 360 + 60 * c, 420 + 20 * r), color=(0, 0, 0))
            page.insert_text((304 + 60 * c, 414 + 20 * r), f"cell {r}{c}", fontsize=10)


def test_a_value_alone_in_a_box_of_its_own_is_a_field_without_a_key(tmp_path):
    """Failed before: a value is only found from its key, so the boxes of a form with no printed
    captions gave no field; a table's cells (frames that share their rules) give none still."""
    fields = _drawn_form_fields(tmp_path, _bare_boxes)
    keyless = sorted(f.value for f in fields if not f.key and f.value)
    assert keyless == ["1,234.56", "221B Baker Street", "45"]


def _lines_captioned_below(page) -> None:
    """A date line and a signature line, each named by a caption centred under it; further down
    a body line over a rule across the page with a page number centred under it."""
    page.insert_text((104, 560), "12/31/25", fontsize=12)
    _line(page, (100, 566), (220, 566))
    page.insert_text((148, 576), "Date", fontsize=8)
    _line(page, (240, 566), (500, 566))
    page.insert_text((348, 576), "Signature", fontsize=8)
    page.insert_text((40, 640), "Return the form to the club office by the end of the month.", fontsize=8)
    _line(page, (36, 646), (576, 646))
    page.insert_text((296, 656), "Page 1", fontsize=8)


def test_a_caption_centred_under_a_line_names_what_is_written_on_it(tmp_path):
    """Failed before: "Date" under its line took the empty area below itself and the date written
    on the line was no field."""
    fields = _drawn_form_fields(tmp_path, _lines_captioned_below)
    got = {f.key: f.value for f in fields if f.key in ("Date", "Signature", "Page 1")}
    assert got == {"Date": "12/31/25", "Signature": ""}
    signature = next(f for f in fields if f.key == "Signature")
    assert signature.value_bbox[3] <= 567  # the empty line above the caption, not the area below it


def test_a_figures_node_labels_in_boxes_are_not_keyless_values(realdata, tmp_path):
    """Failed with the first keyless-value rule: a paper's diagram (nodes "headed", "was-hit" in
    boxes) on a page the form signal misreads gave six fields of a figure's words."""

    path = realdata / "wild" / "pdfminersix__samples_nonfree_naacl06-shinyama.pdf"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    ws = open_workspace(tmp_path / "ws")
    doc = corrected_document(ws, ingest_path(ws, path, engine="fast").record.doc_id)
    ws.close()
    assert not [f.value for f in extract_fields(doc) if f.page == 2 and not f.key and f.value]


# ---- filled, flattened: values typed into boxes that stand apart ---------------------------------
def _boxed_page_fields(tmp_path, grid: bool) -> tuple[FormField, ...]:
    """A page printed in Times: a sentence, then two boxes with a caption each right above them, each box
    holding one line typed in Helvetica (a filled form, baked). `grid`: the boxes share walls with
    empty neighbours, as a table's cells do."""

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    page.insert_text((72, 72), "Please complete both parts of this request and sign it.", fontname="tiro", fontsize=11)
    for i, (caption, value) in enumerate((("Applicant", "Jordan A. Whitfield"), ("Reference", "AB016"))):
        top = 150 + 90 * i
        page.insert_text((72, top - 4), caption, fontname="tiro", fontsize=11)
        page.draw_rect(pymupdf.Rect(72, top, 300, top + 20), width=0.8)
        if grid:
            page.draw_rect(pymupdf.Rect(300, top, 420, top + 20), width=0.8)
        page.insert_text((76, top + 14), value, fontname="helv", fontsize=10)
    return fields_of(tmp_path, pdf, "boxes.pdf")


def test_values_typed_into_boxes_standing_apart_show_a_filled_form(tmp_path):
    # before: no colon labels, no check box, no caption beside a box: the page was not a form at all
    pairs = {(f.key, f.value) for f in _boxed_page_fields(tmp_path, grid=False)}
    assert pairs == {("Applicant", "Jordan A. Whitfield"), ("Reference", "AB016")}


def test_the_same_lines_in_cells_of_a_grid_do_not_make_a_form(tmp_path):
    assert _boxed_page_fields(tmp_path, grid=True) == ()


def _unboxed_page_fields(tmp_path, under: bool, value_font: str = "helv", stray: bool = False) -> tuple[FormField, ...]:
    """A form printed in Times, filled and flattened with no box drawn: each value typed in Helvetica
    beside its caption (or under it, the caption small), nothing else on the page set in Helvetica."""

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    page.insert_text((72, 60), "Registration of a new member of the association", fontname="tiro", fontsize=14)
    rows = (("Name", "Jordan A. Whitfield"), ("Member number", "AB016"), ("City", "Portland, OR 97205"))
    for i, (caption, value) in enumerate(rows):
        y = 120 + 40 * i
        page.insert_text((72, y), caption, fontname="tiro", fontsize=8 if under else 11)
        page.insert_text((72, y + 13) if under else (200, y), value, fontname=value_font, fontsize=10)
    if stray:  # a fourth value typed far from any caption (its caption printed elsewhere)
        page.insert_text((400, 400), "K9-4471", fontname=value_font, fontsize=10)
    return fields_of(tmp_path, pdf, "unboxed.pdf")


@pytest.mark.parametrize("under", [False, True])
def test_values_typed_in_a_typeface_of_their_own_pair_with_their_captions_unboxed(tmp_path, under):
    # before: no box, no colon, no mark: not a form, and no rule took a caption's typed line
    pairs = {(f.key, f.value) for f in _unboxed_page_fields(tmp_path, under)}
    assert pairs == {("Name", "Jordan A. Whitfield"), ("Member number", "AB016"), ("City", "Portland, OR 97205")}


def test_lines_in_the_captions_own_typeface_stay_print(tmp_path):
    assert _unboxed_page_fields(tmp_path, under=False, value_font="tiro") == ()


def test_a_value_in_a_ruled_box_at_the_page_top_is_a_value_not_a_running_head(realdata, tmp_path):
    # pdf.js bug1675139 filled and baked: its turned text field prints "45" in a tall box near the top,
    # which ingest classes as a page header; units skipped it, so it was no field
    from bench.form_filling import fill_form

    path = realdata / "pdfs" / "widget_corpus" / "pdfjs__bug1675139.pdf"
    if not path.exists():
        pytest.skip(f"{path} missing")
    doc = pymupdf.open(stream=fill_form(path.read_bytes()), filetype="pdf")
    doc.bake()
    ws = open_workspace(tmp_path / "ws")
    rec = ingest_bytes(ws, doc.tobytes(), "flat.pdf", engine="fast").record
    flat = corrected_document(ws, rec.doc_id)
    fields = extract_fields(flat)
    ws.close()
    assert any(e.category is Category.PAGE_HEADER and e.text.strip() == "45" for e in flat.pages[0].elements)
    box = next(e.bbox for e in flat.pages[0].elements if e.category is Category.PAGE_HEADER and e.text.strip() == "45")
    assert any(f.value == "45" and f.page == 1 and f.value_bbox is not None
               and abs(f.value_bbox[0] - box[0]) < 5 and abs(f.value_bbox[1] - box[1]) < 5 for f in fields)


def test_one_typed_value_far_from_any_caption_leaves_the_typeface_typed(tmp_path):
    # before: one uncaptioned line in Helvetica made Helvetica print, and no value was read
    pairs = {(f.key, f.value) for f in _unboxed_page_fields(tmp_path, under=False, stray=True) if f.key}
    assert pairs == {("Name", "Jordan A. Whitfield"), ("Member number", "AB016"), ("City", "Portland, OR 97205")}


def _form_with_a_letterhead_footer(tmp_path, boxed: bool) -> tuple[FormField, ...]:
    """A form printed in Times: captions over boxes, each box holding a value typed in Helvetica (or,
    `boxed` False, the values typed under captions ending in a colon, with no box), and a footer of
    the association's own details printed in Times ("IBAN: AT92 …")."""
    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    page.insert_text((72, 60), "Application for membership", fontname="tiro", fontsize=16)
    for i, (caption, value) in enumerate((("Given name", "Jordan"), ("Family name", "Whitfield"))):
        top = 120 + 50 * i
        page.insert_text((72, top - 4), caption + ("" if boxed else ":"), fontname="tiro", fontsize=8)
        if boxed:
            page.draw_rect(pymupdf.Rect(72, top, 300, top + 20), width=0.8)
        page.insert_text((76, top + 14), value, fontname="helv", fontsize=11)
    for i, (caption, value) in enumerate((("IBAN:", "AT92 2040 4000 4096 8679"), ("Bank:", "Salzburger Sparkasse"))):
        page.insert_text((340, 740 + 13 * i), caption, fontname="tiro", fontsize=8)
        page.insert_text((400, 740 + 13 * i), value, fontname="tiro", fontsize=8)
    return fields_of(tmp_path, pdf, "letterhead.pdf")


def test_a_footer_printed_in_the_forms_face_is_no_field_where_values_were_typed_into_boxes(tmp_path):
    """Failed before: "IBAN:" took the account number printed beside it, in its own face and size, as
    a filled value (pdf.js bug1669099's footer gave nine such fields)."""
    fields = _form_with_a_letterhead_footer(tmp_path, boxed=True)
    assert {(f.key, f.value) for f in fields if f.value} == {("Given name", "Jordan"), ("Family name", "Whitfield")}


def test_with_no_value_typed_into_a_box_a_caption_still_takes_the_text_beside_it(tmp_path):
    # nothing shows the page's typing apart from its print: print beside a caption may be its value
    fields = _form_with_a_letterhead_footer(tmp_path, boxed=False)
    assert ("IBAN", "AT92 2040 4000 4096 8679") in {(f.key, f.value) for f in fields}


def test_the_gap_between_a_buttons_two_border_rules_is_no_value_box():
    """Failed before: a push button's caption inside its double border took the 2 pt band between the
    two rules on its right as an empty value (pdf.js issue12706's 'Clear', layout engine)."""
    from core.forms.rulings import Rulings
    from core.forms.units import Unit
    from core.forms.values import value_for

    def frame(x0, y0, x1, y1):
        return [(y0, x0, x1), (y1, x0, x1)], [(x0, y0, y1), (x1, y0, y1)]

    (oh, ov), (ih, iv) = frame(374, 361, 446, 384), frame(376, 363, 444, 382)  # outer and inner border
    rulings = Rulings(tuple(oh + ih), tuple(ov + iv))
    key = Unit("k", 1, (394.7, 367.4, 424.7, 376.6), "Clear", "e", Category.TEXT)
    assert value_for(key, [key], rulings, (), set(), "doc", 1) is None
