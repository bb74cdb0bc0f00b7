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

Here: the entry points (`page_contexts`, `build_page_evidence`), the page builder that runs the steps,
and the whole-document summary. The steps live beside it: the value types in core/chunks/blocks.py,
furniture in core/chunks/furniture.py, caption/footnote attachment in core/chunks/attachment.py,
blocks in core/chunks/block_maker.py (text written by core/chunks/pieces.py), numbering styles,
section paths and routing in core/chunks/sections.py.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from core.categories import Category
from core.chunks.attachment import Attacher
from core.chunks.block_maker import BlockMaker
from core.chunks.blocks import FURNITURE, HEADINGS, Furniture, PageContext, PageEvidence, metadata_key
from core.chunks.furniture import furniture_key, furniture_kind, repeated_furniture
from core.chunks.policy import Action, Policy
from core.memo import page_memo
from core.model import Document, Element, Page

C = Category

REVIEWER_LABELS = ("reviewer:relabel", "reviewer:add_element")  # rules replay adds (core.review.replay)


# ---- document-level context -------------------------------------------------------------------
def page_contexts(doc: Document, policy: Policy, skip: Iterable[str] = ()) -> dict[int, PageContext]:
    skip = frozenset(skip)
    repeated = repeated_furniture(doc, policy)
    facts = [_FACTS.get(page, None, lambda page=page: _page_facts(page)) for page in doc.pages]
    incoming: dict[int, list[Element]] = defaultdict(list)
    away: dict[int, set[str]] = defaultdict(set)
    if any(linked for _, linked in facts):  # where every element sits, only when something links
        where = {e.id: e.page for e in doc.elements()}
        for e in (e for _, linked in facts for e in linked):
            targets = [where[t] for t in e.links if t in where]
            if targets and targets[0] != e.page:
                incoming[targets[0]].append(e)
                away[e.page].add(e.id)
    out = {}
    for page, (masks, _) in zip(doc.pages, facts):
        out[page.number] = PageContext(
            repeated=masks & repeated, incoming=tuple(incoming.get(page.number, ())),
            linked_away=frozenset(away.get(page.number, ())),
            skip=frozenset(e.id for e in page.elements if e.id in skip) if skip else frozenset(),
        )
    return out


_FACTS = page_memo()


def _page_facts(page: Page) -> tuple[frozenset[str], tuple[Element, ...]]:
    """What the document-level context reads of one page, memoised by page (core.memo): its
    header/footer texts as `furniture_key`, and its elements that link somewhere."""
    return (frozenset(furniture_key(e.text) for e in page.elements if e.category in FURNITURE),
            tuple(e for e in page.elements if e.links))


# ---- the page evidence builder ------------------------------------------------------------------
def build_page_evidence(page: Page, policy: Policy, ctx: PageContext = PageContext()) -> PageEvidence:
    """Pure: the same page, context and policy give the same evidence (cached by chunking)."""
    return _PageBuilder(page, policy, ctx).build()


class _PageBuilder:
    """One page's evidence, step by step: sort its elements (body, metadata, excluded, captions and
    footnotes to attach), give captions/footnotes their wrapped lines, attach them (`Attacher`),
    then cut the body into blocks (`BlockMaker`)."""

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
        attacher = Attacher(self.page.number, self.policy, self.flow)
        attacher.attach(sources)
        blocks = BlockMaker(self.page.number, self.policy, attacher, self.continued).blocks()
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
        # attach_unique is a guess about machine labels; a reviewer who labelled this line a header or a
        # footer has said it is not body text, so it never joins the text
        by_reviewer = any(rule in e.rules for rule in REVIEWER_LABELS)
        to_text = kind == "unique" and not by_reviewer and bool(self.policy.param(e.category, "attach_unique"))
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


def _continues(above: Element, below: Element) -> bool:
    """`below` is the next wrapped line of `above`: no paragraph gap, same left edge or a hanging indent."""
    lines = max(1, above.text.count("\n") + 1)
    line_height = (above.bbox[3] - above.bbox[1]) / lines
    gap = below.bbox[1] - above.bbox[3]
    return -0.5 * line_height <= gap <= 0.6 * line_height and above.bbox[0] - 2 <= below.bbox[0] <= above.bbox[0] + 24


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
