"""The repeated_furniture and decorative rules: running heads and feet, page ornaments."""
from __future__ import annotations

from dataclasses import replace

import pymupdf

from core.categories import Category
from core.model import Element, freeze_attrs
from core.refine.furniture import decorative, repeated_furniture
from pdf_builders import text
from refine_fixtures import body, furnished, layout_doc, raw

C = Category


# ---- repeated_furniture ---------------------------------------------------------------------
def test_text_repeated_in_the_margins_of_three_pages_becomes_header_and_footer():
    doc = repeated_furniture(furnished(3))
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
    doc = repeated_furniture(raw(make(1), make(2)))
    assert all(e.category is C.SECTION_HEADER or e.category is C.TEXT
               for e in doc.elements() if "総則" in e.text)
    assert {e.category for e in doc.elements() if e.text.startswith("- ")} == {C.PAGE_FOOTER}


# ---- decorative -----------------------------------------------------------------------------
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
    doc = decorative(raw(make(0), make(1), make(2)))
    pictures = [(e.page, e.bbox, e.category) for e in doc.elements() if e.attr("kind") in ("image", "rule")]
    by_place = {(page, round(b[0]), round(b[1])): cat for page, b, cat in pictures}
    assert by_place[(1, 72, 300)] is C.PICTURE
    assert by_place[(1, 400, 300)] is C.DECORATIVE
    assert all(by_place[(n, 500, 20)] is C.DECORATIVE for n in (1, 2, 3))
    assert all(by_place[(n, 72, 250)] is C.DECORATIVE for n in (1, 2, 3))


def test_an_image_one_pixel_high_stretched_into_a_bar_is_decorative():
    bar = Element("d-p1-b", 1, 0, C.PICTURE, (41, 551, 842, 589), "", "layout",
                  attrs=freeze_attrs({"kind": "image", "image": "i13345x1:958"}))
    photo = replace(bar, id="d-p1-q", bbox=(41, 100, 400, 400), attrs=freeze_attrs({"kind": "image", "image": "i800x600:1"}))
    out = decorative(layout_doc(bar, photo)).page(1).elements
    assert [e.category for e in out] == [C.DECORATIVE, C.PICTURE]
