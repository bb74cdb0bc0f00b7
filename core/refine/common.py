"""What every refine rule shares: walking pages and elements (renumbering a page only when a rule
changed it), relabelling with the rule's name, the body font size, an element's stored lines, and
stable ids for pieces split from an element."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from core.categories import Category
from core.model import BBox, Document, Element, Page, element_id, renumber

C = Category

TEXTUAL = (C.TEXT, C.LIST_ITEM, C.SECTION_HEADER, C.TITLE, C.CAPTION, C.FOOTNOTE)


def map_pages(doc: Document, fn: Callable[[Page], Sequence[Element]]) -> Document:
    pages = []
    changed = False
    for page in doc.pages:
        new = tuple(fn(page))
        # identity, not equality: comparing every element's attrs would cost more than the rule
        if len(new) != len(page.elements) or any(a is not b for a, b in zip(new, page.elements)):
            changed = True
            page = replace(page, elements=renumber(new))
        pages.append(page)
    return doc.with_pages(pages) if changed else doc


def map_elements(doc: Document, rule: str, fn: Callable[[Element, Page], Element | None]) -> Document:
    """Apply `fn` to every element; a returned element replaces it and is stamped with `rule`."""
    def on_page(page: Page) -> list[Element]:
        out = []
        for e in page.elements:
            new = fn(e, page)
            out.append(e if new is None or new is e else new.touched_by(rule))
        return out
    return map_pages(doc, on_page)


def relabel(e: Element, category: Category, rule: str, **changes) -> Element:
    return replace(e, category=category, **changes).touched_by(rule)


def body_size(doc: Document) -> float:
    stored = doc.meta_value("body_size")
    if stored:
        return float(stored)
    weights: dict[float, int] = {}
    for e in doc.elements():
        size = e.attr("size")
        if size and e.category in TEXTUAL:
            weights[size] = weights.get(size, 0) + len(e.text)
    return max(weights, key=weights.get) if weights else 10.0


def text_lines(e: Element) -> list[tuple[BBox, str]]:
    """The element's text lines with their boxes (one line = the element itself when not stored)."""
    stored = e.attr("lines")
    if stored:
        return [((ln[0], ln[1], ln[2], ln[3]), ln[4]) for ln in stored]
    return [(e.bbox, e.text)]


def stored_lines(e: Element) -> list[tuple[BBox, str, float, int]]:
    """(bbox, text, size, block) per line, as ingest stored them."""
    size = e.attr("size") or 0.0
    stored = e.attr("lines")
    if not stored:
        return [(e.bbox, e.text, size, 0)]
    return [((ln[0], ln[1], ln[2], ln[3]), ln[4], ln[5] if len(ln) > 5 else size, ln[6] if len(ln) > 6 else 0)
            for ln in stored]


def child_id(doc_id: str, e: Element, bbox: BBox, text: str, salt: str) -> str:
    """Ids of pieces split from an element derive from its id: stable across runs."""
    return element_id(doc_id, e.page, bbox, text, f"{e.id}:{salt}")
