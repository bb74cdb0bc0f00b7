"""The form_table rule on Documents in the layout model's output shape."""
from __future__ import annotations

from core.categories import Category
from core.model import Element, freeze_attrs
from core.refine.form_table import form_table
from refine_fixtures import layout_doc

C = Category


def test_a_table_holding_widgets_is_a_form_and_is_replaced_by_its_text_blocks():
    table = Element("d-p1-t", 1, 0, C.TABLE, (50, 100, 550, 200), "氏名 1. 申請者情報", "layout",
                    attrs=freeze_attrs({"rows": [["1. 申請者情報"], ["氏名"]], "lines": [
                        (56, 100, 140, 115, "1. 申請者情報", 11.5, 4), (64, 130, 84, 143, "氏名", 10.0, 5)]}))
    field = Element("d-p1-w", 1, 1, C.FORM_FIELD, (120, 128, 400, 146), "山田 太郎", "widget",
                    attrs=freeze_attrs({"field_name": "name"}))
    out = form_table(layout_doc(table, field)).page(1).elements
    assert [(e.category, e.text) for e in out] == [
        (C.SECTION_HEADER, "1. 申請者情報"), (C.TEXT, "氏名"), (C.FORM_FIELD, "山田 太郎")]
    assert all(e.rules == ("form_table",) for e in out[:2]) and out[2].rules == ()


def test_columns_of_vertical_writing_read_as_a_table_become_text_right_to_left():
    table = Element("d-p1-v", 1, 0, C.TABLE, (100, 60, 700, 300), "", "layout",
                    attrs=freeze_attrs({"vertical": True, "rows": [["わたくしといふ", "假定された"]], "lines": [
                        (661, 65, 671, 161, "わたくしといふ現象は", 10, 0), (644, 65, 654, 180, "假定された", 10, 1)]}))
    out = form_table(layout_doc(table)).page(1).elements
    assert [(e.category, e.text) for e in out] == [(C.TEXT, "わたくしといふ現象は"), (C.TEXT, "假定された")]


def test_a_real_table_without_widgets_stays_a_table():
    table = Element("d-p1-t", 1, 0, C.TABLE, (50, 100, 550, 200), "区分 | 上限額", "layout",
                    attrs=freeze_attrs({"rows": [["区分", "上限額"], ["交通費", "実費"]],
                                        "lines": [(56, 100, 90, 115, "区分", 10, 1)]}))
    assert form_table(layout_doc(table)).page(1).elements == (table,)


def test_each_text_block_keeps_its_own_lines_fonts():
    """A flattened form read as a one-column "table": its captions are set in the form's face, the
    values typed in another. Failed before: every block took the whole table's fonts and its lines
    lost theirs, so forms pairing could not tell a typed value from a caption (DD Form 293, layout)."""
    table = Element("d-p1-t", 1, 0, C.TABLE, (20, 110, 590, 140), "CASE NUMBER 1,234.56", "layout",
                    attrs=freeze_attrs({"rows": [["CASE NUMBER 1,234.56"]], "fonts": ("ArialMT", "Helvetica"), "lines": [
                        (22, 111, 81, 122, "CASE NUMBER", 8.0, 8, "ArialMT"),
                        (309, 111, 447, 122, "DATE OF DISCHARGE", 8.0, 8, "ArialMT"),
                        (85, 111, 116, 122, "1,234.56", 8.0, 61, "Helvetica"),
                        (451, 111, 500, 122, "20260401", 8.0, 61, "Helvetica")]}))
    out = form_table(layout_doc(table)).page(1).elements
    fonts = {e.text: e.attr("fonts") for e in out}
    assert fonts == {"CASE NUMBER DATE OF DISCHARGE": ("ArialMT",), "1,234.56 20260401": ("Helvetica",)}
    typed = next(e for e in out if "1,234.56" in e.text)
    assert [ln[7] for ln in typed.attr("lines")] == ["Helvetica", "Helvetica"]
