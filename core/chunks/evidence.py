"""Evidence: per page, which elements join which, and what goes to metadata instead of text.

The chunker (core/chunks/chunking.py) never looks at categories; it packs the `Block`s built here. Each
page's evidence depends only on that page's elements plus a small `PageContext` (which of its
header/footer texts repeat elsewhere, captions/footnotes on other pages linked into it), so a
correction on page P rebuilds only page P's evidence.

Rules (seed 000, issue 3):
- caption → picture/table on the same page, nearest by reading order then bbox distance; never
  across pages. A caption with no such neighbour stays in the text flow where it is.
- footnote → the block holding its marker (※1, *1, 注1, ¹, (1)) anywhere on the page, else the
  block whose raised reference numbers (ingest's `sup_marks`: a plain "1" set as superscript)
  include the note's leading number ("1 …", "注5"), else the nearest preceding body block, else the nearest following one; on a page with no body at all,
  the chunk before it. Never a chunk of its own, never dropped.
- a caption's/footnote's `links` (set by a reviewer, or by an importer) override all of this.
- page header/footer: text repeated on ≥3 pages (digits masked), bare page numbers and copyright
  lines go to `page_headers` / `page_footers` metadata; page-specific furniture stays in the flow.
- formula: atomic, `$$…$$` when LaTeX-like else `式: …`, with the sentence before it as metadata.
- code: atomic fenced block with a language guess (python/sql/json/xml).
- reference, document index: metadata of their page's chunks; `section_page_map` gives routing.
- decorative: excluded. List items: one procedure per run. Tables: row by row, header repeated.
"""
from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from core.categories import Category
from core.geometry import distance
from core.headings import KANJI_NUMERALS
from core.model import Document, Element, Page, freeze_attrs
from core.chunks.policy import Action, Policy
from core.text import digits_masked, join_lines, nfkc, normalise

C = Category
HEADINGS = (C.TITLE, C.SECTION_HEADER)
FURNITURE = (C.PAGE_HEADER, C.PAGE_FOOTER)
FORM_CATEGORIES = (C.FORM_FIELD, C.SELECTION_MARK)
TEXT_PRODUCING = (Action.CHUNK, Action.ATOMIC_CHUNK)

# block kinds the chunker knows
HEADING, FLOW, GROUP, ATOMIC, TABLE, REFONLY, NOTE = (
    "heading", "flow", "group", "atomic", "table", "refonly", "note")

METADATA_KEYS = {C.PAGE_HEADER: "page_headers", C.PAGE_FOOTER: "page_footers",
                 C.REFERENCE: "references", C.DOCUMENT_INDEX: "document_index"}


def metadata_key(category: Category) -> str:
    return METADATA_KEYS.get(category, f"{category.value}_metadata")


@dataclass(frozen=True)
class Piece:
    """The smallest run of text the chunker never splits, with the elements it came from."""
    text: str
    elements: tuple[Element, ...]
    joins_previous: bool = False  # True: continues the previous piece's element (no separator)


@dataclass(frozen=True)
class Block:
    kind: str  # heading | flow | group | atomic | table | refonly | note
    page: int
    seq: int  # reading position of its first element on the page
    pieces: tuple[Piece, ...] = ()
    level: tuple[str, int] | None = None  # headings: numbering style (heading_style; None: unnumbered)
    heading: str = ""  # headings: the title used in section paths
    head: tuple[Piece, ...] = ()  # tables: caption + header row, repeated in every part
    tail: tuple[Piece, ...] = ()  # tables: footnotes, repeated in every part
    label_section: bool = False  # atomic formula/code: text starts with its section path
    side: str | None = None  # spreads: "left" / "right" half of the physical page
    extras: tuple[tuple[str, Any], ...] = ()

    @property
    def elements(self) -> tuple[Element, ...]:
        seen: dict[str, Element] = {}
        for piece in self.head + self.pieces + self.tail:
            for e in piece.elements:
                seen.setdefault(e.id, e)
        return tuple(seen.values())

    @property
    def size(self) -> int:
        return sum(len(p.text) + 1 for p in self.pieces)


@dataclass(frozen=True)
class Attachment:
    source: str  # the caption / footnote element id
    category: Category
    target: str | None  # the element it joined; None when it stayed in the flow or joined a chunk
    how: str  # link | marker | sup_marker | reading_order | preceding | following | previous_chunk | unattached | unlinked


@dataclass(frozen=True)
class Furniture:
    element_id: str
    page: int
    category: Category
    text: str
    kind: str  # repeated | page_number | copyright | unique
    placed: str  # metadata | text | excluded


@dataclass(frozen=True)
class PageContext:
    """What a page's evidence needs from the rest of the document (part of its cache key)."""
    repeated: frozenset[str] = frozenset()  # furniture texts (furniture_key) of this page found on ≥N pages
    incoming: tuple[Element, ...] = ()  # captions/footnotes elsewhere whose links point into this page
    linked_away: frozenset[str] = frozenset()  # ids here whose links point to another page
    skip: frozenset[str] = frozenset()  # ids chunked elsewhere (form fields, by core.forms.fields)


@dataclass(frozen=True)
class PageEvidence:
    page: int
    blocks: tuple[Block, ...]
    metadata: tuple[tuple[str, tuple[str, ...]], ...] = ()  # page_headers, page_footers, references…
    attachments: tuple[Attachment, ...] = ()
    furniture: tuple[Furniture, ...] = ()
    excluded: tuple[str, ...] = ()

    def metadata_value(self, key: str) -> tuple[str, ...]:
        return dict(self.metadata).get(key, ())


# ---- document-level context -------------------------------------------------------------------
def page_contexts(doc: Document, policy: Policy, skip: Iterable[str] = ()) -> dict[int, PageContext]:
    skip = frozenset(skip)
    repeated = repeated_furniture(doc, policy)
    where = {e.id: e.page for e in doc.elements()}
    incoming: dict[int, list[Element]] = defaultdict(list)
    away: dict[int, set[str]] = defaultdict(set)
    for e in doc.elements():
        targets = [where[t] for t in e.links if t in where]
        if targets and targets[0] != e.page:
            incoming[targets[0]].append(e)
            away[e.page].add(e.id)
    out = {}
    for page in doc.pages:
        masks = {furniture_key(e.text) for e in page.elements if e.category in FURNITURE}
        out[page.number] = PageContext(
            repeated=frozenset(masks & repeated), incoming=tuple(incoming.get(page.number, ())),
            linked_away=frozenset(away.get(page.number, ())),
            skip=frozenset(e.id for e in page.elements if e.id in skip),
        )
    return out


@lru_cache(maxsize=65536)
def furniture_key(text: str) -> str:
    """Header/footer text compared without digits and spaces: "- 3 -" = "- 4 -", and
    "46令和6年版 情報通信白書" = "令和6年版 情報通信白書" (a page number read into the line or apart)."""
    return digits_masked(text).replace("#", "")


def repeated_furniture(doc: Document, policy: Policy) -> frozenset[str]:
    """Header/footer texts (as `furniture_key`) found on at least `repeat_min_pages` pages."""
    pages: dict[tuple[Category, str], set[int]] = defaultdict(set)
    for e in doc.elements():
        if e.category in FURNITURE and e.text.strip():
            pages[(e.category, furniture_key(e.text))].add(e.page)
    return frozenset(text for (cat, text), seen in pages.items()
                     if len(seen) >= int(policy.param(cat, "repeat_min_pages")))


# ---- furniture ----------------------------------------------------------------------------------
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


# ---- footnote markers ---------------------------------------------------------------------------
_SUPERSCRIPTS = "¹²³⁴⁵⁶⁷⁸⁹⁰"
_MARKER_PATTERNS = (
    # (how the footnote starts, how a reference to it looks in the body); {n} = the number
    (re.compile(r"^\s*※\s*(\d+)"), r"※\s*{n}(?!\d)"),
    (re.compile(r"^\s*[*＊]\s*(\d+)"), r"[*＊]\s*{n}(?!\d)"),
    (re.compile(r"^\s*[(（]?\s*注\s*(\d+)"), r"注\s*{n}(?!\d)"),
    (re.compile(r"^\s*[(（]\s*(\d+)\s*[)）]"), r"[(（]\s*{n}\s*[)）]"),
)


def footnote_marker(text: str) -> re.Pattern[str] | None:
    """A pattern finding this footnote's marker in body text, or None when it has no numbered marker."""
    raw = text.lstrip()
    sup = re.match(f"[{_SUPERSCRIPTS}]+", raw)
    if sup:
        return re.compile(re.escape(sup.group(0)) + f"(?![{_SUPERSCRIPTS}])")
    folded = nfkc(text)
    for start, body in _MARKER_PATTERNS:
        m = start.match(folded)
        if m:
            return re.compile(body.format(n=m.group(1)))
    return None


_SUP_DIGITS = str.maketrans(_SUPERSCRIPTS, "1234567890")
_NOTE_NUMBER = re.compile(r"^\s*(?:※|[*＊]|[(（]?\s*注)?\s*(\d{1,3})(?!\d)")


def footnote_number(text: str) -> str | None:
    """The number a footnote starts with ("1 SP 800…", "13インターネット…", "¹", "※5", "注5"), as the
    body's superscript reference marks (ingest's `sup_marks`) would spell it."""
    raw = text.lstrip()
    sup = re.match(f"[{_SUPERSCRIPTS}]+", raw)
    if sup:
        return str(int(sup.group(0).translate(_SUP_DIGITS)))
    m = _NOTE_NUMBER.match(nfkc(raw))
    return str(int(m.group(1))) if m else None


def marker_position(pattern: re.Pattern[str], text: str) -> int | None:
    """Where the marker first appears in body text (NFKC for full-width digits; raw for ¹²³)."""
    for candidate in (text, nfkc(text)):
        m = pattern.search(candidate)
        if m:
            return m.start()
    return None


# ---- formula and code ---------------------------------------------------------------------------
_LATEX = re.compile(r"\\[A-Za-z]+|[\^_]\{|\\\(|\\\[")


def normalise_formula(text: str) -> str:
    body = text.strip()
    if body.startswith("$$") and body.endswith("$$") and len(body) > 4:
        return "$$" + body[2:-2].strip() + "$$"
    if body.startswith("$") and body.endswith("$") and len(body) > 2:
        return "$$" + body.strip("$").strip() + "$$"
    if _LATEX.search(body):
        return f"$${body}$$"
    return f"式: {body}"


def guess_code_language(text: str) -> str:
    body = text.strip()
    upper = body.upper()
    if re.search(r"^\s*(def |class |import |from \S+ import |print\()", body, re.MULTILINE):
        return "python"
    if (re.search(r"\bSELECT\b", upper) and re.search(r"\bFROM\b", upper)) or re.search(
            r"^\s*(INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|VIEW|INDEX))", upper,
            re.MULTILINE):
        return "sql"
    if body[:1] in "{[":
        try:
            json.loads(body)
            return "json"
        except ValueError:
            if re.search(r'"[^"]+"\s*:', body):
                return "json"
    if body.startswith("<") and re.search(r"</\w|/>", body):
        return "xml"
    return ""


def fenced(text: str, language: str) -> str:
    return f"```{language}\n{text.strip()}\n```"


# ---- sentences ----------------------------------------------------------------------------------
_OPENERS, _CLOSERS = "（(「『【〔［[“‘", "）)」』】〕］]”’"


def split_sentences(text: str, ends: str) -> list[str]:
    """Split after a sentence end (keeping trailing closing brackets with it). An end inside
    brackets, e.g. 「以下「会社」という。」, is not a sentence end."""
    out, start, depth, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth = max(0, depth - 1)
        elif ch in ends and depth == 0:
            j = i + 1
            while j < len(text) and (text[j] in _CLOSERS or text[j] in ends):
                j += 1
            # a full stop between digits (3.5, 1．2) is a decimal point, not a sentence end
            if not (ch in ".．" and i > 0 and j < len(text) and text[i - 1].isdigit() and text[j].isdigit()):
                out.append(text[start:j])
                start = j
            i = j
            continue
        i += 1
    if start < len(text):
        out.append(text[start:])
    return [s for s in out if s]


def split_long(sentence: str, max_chars: int) -> list[str]:
    """A sentence over the limit is cut at its line ends (the last-resort split point)."""
    if len(sentence) <= max_chars or "\n" not in sentence:
        return [sentence]
    lines = sentence.splitlines(keepends=True)
    out, cur = [], ""
    for line in lines:
        if cur and len(cur) + len(line) > max_chars:
            out.append(cur)
            cur = ""
        cur += line
    if cur:
        out.append(cur)
    return out


def sentence_pieces(element: Element, text: str, policy: Policy) -> list[Piece]:
    parts: list[str] = []
    for sentence in split_sentences(text, policy.sentence_ends):
        parts.extend(split_long(sentence, policy.max_chars))
    return [Piece(p, (element,), joins_previous=i > 0) for i, p in enumerate(parts)] or [Piece("", (element,))]


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
)
_CHAPTER_SCHEMES = ("jp", "num", "level")  # a heading of these closes front matter (目次, Contents)


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


class SectionStack:
    """The open sections while reading headings in order; `path` is the current section path.

    A heading closes the open section of its own style and everything under it (第2条 closes 第1条),
    and a heading outranking one of the same scheme closes that one (第2章 closes 第1条). Any other
    style opens a deeper section. Front matter (目次, Contents, 参考文献) sits beside the chapters:
    it closes everything but the title, and the next chapter-level heading closes it."""

    def __init__(self) -> None:
        self.entries: list[tuple[Style, str, str]] = []  # (style, title, heading element id)

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(title for _, title, _ in self.entries)

    @property
    def ids(self) -> set[str]:
        return {ref for _, _, ref in self.entries}

    def open(self, style: Style | None, title: str, ref: str = "") -> list[str]:
        """Open a section; returns the ids of the headings whose sections it closed."""
        before = [ref_ for _, _, ref_ in self.entries]
        if style is None:
            top = self.entries[-1][0] if self.entries else None
            style = top if top not in (None, TITLE_STYLE) else ("plain", 0)
        if style == TITLE_STYLE:
            cut = 0
        elif style == FRONT_STYLE:
            cut = next((i for i, e in enumerate(self.entries) if e[0] != TITLE_STYLE), len(self.entries))
        else:
            cut = next((i for i, e in enumerate(self.entries) if e[0] == style), None)
            if cut is None:
                cut = next((i for i, e in enumerate(self.entries) if e[0][0] == style[0] and e[0][1] > style[1]), None)
            if cut is None and style[0] in _CHAPTER_SCHEMES:
                cut = next((i for i, e in enumerate(self.entries) if e[0] == FRONT_STYLE), None)
            if cut is None:
                cut = len(self.entries)
        del self.entries[cut:]
        self.entries.append((style, title, ref))
        return [r for r in before if r not in self.ids]


def section_paths(doc: Document) -> dict[str, tuple[str, ...]]:
    """Element id → the section path the chunker gives it (for modules that label their own
    chunks, e.g. form chunks, so paths agree)."""
    stack = SectionStack()
    out: dict[str, tuple[str, ...]] = {}
    for e in doc.elements():
        if e.category in HEADINGS and e.text.strip():
            stack.open(heading_style(e), " ".join(e.text.split()), e.id)
        out[e.id] = stack.path
    return out


# ---- the page evidence builder ------------------------------------------------------------------
def build_page_evidence(page: Page, policy: Policy, ctx: PageContext = PageContext()) -> PageEvidence:
    """Pure: the same page, context and policy give the same evidence (cached by chunking)."""
    return _PageBuilder(page, policy, ctx).build()


class _PageBuilder:
    """One page's evidence, step by step: sort its elements (body, metadata, excluded, captions and
    footnotes to attach), give captions/footnotes their wrapped lines, attach them (`_Attacher`),
    then cut the body into blocks (`_BlockMaker`)."""

    def __init__(self, page: Page, policy: Policy, ctx: PageContext):
        self.page, self.policy, self.ctx = page, policy, ctx
        self.elements = [e for e in sorted(page.elements, key=lambda e: e.seq) if e.id not in ctx.skip]
        self.metadata: dict[str, list[str]] = defaultdict(list)
        self.furniture: list[Furniture] = []
        self.excluded: list[str] = []
        self.flow: list[Element] = []  # body elements in reading order
        self.continued: dict[str, list[Element]] = {}  # caption/footnote id -> its wrapped lines

    def build(self) -> PageEvidence:
        sources = self._sort_elements()
        self._find_continuations(sources)
        attacher = _Attacher(self.page.number, self.policy, self.flow)
        attacher.attach(sources)
        blocks = _BlockMaker(self.page.number, self.policy, attacher, self.continued).blocks()
        return PageEvidence(
            page=self.page.number, blocks=tuple(blocks),
            metadata=tuple((k, tuple(v)) for k, v in self.metadata.items()),
            attachments=tuple(attacher.attachments), furniture=tuple(self.furniture),
            excluded=tuple(self.excluded),
        )

    # which elements are body, metadata, excluded or attachable ------------------------------
    def _sort_elements(self) -> list[Element]:
        sources: list[Element] = []
        for e in self.elements:
            if e.id in self.ctx.linked_away:
                continue  # joins its linked target on another page
            action = self.policy.action(e.category)
            if e.category in HEADINGS:
                self.flow.append(e)  # headings open sections whatever their action
            elif action is Action.EXCLUDE:
                self.excluded.append(e.id)
            elif action is Action.METADATA_ONLY and e.category in FURNITURE:
                self._furniture(e)
            elif action is Action.METADATA_ONLY:
                if e.text.strip():
                    self.metadata[metadata_key(e.category)].append(e.text.strip())
            elif action is Action.ATTACH_TO_NEIGHBOR:
                sources.append(e)
            else:
                self.flow.append(e)
        return sources + list(self.ctx.incoming)

    def _furniture(self, e: Element) -> None:
        kind = furniture_kind(e, self.ctx.repeated)
        to_text = kind == "unique" and bool(self.policy.param(e.category, "attach_unique"))
        if not e.text.strip():
            self.excluded.append(e.id)
            return
        self.furniture.append(Furniture(e.id, e.page, e.category, e.text.strip(), kind,
                                        "text" if to_text else "metadata"))
        if to_text:
            self.flow.append(e)
        else:
            self.metadata[metadata_key(e.category)].append(e.text.strip())

    def _find_continuations(self, sources: list[Element]) -> None:
        """A caption's or footnote's wrapped second line, read as a separate text block (line-level
        engines do this), belongs to it: the next element, just below, starting at its left edge."""
        order = [e for e in self.elements if e.category is not C.DECORATIVE]
        position = {e.id: i for i, e in enumerate(order)}
        for src in sources:
            if src.id not in position:
                continue
            lines, last = [], src
            for e in order[position[src.id] + 1:]:
                if e.category is not C.TEXT or e not in self.flow or not _continues(last, e):
                    break
                lines.append(e)
                last = e
            if lines:
                self.continued[src.id] = lines
                self.flow = [e for e in self.flow if e not in lines]


class _Attacher:
    """Captions and footnotes to the body elements they join: a reviewer's or importer's link first,
    else the policy's rules (the module docstring). One that joins nothing stays in the flow as
    text, or, a footnote with no body on its page, waits for the chunk before it (`notes`)."""

    def __init__(self, page_number: int, policy: Policy, flow: Sequence[Element]):
        self.page_number, self.policy = page_number, policy
        self.flow: list[Element] = list(flow)  # body in reading order; sources left in the flow join it
        self.glued: dict[str, list[Element]] = defaultdict(list)  # target id -> attached sources
        self.notes: list[Element] = []  # footnotes with no body on this page: glued to the chunk before
        self.attachments: list[Attachment] = []

    def attach(self, sources: list[Element]) -> None:
        # captions first: a footnote's marker may sit in the caption of the figure it annotates
        for src in sorted(sources, key=lambda e: (e.category is C.FOOTNOTE, e.page != self.page_number, e.seq)):
            target, how = self._target_for(src)
            if target is not None:
                self.glued[target.id].append(src)
                self.attachments.append(Attachment(src.id, src.category, target.id, how))
            elif src.category is C.FOOTNOTE and how == "unattached":
                self.notes.append(src)
                self.attachments.append(Attachment(src.id, src.category, None, "previous_chunk"))
            else:
                self.flow.append(src)  # stays where it is, as text: never dropped
                self.attachments.append(Attachment(src.id, src.category, None, how))
        self.flow.sort(key=lambda e: (e.page != self.page_number, e.seq))

    def _target_for(self, src: Element) -> tuple[Element | None, str]:
        body = {e.id: e for e in self.flow}
        if src.links:
            for target_id in src.links:
                if target_id in body:
                    return body[target_id], "link"
        elif "reviewer:unlink" in src.rules:
            return None, "unlinked"  # the reviewer said: attached to nothing
        targets = self.policy.of(src.category).attach_targets
        candidates = [e for e in self.flow if e.category in targets and e.page == src.page
                      and self.policy.action(e.category) in TEXT_PRODUCING]
        if not candidates:
            return None, "unattached"
        if src.category is C.FOOTNOTE:
            return self._footnote_target(src, candidates)
        best = min(candidates, key=lambda e: (abs(e.seq - src.seq), distance(e.bbox, src.bbox)))
        return best, "reading_order"

    def _footnote_target(self, note: Element, candidates: list[Element]) -> tuple[Element, str]:
        pattern = footnote_marker(note.text)
        if pattern is not None:
            hits = []
            for e in candidates:
                # a figure's or table's text includes its attached captions ("（出典）…＊32")
                text = "\n".join([e.text] + [s.text for s in self.glued.get(e.id, ()) if s.category is not C.FOOTNOTE])
                pos = marker_position(pattern, text)
                # a block that *starts* with the marker is more likely another note or a list label
                if pos is not None:
                    hits.append((pos == 0, e.seq > note.seq, abs(e.seq - note.seq), e))
            if hits:
                return min(hits, key=lambda h: h[:3])[3], "marker"
        sup = self._superscript_target(note, candidates)
        if sup is not None:
            return sup, "sup_marker"
        before = [e for e in candidates if e.seq < note.seq]
        if before:
            return max(before, key=lambda e: (e.seq, -distance(e.bbox, note.bbox))), "preceding"
        return min(candidates, key=lambda e: (e.seq, distance(e.bbox, note.bbox))), "following"

    @staticmethod
    def _superscript_target(note: Element, candidates: list[Element]) -> Element | None:
        """The block whose raised reference numbers (`sup_marks`, read at ingest) include the
        note's number. The number must still be in the block's text: a block split by refine
        keeps the whole block's marks on every part."""
        number = footnote_number(note.text)
        if number is None:
            return None
        in_text = re.compile(f"(?<!\\d){number}(?!\\d)")
        hits = [e for e in candidates
                if number in (e.attr("sup_marks") or ()) and in_text.search(nfkc(e.text))]
        if not hits:
            return None
        return min(hits, key=lambda e: (e.seq > note.seq, abs(e.seq - note.seq)))


class _BlockMaker:
    """The page's body cut into the blocks the chunker packs (headings, flow, list runs, atomic
    figures/formulas/code, tables, notes), each attached caption and footnote glued into its
    target's pieces."""

    def __init__(self, page_number: int, policy: Policy, attached: _Attacher,
                 continued: Mapping[str, list[Element]]):
        self.page_number, self.policy = page_number, policy
        self.flow = attached.flow
        self.glued = attached.glued
        self.notes = attached.notes
        self.continued = continued

    def blocks(self) -> list[Block]:
        blocks: list[Block] = []
        i = 0
        while i < len(self.flow):
            e = self.flow[i]
            if e.category is C.PICTURE and self.policy.action(C.PICTURE) is Action.ATOMIC_CHUNK:
                run = [e]
                while (i + 1 < len(self.flow) and self.flow[i + 1].category is C.PICTURE
                       and self.flow[i + 1].attr("side") == e.attr("side")):
                    i += 1
                    run.append(self.flow[i])
                blocks.append(self._picture(run, i - len(run) + 1))
            elif e.category is C.CODE and self.policy.action(C.CODE) is Action.ATOMIC_CHUNK:
                run = [e]  # a code block read as one element per line is still one block
                while (i + 1 < len(self.flow) and self.flow[i + 1].category is C.CODE
                       and self.flow[i + 1].attr("side") == e.attr("side")):
                    i += 1
                    run.append(self.flow[i])
                blocks.append(self._atomic(run, i - len(run) + 1))
            elif e.category is C.LIST_ITEM and self._groups_lists() and self._is_body(e):
                run = [e]
                while (i + 1 < len(self.flow) and self.flow[i + 1].category is C.LIST_ITEM
                       and self.flow[i + 1].attr("side") == e.attr("side")):
                    i += 1
                    run.append(self.flow[i])
                blocks.append(self._group(run))
            else:
                block = self._block(e, i)
                if block is not None:
                    blocks.append(block)
            i += 1
        blocks.extend(Block(NOTE, self.page_number, n.seq, (self._source_piece(n),), side=n.attr("side"))
                      for n in self.notes)
        return blocks

    def _groups_lists(self) -> bool:
        return bool(self.policy.param(C.LIST_ITEM, "group"))

    def _is_body(self, e: Element) -> bool:
        return self.policy.action(e.category) is Action.CHUNK

    def _block(self, e: Element, index: int) -> Block | None:
        action = self.policy.action(e.category)
        side = e.attr("side")
        if e.category in HEADINGS:
            in_text = action in TEXT_PRODUCING and e.text.strip()
            pieces = self._with_glue(e, [Piece(e.text.strip(), (e,))]) if in_text else ()
            return Block(HEADING, e.page, e.seq, tuple(pieces), level=heading_style(e),
                         heading=" ".join(e.text.split()), side=side)
        if e.category in FORM_CATEGORIES:
            action = Action.CHUNK  # core.forms.fields did not take them: plain text, so nothing is lost
        if action is Action.ATOMIC_CHUNK and e.category is C.TABLE:
            return self._table(e)
        if action is Action.ATOMIC_CHUNK:
            return self._atomic([e], index)
        if e.id in self.continued:
            return Block(FLOW, e.page, e.seq, (self._source_piece(e),), side=side)
        text = self._text_of(e)
        if not text.strip() and not self.glued.get(e.id):
            return Block(REFONLY, e.page, e.seq, (Piece("", (e,)),), side=side) if e.category is C.PICTURE else None
        pieces = self._with_glue(e, sentence_pieces(e, text.strip(), self.policy) if text.strip() else [])
        return Block(FLOW, e.page, e.seq, tuple(pieces), side=side, extras=_element_extras(e))

    def _text_of(self, e: Element) -> str:
        if e.category is C.TABLE:
            return "\n".join(table_rows(e))
        if e.category is C.FORMULA:
            return normalise_formula(e.text)
        if e.category is C.CODE:
            return fenced(e.text, guess_code_language(e.text))
        return e.text

    def _source_piece(self, src: Element) -> Piece:
        lines = self.continued.get(src.id, [])
        return Piece(join_lines([src.text] + [e.text for e in lines]), (src, *lines))

    def _with_glue(self, target: Element, pieces: list[Piece]) -> list[Piece]:
        """Captions go before the target's text; a footnote goes right after the sentence holding
        its marker (so a split never separates them), else after the target's last sentence."""
        pieces = list(pieces)
        for src in self.glued.get(target.id, ()):
            glue = self._source_piece(src)
            if src.category is C.FOOTNOTE:
                pattern = footnote_marker(src.text)
                at = len(pieces) - 1
                if pattern is not None:
                    at = next((k for k, p in enumerate(pieces) if marker_position(pattern, p.text) is not None), at)
                else:
                    at = self._sup_mark_piece(target, src, pieces, at)
                if at < 0:
                    pieces.append(glue)
                else:
                    p = pieces[at]
                    pieces[at] = Piece(p.text + "\n" + glue.text, p.elements + glue.elements, p.joins_previous)
            else:
                if pieces:
                    p = pieces[0]
                    pieces[0] = Piece(glue.text + "\n" + p.text, glue.elements + p.elements, p.joins_previous)
                else:
                    pieces.append(glue)
        return pieces

    @staticmethod
    def _sup_mark_piece(target: Element, note: Element, pieces: list[Piece], default: int) -> int:
        """The sentence holding a raised reference number. The text keeps only a plain digit glued
        to the word before it ("バイアス11等", "calls.1"), which ordinary numbers can look like, so
        only an unambiguous sentence is chosen."""
        number = footnote_number(note.text)
        if number is None or number not in (target.attr("sup_marks") or ()):
            return default
        glued = re.compile(f"(?<![\\d\\s]){number}(?!\\d)")
        found = [k for k, p in enumerate(pieces) if glued.search(nfkc(p.text))]
        return found[0] if len(found) == 1 else default

    def _group(self, items: list[Element]) -> Block:
        pieces: list[Piece] = []
        for item in items:
            pieces.extend(self._with_glue(item, sentence_pieces(item, item.text.strip(), self.policy)))
        return Block(GROUP, items[0].page, items[0].seq, tuple(pieces), side=items[0].attr("side"),
                     extras=(("procedure", True),))

    def _table(self, e: Element) -> Block:
        rows = table_rows(e)
        glued = self.glued.get(e.id, [])
        captions = [self._source_piece(s) for s in glued if s.category is not C.FOOTNOTE]
        notes = [self._source_piece(s) for s in glued if s.category is C.FOOTNOTE]
        if not rows:
            rows = [""]
        repeat = bool(self.policy.param(C.TABLE, "repeat_header")) and len(rows) > 1
        header = [Piece(rows[0], (e,))] if repeat else []
        body = [Piece(r, (e,)) for r in (rows[1:] if repeat else rows)]
        return Block(TABLE, e.page, e.seq, tuple(body), head=tuple(captions + header), tail=tuple(notes),
                     side=e.attr("side"), extras=_element_extras(e))

    def _picture(self, run: list[Element], index: int) -> Block:
        """One figure, possibly drawn as several image boxes side by side: captions, the text
        inside the pictures, then footnotes; the text around it is kept as `nearby_text`."""
        glued = [s for e in run for s in self.glued.get(e.id, [])]
        parts = [self._source_piece(s) for s in glued if s.category is not C.FOOTNOTE]
        parts += [Piece(e.text.strip(), (e,)) for e in run if e.text.strip()]
        parts += [self._source_piece(s) for s in glued if s.category is C.FOOTNOTE]
        extras: list[tuple[str, Any]] = []
        refs = [r for e in run for r in _element_extras(e)]
        if refs:
            extras.append(("image_ref", refs[0][1] if len(refs) == 1 else tuple(v for _, v in refs)))
        nearby = int(self.policy.param(C.PICTURE, "nearby_chars") or 0)
        if nearby:
            before = self._neighbour_text(index, -1)
            after = self._neighbour_text(index + len(run) - 1, +1)
            if before or after:
                extras.append(("nearby_text", freeze_attrs({"before": before[-nearby:], "after": after[:nearby]})))
        bare = tuple(e for e in run if not e.text.strip())
        if not parts:  # bare images: their boxes go with the text around them
            return Block(REFONLY, run[0].page, run[0].seq, (Piece("", bare),), side=run[0].attr("side"),
                         extras=tuple(extras))
        if bare:
            parts[0] = Piece(parts[0].text, bare + parts[0].elements)
        return Block(ATOMIC, run[0].page, run[0].seq, tuple(parts), side=run[0].attr("side"), extras=tuple(extras))

    def _atomic(self, run: list[Element], index: int) -> Block:
        e = run[0]
        extras = [x for el in run for x in _element_extras(el)]
        label = e.category in (C.FORMULA, C.CODE)
        source = "\n".join(el.text.rstrip() for el in run)
        if e.category is C.CODE:
            text = fenced(source, guess_code_language(source))
            extras.append(("language", guess_code_language(source)))
        else:
            text = self._text_of(e)
        if e.category in (C.FORMULA, C.CODE) and self.policy.param(e.category, "context_before"):
            before = split_sentences(self._neighbour_text(index, -1), self.policy.sentence_ends)
            if before:
                extras.append(("context_before", before[-1].strip()))
        pieces = [Piece(text.strip(), tuple(run))]
        for el in run:
            pieces = self._with_glue(el, pieces)
        return Block(ATOMIC, e.page, e.seq, tuple(pieces), label_section=label, side=e.attr("side"),
                     extras=tuple(extras))

    def _neighbour_text(self, index: int, step: int) -> str:
        j = index + step
        while 0 <= j < len(self.flow):
            n = self.flow[j]
            if n.category in (C.TEXT, C.LIST_ITEM) and n.text.strip():
                return n.text.strip()
            if n.category in HEADINGS:
                return ""
            j += step
        return ""


def _continues(above: Element, below: Element) -> bool:
    """`below` is the next wrapped line of `above`: no paragraph gap, same left edge or a hanging indent."""
    lines = max(1, above.text.count("\n") + 1)
    line_height = (above.bbox[3] - above.bbox[1]) / lines
    gap = below.bbox[1] - above.bbox[3]
    return -0.5 * line_height <= gap <= 0.6 * line_height and above.bbox[0] - 2 <= below.bbox[0] <= above.bbox[0] + 24


def _element_extras(e: Element) -> tuple[tuple[str, Any], ...]:
    extras = []
    if e.attr("image_ref"):
        extras.append(("image_ref", e.attr("image_ref")))
    return tuple(extras)


def table_rows(e: Element) -> list[str]:
    """Row by row: `| a | b |` from the source's cells when it gave them, else its text lines."""
    rows = e.attr("rows")
    if rows:
        out = []
        for row in rows:
            cells = row if isinstance(row, (list, tuple)) else (row,)
            out.append("| " + " | ".join(_cell_text(c) for c in cells) + " |")
        return out
    return [line.strip() for line in e.text.splitlines() if line.strip()]


def _cell_text(cell: Any) -> str:
    if cell is None:
        return ""
    if isinstance(cell, tuple) and cell and all(isinstance(p, tuple) and len(p) == 2 for p in cell):
        cell = dict(cell).get("text", "")
    return " ".join(str(cell).split()).replace("|", "｜")


# ---- whole-document evidence (for reports and the Chunks page) ----------------------------------
@dataclass(frozen=True)
class EvidenceSummary:
    captions_attached: int
    captions_unattached: int
    footnotes_attached: int  # to a block on their page (marker, preceding, following, link)
    footnotes_to_previous_chunk: int
    furniture_to_metadata: int
    furniture_to_text: int
    excluded: int
    by_how: tuple[tuple[str, int], ...]


def summarise(evidence: Sequence[PageEvidence]) -> EvidenceSummary:
    atts = [a for ev in evidence for a in ev.attachments]
    furn = [f for ev in evidence for f in ev.furniture]
    return EvidenceSummary(
        captions_attached=sum(1 for a in atts if a.category is C.CAPTION and a.target),
        captions_unattached=sum(1 for a in atts if a.category is C.CAPTION and not a.target),
        footnotes_attached=sum(1 for a in atts if a.category is C.FOOTNOTE and a.target),
        footnotes_to_previous_chunk=sum(1 for a in atts if a.how == "previous_chunk"),
        furniture_to_metadata=sum(1 for f in furn if f.placed == "metadata"),
        furniture_to_text=sum(1 for f in furn if f.placed == "text"),
        excluded=sum(len(ev.excluded) for ev in evidence),
        by_how=tuple(sorted(Counter(f"{a.category.value}:{a.how}" for a in atts).items())),
    )


# ---- routing: section title -> pages ------------------------------------------------------------
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
        for closed in stack.open(heading_style(h), " ".join(h.text.split()), h.id):
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
