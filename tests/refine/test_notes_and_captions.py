"""The footnote_marker and caption_prefix rules."""
from __future__ import annotations

from core.categories import Category
from core.model import Document, Element, Page, freeze_attrs
from core.refine.notes_and_captions import caption_prefix, footnote_marker
from pdf_builders import paragraph, text
from refine_fixtures import body, find, layout_doc, raw

C = Category


# ---- footnote_marker ------------------------------------------------------------------------
def test_marked_small_print_at_the_bottom_becomes_a_footnote_but_body_text_with_a_mark_does_not():
    def page(p):
        body(p)
        paragraph(p, 72, 300, ["※ 本規程に定めのない事項は、経理部長が別に定める。"])  # body size, mid-page
        text(p, 72, 760, "※1 ただし、深夜の移動でやむを得ない場合はタクシーを利用できる。", 8)
        text(p, 72, 775, "注2）領収書の宛名は会社名とする。", 8)
    doc = footnote_marker(raw(page))
    assert find(doc, "※1 ただし").category is C.FOOTNOTE
    assert find(doc, "注2）").category is C.FOOTNOTE and find(doc, "注2）").rules == ("footnote_marker",)
    assert find(doc, "定めのない事項").category is C.TEXT


def test_a_numbered_note_the_model_filed_as_a_footer_is_a_footnote():
    note = Element("d-p1-n", 1, 0, C.PAGE_FOOTER, (50, 800, 300, 810), "*1: AI Risk Management Framework 1.0", "layout")
    number = Element("d-p1-p", 1, 1, C.PAGE_FOOTER, (290, 800, 300, 810), "6", "layout")
    out = footnote_marker(layout_doc(note, number)).page(1).elements
    assert [e.category for e in out] == [C.FOOTNOTE, C.PAGE_FOOTER] and out[0].rules == ("footnote_marker",)


# ---- caption_prefix -------------------------------------------------------------------------
def test_figure_and_table_numbers_at_the_start_make_captions_but_sentences_mentioning_them_do_not():
    def page(p):
        text(p, 72, 100, "表1　交通費の上限額")
        text(p, 72, 130, "図2-1 経費精算の流れ")
        text(p, 72, 160, "Figure 3: Approval flow", font="helv")
        paragraph(p, 72, 200, ["表1に示すとおり、交通費は実費を支給する。"])
        text(p, 72, 240, "Table 2 shows the limits per grade.", font="helv")
    doc = caption_prefix(raw(page))
    assert {find(doc, t).category for t in ("表1　交通費", "図2-1", "Figure 3")} == {C.CAPTION}
    assert find(doc, "表1に示す").category is C.TEXT
    assert find(doc, "Table 2 shows").category is C.TEXT


def test_a_caption_line_inside_a_picture_box_is_split_out():
    pic = Element("d-p1-pic", 1, 0, C.PICTURE, (100, 100, 400, 330), "申請者 所属長 図1 経費精算の流れ", "layout",
                  attrs=freeze_attrs({"kind": "vector", "lines": [
                      (150, 150, 190, 160, "申請者", 9, 0), (250, 150, 290, 160, "所属長", 9, 1),
                      (180, 318, 320, 330, "図1　経費精算の流れ", 9.5, 2)]}))
    doc = Document("d" * 16, "t.pdf", "0" * 64, "layout", (Page(1, 595, 842, 0, None, (pic,)),))
    out = caption_prefix(doc).page(1).elements
    assert [e.category for e in out] == [C.PICTURE, C.CAPTION]
    assert out[1].text == "図1　経費精算の流れ" and out[1].bbox == (180, 318, 320, 330)
    assert out[0].bbox[3] <= 318 and "図1" not in out[0].text
    assert out[0].id == pic.id and all("caption_prefix" in e.rules for e in out)
