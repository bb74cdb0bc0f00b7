"""The heading_split, article_heading and document_title rules, on Documents in the layout model's
output shape."""
from __future__ import annotations

from dataclasses import replace

from core.categories import Category
from core.model import Document, Element, Page, freeze_attrs
from core.refine.titles_and_headings import article_heading, document_title, heading_split, slide_title
from refine_fixtures import layout_doc

C = Category


def test_a_large_first_line_swallowed_into_a_text_box_is_split_off_as_a_heading():
    box = Element("d-p1-x", 1, 0, C.LIST_ITEM, (50, 17, 800, 160), "背景と目的• 生成AIは日々発展している。", "layout",
                  attrs=freeze_attrs({"size": 12, "lines": [
                      (230, 17, 610, 41, "背景と目的", 20, 0), (50, 76, 790, 95, "• 生成AIは日々発展している。", 12, 1),
                      (60, 95, 700, 114, "利用機会と可能性は拡大している。", 12, 1)]}))
    out = heading_split(layout_doc(box)).page(1).elements
    assert [(e.category, e.text) for e in out] == [
        (C.SECTION_HEADER, "背景と目的"), (C.LIST_ITEM, "• 生成AIは日々発展している。利用機会と可能性は拡大している。")]
    assert out[0].bbox == (230, 17, 610, 41) and out[1].bbox == (50, 76, 790, 114)
    assert all("heading_split" in e.rules for e in out) and out[1].id == box.id
    same_size = replace(box, attrs=freeze_attrs({"lines": [(50, 17, 800, 30, "一行目", 12, 0),
                                                           (50, 30, 800, 43, "二行目", 12, 0)]}))
    assert heading_split(layout_doc(same_size)).page(1).elements == (same_size,)


def test_article_headings_on_their_own_line_become_section_headers():
    heading = Element("d-p1-a", 1, 0, C.TEXT, (60, 100, 160, 112), "第3条（定義）", "layout")
    sentence = Element("d-p1-b", 1, 1, C.TEXT, (60, 120, 500, 132), "第3条の規定にかかわらず、次のとおりとする。", "layout")
    out = article_heading(layout_doc(heading, sentence)).page(1).elements
    assert [e.category for e in out] == [C.SECTION_HEADER, C.TEXT] and out[0].rules == ("article_heading",)


def test_the_one_large_heading_on_the_first_page_becomes_the_title():
    def heading(i, size, y):
        return Element(f"d-p1-{i}", 1, i, C.SECTION_HEADER, (60, y, 300, y + size), f"見出し{i}", "layout",
                       attrs=freeze_attrs({"size": size}))
    out = document_title(layout_doc(heading(0, 22, 80), heading(1, 12, 140))).page(1).elements
    assert [e.category for e in out] == [C.TITLE, C.SECTION_HEADER] and out[0].rules == ("document_title",)
    two_equal = layout_doc(heading(0, 22, 80), heading(1, 22, 140))
    assert document_title(two_equal) == two_equal  # a spread's two headlines: neither is "the" title


def _header(eid: str, page: int, text: str, size: float, rules=()) -> Element:
    return Element(eid, page, 0, C.PAGE_HEADER, (248, 17, 500, 40), text, "layout", rules=rules,
                   attrs=freeze_attrs({"size": size}))


def _deck(*titles: tuple[str, float]) -> Document:
    pages = tuple(Page(i + 1, 842, 595, 0, None, (
        _header(f"d-p{i + 1}-t", i + 1, text, size),
        Element(f"d-p{i + 1}-h", i + 1, 1, C.PAGE_HEADER, (23, 9, 105, 21), "本編別添", "layout",
                attrs=freeze_attrs({"size": 14.0})),
        Element(f"d-p{i + 1}-b", i + 1, 2, C.TABLE, (50, 80, 800, 500), "指針 内容", "layout",
                attrs=freeze_attrs({"size": 14.0})),
    )) for i, (text, size) in enumerate(titles))
    return Document("d" * 16, "t.pdf", "0" * 64, "layout", pages, meta=freeze_attrs({"body_size": 14.0}))


def test_a_page_header_that_is_its_slides_headline_becomes_a_section_header():
    doc = slide_title(_deck(("AI開発者に関する事項[1/2]", 26.0), ("AI開発者に関する事項[2/2]", 26.0),
                            ("AI提供者に関する事項[1/2]", 26.0)))
    titles = [p.elements[0] for p in doc.pages]
    assert [e.category for e in titles] == [C.SECTION_HEADER] * 3 and titles[0].rules == ("slide_title",)
    assert all(p.elements[1].category is C.PAGE_HEADER for p in doc.pages)  # the small running head stays


def test_a_large_header_that_runs_on_three_pages_or_is_not_the_largest_text_stays_a_header():
    running = slide_title(_deck(*[("会社案内 2024", 26.0)] * 3))
    assert all(p.elements[0].category is C.PAGE_HEADER for p in running.pages)
    small = slide_title(_deck(("第3部 AI開発者", 16.0)))  # 16 pt over 14 pt body: not a headline
    assert small.page(1).elements[0].category is C.PAGE_HEADER
    page = _deck(("AI開発者に関する事項", 26.0)).page(1)
    larger = Element("d-p1-big", 1, 3, C.SECTION_HEADER, (50, 100, 800, 150), "大見出し", "layout",
                     attrs=freeze_attrs({"size": 36.0}))
    doc = Document("d" * 16, "t.pdf", "0" * 64, "layout", (replace(page, elements=page.elements + (larger,)),),
                   meta=freeze_attrs({"body_size": 14.0}))
    assert slide_title(doc).page(1).elements[0].category is C.PAGE_HEADER
