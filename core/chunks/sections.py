"""Sections: how a heading is numbered (`heading_style`), the open sections while reading headings
in order (`SectionStack`), each element's section path, and for routing, which pages each section
title spans (`section_page_map`, from the document index when there is one), with the reference
entries for citation metadata."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from core.categories import Category
from core.chunks.blocks import HEADINGS
from core.headings import KANJI_NUMERALS
from core.model import Document, Element
from core.text import nfkc, normalise

C = Category


# ---- headings -----------------------------------------------------------------------------------
# (depth from numbering alone, shared with the forms stage, is core.headings.heading_level)
# Numbering styles: (scheme, rank). Within a scheme a larger rank is deeper (第N章 above 第N節);
# schemes with no known order nest in the order the document first uses them.
Style = tuple[str, int]
TITLE_STYLE: Style = ("title", 0)
FRONT_STYLE: Style = ("front", 0)
_FRONT = re.compile(
    r"^(?:目次|はじめに|おわりに|まえがき|あとがき|附則|付則|別表|別紙|参考文献|改定履歴|索引|用語集|"
    r"(?:table of )?contents|list of (?:figures|tables)|abstract|executive summary|foreword|preface|"
    r"acknowledge?ments?|appendix|annex|references|bibliography|glossary|index)(?:\s|$|[:：.])", re.I)
_STYLE_PATTERNS: tuple[tuple[re.Pattern[str], Style], ...] = (
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*[部編]"), ("jp", 0)),
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*章"), ("jp", 1)),
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*節"), ("jp", 2)),
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*款"), ("jp", 3)),
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*条"), ("jp", 4)),
    (re.compile(r"^\d+\.\d+\.\d+\.?(?!\d)"), ("num", 2)),
    (re.compile(r"^\d+\.\d+\.?(?!\d)"), ("num", 1)),
    (re.compile(r"^[A-Z]\.\d+\.\d+\.?(?!\d)"), ("alnum", 1)),
    (re.compile(r"^[A-Z]\.\d+\.?(?!\d)"), ("alnum", 0)),
    (re.compile(r"^\d+\s*[)）]"), ("rparen", 0)),
    (re.compile(r"^[(（]\s*\d+\s*[)）]"), ("paren", 0)),
    (re.compile(r"^[(（]\s*[ア-ンｱ-ﾝ]\s*[)）]"), ("paren_kana", 0)),
    (re.compile(r"^[①-⑳]"), ("circled", 0)),
    (re.compile(r"^(?:[IVX]+)\.(?=\s)"), ("roman", 0)),
    (re.compile(r"^[A-Z]\.(?=\s|[^\d.])"), ("alpha", 0)),
    (re.compile(r"^[ア-ン](?=[\s　])"), ("kana", 0)),
    (re.compile(r"^\d+\.?(?=\s|[^\d.,%])"), ("num", 0)),
    # a heading led by a bullet (● AI 開発時) heads a part of the section above it, not a sibling of
    # it: 第３部 AI 開発者に関する事項 > ● AI 開発時
    (re.compile(r"^[●■◆◇□○▶▷➢]\s*\S"), ("bullet", 0)),
)
_CHAPTER_SCHEMES = ("jp", "num", "level")  # a heading of these closes front matter (目次, Contents)
SAME_SIZE = 0.5  # points: headings this close in size are set alike


def heading_style(element: Element) -> Style | None:
    """How a heading is numbered; None when it is not (then it is a sibling of the heading before)."""
    if element.category is C.TITLE:
        return TITLE_STYLE
    level = element.attr("level")
    if isinstance(level, int) and not isinstance(level, bool):
        return ("level", level)
    text = normalise(element.text)
    if _FRONT.match(text):
        return FRONT_STYLE
    for pattern, style in _STYLE_PATTERNS:
        if pattern.match(text):
            return style
    return None


@dataclass(frozen=True)
class OpenSection:
    """A heading whose section is still open: its numbering style, title, element id and size."""

    style: Style
    title: str
    ref: str  # the heading element's id
    size: float | None  # the heading's font size in points, None when unknown


class SectionStack:
    """The open sections while reading headings in order; `path` is the current section path.

    A heading closes the open section of its own style and everything under it (第2条 closes 第1条),
    and a heading outranking one of the same scheme closes that one (第2章 closes 第1条). Any other
    style opens a deeper section. Front matter (目次, Contents, 参考文献) sits beside the chapters:
    it closes everything but the title, and the next chapter-level heading closes it. An unnumbered
    heading goes by its font size when every open section's is known (`_cut_by_size`), else it is
    a sibling of the heading before."""

    def __init__(self) -> None:
        self.entries: list[OpenSection] = []

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(e.title for e in self.entries)

    @property
    def ids(self) -> set[str]:
        return {e.ref for e in self.entries}

    def open(self, style: Style | None, title: str, ref: str = "", size: float | None = None) -> list[str]:
        """Open a section; returns the ids of the headings whose sections it closed."""
        before = [e.ref for e in self.entries]
        cut = self._cut_by_size(size) if style is None else None
        if cut is not None:
            # in the place of the section it closes, as its sibling; nested deeper: a plain part
            style = self.entries[cut].style if cut < len(self.entries) else ("plain", 0)
        else:
            style, cut = self._cut_by_style(style)
        del self.entries[cut:]
        self.entries.append(OpenSection(style, title, ref, size))
        return [r for r in before if r not in self.ids]

    def _cut_by_style(self, style: Style | None) -> tuple[Style, int]:
        """An unnumbered heading of unknown size is a sibling of the heading before; a numbered one
        closes its own style and deeper ranks of its scheme."""
        if style is None:
            top = self.entries[-1].style if self.entries else None
            style = top if top not in (None, TITLE_STYLE) else ("plain", 0)
        if style == TITLE_STYLE:
            cut = 0
        elif style == FRONT_STYLE:
            cut = next((i for i, e in enumerate(self.entries) if e.style != TITLE_STYLE), len(self.entries))
        else:
            cut = next((i for i, e in enumerate(self.entries) if e.style == style), None)
            if cut is None:
                scheme, rank = style
                cut = next((i for i, e in enumerate(self.entries) if e.style[0] == scheme and e.style[1] > rank), None)
            if cut is None and style[0] in _CHAPTER_SCHEMES:
                cut = next((i for i, e in enumerate(self.entries) if e.style == FRONT_STYLE), None)
            if cut is None:
                cut = len(self.entries)
        return style, cut

    def _cut_by_size(self, size: float | None) -> int | None:
        """Where an unnumbered heading of this size goes when every open section below the title
        knows its heading's size: in place of the first one set no larger (a slide's 26 pt title
        closes the 24 pt one before it and what is under it), else under them all (an 18 pt heading
        under a 26 pt one is a part of it, not its sibling). None: sizes unknown, numbering decides."""
        below_title = [(i, e.size) for i, e in enumerate(self.entries) if e.style != TITLE_STYLE]
        if not size or any(not s for _, s in below_title):
            return None
        return next((i for i, s in below_title if s <= size + SAME_SIZE), len(self.entries))


def section_paths(doc: Document) -> dict[str, tuple[str, ...]]:
    """Element id → the section path the chunker gives it (for modules that label their own
    chunks, e.g. form chunks, so paths agree)."""
    stack = SectionStack()
    out: dict[str, tuple[str, ...]] = {}
    for e in doc.elements():
        if e.category in HEADINGS and e.text.strip():
            stack.open(heading_style(e), " ".join(e.text.split()), e.id, e.attr("size"))
        out[e.id] = stack.path
    return out


# ---- routing and citation: section title -> pages, reference entries ----------------------------
_INDEX_LINE = re.compile(r"^(?P<title>.+?)[\s.．…·・‥\-—_]{2,}(?P<page>[0-9ivxlcIVXLC]+)\s*$")
_INDEX_LINE_SHORT = re.compile(r"^(?P<title>.*\S)\s+(?P<page>\d+)\s*$")


def index_entries(doc: Document) -> list[tuple[str, str]]:
    """(title, printed page) pairs read from the document index (table of contents) lines."""
    entries = []
    for e in doc.elements():
        if e.category is not C.DOCUMENT_INDEX:
            continue
        for line in e.text.splitlines():
            line = normalise(line)
            m = _INDEX_LINE.match(line) or _INDEX_LINE_SHORT.match(line)
            if m and m.group("title").strip(" .…"):
                entries.append((m.group("title").strip(" .…・"), m.group("page")))
    return entries


def section_page_map(doc: Document) -> dict[str, tuple[int, ...]]:
    """Section title → physical pages (1-based), for routing a question to pages.

    Titles come from the document index when there is one, else from the headings. A title whose
    heading is found in the body gets the pages its section spans; otherwise its printed page
    number is mapped to a physical page through page labels, or through the offset between
    printed and physical numbers seen on the titles that were found.
    """
    spans = _heading_spans(doc)
    by_key = {_title_key(t): pages for t, pages in spans.items()}
    entries = index_entries(doc)
    if not entries:
        return dict(spans)
    labels = {normalise(p.label): p.number for p in doc.pages if p.label}
    offsets = [by_key[_title_key(t)][0] - int(n) for t, n in entries if _title_key(t) in by_key and n.isdigit()]
    offset = Counter(offsets).most_common(1)[0][0] if offsets else 0
    out: dict[str, tuple[int, ...]] = {}
    for title, printed in entries:
        key = _title_key(title)
        if key in by_key:
            out[title] = by_key[key]
        elif printed in labels:
            out[title] = (labels[printed],)
        elif printed.isdigit() and 1 <= int(printed) + offset <= doc.page_count:
            out[title] = (int(printed) + offset,)
    return out


def _title_key(title: str) -> str:
    return re.sub(r"[\s　.．…・]", "", nfkc(title))


def _heading_spans(doc: Document) -> dict[str, tuple[int, ...]]:
    """Each heading's title → the pages from it to the heading that closes its section."""
    headings = [e for e in doc.elements() if e.category in HEADINGS and e.text.strip()]
    stack = SectionStack()
    start = {}
    end: dict[str, int] = {}
    for h in headings:
        for closed in stack.open(heading_style(h), " ".join(h.text.split()), h.id, h.attr("size")):
            end[closed] = h.page
        start[h.id] = h
    out: dict[str, tuple[int, ...]] = {}
    for h in headings:
        last = max(h.page, end.get(h.id, doc.page_count))
        out.setdefault(normalise(h.text), tuple(range(h.page, last + 1)))
    return out


def references(doc: Document) -> list[dict[str, Any]]:
    """Reference entries with where they sit, for citation metadata."""
    return [{"record_id": e.id, "page": e.page, "text": e.text.strip()}
            for e in doc.elements() if e.category is C.REFERENCE and e.text.strip()]
