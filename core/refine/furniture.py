"""Rules for page furniture: repeated_furniture (running heads and feet, page numbers, copyright
lines → page header/footer) and decorative (separator lines, specks and pictures repeated on ≥3
pages → decorative)."""
from __future__ import annotations

import re
from dataclasses import replace

from core.categories import Category
from core.geometry import area
from core.model import Document, Element, Page
from core.refine.common import TEXTUAL, body_size, map_elements
from core.refine.notes_and_captions import FOOTNOTE_START
from core.text import digits_masked, nfkc

C = Category


# ---------------------------------------------------------------------------------------------
# repeated_furniture: the same text at the same place on ≥3 pages → page header/footer
# ---------------------------------------------------------------------------------------------
MARGIN = 0.15  # top/bottom share of the page where running heads and feet live
PAGE_NUMBER = re.compile(r"^(?:[-–—‐ー(（\[]|p\.|page|ページ)?\s*(?:#|[ivxlc]{1,6})\s*(?:/\s*#|of\s*#)?\s*"
                         r"(?:[-–—‐ー)）\]]|ページ|頁)?$", re.I)
COPYRIGHT = re.compile(r"^(?:©|\(c\)|copyright)", re.I)


def _band(e: Element, page: Page) -> str | None:
    cy = (e.bbox[1] + e.bbox[3]) / 2
    if cy <= MARGIN * page.height:
        return "top"
    if cy >= (1 - MARGIN) * page.height:
        return "bottom"
    return None


def _outermost(page: Page) -> dict[str, str]:
    """The text elements standing at the page's edge in its top/bottom band: the first two from the
    top (the last two from the bottom) with white space between them and the text they sit above
    (below). A body line near the top, one of a paragraph's evenly spaced lines, is not among them."""
    textual = sorted((e for e in page.elements if e.category in TEXTUAL + (C.PAGE_HEADER, C.PAGE_FOOTER)
                      and e.text.strip()), key=lambda e: (e.bbox[1], e.bbox[0]))
    found: dict[str, str] = {}
    for band, stack in (("top", textual), ("bottom", textual[::-1])):
        for n in (1, 2):  # the outermost one, or two stacked lines (a running head over its page number)
            group, after = stack[:n], stack[n] if len(stack) > n else None
            if len(group) < n or any(_band(e, page) != band for e in group):
                break
            height = max(max(e.bbox[3] - e.bbox[1], 1.0) for e in group)
            edge = group[-1]
            gap = 0.0 if after is None else (after.bbox[1] - edge.bbox[3] if band == "top" else edge.bbox[1] - after.bbox[3])
            if after is None or gap >= 0.8 * height:
                found.update({e.id: band for e in group})
    return found


def _small_print_in_margin(doc: Document) -> dict[str, str]:
    """Small print at the very top or bottom edge (a form number "様式第3号" above a one-page form)."""
    body = body_size(doc)
    found = {}
    for page in doc.pages:
        for e in page.elements:
            if e.category not in (C.TEXT, C.SECTION_HEADER) or not (0 < len(e.text.strip()) <= 60):
                continue
            cy = (e.bbox[1] + e.bbox[3]) / 2
            small = (e.attr("size") or body) <= 0.92 * body
            if not small or FOOTNOTE_START.match(nfkc(e.text.strip())):
                continue
            if cy <= 0.06 * page.height:
                found[e.id] = "top"
            elif cy >= 0.94 * page.height:
                found[e.id] = "bottom"
    return found


def repeated_furniture(doc: Document) -> Document:
    """Running heads/feet: text (digits masked) repeated at about the same height on ≥3 pages, plus
    bare page numbers and copyright lines in the top/bottom margin."""
    candidates: dict[tuple[str, str], list[tuple[float, int, str]]] = {}
    edge: set[str] = set()
    for page in doc.pages:
        outer = _outermost(page)
        for e in page.elements:
            if e.category not in TEXTUAL + (C.PAGE_HEADER, C.PAGE_FOOTER) or not e.text.strip():
                continue
            band = _band(e, page)
            if band:
                key = (digits_masked(e.text)[:80], band)
                candidates.setdefault(key, []).append(((e.bbox[1] + e.bbox[3]) / 2, page.number, e.id))
                edge.update({e.id} if outer.get(e.id) == band else set())
    furniture: dict[str, str] = {}
    for (text, band), hits in candidates.items():
        hits.sort()
        cluster: list[tuple[float, int, str]] = []
        for hit in hits + [(float("inf"), 0, "")]:
            if cluster and hit[0] - cluster[0][0] > 15:
                if len({p for _, p, _ in cluster}) >= 3:
                    # repeated text is furniture only where it stands at the page's edge
                    furniture.update({eid: band for _, _, eid in cluster if eid in edge})
                cluster = []
            cluster.append(hit)
        for _, _, eid in hits:
            if PAGE_NUMBER.match(text) or COPYRIGHT.match(nfkc(text)):
                furniture.setdefault(eid, band)
    furniture.update(_small_print_in_margin(doc))

    def fn(e: Element, page: Page) -> Element | None:
        band = furniture.get(e.id)
        if band is None:
            return None
        target = C.PAGE_HEADER if band == "top" else C.PAGE_FOOTER
        return None if e.category is target else replace(e, category=target)
    return map_elements(doc, "repeated_furniture", fn)


# ---------------------------------------------------------------------------------------------
# decorative: tiny or repeated images, separator lines → decorative
# ---------------------------------------------------------------------------------------------
def decorative(doc: Document) -> Document:
    seen: dict[str, set[int]] = {}
    for page in doc.pages:
        for e in page.elements:
            if e.category is C.PICTURE:
                for key in _picture_keys(e):
                    seen.setdefault(key, set()).add(page.number)
    repeated = {k for k, pages in seen.items() if len(pages) >= 3}

    def fn(e: Element, page: Page) -> Element | None:
        if e.category is not C.PICTURE:
            return None
        w, h = e.bbox[2] - e.bbox[0], e.bbox[3] - e.bbox[1]
        thin = e.attr("kind") == "rule" or min(w, h) < 4 or _stretched_pixel_line(e.attr("image"))
        tiny = area(e.bbox) < 0.001 * page.width * page.height and not e.text.strip()
        if thin or tiny or any(k in repeated for k in _picture_keys(e)):
            return replace(e, category=C.DECORATIVE)
        return None
    return map_elements(doc, "decorative", fn)


def _stretched_pixel_line(image: str | None) -> bool:
    """An image one or two pixels high or wide is a bar or gradient stretched over the page."""
    m = re.match(r"i(\d+)x(\d+)", image or "")
    return bool(m) and min(int(m.group(1)), int(m.group(2))) <= 2


def _picture_keys(e: Element) -> list[str]:
    """The same image object, or any picture at the same place and size, marks a page ornament."""
    keys = [f"at:{round(e.bbox[0] / 6)},{round(e.bbox[1] / 6)},{round(e.bbox[2] / 6)},{round(e.bbox[3] / 6)}"]
    image = e.attr("image")
    if image:
        keys.append(f"img:{image}")
    return keys
