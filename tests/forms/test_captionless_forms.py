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


def _mark_widget(page, rect, radio: bool, name: str, on: bool) -> None:
    w = pymupdf.Widget()
    w.field_type = pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON if radio else pymupdf.PDF_WIDGET_TYPE_CHECKBOX
    w.field_name, w.rect = name, pymupdf.Rect(rect)
    w.border_color, w.border_width = (0, 0, 0), 1
    w.fill_color = (1, 0, 0) if radio else None
    page.add_widget(w)
    w.field_value = w.on_state() if on else "Off"
    w.update()


def _bare_radio_row() -> bytes:
    """Four radio buttons in a row as a flattened form prints them, none chosen (a red disc in a black
    ring, no dot), nothing printed beside them but a button's caption far off on the row."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=80)
    for x in (14, 56, 92, 133):  # painted as a widget's appearance paints it: the background, then the ring
        page.draw_circle((x + 8.5, 36.5), 8.5, color=None, fill=(1, 0, 0))
        page.draw_circle((x + 8.5, 36.5), 8, color=(0, 0, 0), width=1)
    page.insert_text((240, 41), "Change radio color", fontname="hebo", fontsize=12)
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_row_of_unlabelled_radio_buttons_is_a_form_of_unselected_marks(engine):
    """Failed before: a mark only showed a form through a short label of its own, so the page was no
    form and its four buttons no field."""
    marks = [f for f in ingest_fields(_bare_radio_row(), "radios.pdf", engine) if f.is_selection]
    assert len(marks) == 4 and {f.selection_state for f in marks} == {"unselected"}
    assert all(not f.key for f in marks)


def _options_in_a_spaced_line(ticked: bool) -> bytes:
    """"Option 1    Option 2    Option 3" printed as one line, its runs of spaces left for the boxes
    drawn into them: check boxes, all ticked or none."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    page.insert_text((90, 100), "Pick the options that apply:", fontname="tibo", fontsize=13)
    page.insert_text((90, 137), "       Option 1               Option 2                  Option 3",
                     fontname="tibo", fontsize=12)
    for i, x in enumerate((86, 180, 279)):
        _mark_widget(page, (x, 124, x + 19, 143), False, f"c{i}", ticked)
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
@pytest.mark.parametrize("ticked", [True, False])
def test_a_line_spaced_for_its_boxes_gives_each_box_the_label_after_it(engine, ticked):
    """Failed before: the line's box covered the three boxes, so none had a label of its own, the
    page showed no form, and an empty box (kept as an ornament under the line) had no state."""
    fields = ingest_fields(_options_in_a_spaced_line(ticked), "options.pdf", engine)
    got = sorted((f.key, f.selection_state) for f in fields if f.is_selection)
    state = "selected" if ticked else "unselected"
    assert got == [("Option 1", state), ("Option 2", state), ("Option 3", state)]


@pytest.mark.parametrize("text, box", [
    ("Tick the box below when you agree to the terms", (180, 98, 195, 114)),  # a sentence, a box over a word
    ("RdoGrp1", (94, 98, 103, 114)),  # a caption a group's box was drawn over (pypdf's FormTestFromOo)
])
def test_a_line_with_no_room_left_for_a_box_keeps_its_words_together(text, box):
    """A line whose spaces are single is not cut at a box drawn over it (the first version of the
    split gave a radio button the caption "RdoGrp1" printed under it, not its own "Rdo1")."""
    from core.forms.units import Unit, _split_at_marks

    line = Unit("l", 1, (90, 100, 350, 113), text, "e", None, size=12)
    mark = Unit("m", 1, box, "", "s", None, kind="mark", state="unknown")
    assert _split_at_marks(line, [mark]) is None


def _ticked_box_at_the_top() -> bytes:
    """A form whose first field is a ticked check box near the page's top edge, then captions and boxes."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _mark_widget(page, (112, 69, 125, 81), False, "cb", True)
    page.insert_text((129, 79), "this is CheckBox 1", fontsize=12)
    for i, caption in enumerate(("Name:", "Phone:", "Email:")):
        page.insert_text((57, 140 + 40 * i), caption, fontname="tiro", fontsize=12)
        page.draw_rect((130, 128 + 40 * i, 360, 146 + 40 * i), width=0.6)
    doc.bake()
    return doc.tobytes()


def test_a_tick_in_a_box_at_the_page_top_ticks_it_though_read_as_a_running_head():
    """Failed before: the fast engine files the lone tick glyph near the top edge as a page header,
    which is no unit of the form, so the box read as of unknown state."""
    marks = [f for f in ingest_fields(_ticked_box_at_the_top(), "top.pdf", "fast") if f.is_selection]
    assert [(f.key, f.selection_state) for f in marks] == [("this is CheckBox 1", "selected")]


def _value_box_beside_check_boxes() -> bytes:
    """Bare fields, filled and baked: a text box, then two check boxes to its right, on two rows."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=140)
    for row, value in enumerate(("Jordan A. Whitfield", "1,234.56")):
        top = 54 + 29 * row
        _text_widget(page, (77, top, 227, top + 22), value)
        for i, x in enumerate((234, 259)):
            _mark_widget(page, (x, top + 1, x + 17, top + 18), False, f"c{row}{i}", False)
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_value_typed_in_its_own_box_is_no_label_of_the_check_box_beside_it(engine):
    """Failed before: a check box with no label on its right took the nearest text on its left, the
    value typed into the box before it, which was then no value."""
    fields = ingest_fields(_value_box_beside_check_boxes(), "beside.pdf", engine)
    assert sorted(f.value for f in fields if not f.is_selection) == ["1,234.56", "Jordan A. Whitfield"]
    marks = [f for f in fields if f.is_selection]
    assert len(marks) == 4 and all(not f.key and f.selection_state == "unselected" for f in marks)


def _bevelled_check_boxes() -> bytes:
    """Three check boxes drawn as a baked widget's inset appearance draws them, after the page's own
    print (the labels): a white square and, on it, two filled L's (the dark top-left sides, the light
    bottom-right ones); a ZapfDingbats tick in the first."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=120)
    rows = [22.0 + 27 * i for i in range(3)]
    for y0, label in zip(rows, ("Check box, unchecked", "Check box, checked", "Check box, read-only")):
        page.insert_text((32, y0 + 8.5), label, fontsize=10)
    for i, y0 in enumerate(rows):
        x0, s, t = 21.0, 10.0, 1.0
        x1, y1 = x0 + s, y0 + s
        page.draw_rect((x0, y0, x1, y1), color=None, fill=(1, 1, 1))
        shape = page.new_shape()
        shape.draw_polyline([(x0, y0), (x1, y0), (x1 - t, y0 + t), (x0 + t, y0 + t), (x0 + t, y1 - t), (x0, y1)])
        shape.finish(color=None, fill=(0, 0, 0), closePath=True)
        shape.draw_polyline([(x1, y1), (x0, y1), (x0 + t, y1 - t), (x1 - t, y1 - t), (x1 - t, y0 + t), (x1, y0)])
        shape.finish(color=None, fill=(0.83, 0.82, 0.78), closePath=True)
        shape.commit()
        if i == 0:
            page.insert_text((x0 + 2, y1 - 2.5), "3", fontname="zadb", fontsize=9)
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_bevelled_check_boxes_are_marks_and_a_tick_in_one_ticks_it(engine):
    """Failed before: a bevelled box has no stroked outline (its sides are two filled L's), so it
    was no check box; only the lone tick was read, as a box of its own."""
    marks = [f for f in ingest_fields(_bevelled_check_boxes(), "bevel.pdf", engine) if f.is_selection]
    assert sorted((f.key, f.selection_state) for f in marks) == [
        ("Check box, checked", "unselected"), ("Check box, read-only", "unselected"),
        ("Check box, unchecked", "selected")]


def _tight_radio_labels() -> bytes:
    """A gender row as cms1490s prints it, filled and baked: "Male" chosen (a dot in its ring), its
    label clear of the ring; "Female" not, its label set so tight that its box starts inside the ring."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=200)
    page.insert_text((380, 80), "Patient's sex:", fontsize=8)
    for x, label, chosen, gap in ((440, "Male", True, 11), (476, "Female", False, 6)):
        page.draw_circle((x + 5, 76.5), 4.5, color=(0, 0, 0), width=0.8)
        if chosen:
            page.draw_circle((x + 5, 76.5), 2.2, color=None, fill=(0, 0, 0))
        page.insert_text((x + gap, 80), label, fontsize=8)
    return doc.tobytes()


def test_a_radio_ring_its_label_runs_into_is_unselected_not_unknown():
    """Failed before: the label's box covered part of the empty ring, so the ring was kept as an
    ornament and read as of unknown state (cms1490s's Female on the fast engine)."""
    marks = {f.key: f.selection_state for f in ingest_fields(_tight_radio_labels(), "sex.pdf", "fast") if f.is_selection}
    assert marks == {"Male": "selected", "Female": "unselected"}


def _list_box(captioned: bool) -> bytes:
    """A list box as pdf.js issue15096 prints it filled and baked: its options one under another in
    one block, the chosen one on a light highlight band; a caption over it when `captioned`, and three
    colon captions with typed values elsewhere so the page is a form."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=500)
    for i, (caption, value) in enumerate((("Name:", "Jordan"), ("City:", "Portland"), ("Code:", "AB016"))):
        page.insert_text((36, 60 + 20 * i), caption, fontname="tiro", fontsize=11)
        page.insert_text((110, 60 + 20 * i), value, fontname="helv", fontsize=11)
    if captioned:
        page.insert_text((36, 272), "List Option:", fontname="tiro", fontsize=11)
    page.draw_rect((36, 332, 134, 348), color=None, fill=(0.6, 0.75, 0.85))
    page.insert_text((36, 297), "item1\nitem2\nitem3\nitem4", fontname="helv", fontsize=12, lineheight=1.3)
    return doc.tobytes()


def test_the_caption_over_a_list_box_takes_its_highlighted_choice_not_its_first_option():
    """Failed before: the caption took the option printed right under it ("item1"); the options are a
    list box's choices, and the one on the highlight band is its value. (The layout model files this
    lone caption as a section header, which is no key, so the fast engine is the one to ask.)"""
    fields = ingest_fields(_list_box(True), "list.pdf", "fast")
    assert [(f.key, f.value) for f in fields if f.value.startswith("item")] == [("List Option", "item4")]


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_list_box_with_no_caption_gives_its_highlighted_choice_alone(engine):
    fields = ingest_fields(_list_box(False), "list.pdf", engine)
    assert [(f.key, f.value) for f in fields if f.value.startswith("item")] == [("", "item4")]
