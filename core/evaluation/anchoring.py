"""Anchoring a quote whose lines the parser put in another order (seed 003: figures, columns read
downwards, line numbers glued into words).

A gold quote is the page's own text, line for line; an element may hold the same lines in another
order, or the lines may sit in several elements of one region of the page (a figure's labels, a
table's cells). When the exact quote is in no element, these rules try, in order:

- `lines-in-element`: every line of the quote is inside one element, in any order;
- `lines-in-region`: every line is inside some element of the page, and those elements are close in
  reading order (at most `REGION_SPAN` apart), so they are one region, not scattered hits;
- `lines-skipping`: the quote is one element's stored lines read in order (the first from inside
  its line, the last up to inside its line, every one between whole) with other lines of the
  element left out between them: a side label or a figure's label that the parser read into the
  middle of a paragraph ("…(経済産業省)を" / "AIガバナンス" / "元に整理"). Whole lines make this
  strict: a quote that merely shares words with an element does not join its lines.

A quote's lines are its newline-separated lines; a one-line quote with spaces is split at the
spaces (a person copying a figure's labels separates them with spaces). Lines shorter than
`MIN_LINE_CHARS` are dropped from the test, because "ii." or "2" is inside almost any element; a
quote with no line that long is not line-anchored at all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

from core.model import Document, Element

REGION_SPAN = 12  # elements in reading order a region may span
MIN_LINE_CHARS = 2

EXACT = "exact"
LINES_IN_ELEMENT = "lines-in-element"
LINES_IN_REGION = "lines-in-region"
LINES_SKIPPING = "lines-skipping"


@dataclass(frozen=True)
class LineAnchor:
    elements: tuple[Element, ...]  # the first holds the most lines; it becomes the evidence's record_id
    method: str


def quote_lines(quote: str, normalise: Callable[[str], str]) -> list[str]:
    raw = quote.splitlines() if "\n" in quote.strip() else re.split(r"\s+", quote.strip())
    lines = [normalise(line) for line in raw]
    return [line for line in lines if len(line) >= MIN_LINE_CHARS]


def anchor_by_lines(doc: Document, quote: str, page: int | None,
                    normalise: Callable[[str], str]) -> LineAnchor | None:
    lines = quote_lines(quote, normalise)
    if len(lines) < 2:
        return None  # one line is the exact test, already failed
    pages = [doc.page(page)] if page and 1 <= page <= doc.page_count else list(doc.pages)
    for p in pages:
        texts = [normalise(e.text) for e in p.elements]
        whole = [e for e, t in zip(p.elements, texts) if all(line in t for line in lines)]
        if whole:
            return LineAnchor((min(whole, key=lambda e: len(e.text)),), LINES_IN_ELEMENT)
    for p in pages:
        region = _region_holding(p.elements, [normalise(e.text) for e in p.elements], lines)
        if region:
            return LineAnchor(region, LINES_IN_REGION)
    return None


def _region_holding(elements: Sequence[Element], texts: Sequence[str], lines: Sequence[str]) -> tuple[Element, ...]:
    """The shortest reading-order window whose elements hold every line; the elements used, the one
    holding most lines first. Empty when no window of at most REGION_SPAN elements does."""
    holders = [{j for j, t in enumerate(texts) if line in t} for line in lines]
    if any(not h for h in holders):
        return ()
    for span in range(1, REGION_SPAN + 1):
        for start in range(0, max(len(elements) - span + 1, 1)):
            window = set(range(start, start + span))
            if all(h & window for h in holders):
                used = sorted({j for h in holders for j in h & window},
                              key=lambda j: (-sum(j in h for h in holders), j))
                return tuple(elements[j] for j in used)
    return ()


def anchor_by_stored_lines(doc: Document, quote: str, page: int | None,
                           normalise: Callable[[str], str]) -> LineAnchor | None:
    """The element whose stored lines, some left out, read the quote in order (`lines-skipping`)."""
    wanted = normalise(quote)
    if len(wanted) < 2 * MIN_LINE_CHARS:
        return None
    pages = [doc.page(page)] if page and 1 <= page <= doc.page_count else list(doc.pages)
    for p in pages:
        for e in p.elements:
            lines = tuple(normalise(line[4]) for line in e.attr("lines") or () if len(line) > 4)
            if len(lines) >= 2 and joins_lines_in_order(wanted, lines):
                return LineAnchor((e,), LINES_SKIPPING)
    return None


def joins_lines_in_order(wanted: str, lines: Sequence[str]) -> bool:
    """wanted == the end of one line + whole later lines + the start of a later one, in line order,
    at least two lines used (a quote inside one line is the exact test's)."""

    @lru_cache(maxsize=None)
    def rest(pos: int, after: int) -> bool:
        if pos == len(wanted):
            return True
        tail = wanted[pos:]
        for b in range(after + 1, len(lines)):
            line = lines[b]
            if line and wanted.startswith(line, pos) and rest(pos + len(line), b):
                return True
            if len(tail) >= MIN_LINE_CHARS and len(line) > len(tail) and line.startswith(tail):
                return True
        return False

    for a, line in enumerate(lines):
        for cut in range(len(line) - MIN_LINE_CHARS + 1):
            head = line[cut:]
            if len(head) < len(wanted) and wanted.startswith(head) and rest(len(head), a):
                return True
    return False
