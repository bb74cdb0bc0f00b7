"""Chunks from evidence: sections and reading order, a size limit, splits only at sentence ends.

    build_chunks(doc, policy, fields=None) -> tuple[Chunk, ...]     pure, deterministic ids
    naive_chunks(doc) -> tuple[Chunk, ...]                          seed 002's baseline

A Document and a policy (and its form fields, from core.forms.fields, the stage before) give the
chunks; the workspace's corrected, cropped Document is chunked by core/chunks/pipeline.py.

Per-page evidence (core/chunks/evidence.py) is cached by the page's own content and context, so after a
correction on page P only P's evidence is rebuilt; the section/size assembly that follows is a
linear pass over ready blocks. Every chunk records start/end page, its section path and a
`source_record_refs` entry (with bbox) for every element that contributed to its text.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Sequence

from core.categories import Category
from core.chunks.blocks import (
    HEADINGS, ATOMIC, FLOW, GROUP, HEADING, NOTE, REFONLY, TABLE, Block, PageEvidence, Piece,
)
from core.chunks.cache import PAGE_EVIDENCE
from core.chunks.evidence import build_page_evidence, page_contexts
from core.chunks.naive import naive_chunks
from core.chunks.policy import Action, Policy, load_policy
from core.chunks import resume
from core.chunks.sections import SectionStack
from core.forms.fields import extract_fields
from core.forms.form_chunks import form_chunks
from core.forms.redaction import REDACTED, rules_from_policy
from core.geometry import coverage
from core.memo import page_memo
from core.model import Chunk, Document, Element, Page, SourceRef, freeze_attrs
from core.review.structure import BREAK, CHUNK_WISH, JOIN
from core.text import clean_text

# A sentence opening with a こ/そ demonstrative refers to the sentence before it.
POINTS_BACK = re.compile(r"(この|その|これ|それ|こう|そう|こちら|そちら)")
BODY_SENTENCE = (Category.TEXT, Category.LIST_ITEM)

__all__ = ["build_chunks", "naive_chunks", "document_evidence", "layout_chunks",
           "form_fields", "form_split", "form_pages", "mask_redacted"]


# ---- per-page evidence -------------------------------------------------------------------------
def document_evidence(doc: Document, policy: Policy, skip: Iterable[str] = ()) -> tuple[PageEvidence, ...]:
    """Every page's evidence; a page whose elements and context are unchanged is not rebuilt."""
    contexts = page_contexts(doc, policy, skip)
    return tuple(
        PAGE_EVIDENCE.get(page, (policy.fingerprint, contexts[page.number]),
                          lambda page=page: build_page_evidence(page, policy, contexts[page.number]))
        for page in doc.pages
    )


# ---- assembly -----------------------------------------------------------------------------------
@dataclass
class _Draft:
    kind: str  # flow | atomic | table
    section_path: tuple[str, ...]
    pieces: list[Piece] = field(default_factory=list)
    refonly: list[Element] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    prefix: str = ""
    side: str | None = None
    body_chars: int = 0  # characters of non-heading text: a draft of headings alone never flushes
    orphans: bool = False  # headings whose sections closed with no body text (orphan_headings = chunk)

    @property
    def chars(self) -> int:
        return sum(len(p.text) + 1 for p in self.pieces)

    def text(self) -> str:
        out = ""
        for p in self.pieces:
            if not p.text:
                continue
            out += p.text if (p.joins_previous or not out) else "\n" + p.text
        return (self.prefix + out).strip()


class _Assembler:
    def __init__(self, doc: Document, policy: Policy):
        self.doc, self.policy = doc, policy
        self.drafts: list[_Draft] = []
        self.cur: _Draft | None = None
        self.sections = SectionStack()
        self.pending_refs: list[Element] = []
        self.pending_notes: list[Piece] = []
        self.continued = False  # the current section already produced a flow chunk
        self.joining = False  # a reviewer's join_chunks: the next flush is not a chunk boundary
        self.wishes_seen: set[str] = set()  # elements whose chunk_break / join_chunks was applied

    @property
    def path(self) -> tuple[str, ...]:
        return self.sections.path

    def run(self, evidence: Sequence[PageEvidence]) -> list[_Draft]:
        for ev in evidence:
            self.add_page(ev)
        return self.close()

    def add_page(self, ev: PageEvidence) -> None:
        for block in ev.blocks:
            self.add(block)

    def close(self) -> list[_Draft]:
        self.flush()
        if self.pending_refs and self.drafts:
            self.drafts[-1].refonly.extend(self.pending_refs)
        if self.pending_notes:  # a document of footnotes only: they still reach a chunk
            self.drafts.append(_Draft(FLOW, self.path, pieces=list(self.pending_notes)))
        return self.drafts

    def add(self, block: Block) -> None:
        if self.cur is not None and block.side != self.cur.side and block.kind in (FLOW, GROUP, HEADING):
            self.flush()  # the two halves of a spread are different printed pages
        handler = {HEADING: self.heading, FLOW: self.flow, GROUP: self.group, ATOMIC: self.atomic,
                   TABLE: self.table, REFONLY: self.refonly, NOTE: self.note}[block.kind]
        if block.kind in (FLOW, GROUP):
            handler(block)  # their wishes are taken piece by piece (_add_piece)
            return
        wish = self._reviewer_wish(block.elements[0]) if block.elements else None
        if wish == BREAK:
            self.flush()
            self.continued = False
        if wish == JOIN and block.kind in (HEADING, NOTE, REFONLY):
            self._reopen_previous()
        before, into = len(self.drafts), self.cur or (self.drafts[-1] if self.drafts else None)
        self.joining = wish == JOIN
        handler(block)
        self.joining = False
        if wish == JOIN and into is not None and block.kind in (ATOMIC, TABLE):
            self._join_into(into, self.drafts[before:])
            del self.drafts[before:]
            if self.cur is None and not any(d is into for d in self.drafts):
                self.cur = into  # it was open, and the table took its headings: it stays open

    def _reviewer_wish(self, element: Element) -> str | None:
        """The reviewer's chunk_break / join_chunks on `element`, once: at its first piece."""
        wish = element.attr(CHUNK_WISH)
        if wish is None or element.id in self.wishes_seen:
            return None
        self.wishes_seen.add(element.id)
        return wish

    def _reopen_previous(self) -> None:
        """join_chunks with nothing open: the last flow chunk takes what comes next."""
        if self.cur is None and self.drafts and self.drafts[-1].kind == FLOW:
            self.cur = self.drafts.pop()

    @staticmethod
    def _join_into(into: _Draft, drafts: Sequence[_Draft]) -> None:
        for draft in drafts:
            into.pieces.extend(draft.pieces)
            into.refonly.extend(draft.refonly)
            into.body_chars += sum(len(p.text) for p in draft.pieces)
            for key, value in draft.extras.items():
                into.extras.setdefault(key, value)

    def heading(self, block: Block) -> None:
        headings_only = self.cur is not None and not self.cur.body_chars
        small = self.cur is not None and self.cur.chars < self.policy.combine_under_chars
        if not (headings_only or small):
            self.flush()
            self.continued = False
        ref = block.pieces[0].elements[0].id if block.pieces else f"{block.page}:{block.seq}"
        if block.heading:
            self.sections.open(block.level, block.heading, ref, block.heading_size)
        if headings_only:
            self._settle_orphan_headings()
            self.cur.section_path = self.path
        if block.pieces:
            self._open(block.side)
            self.cur.pieces.extend(block.pieces)

    def _settle_orphan_headings(self) -> None:
        """Held headings whose section closed without body text of its own: a label whose entries
        are metadata (参考文献) would mislabel the next section's chunk, but a heading can also be
        the only place some words are printed (② 多様な…社会 above its English subtitle, a list item
        the layout model read as a heading). The policy's `orphan_headings` says what they become:
        drop (their words are in no chunk), keep (they lead the next section's chunk), or chunk (a
        chunk of their own, under their own section path; a run of them shares one, up to max_chars)."""
        open_ids = self.sections.ids
        orphans = [p for p in self.cur.pieces
                   if any(e.category in HEADINGS and e.id not in open_ids for e in p.elements)]
        if not orphans or self.policy.orphan_headings == "keep":
            return
        self.cur.pieces = [p for p in self.cur.pieces if not any(p is o for o in orphans)]
        if self.policy.orphan_headings != "chunk":
            return
        last = self.drafts[-1] if self.drafts else None
        size = sum(len(p.text) + 1 for p in orphans)
        if last is not None and last.orphans and last.side == self.cur.side and last.chars + size <= self.policy.max_chars:
            # a run of headings with nothing under any of them (a form's labels read as headings)
            # is one chunk, not one tiny chunk per label
            last.pieces.extend(orphans)
        else:
            self._emit(_Draft(FLOW, self.cur.section_path, pieces=orphans, side=self.cur.side, orphans=True))

    def flow(self, block: Block) -> None:
        for piece in block.pieces:
            self._add_piece(piece, block.side)
        self._merge_extras(block)

    def group(self, block: Block) -> None:
        # a procedure stays whole when it fits a chunk: start a fresh one rather than cut it
        if (self.cur is not None and self.cur.body_chars and self.cur.chars + block.size > self.policy.max_chars
                and block.size <= self.policy.max_chars):
            self.flush()
        self.flow(block)

    def _add_piece(self, piece: Piece, side: str | None) -> None:
        wish = self._reviewer_wish(piece.elements[0]) if piece.elements else None
        if wish == BREAK:
            self.flush()
            self.continued = False
        elif (wish != JOIN and self.cur is not None and self.cur.body_chars
                and self.cur.chars + len(piece.text) + 1 > self.policy.max_chars):
            referent = self._take_referent(piece)
            self.flush()
            self.continued = True
            if referent is not None:
                self._open(side)
                self.cur.pieces.append(replace(referent, joins_previous=False))
                self.cur.body_chars += len(referent.text)
        if wish == JOIN and self.cur is None and self.drafts and self.drafts[-1].kind != FLOW:
            self.drafts[-1].pieces.append(piece)  # stays with the table or figure before it
            self.drafts[-1].body_chars += len(piece.text)
            return
        if wish == JOIN:
            self._reopen_previous()
        self._open(side)
        self.cur.pieces.append(piece)
        self.cur.body_chars += len(piece.text)

    def _take_referent(self, piece: Piece) -> Piece | None:
        """The open chunk's last sentence, taken out of it, when `piece` (which starts the next
        chunk) points back to it (このことは…, その結果…): the two are read together. Only a body
        sentence is taken, only when the two fit one chunk, and only when the open chunk keeps at
        least `join_under_chars` of body text without it (a smaller one would be joined back)."""
        if not (self.policy.referent_sentence and POINTS_BACK.match(piece.text.lstrip())):
            return None
        last = self.cur.pieces[-1] if self.cur.pieces else None
        if last is None or not last.text or not all(e.category in BODY_SENTENCE for e in last.elements):
            return None
        if (len(last.text) + len(piece.text) + 2 > self.policy.max_chars
                or self.cur.body_chars - len(last.text) < max(self.policy.join_under_chars, 1)):
            return None
        self.cur.pieces.pop()
        self.cur.body_chars -= len(last.text)
        return last

    def _open(self, side: str | None) -> None:
        if self.cur is None:
            self.cur = _Draft(FLOW, self.path, side=side)
            if self.continued and self.policy.section_path_prefix and self.path:
                self.cur.prefix = " > ".join(self.path) + "\n"
            if self.pending_refs:
                self.cur.refonly.extend(self.pending_refs)
                self.pending_refs = []
            if self.pending_notes:
                self.cur.pieces.extend(self.pending_notes)
                self.pending_notes = []

    def _take_headings(self) -> list[Piece]:
        """A heading with nothing under it yet but a table or figure: it leads that chunk instead
        of becoming a chunk of a few words."""
        if self.cur is None or self.cur.body_chars:
            return []
        taken, self.cur.pieces = self.cur.pieces, []
        self.pending_refs.extend(self.cur.refonly)
        self.cur = None
        return taken

    def atomic(self, block: Block) -> None:
        lead = self._take_headings()
        self.flush()
        draft = _Draft(ATOMIC, self.path, pieces=list(block.pieces), side=block.side)
        if block.label_section and self.path:
            # formula and code name their section in text already; the heading box is still cited
            draft.prefix = "関連見出し: " + " > ".join(self.path) + "\n"
            draft.refonly.extend(e for p in lead for e in p.elements)
        else:
            draft.pieces = lead + draft.pieces
        if self.pending_refs:
            draft.refonly.extend(self.pending_refs)
            self.pending_refs = []
        draft.extras.update(dict(block.extras))
        self._emit(draft)

    def table(self, block: Block) -> None:
        lead = self._take_headings()
        self.flush()
        head, tail = lead + list(block.head), list(block.tail)
        fixed = sum(len(p.text) + 1 for p in head + tail)
        parts: list[list[Piece]] = [[]]
        size = fixed
        for row in block.pieces:
            if parts[-1] and size + len(row.text) + 1 > self.policy.max_chars:
                parts.append([])
                size = fixed
            parts[-1].append(row)
            size += len(row.text) + 1
        for i, rows in enumerate(parts, start=1):
            own = head if i == 1 else list(block.head)
            draft = _Draft(TABLE, self.path, pieces=own + rows + tail, side=block.side)
            if self.pending_refs:
                draft.refonly.extend(self.pending_refs)
                self.pending_refs = []
            draft.extras.update(dict(block.extras))
            if len(parts) > 1:
                draft.extras["table_part"] = f"{i}/{len(parts)}"
            self._emit(draft)

    def refonly(self, block: Block) -> None:
        elements = [e for p in block.pieces for e in p.elements]
        if self.cur is not None:
            self.cur.refonly.extend(elements)
            self._merge_extras(block)
        elif self.drafts and self.drafts[-1].kind == FLOW and self.drafts[-1].section_path == self.path:
            self.drafts[-1].refonly.extend(elements)
            self.drafts[-1].extras.update(dict(block.extras))
        else:
            self.pending_refs.extend(elements)

    def note(self, block: Block) -> None:
        """A footnote whose page has no body: it joins the chunk before it, whatever its size."""
        target = self.cur or next((d for d in reversed(self.drafts) if d.kind in (FLOW, TABLE, ATOMIC)), None)
        if target is None:
            self.pending_notes.extend(block.pieces)
        else:
            target.pieces.extend(block.pieces)

    def _merge_extras(self, block: Block) -> None:
        for key, value in block.extras:
            if key == "image_ref":
                self.cur.extras.setdefault("image_refs", []).append(value)
            else:
                self.cur.extras.setdefault(key, value)

    def flush(self) -> None:
        if self.joining:
            return
        if self.cur is not None:
            if self.cur.pieces and any(p.text for p in self.cur.pieces):
                self._emit(self.cur)
            else:
                self.pending_refs.extend(self.cur.refonly)
            self.cur = None

    def _emit(self, draft: _Draft) -> None:
        self.drafts.append(draft)


# ---- drafts -> Chunk ----------------------------------------------------------------------------
def _finish(doc: Document, policy: Policy, drafts: Sequence[_Draft],
            evidence: Sequence[PageEvidence]) -> list[Chunk]:
    by_page = {ev.page: ev for ev in evidence}
    chunks: list[Chunk] = []
    seen_ids: set[str] = set()
    for draft in drafts:
        chunk = _finished(doc, policy, draft, by_page)
        if chunk is None:
            continue
        chunk_id = _unique_id(chunk.id, seen_ids)
        chunks.append(chunk if chunk_id == chunk.id else replace(chunk, id=chunk_id))
    return chunks


# A finished draft's chunk (base id), memoised by draft object with what else it read: the
# incremental assembly (core/chunks/resume.py) hands back the very draft objects of pages that a
# correction did not reach, and no draft is changed once its assembly is over.
_FINISHED = page_memo(50000)


def _finished(doc: Document, policy: Policy, draft: _Draft, by_page: dict[int, PageEvidence]) -> Chunk | None:
    def read(start: int, end: int) -> tuple:
        pages = range(start, end + 1)
        return ((doc.doc_id, doc.source, policy.name),
                tuple(by_page.get(n) for n in pages) + tuple(doc.pages[n - 1] for n in pages if 0 < n <= doc.page_count))
    hit = _FINISHED.peek(draft, None)
    if hit is not None and (hit[1] is None or _same_reads(hit[0], read(hit[1].start_page, hit[1].end_page))):
        return hit[1]
    chunk = _finish_draft(doc, policy, draft, by_page)
    _FINISHED.put(draft, None, (read(chunk.start_page, chunk.end_page) if chunk else None, chunk))
    return chunk


def _same_reads(a: tuple, b: tuple) -> bool:
    """The same names, and the very same page evidence and Page objects."""
    return a[0] == b[0] and len(a[1]) == len(b[1]) and all(x is y for x, y in zip(a[1], b[1]))


def _finish_draft(doc: Document, policy: Policy, draft: _Draft, by_page: dict[int, PageEvidence]) -> Chunk | None:
    elements: dict[str, Element] = {}
    for piece in draft.pieces:
        for e in piece.elements:
            elements.setdefault(e.id, e)
    for e in draft.refonly:
        elements.setdefault(e.id, e)
    if not elements:
        return None
    text = clean_text(draft.text())[0]  # ingest cleaned element text; attrs (rows, values) too here
    pages = [e.page for e in elements.values()]
    start, end = min(pages), max(pages)
    refs = tuple(SourceRef(e.id, e.page, e.bbox, e.category) for e in elements.values())
    extras = dict(draft.extras)
    extras.update(_page_metadata(by_page, start, end))
    captions = [e.id for e in elements.values() if e.category is Category.CAPTION]
    footnotes = [e.id for e in elements.values() if e.category is Category.FOOTNOTE]
    if captions:
        extras["captions"] = captions
    if footnotes:
        extras["footnotes"] = footnotes
    extras.update(_side_and_labels(doc, elements.values(), start, end))
    return Chunk(
        id=_chunk_id(doc.doc_id, policy.name, refs, text), text=text, doc_id=doc.doc_id, source=doc.source,
        start_page=start, end_page=end, section_path=draft.section_path,
        source_categories=tuple(dict.fromkeys(e.category for e in elements.values())),
        atomic=draft.kind in (ATOMIC, TABLE), refs=refs, policy=policy.name,
        extra=_frozen_extras(extras),
    )


def _frozen_extras(extras: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """`core.model.freeze_attrs` for the plain lists/dicts/strings built here, without its generic
    Mapping checks (they were most of the assembly time on a 300-page document)."""
    return tuple(sorted((k, _frozen(v)) for k, v in extras.items()))


def _frozen(value: Any) -> Any:
    kind = type(value)
    if kind is list or kind is tuple:
        return tuple(_frozen(v) for v in value)
    if kind is dict:
        return freeze_attrs(value)  # a mapping stays a mapping through thaw / to_record
    return value


def _page_metadata(by_page: dict[int, PageEvidence], start: int, end: int) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for number in range(start, end + 1):
        ev = by_page.get(number)
        if ev is None:
            continue
        for key, values in ev.metadata:
            bucket = out.setdefault(key, [])
            bucket.extend(v for v in values if v not in bucket)
    return out


def _side_and_labels(doc: Document, elements: Iterable[Element], start: int, end: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    elements = list(elements)
    sides = sorted({e.attr("side") for e in elements if e.attr("side")})
    if sides:
        out["side"] = sides[0] if len(sides) == 1 else sides
    labels = list(dict.fromkeys(e.attr("page_label") for e in elements if e.attr("page_label")))
    if not labels:
        labels = [doc.page(n).label for n in range(start, end + 1) if doc.page(n).label]
    if labels:
        out["page_labels"] = labels
    return out


def _chunk_id(doc_id: str, policy_name: str, refs: Sequence[SourceRef], text: str) -> str:
    key = "|".join([policy_name, *(r.record_id for r in refs), text])
    return f"{doc_id[:8]}-c{hashlib.sha1(key.encode('utf-8')).hexdigest()[:12]}"


def _unique_id(base: str, seen: set[str]) -> str:
    chunk_id, n = base, 1
    while chunk_id in seen:  # the same text from the same boxes twice (a table part repeated)
        n += 1
        chunk_id = f"{base}-{n}"
    seen.add(chunk_id)
    return chunk_id


# ---- forms --------------------------------------------------------------------------------------
def _form_element_ids(fields: Sequence[Any]) -> set[str]:
    """The elements a set of fields speaks for: each field's key and value elements."""
    ids: set[str] = set()
    for f in fields:
        ids.update(getattr(f, "source_element_ids", None) or ())
        for ref in (getattr(f, "key_ref", None), getattr(f, "value_ref", None)):
            if isinstance(ref, str) and ref:
                ids.add(ref.split(":")[0])  # "<element id>:<line>" names a line of that element
    return ids


def form_fields(doc: Document, policy: Policy) -> tuple[Any, ...]:
    """The document's form fields (core.forms.fields), redacted by the policy's rules."""
    # the corrected Document carries its form events (pair, set_value, redact…) in its meta
    return tuple(extract_fields(doc, rules=rules_from_policy(policy)))


_MARK_GLYPHS = set("☐☑☒□■✓✔○◉●◯")


def form_pages(doc: Document) -> frozenset[int]:
    """Pages that are forms. core.forms.form_chunks chunks those pages' fields; elsewhere its key/value pairs
    are guesses over ordinary text (a captioned data table, a flow chart) and the text path keeps
    them. A form page has, inside the page: an AcroForm widget or form field, a check-box glyph
    (☐ ☑ …), or at least three drawn check boxes outside any picture (drawn squares inside a
    figure are logos or bullets, and marks outside the page are printer's marks)."""
    return frozenset(page.number for page in doc.pages
                     if _FORM_PAGE.get(page, None, lambda page=page: _is_form_page(page)))


def _is_form_page(page: Page) -> bool:
    area = (0.0, 0.0, page.width, page.height)
    pictures = [e.bbox for e in page.elements if e.category is Category.PICTURE]
    drawn = 0
    for e in page.elements:
        if coverage(e.bbox, area) < 0.5:
            continue
        if e.source == "widget" or e.category is Category.FORM_FIELD or (
                e.category is Category.SELECTION_MARK and _MARK_GLYPHS & set(e.text)):
            return True
        if e.category is Category.SELECTION_MARK and not any(coverage(e.bbox, p) > 0.5 for p in pictures):
            drawn += 1
    return drawn >= 3


@dataclass(frozen=True)
class FormSplit:
    chunks: tuple[Chunk, ...]  # core.forms.form_chunks' chunks of the form pages
    skip: frozenset[str]  # elements those chunks speak for: kept out of the text path
    masked: Document  # the document with every redacted value replaced, for the text path


def form_split(doc: Document, policy: Policy, fields: Sequence[Any] | None = None) -> FormSplit:
    """Who chunks what: core.forms.form_chunks the fields of form pages, the text path everything else, with
    every redacted value masked wherever it appears on its page (no redacted value reaches text)."""
    if fields is None:
        fields = form_fields(doc, policy)
    masked = mask_redacted(doc, fields)
    if policy.action(Category.FORM_FIELD) is Action.EXCLUDE:
        return FormSplit((), frozenset(), masked)
    pages = form_pages(doc)
    on_form_pages = [f for f in fields if f.page in pages]
    # a widget's value is read as stored: its U+FFFD / control characters go here, as the text path's do
    chunks = tuple(replace(c, text=clean_text(c.text)[0]) for c in form_chunks(doc, on_form_pages, policy)
                   if c.start_page in pages)
    skip = {e.id for e in doc.elements() if e.page in pages
            and e.category in (Category.FORM_FIELD, Category.SELECTION_MARK)}
    return FormSplit(chunks, frozenset(skip | _form_element_ids(on_form_pages)), masked)


def mask_redacted(doc: Document, fields: Sequence[Any]) -> Document:
    """Replace each redacted field's value, on its page, in every element's text and table cells."""
    patterns: dict[int, list[re.Pattern[str]]] = {}
    for f in fields:
        value = str(getattr(f, "value", "") or "").strip()
        if getattr(f, "redacted", False) and value:
            # the value as the page may spell it: any run of spaces (half or full width) between characters
            body = r"\s*".join(re.escape(ch) for ch in value if not ch.isspace())
            patterns.setdefault(f.page, []).append(re.compile(body))
    if not patterns:
        return doc

    def mask(text: Any, number: int) -> Any:
        if not isinstance(text, str):
            return text
        for pattern in patterns[number]:
            text = pattern.sub(REDACTED, text)
        return text

    pages = []
    for page in doc.pages:
        if page.number not in patterns:
            pages.append(page)
            continue
        elements = []
        for e in page.elements:
            n = page.number
            new = replace(e, text=mask(e.text, n))
            rows = e.attr("rows")
            if rows:
                new = new.with_attrs(rows=[[mask(c, n) for c in row] if isinstance(row, (list, tuple)) else mask(row, n)
                                           for row in rows])
            elements.append(new if new != e else e)
        pages.append(replace(page, elements=tuple(elements)))
    return doc.with_pages(pages)


# ---- public entry points ------------------------------------------------------------------------
def build_chunks(doc: Document, policy: Policy | str, *, fields: Sequence[Any] | None = None) -> tuple[Chunk, ...]:
    """The chunks of a (corrected) Document under a policy. Pure and deterministic.

    `fields`: the document's form fields (core.forms.form_field.FormField), when the caller has them already;
    by default core.forms.fields extracts them. On form pages, form elements are chunked by core.forms.form_chunks
    (one chunk per form section); redacted values are masked everywhere, naive chunks included."""
    policy = load_policy(policy)
    split = form_split(doc, policy, fields)
    if policy.mode == "naive":
        return naive_chunks(split.masked, size=policy.naive_chunk_size, overlap=policy.naive_overlap,
                            policy_name=policy.name)
    chunks = layout_chunks(split.masked, policy, split.skip)
    return tuple(_interleave(doc, chunks, list(split.chunks)) if split.chunks else chunks)


def layout_chunks(doc: Document, policy: Policy, skip: Iterable[str] = ()) -> list[Chunk]:
    """Evidence (cached per page) then section/size assembly: every chunk except the form ones."""
    from core.chunks.context import with_context

    evidence = document_evidence(doc, policy, skip)
    # resumed from the first changed page when it can: the same drafts as a full run
    drafts = resume.assemble((doc.doc_id, doc.source, policy.fingerprint), evidence, lambda: _Assembler(doc, policy))
    # a reviewer's chunk_break is never undone by joining a small chunk to the next
    forced = frozenset(i for page in doc.pages for i in _BREAKS.get(page, None, lambda page=page: _breaks_on(page)))
    return with_context(_finish(doc, policy, drafts, evidence), policy.context_prefix,
                        policy.context_prefix_chars, policy.join_under_chars, policy.footnote_sentence, forced)


_BREAKS, _FORM_PAGE = page_memo(), page_memo()


def _breaks_on(page: Page) -> tuple[str, ...]:
    return tuple(e.id for e in page.elements if e.attr(CHUNK_WISH) == BREAK)


def _interleave(doc: Document, chunks: list[Chunk], field_chunks: list[Chunk]) -> list[Chunk]:
    """Form chunks take their place in reading order (page, then position of their first box)."""
    seq = {e.id: (e.page, e.seq) for e in doc.elements()}

    def position(c: Chunk) -> tuple[int, int]:
        return min((seq[r.record_id] for r in c.refs if r.record_id in seq), default=(c.start_page, 10**6))
    ordered = sorted(enumerate(chunks + field_chunks), key=lambda ic: (position(ic[1]), ic[0]))
    return [c for _, c in ordered]
