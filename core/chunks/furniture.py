"""Furniture: page headers/footers told apart as repeated on many pages, bare page numbers,
copyright lines or page-specific text (`furniture_kind`), compared with digits masked."""
from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache

from core.categories import Category
from core.chunks.blocks import FURNITURE
from core.chunks.policy import Policy
from core.memo import page_memo
from core.model import Document, Element, Page
from core.text import digits_masked, nfkc, normalise


@lru_cache(maxsize=65536)
def furniture_key(text: str) -> str:
    """Header/footer text compared without digits and spaces: "- 3 -" = "- 4 -", and
    "46令和6年版 情報通信白書" = "令和6年版 情報通信白書" (a page number read into the line or apart)."""
    return digits_masked(text).replace("#", "")


def repeated_furniture(doc: Document, policy: Policy) -> frozenset[str]:
    """Header/footer texts (as `furniture_key`) found on at least `repeat_min_pages` pages."""
    pages: dict[tuple[Category, str], set[int]] = defaultdict(set)
    for page in doc.pages:
        for key in _FURNITURE.get(page, None, lambda page=page: _page_furniture(page)):
            pages[key].add(page.number)
    return frozenset(text for (cat, text), seen in pages.items()
                     if len(seen) >= int(policy.param(cat, "repeat_min_pages")))


_PAGE_NUMBER = re.compile(
    r"^[\-–—‐−~〜・\s]*(?:p\.?|page|ページ|頁)?\s*(?:\d+(?:\s*[\-–]\s*\d+)?|[ivxlc]{1,6})\s*"
    r"(?:(?:/|of)\s*\d+)?\s*(?:ページ|頁)?[\-–—‐−~〜・\s]*$", re.IGNORECASE)
_COPYRIGHT = re.compile(r"©|\(c\)|copyright|all rights reserved|著作権|無断(?:転載|複製|複写)", re.IGNORECASE)


def is_page_number(text: str) -> bool:
    return bool(text.strip()) and bool(_PAGE_NUMBER.match(normalise(text)))


def is_copyright(text: str) -> bool:
    return bool(_COPYRIGHT.search(nfkc(text)))


def furniture_kind(element: Element, repeated: frozenset[str]) -> str:
    if is_page_number(element.text):
        return "page_number"
    if is_copyright(element.text):
        return "copyright"
    if furniture_key(element.text) in repeated:
        return "repeated"
    return "unique"


_FURNITURE = page_memo()


def _page_furniture(page: Page) -> tuple[tuple[Category, str], ...]:
    """(category, furniture_key) of the page's header/footer texts, memoised by page (core.memo)."""
    return tuple((e.category, furniture_key(e.text)) for e in page.elements if e.category in FURNITURE and e.text.strip())
