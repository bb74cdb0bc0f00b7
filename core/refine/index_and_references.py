"""Rules for the document's apparatus: document_index (dot leaders + page numbers → table of
contents) and references (numbered items under a 参考文献/References heading → reference)."""
from __future__ import annotations

import re
from dataclasses import replace

from core.categories import Category
from core.model import Document, Element, Page
from core.refine.common import map_elements, map_pages, relabel, text_lines
from core.text import nfkc, squash

C = Category


# ---------------------------------------------------------------------------------------------
# document_index: dot leaders + page numbers → document index (table of contents)
# ---------------------------------------------------------------------------------------------
LEADER_LINE = re.compile(r"(?:\.{3,}|…+|‥+|・{3,}|·{3,}|_{3,}|-{4,}|─{3,}|—{3,}|\s{3,})\s*(?:p\.?\s*)?\d{1,4}\s*$")
ENDS_WITH_PAGE = re.compile(r"\D\s*\d{1,4}\s*$")
def _ends_in_digit(text: str) -> bool:
    tail = text.rstrip()[-1:]
    return tail.isdigit()


INDEX_HEADING = re.compile(r"^(?:目次|Contents|TableofContents|CONTENTS|もくじ)$", re.I)


def document_index(doc: Document) -> Document:
    def leader_share(e: Element) -> float:
        if e.category is C.TABLE:
            rows = e.attr("rows") or ()
            lines = [" ... ".join(c for c in r if c) for r in rows] or [e.text]
        else:
            lines = [t for _, t in text_lines(e)]
        lines = [t.rstrip() for t in lines if t.strip()]
        if not lines:
            return 0.0
        # only lines ending in a digit can end in a page number: skip the regex for the rest
        hits = sum(1 for t in lines if _ends_in_digit(t) and LEADER_LINE.search(nfkc(t).replace("|", " ")))
        return hits / len(lines)

    def on_page(page: Page) -> list[Element]:
        out = []
        after_heading = False
        for e in page.elements:
            if (e.category in (C.SECTION_HEADER, C.TITLE, C.TEXT) and len(e.text) <= 24
                    and INDEX_HEADING.match(squash(e.text))):
                after_heading = True
                out.append(e)
                continue
            if e.category in (C.TEXT, C.LIST_ITEM, C.SECTION_HEADER, C.TABLE, C.TITLE) and (
                    after_heading or _ends_in_digit(e.text) or e.category is C.TABLE or e.attr("lines")):
                share = leader_share(e)
                listed = after_heading and e.category is not C.TABLE and all(
                    ENDS_WITH_PAGE.search(nfkc(t).rstrip()) for _, t in text_lines(e) if t.strip())
                if share >= 0.5 or listed:
                    out.append(relabel(e, C.DOCUMENT_INDEX, "document_index"))
                    continue
            out.append(e)
        return out
    return map_pages(doc, on_page)


# ---------------------------------------------------------------------------------------------
# references: [1]-style items under a 参考文献/References heading → reference
# ---------------------------------------------------------------------------------------------
REFERENCE_HEADING = re.compile(r"^(?:[0-9.]+|第[0-9一二三四五六七八九十]+[章節])?(?:参考文献|引用文献|参照文献|文献|"
                               r"References|Bibliography|WorksCited)$", re.I)
REFERENCE_ITEM = re.compile(r"^\s*(?:\[\s*\d+\s*\]|\(\s*\d+\s*\)|\d+[.)]\s|[A-Z][A-Za-z'\-]+,\s)")


def references(doc: Document) -> Document:
    inside = False
    targets: set[str] = set()
    item_left: float | None = None  # left edge of the last numbered item: indented lines continue it
    for page in doc.pages:
        for e in page.elements:
            if e.category in (C.PAGE_HEADER, C.PAGE_FOOTER, C.DECORATIVE, C.PICTURE):
                continue
            heading_like = e.category in (C.SECTION_HEADER, C.TITLE) or (
                e.category is C.TEXT and len(e.text.strip()) <= 24)
            if heading_like and REFERENCE_HEADING.match(squash(e.text)):
                inside = True
                continue
            if inside and e.category in (C.SECTION_HEADER, C.TITLE):
                inside = False
                continue
            if inside and e.category in (C.TEXT, C.LIST_ITEM, C.FOOTNOTE):
                if REFERENCE_ITEM.match(nfkc(e.text)):
                    targets.add(e.id)
                    item_left = e.bbox[0]
                elif item_left is not None and e.bbox[0] >= item_left + 8:
                    targets.add(e.id)

    def fn(e: Element, page: Page) -> Element | None:
        return replace(e, category=C.REFERENCE) if e.id in targets else None
    return map_elements(doc, "references", fn)
