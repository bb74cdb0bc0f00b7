"""Two-page spreads and multi-column landscape pages (seed 003): reading order half by half, column by column.

A report printed two pages to a landscape sheet reads as two pages; a parser that reads across the
sheet line by line merges the columns of both. On a landscape page this module:

1. looks for the gutter: a whitespace column through the page near the middle that no element
   crosses (decorative rules aside);
2. orders each half on its own (left then right), column by column, by recursive XY-cuts:
   a whitespace column splits the region into columns read left to right, else the widest
   whitespace row splits it into bands read top to bottom;
3. sets attr `side` ("left"/"right") on every element of a half and, when each half prints its
   own page number in its top or bottom margin, attr `page_label` on that half's elements (the
   page's own `label` becomes "12-13").

Vertical writing (tategaki) is left in the engine's order: its columns run right to left.
Pure functions over the Document; `spreads(doc)` is the refine rule (name "spread").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Sequence

from core.categories import Category
from core.geometry import uncovered
from core.model import Document, Element, Page, renumber

RULE = "spread"
LANDSCAPE_RATIO = 1.15  # width / height above which a page is landscape
GUTTER_BAND = (0.3, 0.7)  # the gutter lies in this share of the page width
MIN_GUTTER = 6.0  # points of whitespace
MIN_COLUMN_GAP = 8.0
MIN_ROW_GAP = 2.0
MIN_COLUMN_SHARE = 0.12  # each side of a column cut holds at least this share of the region's width
MARGIN_SHARE = 0.12  # page numbers sit in the top/bottom 12% of the page
PAGE_NUMBER = re.compile(r"^\s*(?:[-–—‐]\s*)?(?:p\.?\s*|P\.?\s*)?(\d{1,4})(?:\s*[-–—‐])?\s*$")
# a running footer that carries the number at one end: "63 ANNUAL REPORT", "統合報告書 | 12" (a 4-digit
# year at the end is not a page number, so only up to three digits)
NUMBER_AT_END = re.compile(r"^\s*(\d{1,3})\s+\D|\D\s+(\d{1,3})\s*$")
IGNORED = (Category.DECORATIVE,)


@dataclass(frozen=True)
class SpreadLayout:
    """What was found on one page: the gutter's whitespace interval and each half's printed number."""
    page: int
    gutter: tuple[float, float] | None  # (x0, x1) of the whitespace column; None: not a spread
    left_label: str | None = None
    right_label: str | None = None
    columns: int = 1  # columns found in the widest half (or the page)

    @property
    def gutter_x(self) -> float | None:
        return (self.gutter[0] + self.gutter[1]) / 2 if self.gutter else None


def is_landscape(page: Page) -> bool:
    width, height = (page.height, page.width) if page.rotation in (90, 270) else (page.width, page.height)
    return width > height * LANDSCAPE_RATIO


def find_gutter(page: Page) -> tuple[float, float] | None:
    """The whitespace column nearest the middle of the page that no element crosses, if any."""
    boxes = [e.bbox for e in page.elements if e.category not in IGNORED and e.bbox[2] > e.bbox[0]]
    if not boxes:
        return None
    lo, hi = page.width * GUTTER_BAND[0], page.width * GUTTER_BAND[1]
    gaps = [g for g in uncovered(lo, hi, [(b[0], b[2]) for b in boxes]) if g[1] - g[0] >= MIN_GUTTER]
    # a real gutter has content on both sides
    gaps = [g for g in gaps if any(b[2] <= g[0] for b in boxes) and any(b[0] >= g[1] for b in boxes)]
    if not gaps:
        return None
    middle = page.width / 2
    return min(gaps, key=lambda g: (0 if g[0] <= middle <= g[1] else min(abs(g[0] - middle), abs(g[1] - middle)),
                                    -(g[1] - g[0])))


def xy_cut_order(elements: Sequence[Element]) -> list[Element]:
    """Reading order by recursive XY-cuts: columns left to right first, else bands top to bottom."""
    items = [e for e in elements]
    if len(items) <= 1:
        return items
    column = _best_column_cut(items)
    if column is not None:
        left = [e for e in items if _centre_x(e) < column]
        right = [e for e in items if _centre_x(e) >= column]
        return xy_cut_order(left) + xy_cut_order(right)
    row = _best_row_cut(items)
    if row is not None:
        top = [e for e in items if _centre_y(e) < row]
        bottom = [e for e in items if _centre_y(e) >= row]
        return xy_cut_order(top) + xy_cut_order(bottom)
    return sorted(items, key=lambda e: (round(e.bbox[1], 1), e.bbox[0]))


def count_columns(elements: Sequence[Element]) -> int:
    """Columns at the top level of the XY-cut (after peeling full-width bands off)."""
    items = list(elements)
    column = _best_column_cut(items)
    if column is not None:
        return count_columns([e for e in items if _centre_x(e) < column]) + \
            count_columns([e for e in items if _centre_x(e) >= column])
    row = _best_row_cut(items)
    if row is not None:
        return max(count_columns([e for e in items if _centre_y(e) < row]),
                   count_columns([e for e in items if _centre_y(e) >= row]))
    return 1


def _best_column_cut(items: Sequence[Element]) -> float | None:
    x0, x1 = min(e.bbox[0] for e in items), max(e.bbox[2] for e in items)
    width = x1 - x0
    if width <= 0:
        return None
    gaps = [g for g in uncovered(x0, x1, [(e.bbox[0], e.bbox[2]) for e in items])
            if g[1] - g[0] >= MIN_COLUMN_GAP and g[0] - x0 >= MIN_COLUMN_SHARE * width
            and x1 - g[1] >= MIN_COLUMN_SHARE * width]
    if not gaps:
        return None
    widest = max(gaps, key=lambda g: g[1] - g[0])
    return (widest[0] + widest[1]) / 2


def _best_row_cut(items: Sequence[Element]) -> float | None:
    y0, y1 = min(e.bbox[1] for e in items), max(e.bbox[3] for e in items)
    gaps = [g for g in uncovered(y0, y1, [(e.bbox[1], e.bbox[3]) for e in items]) if g[1] - g[0] >= MIN_ROW_GAP]
    if not gaps:
        return None
    widest = max(gaps, key=lambda g: g[1] - g[0])
    return (widest[0] + widest[1]) / 2


def _centre_x(e: Element) -> float:
    return (e.bbox[0] + e.bbox[2]) / 2


def _centre_y(e: Element) -> float:
    return (e.bbox[1] + e.bbox[3]) / 2


def printed_page_number(elements: Sequence[Element], page: Page) -> str | None:
    """A bare number ("12", "- 12 -", "p.12") in the top or bottom margin: the half's printed page number."""
    margin = page.height * MARGIN_SHARE
    bare, embedded = [], []
    for e in elements:
        in_margin = e.bbox[3] <= margin or e.bbox[1] >= page.height - margin
        if not in_margin or e.category not in (Category.PAGE_FOOTER, Category.PAGE_HEADER, Category.TEXT):
            continue
        at_top = e.bbox[1] < margin
        match = PAGE_NUMBER.match(e.text.strip())
        if match:
            bare.append((at_top, match.group(1)))
        elif e.category is not Category.TEXT and (match := NUMBER_AT_END.search(e.text.strip())):
            embedded.append((at_top, match.group(1) or match.group(2)))
    for found in (bare, embedded):
        footers = [n for top, n in found if not top]
        if footers or found:
            return (footers or [n for _, n in found])[0]
    return None


def is_vertical_writing(page: Page) -> bool:
    """Tategaki: most text runs in tall narrow boxes. Its columns read right to left; left alone here."""
    texts = [e for e in page.elements if len(e.text.strip()) >= 4]
    tall = [e for e in texts if (e.bbox[3] - e.bbox[1]) > 2 * (e.bbox[2] - e.bbox[0])]
    return bool(texts) and len(tall) >= 0.5 * len(texts)


def analyse_page(page: Page) -> SpreadLayout:
    if not is_landscape(page) or not page.elements or is_vertical_writing(page):
        return SpreadLayout(page.number, None)
    gutter = find_gutter(page)
    if gutter is None:
        return SpreadLayout(page.number, None, columns=count_columns(page.elements))
    middle = (gutter[0] + gutter[1]) / 2
    left = [e for e in page.elements if _centre_x(e) < middle]
    right = [e for e in page.elements if _centre_x(e) >= middle]
    return SpreadLayout(page.number, gutter, printed_page_number(left, page), printed_page_number(right, page),
                        max(count_columns(left) if left else 0, count_columns(right) if right else 0))


def order_page(page: Page) -> Page:
    """The page with spread/column reading order and `side` / `page_label` attrs; unchanged when not landscape."""
    layout = analyse_page(page)
    if layout.gutter is None:
        if layout.columns < 2:
            return page
        return _reordered(page, xy_cut_order(page.elements), {})
    middle = layout.gutter_x
    halves = (("left", [e for e in page.elements if _centre_x(e) < middle], layout.left_label),
              ("right", [e for e in page.elements if _centre_x(e) >= middle], layout.right_label))
    attrs: dict[str, dict] = {}
    ordered: list[Element] = []
    for side, elements, label in halves:
        for e in xy_cut_order(elements):
            attrs[e.id] = {"side": side, **({"page_label": label} if label else {})}
            ordered.append(e)
    page = _reordered(page, ordered, attrs)
    if page.label is None and layout.left_label and layout.right_label:
        page = replace(page, label=f"{layout.left_label}-{layout.right_label}")
    return page


def _reordered(page: Page, ordered: Sequence[Element], attrs: dict[str, dict]) -> Page:
    out = []
    for index, e in enumerate(ordered):
        changed = e
        extra = attrs.get(e.id)
        if extra and any(e.attr(k) != v for k, v in extra.items()):
            changed = changed.with_attrs(**extra)
        if changed is not e or e.seq != index:
            changed = changed.touched_by(RULE)
        out.append(changed)
    return replace(page, elements=renumber(out))


def spreads(doc: Document) -> Document:
    """The refine rule: every landscape page read half by half, column by column."""
    pages = tuple(order_page(p) for p in doc.pages)
    return doc if pages == doc.pages else doc.with_pages(pages)
