"""Refine rules, each on a tiny PDF built here (parsed by the fast engine without refine), then the
whole pipeline on the sample documents against their ground truth."""
from __future__ import annotations

from dataclasses import replace

import pymupdf
import pytest

from core.categories import Category
from core.ingest.pdf import parse_pdf
from core.model import Document, Element, Page, freeze_attrs
from core.refine import rules as R
from core.store.records import doc_id_for, sha256_of
from pdf_builders import build_pdf, html, paragraph, text
from truth_match import format_table, load_truth, recall_by_category

C = Category


def raw(*pages, size=(595, 842)) -> Document:
    """The fast engine's output before any refine rule ran."""
    data = build_pdf(*pages, size=size)
    sha = sha256_of(data)
    return parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="t.pdf", engine="fast").document


def find(doc: Document, needle: str) -> Element:
    hits = [e for e in doc.elements() if needle in e.text]
    assert len(hits) == 1, [(e.category.value, e.text) for e in doc.elements()]
    return hits[0]


def body(p, y=120, lines=3):
    paragraph(p, 72, y, ["経費の精算は、所定の申請書に領収書を添えて経理部に提出することにより行う。"] * lines)


# ---- selection_glyph ---------------------------------------------------------------------------
def test_glyphs_at_line_start_become_marks_split_from_their_labels():
    doc = R.selection_glyph(raw(lambda p: (body(p), html(p, (72, 300, 500, 330), "☑ 会議費　☐ 交通費"))))
    marks = [e for e in doc.elements() if e.category is C.SELECTION_MARK]
    assert [(m.text, m.state) for m in marks] == [("☑", "selected"), ("☐", "unselected")]
    labels = [e.text for e in doc.elements() if e.text in ("会議費", "交通費")]
    assert labels == ["会議費", "交通費"]
    for e in doc.elements():
        if e.text in ("☑", "☐", "会議費", "交通費"):
            assert "selection_glyph" in e.rules
            assert e.bbox[3] - e.bbox[1] < 30  # a box of its own, on the glyph's line
    assert marks[0].bbox[2] <= find(doc, "会議費").bbox[0] + 1  # mark left of its label
    assert [e.seq for e in doc.page(1).elements] == list(range(len(doc.page(1).elements)))


def test_a_glyph_used_as_a_word_in_a_sentence_is_left_alone():
    doc = R.selection_glyph(raw(lambda p: html(p, (72, 100, 520, 130), "該当する項目の□を塗りつぶしてください。")))
    assert not [e for e in doc.elements() if e.category is C.SELECTION_MARK]


def test_a_square_bullet_before_a_long_sentence_stays_a_bullet():
    line = "■ 本規程は、全ての役員及び従業員が業務上立て替えた経費の精算に適用する。"
    doc = R.selection_glyph(raw(lambda p: html(p, (72, 100, 560, 130), line)))
    assert not [e for e in doc.elements() if e.category is C.SELECTION_MARK]


def test_small_square_drawings_become_marks_selected_when_filled_or_ticked():
    def page(p):
        text(p, 100, 110, "同意する")
        p.draw_rect((80, 100, 90, 110), color=(0, 0, 0))  # empty
        text(p, 100, 140, "確認した")
        p.draw_rect((80, 130, 90, 140), color=(0, 0, 0), fill=(0, 0, 0))  # filled
        text(p, 100, 170, "添付した")
        p.draw_rect((80, 160, 90, 170), color=(0, 0, 0))
        html(p, (80.5, 158.5, 92, 172), "✓", size=8)  # a tick drawn inside
    doc = R.selection_glyph(raw(page))
    marks = sorted((e for e in doc.elements() if e.category is C.SELECTION_MARK), key=lambda e: e.bbox[1])
    assert [m.state for m in marks] == ["unselected", "selected", "selected"]
    assert all("selection_glyph" in m.rules for m in marks)
    assert not [e for e in doc.elements() if e.text == "✓" and e.category is not C.SELECTION_MARK]


# ---- code_monospace ----------------------------------------------------------------------------
def test_monospace_blocks_become_code_and_cjk_body_text_does_not():
    def page(p):
        body(p)
        for i, line in enumerate(["SELECT employee_id, SUM(amount)", "  FROM expenses", " GROUP BY employee_id;"]):
            text(p, 90, 250 + 14 * i, line, 9.5, font="cour")
    doc = R.code_monospace(raw(page))
    code = find(doc, "SELECT")
    assert code.category is C.CODE and code.rules == ("code_monospace",)
    assert "GROUP BY" in code.text
    assert find(doc, "所定の申請書").category is C.TEXT


# ---- repeated_furniture ------------------------------------------------------------------------
def furnished(n_pages: int):
    def make(i):
        def page(p):
            text(p, 64, 40, "経費精算規程　社内限", 8.5)
            body(p)
            text(p, 290, 810, f"- {i} -", 9)
            text(p, 400, 810, "© 2026 サンプル株式会社", 8)
        return page
    return raw(*[make(i + 1) for i in range(n_pages)])


def test_text_repeated_in_the_margins_of_three_pages_becomes_header_and_footer():
    doc = R.repeated_furniture(furnished(3))
    for page in doc.pages:
        cats = {e.text: (e.category, e.rules) for e in page.elements}
        assert cats["経費精算規程　社内限"] == (C.PAGE_HEADER, ("repeated_furniture",))
        assert cats[f"- {page.number} -"][0] is C.PAGE_FOOTER
        assert cats["© 2026 サンプル株式会社"][0] is C.PAGE_FOOTER
        assert cats[next(t for t in cats if "所定の申請書" in t)][0] is C.TEXT


def test_text_on_only_two_pages_is_not_furniture_but_page_numbers_still_are():
    def make(i):
        def page(p):
            text(p, 72, 75, "第1章　総則", 10.5)  # top band, body size: not small print
            body(p)
            text(p, 290, 810, f"- {i} -", 9)
        return page
    doc = R.repeated_furniture(raw(make(1), make(2)))
    assert all(e.category is C.SECTION_HEADER or e.category is C.TEXT
               for e in doc.elements() if "総則" in e.text)
    assert {e.category for e in doc.elements() if e.text.startswith("- ")} == {C.PAGE_FOOTER}


# ---- footnote_marker ---------------------------------------------------------------------------
def test_marked_small_print_at_the_bottom_becomes_a_footnote_but_body_text_with_a_mark_does_not():
    def page(p):
        body(p)
        paragraph(p, 72, 300, ["※ 本規程に定めのない事項は、経理部長が別に定める。"])  # body size, mid-page
        text(p, 72, 760, "※1 ただし、深夜の移動でやむを得ない場合はタクシーを利用できる。", 8)
        text(p, 72, 775, "注2）領収書の宛名は会社名とする。", 8)
    doc = R.footnote_marker(raw(page))
    assert find(doc, "※1 ただし").category is C.FOOTNOTE
    assert find(doc, "注2）").category is C.FOOTNOTE and find(doc, "注2）").rules == ("footnote_marker",)
    assert find(doc, "定めのない事項").category is C.TEXT


# ---- caption_prefix ----------------------------------------------------------------------------
def test_figure_and_table_numbers_at_the_start_make_captions_but_sentences_mentioning_them_do_not():
    def page(p):
        text(p, 72, 100, "表1　交通費の上限額")
        text(p, 72, 130, "図2-1 経費精算の流れ")
        text(p, 72, 160, "Figure 3: Approval flow", font="helv")
        paragraph(p, 72, 200, ["表1に示すとおり、交通費は実費を支給する。"])
        text(p, 72, 240, "Table 2 shows the limits per grade.", font="helv")
    doc = R.caption_prefix(raw(page))
    assert {find(doc, t).category for t in ("表1　交通費", "図2-1", "Figure 3")} == {C.CAPTION}
    assert find(doc, "表1に示す").category is C.TEXT
    assert find(doc, "Table 2 shows").category is C.TEXT


def test_a_caption_line_inside_a_picture_box_is_split_out():
    pic = Element("d-p1-pic", 1, 0, C.PICTURE, (100, 100, 400, 330), "申請者 所属長 図1 経費精算の流れ", "layout",
                  attrs=freeze_attrs({"kind": "vector", "lines": [
                      (150, 150, 190, 160, "申請者", 9, 0), (250, 150, 290, 160, "所属長", 9, 1),
                      (180, 318, 320, 330, "図1　経費精算の流れ", 9.5, 2)]}))
    doc = Document("d" * 16, "t.pdf", "0" * 64, "layout", (Page(1, 595, 842, 0, None, (pic,)),))
    out = R.caption_prefix(doc).page(1).elements
    assert [e.category for e in out] == [C.PICTURE, C.CAPTION]
    assert out[1].text == "図1　経費精算の流れ" and out[1].bbox == (180, 318, 320, 330)
    assert out[0].bbox[3] <= 318 and "図1" not in out[0].text
    assert out[0].id == pic.id and all("caption_prefix" in e.rules for e in out)


# ---- document_index ----------------------------------------------------------------------------
def test_dot_leaders_with_page_numbers_make_a_document_index():
    def page(p):
        text(p, 72, 80, "目次", 16)
        for i, (title, n) in enumerate([("第1章　総則", 2), ("第2章　交通費", 3), ("第3章　宿泊費", 4)]):
            text(p, 72, 120 + 20 * i, f"{title} " + "．" * 20 + f" {n}")
        body(p, y=300)
    doc = R.document_index(raw(page))
    assert {e.category for e in doc.elements() if "章" in e.text} == {C.DOCUMENT_INDEX}
    assert find(doc, "目次").category is not C.DOCUMENT_INDEX
    assert find(doc, "所定の申請書").category is C.TEXT


# ---- references --------------------------------------------------------------------------------
def test_numbered_items_under_a_references_heading_become_references():
    def page(p):
        text(p, 72, 80, "参考文献", 14)
        text(p, 72, 110, "[1] 国税庁「電子帳簿保存法一問一答」2024年。")
        text(p, 72, 130, "[2] 経済産業省『経費精算の手引き』2023年。")
        text(p, 72, 170, "付則", 14)
        text(p, 72, 200, "[3] この規程は2026年4月1日から施行する。")
    doc = R.references(raw(page))
    assert find(doc, "[1]").category is C.REFERENCE and find(doc, "[1]").rules == ("references",)
    assert find(doc, "[2]").category is C.REFERENCE
    assert find(doc, "[3]").category is not C.REFERENCE  # after the next heading


# ---- formula -----------------------------------------------------------------------------------
def test_a_short_equation_set_apart_becomes_a_formula():
    def page(p):
        body(p)
        text(p, 200, 220, "精算額 = 交通費 + 宿泊費 + 日当 × 日数")
        paragraph(p, 72, 260, ["ここで、日当の額は別表2のとおりとし、精算額=支給総額とする。"])
    doc = R.formula(raw(page))
    assert find(doc, "精算額 = 交通費").category is C.FORMULA
    assert find(doc, "ここで").category is C.TEXT


# ---- decorative --------------------------------------------------------------------------------
def png(w=40, h=40) -> bytes:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, w, h), 0)
    pix.set_rect(pix.irect, (200, 30, 30))
    return pix.tobytes("png")


def test_separator_lines_tiny_images_and_a_logo_repeated_on_three_pages_are_decorative():
    logo, photo = png(), png(300, 200)

    def make(i):
        def page(p):
            body(p)
            p.insert_image((500, 20, 560, 60), stream=logo, keep_proportion=False)  # same logo every page
            p.draw_line((72, 250), (520, 250), color=(0.5, 0.5, 0.5))
            if i == 0:
                p.insert_image((72, 300, 372, 500), stream=photo, keep_proportion=False)  # a real figure
                p.insert_image((400, 300, 404, 304), stream=png(4, 4))  # a speck
        return page
    doc = R.decorative(raw(make(0), make(1), make(2)))
    pictures = [(e.page, e.bbox, e.category) for e in doc.elements() if e.attr("kind") in ("image", "rule")]
    by_place = {(page, round(b[0]), round(b[1])): cat for page, b, cat in pictures}
    assert by_place[(1, 72, 300)] is C.PICTURE
    assert by_place[(1, 400, 300)] is C.DECORATIVE
    assert all(by_place[(n, 500, 20)] is C.DECORATIVE for n in (1, 2, 3))
    assert all(by_place[(n, 72, 250)] is C.DECORATIVE for n in (1, 2, 3))


# ---- rules for layout-model misfires (Documents built directly: the model's output shape) ----
def layout_doc(*elements: Element, meta=None) -> Document:
    return Document("d" * 16, "t.pdf", "0" * 64, "layout", (Page(1, 595, 842, 0, None, tuple(elements)),),
                    meta=freeze_attrs(meta or {"body_size": 10.0}))


def test_a_table_holding_widgets_is_a_form_and_is_replaced_by_its_text_blocks():
    table = Element("d-p1-t", 1, 0, C.TABLE, (50, 100, 550, 200), "氏名 1. 申請者情報", "layout",
                    attrs=freeze_attrs({"rows": [["1. 申請者情報"], ["氏名"]], "lines": [
                        (56, 100, 140, 115, "1. 申請者情報", 11.5, 4), (64, 130, 84, 143, "氏名", 10.0, 5)]}))
    field = Element("d-p1-w", 1, 1, C.FORM_FIELD, (120, 128, 400, 146), "山田 太郎", "widget",
                    attrs=freeze_attrs({"field_name": "name"}))
    out = R.form_table(layout_doc(table, field)).page(1).elements
    assert [(e.category, e.text) for e in out] == [
        (C.SECTION_HEADER, "1. 申請者情報"), (C.TEXT, "氏名"), (C.FORM_FIELD, "山田 太郎")]
    assert all(e.rules == ("form_table",) for e in out[:2]) and out[2].rules == ()


def test_columns_of_vertical_writing_read_as_a_table_become_text_right_to_left():
    table = Element("d-p1-v", 1, 0, C.TABLE, (100, 60, 700, 300), "", "layout",
                    attrs=freeze_attrs({"vertical": True, "rows": [["わたくしといふ", "假定された"]], "lines": [
                        (661, 65, 671, 161, "わたくしといふ現象は", 10, 0), (644, 65, 654, 180, "假定された", 10, 1)]}))
    out = R.form_table(layout_doc(table)).page(1).elements
    assert [(e.category, e.text) for e in out] == [(C.TEXT, "わたくしといふ現象は"), (C.TEXT, "假定された")]


def test_a_real_table_without_widgets_stays_a_table():
    table = Element("d-p1-t", 1, 0, C.TABLE, (50, 100, 550, 200), "区分 | 上限額", "layout",
                    attrs=freeze_attrs({"rows": [["区分", "上限額"], ["交通費", "実費"]],
                                        "lines": [(56, 100, 90, 115, "区分", 10, 1)]}))
    assert R.form_table(layout_doc(table)).page(1).elements == (table,)


def test_a_large_first_line_swallowed_into_a_text_box_is_split_off_as_a_heading():
    box = Element("d-p1-x", 1, 0, C.LIST_ITEM, (50, 17, 800, 160), "背景と目的• 生成AIは日々発展している。", "layout",
                  attrs=freeze_attrs({"size": 12, "lines": [
                      (230, 17, 610, 41, "背景と目的", 20, 0), (50, 76, 790, 95, "• 生成AIは日々発展している。", 12, 1),
                      (60, 95, 700, 114, "利用機会と可能性は拡大している。", 12, 1)]}))
    out = R.heading_split(layout_doc(box)).page(1).elements
    assert [(e.category, e.text) for e in out] == [
        (C.SECTION_HEADER, "背景と目的"), (C.LIST_ITEM, "• 生成AIは日々発展している。利用機会と可能性は拡大している。")]
    assert out[0].bbox == (230, 17, 610, 41) and out[1].bbox == (50, 76, 790, 114)
    assert all("heading_split" in e.rules for e in out) and out[1].id == box.id
    same_size = replace(box, attrs=freeze_attrs({"lines": [(50, 17, 800, 30, "一行目", 12, 0),
                                                           (50, 30, 800, 43, "二行目", 12, 0)]}))
    assert R.heading_split(layout_doc(same_size)).page(1).elements == (same_size,)


def test_a_numbered_note_the_model_filed_as_a_footer_is_a_footnote():
    note = Element("d-p1-n", 1, 0, C.PAGE_FOOTER, (50, 800, 300, 810), "*1: AI Risk Management Framework 1.0", "layout")
    number = Element("d-p1-p", 1, 1, C.PAGE_FOOTER, (290, 800, 300, 810), "6", "layout")
    out = R.footnote_marker(layout_doc(note, number)).page(1).elements
    assert [e.category for e in out] == [C.FOOTNOTE, C.PAGE_FOOTER] and out[0].rules == ("footnote_marker",)


def test_an_image_one_pixel_high_stretched_into_a_bar_is_decorative():
    bar = Element("d-p1-b", 1, 0, C.PICTURE, (41, 551, 842, 589), "", "layout",
                  attrs=freeze_attrs({"kind": "image", "image": "i13345x1:958"}))
    photo = replace(bar, id="d-p1-q", bbox=(41, 100, 400, 400), attrs=freeze_attrs({"kind": "image", "image": "i800x600:1"}))
    out = R.decorative(layout_doc(bar, photo)).page(1).elements
    assert [e.category for e in out] == [C.DECORATIVE, C.PICTURE]


def test_article_headings_on_their_own_line_become_section_headers():
    heading = Element("d-p1-a", 1, 0, C.TEXT, (60, 100, 160, 112), "第3条（定義）", "layout")
    sentence = Element("d-p1-b", 1, 1, C.TEXT, (60, 120, 500, 132), "第3条の規定にかかわらず、次のとおりとする。", "layout")
    out = R.article_heading(layout_doc(heading, sentence)).page(1).elements
    assert [e.category for e in out] == [C.SECTION_HEADER, C.TEXT] and out[0].rules == ("article_heading",)


def test_the_one_large_heading_on_the_first_page_becomes_the_title():
    def heading(i, size, y):
        return Element(f"d-p1-{i}", 1, i, C.SECTION_HEADER, (60, y, 300, y + size), f"見出し{i}", "layout",
                       attrs=freeze_attrs({"size": size}))
    out = R.document_title(layout_doc(heading(0, 22, 80), heading(1, 12, 140))).page(1).elements
    assert [e.category for e in out] == [C.TITLE, C.SECTION_HEADER] and out[0].rules == ("document_title",)
    two_equal = layout_doc(heading(0, 22, 80), heading(1, 22, 140))
    assert R.document_title(two_equal) == two_equal  # a spread's two headlines: neither is "the" title


# ---- the pipeline ------------------------------------------------------------------------------
def test_refine_runs_named_rules_in_order_and_refuses_unknown_names():
    assert R.RULE_NAMES[:3] == ("form_table", "heading_split", "selection_glyph") and "decorative" in R.RULE_NAMES
    with pytest.raises(ValueError, match="'typo'"):
        R.refine(furnished(3), rules=["typo"])
    doc = furnished(3)
    assert R.refine(doc, rules=[]) == doc
    once = R.refine(doc)
    assert R.refine(once) == once  # rules are idempotent: refining stored output changes nothing


def test_each_rule_lifts_recall_on_the_sample_regulation(sample_docs):
    pdf = sample_docs / "keihi_seisan_kitei.pdf"
    data = pdf.read_bytes()
    sha = sha256_of(data)
    machine = parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename=pdf.name, engine="fast").document
    truth = load_truth(pdf)
    before = recall_by_category(machine, truth)
    after = recall_by_category(R.refine(machine), truth)
    print("\nbefore refine\n" + format_table({pdf.name: before}) + "\nafter refine\n" + format_table({pdf.name: after}))
    for category in ("code", "footnote", "caption", "page_footer", "document_index", "reference", "formula",
                     "decorative"):
        hit_before, n = before[category]
        hit_after, _ = after[category]
        assert hit_after == n and hit_after > hit_before, category


def test_a_square_framing_a_number_is_an_ornament_not_a_check_box():
    def page(p):
        p.draw_rect((64, 333, 85, 355), color=(0, 0, 0))
        text(p, 70, 350, "1", 14)
        text(p, 95, 350, "生成AIが抱える課題", 14)
        body(p, y=400)
    doc = R.selection_glyph(raw(page))
    assert not [e for e in doc.elements() if e.category is C.SELECTION_MARK]
