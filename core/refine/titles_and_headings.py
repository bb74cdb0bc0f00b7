"""Rules for headings the model missed: heading_split (a box that swallowed its large first line →
heading + body), article_heading (第N条（見出し） on a line of its own → section header), slide_title
(a page header that is its page's headline → section header) and document_title (no title found →
the one largest heading near the top of the first page)."""
from __future__ import annotations

from dataclasses import replace

from core.categories import Category
from core.geometry import union
from core.model import Document, Element, Page, freeze_attrs
from core.refine.common import TEXTUAL, body_size, child_id, map_elements, map_pages, stored_lines, text_lines
from core.text import ARTICLE_HEADING, digits_masked, join_lines, nfkc

C = Category


# ---------------------------------------------------------------------------------------------
# heading_split: a model box that swallowed its heading (a large first line) → heading + body
# ---------------------------------------------------------------------------------------------
def heading_split(doc: Document) -> Document:
    """The model sometimes draws one box over a slide title and the bullets under it. When the
    first line of a text/list box is set ≥1.3× larger than the rest, it is split off as a heading."""
    def on_page(page: Page) -> list[Element]:
        out: list[Element] = []
        for e in page.elements:
            out.extend(_split_heading(doc.doc_id, e) or [e])
        return out
    return map_pages(doc, on_page)


def _split_heading(doc_id: str, e: Element) -> list[Element] | None:
    if e.category not in (C.TEXT, C.LIST_ITEM) or not e.attr("lines"):
        return None
    lines = sorted(stored_lines(e), key=lambda ln: (ln[0][1], ln[0][0]))
    head, rest = lines[:1], lines[1:]
    if not rest or not head[0][1].strip() or len(head[0][1]) > 60:
        return None
    rest_size = max(ln[2] for ln in rest)
    if not rest_size or head[0][2] < 1.3 * rest_size:
        return None
    if head[0][0][3] > min(ln[0][1] for ln in rest) + 2:
        return None  # the large line is not above the rest
    (hbox, htext, hsize, _), = head
    body_box = union(ln[0] for ln in rest)
    body_text = join_lines([t for _, t, _, _ in rest])
    heading = Element(child_id(doc_id, e, hbox, htext, "heading_split"), e.page, e.seq, C.SECTION_HEADER,
                      hbox, htext.strip(), e.source, rules=e.rules + ("heading_split",),
                      attrs=freeze_attrs({"size": hsize, "fonts": e.attr("fonts") or ()}))
    attrs = dict(e.attrs)
    attrs["lines"] = tuple((*b, t, s, k) for b, t, s, k in rest)
    attrs["size"] = rest_size
    body = replace(e, bbox=body_box, text=body_text, attrs=freeze_attrs(attrs)).touched_by("heading_split")
    return [heading, body]


# ---------------------------------------------------------------------------------------------
# article_heading: "第3条（定義）" on a line of its own → section header
# ---------------------------------------------------------------------------------------------
def article_heading(doc: Document) -> Document:
    """Japanese regulations head each article "第N条（見出し）"; the model calls some of them text."""
    def fn(e: Element, page: Page) -> Element | None:
        if (e.category in (C.TEXT, C.LIST_ITEM) and len(text_lines(e)) == 1
                and ARTICLE_HEADING.match(nfkc(e.text.strip()))):
            return replace(e, category=C.SECTION_HEADER)
        return None
    return map_elements(doc, "article_heading", fn)


# ---------------------------------------------------------------------------------------------
# slide_title: a page header that is the page's headline → section header
# ---------------------------------------------------------------------------------------------
SLIDE_TITLE_RATIO = 1.5  # times the body size: a headline, not a running head's small print
RUNNING_PAGES = 3  # the same text (digits masked) at the top of this many pages runs: a running head


def slide_title(doc: Document) -> Document:
    """The layout model files some slide titles ("AI提供者に関する事項[2/2]", 26 pt over 14 pt body) as
    page headers, and chunks leave headers out: the slide's table then sits under the previous
    slide's heading. A page header set at least 1.5x the body size, the largest text on its page,
    whose text does not run at the top of 3 or more pages, is the page's heading."""
    body = body_size(doc)
    tops: dict[str, int] = {}
    for page in doc.pages:
        for key in {digits_masked(e.text.strip()) for e in page.elements if e.category is C.PAGE_HEADER}:
            tops[key] = tops.get(key, 0) + 1

    def fn(e: Element, page: Page) -> Element | None:
        size = e.attr("size") or 0
        if (e.category is not C.PAGE_HEADER or "repeated_furniture" in e.rules or size < SLIDE_TITLE_RATIO * body
                or not 0 < len(e.text.strip()) <= 60 or tops.get(digits_masked(e.text.strip()), 0) >= RUNNING_PAGES):
            return None
        larger = [o for o in page.elements if o is not e and (o.attr("size") or 0) > size
                  and o.category in TEXTUAL + (C.PAGE_HEADER, C.PAGE_FOOTER)]
        return None if larger else replace(e, category=C.SECTION_HEADER)
    return map_elements(doc, "slide_title", fn)


# ---------------------------------------------------------------------------------------------
# document_title: no title found → the one largest heading in the top half of the first page
# ---------------------------------------------------------------------------------------------
def document_title(doc: Document) -> Document:
    if not doc.pages or any(e.category is C.TITLE for e in doc.elements()):
        return doc
    body = body_size(doc)
    first = next((p for p in doc.pages if p.elements), None)
    if first is None:
        return doc
    sized = [e for e in first.elements if e.category in (C.SECTION_HEADER, C.TEXT) and e.attr("size")
             and len(e.text.strip()) <= 60 and e.bbox[3] <= 0.5 * first.height]
    if not sized:
        return doc
    largest = max(e.attr("size") for e in sized)
    top = [e for e in sized if e.attr("size") >= largest - 0.25]
    if len(top) != 1 or largest < 1.5 * body:
        return doc  # two equal headlines (a spread) or nothing standing out: no title
    target = top[0].id

    def fn(e: Element, page: Page) -> Element | None:
        return replace(e, category=C.TITLE) if e.id == target else None
    return map_elements(doc, "document_title", fn)
