"""Gold evaluation sets: question → evidence elements on the page (gold/v1 in DESIGN.md).

Evidence points at elements, not chunks, so one gold set scores every chunking policy. Each piece
of evidence carries the element id AND its page, box and quote, because ids change when a file is
re-ingested with another engine: on import a quote is matched (after NFKC, ignoring whitespace)
against the corrected Document, then the id, then the box. What cannot be anchored is kept as
given, flagged, and reported item by item; it is never dropped silently.

Besides gold/v1 JSONL, a set exports to LlamaIndex's retrieval-eval shape and to ragas rows, both
built from a chosen policy's chunks (core.evaluation.gold_export).
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from core.errors import BadInput, UnknownDocument
from core.geometry import iou
from core.forms.redaction import REDACTED
from core.jsonio import JsonShapeError, loads_checked
from core.model import BBox, Chunk, Document, Element, make_bbox
from core.store.records import now_iso
from core.store.workspace import Workspace
from core.text import squash

GOLD_SCHEMA = "gold/v1"
MIN_BBOX_IOU = 0.5  # a box-only evidence re-anchors to the element it overlaps at least this much

# Anchoring outcomes, per evidence
ANCHORED = "element"  # resolved to one element of the corrected Document
PAGE_ONLY = "page"  # only a page is known: scored at page level, not element level
UNANCHORED = "unanchored"  # nothing matched: kept as given, reported, not scored


@dataclass(frozen=True)
class Copy:
    """Another place where the evidence's exact quote is printed (a summary deck repeats a sentence of
    the full guideline word for word): a chunk from there hands up the same words, so it counts as
    finding the evidence. Anchored like the evidence itself, on its own document and page."""
    doc_id: str
    page: int
    source: str | None = None  # the copy's file name, for a workspace whose doc_ids differ
    record_id: str | None = None  # set by anchoring; None = the page is known, the element is not
    also: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"doc_id": self.doc_id, "page": self.page}
        if self.source:
            out["source"] = self.source
        if self.record_id:
            out["record_id"] = self.record_id
        if self.also:
            out["also"] = list(self.also)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Copy":
        if not isinstance(d, Mapping) or not d.get("doc_id") or not d.get("page"):
            raise ValueError(f"an evidence copy needs doc_id and page, got {d!r}")
        return cls(str(d["doc_id"]), int(d["page"]), d.get("source") or None, d.get("record_id") or None,
                   tuple(str(a) for a in d.get("also") or ()))


@dataclass(frozen=True)
class Evidence:
    record_id: str | None
    page: int | None
    bbox: BBox | None
    quote: str = ""
    anchored: bool = True  # False when an import could not find it in the document
    method: str = ""  # how it was anchored: exact, lines-in-element, lines-in-region, id, box
    also: tuple[str, ...] = ()  # further elements holding parts of the quote (a region of the page)
    copies: tuple[Copy, ...] = ()  # other places the same quote is printed (any of them answers)

    def __post_init__(self) -> None:
        if self.page is not None and self.page < 1:
            raise ValueError(f"evidence page is 1-based, got {self.page}")
        if self.bbox is not None:
            object.__setattr__(self, "bbox", make_bbox(self.bbox))

    @property
    def level(self) -> str:
        if not self.anchored:
            return UNANCHORED
        return ANCHORED if self.record_id else (PAGE_ONLY if self.page else UNANCHORED)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"record_id": self.record_id, "page": self.page,
                               "bbox": list(self.bbox) if self.bbox else None, "quote": self.quote}
        if not self.anchored:
            out["anchored"] = False
        if self.method:
            out["anchor"] = self.method
        if self.also:
            out["also"] = list(self.also)
        if self.copies:
            out["copies"] = [c.to_dict() for c in self.copies]
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Evidence":
        page = d.get("page")
        bbox = d.get("bbox")
        return cls(record_id=d.get("record_id") or None, page=int(page) if page is not None else None,
                   bbox=tuple(bbox) if bbox else None, quote=str(d.get("quote") or ""),
                   anchored=bool(d.get("anchored", True)), method=str(d.get("anchor") or ""),
                   also=tuple(str(a) for a in d.get("also") or ()),
                   copies=tuple(Copy.from_dict(c) for c in d.get("copies") or ()))


@dataclass(frozen=True)
class GoldItem:
    id: str
    question: str
    answer: str
    doc_id: str
    evidence: tuple[Evidence, ...]
    tags: tuple[str, ...] = ()
    created_by: str = ""
    created_at: str = ""
    source: str | None = None  # the document's file name: lets an import find it when the doc_id differs

    def __post_init__(self) -> None:
        if not self.question.strip():
            raise ValueError(f"gold item {self.id!r} has an empty question")
        if not self.doc_id:
            raise ValueError(f"gold item {self.id!r} names no document (doc_id)")

    def to_dict(self) -> dict[str, Any]:
        out = {"schema": GOLD_SCHEMA, "id": self.id, "question": self.question, "answer": self.answer,
               "doc_id": self.doc_id, "evidence": [e.to_dict() for e in self.evidence],
               "tags": list(self.tags), "created_by": self.created_by, "created_at": self.created_at}
        if self.source:
            out["source"] = self.source
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "GoldItem":
        schema = d.get("schema", GOLD_SCHEMA)
        if schema != GOLD_SCHEMA:
            raise ValueError(f"schema must be {GOLD_SCHEMA!r}, got {schema!r}")
        evidence = d.get("evidence") or []
        if not isinstance(evidence, list):
            raise ValueError("'evidence' must be a list of {record_id, page, bbox, quote}")
        tags = d.get("tags") or []
        if isinstance(tags, str):
            tags = [t for t in tags.split(",")]
        return cls(
            id=str(d.get("id") or ""), question=str(d.get("question") or ""), answer=str(d.get("answer") or ""),
            doc_id=str(d.get("doc_id") or ""), evidence=tuple(Evidence.from_dict(e) for e in evidence),
            tags=tuple(t.strip() for t in tags if str(t).strip()), created_by=str(d.get("created_by") or ""),
            created_at=str(d.get("created_at") or ""), source=d.get("source") or None,
        )


def new_item_id(doc_id: str, question: str) -> str:
    stamp = f"{doc_id}|{question}|{time.time_ns()}"
    return "g-" + hashlib.sha1(stamp.encode("utf-8")).hexdigest()[:10]


def new_gold_item(question: str, answer: str, doc: Document, evidence: Sequence[Evidence],
                  tags: Iterable[str] = (), created_by: str = "", item_id: str | None = None) -> GoldItem:
    return GoldItem(
        id=item_id or new_item_id(doc.doc_id, question), question=question.strip(), answer=answer.strip(),
        doc_id=doc.doc_id, evidence=tuple(evidence), tags=tuple(t.strip() for t in tags if t.strip()),
        created_by=created_by, created_at=now_iso(), source=doc.source,
    )


def evidence_from_element(element: Element, quote: str | None = None) -> Evidence:
    """Evidence for a clicked element; the quote defaults to its whole text."""
    return Evidence(element.id, element.page, element.bbox, element.text if quote is None else quote)


def toggle_evidence(evidence: tuple[Evidence, ...], element: Element) -> tuple[Evidence, ...]:
    """A click on the page: adds the element as evidence, or removes it when it already is."""
    if any(e.record_id == element.id for e in evidence):
        return tuple(e for e in evidence if e.record_id != element.id)
    return tuple(evidence) + (evidence_from_element(element),)


def evidence_from_chunk(chunk: Chunk, doc: Document) -> list[Evidence]:
    """Taking a whole chunk as evidence = every body element it was built from."""
    index = doc.element_index()
    return [evidence_from_element(index[r.record_id]) for r in chunk.refs if r.record_id in index]


# ---- anchoring ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnchorResult:
    evidence: Evidence
    level: str  # ANCHORED | PAGE_ONLY | UNANCHORED
    note: str = ""  # why it failed, or how it was resolved when that is worth knowing


@lru_cache(maxsize=1 << 16)
def match_text(text: str) -> str:
    """The form quotes and element texts are compared in: NFKC, whitespace and table-cell bars removed.

    Parsers separate table cells with spaces, tabs or " | " (and chunkers write markdown rows), so a
    quote of a row ("タクシー 5,000円") must not depend on which one was used. Memoised: anchoring
    compares every quote with every element of its document, and NFKC was most of its time.
    """
    return squash(text).replace("|", "")


def anchor_evidence(doc: Document, ev: Evidence) -> AnchorResult:
    """Resolve one evidence against `doc`: by quote first, then by id, then by page+box."""
    index = doc.element_index()
    # a redacted export's quote no longer matches the page; its id and box still do
    quote = "" if REDACTED in ev.quote else match_text(ev.quote)
    if quote:
        return _anchor_by_quote(doc, ev, quote, index)
    if ev.record_id and ev.record_id in index:
        return _resolved(ev, index[ev.record_id], "", "id")
    if ev.page and ev.bbox and 1 <= ev.page <= doc.page_count:
        best = max(doc.page(ev.page).elements, key=lambda e: iou(e.bbox, ev.bbox), default=None)
        if best is not None and iou(best.bbox, ev.bbox) >= MIN_BBOX_IOU:
            return _resolved(ev, best, "matched by page and box", "box")
        return _failed(ev, f"no element on page {ev.page} overlaps box {list(ev.bbox)} enough "
                           f"(IoU >= {MIN_BBOX_IOU}) and no quote was given")
    if ev.page and 1 <= ev.page <= doc.page_count:
        return AnchorResult(replace(ev, record_id=None, anchored=True), PAGE_ONLY,
                            "page only: scored at page level, not element level")
    if ev.page:
        return _failed(ev, f"page {ev.page} is outside 1..{doc.page_count}")
    if ev.record_id:
        return _failed(ev, f"element {ev.record_id} is not in the document, and there is no quote or box")
    return _failed(ev, "evidence gives no quote, element id, box or page")


def _anchor_by_quote(doc: Document, ev: Evidence, quote: str, index: Mapping[str, Element]) -> AnchorResult:
    everywhere = [e for e in doc.elements() if quote in match_text(e.text)]
    on_page = [e for e in everywhere if e.page == ev.page] if ev.page else everywhere
    candidates = on_page or everywhere
    if not candidates:
        return _anchor_by_parts(doc, ev, quote, index)

    def preference(e: Element) -> tuple:
        # the named element, then the box the quote was taken from, then the most specific text
        return (e.id == ev.record_id, iou(e.bbox, ev.bbox) if ev.bbox else 0.0, -len(e.text), -e.page, -e.seq)

    best = max(candidates, key=preference)
    notes = []
    if ev.page and not on_page:
        notes.append(f"quote found on page {best.page}, not on page {ev.page}")
    if len(candidates) > 1 and best.id != ev.record_id and not (ev.bbox and iou(best.bbox, ev.bbox) > 0):
        notes.append(f"quote matches {len(candidates)} elements; took {best.id} on page {best.page}")
    return _resolved(ev, best, "; ".join(notes), "exact")


def _anchor_by_parts(doc: Document, ev: Evidence, quote: str, index: Mapping[str, Element]) -> AnchorResult:
    """The quote in no one element: consecutive elements, then its lines in any order (anchoring.py)."""
    from core.evaluation.anchoring import anchor_by_lines, anchor_by_stored_lines

    span = _spanning_elements(doc, quote, ev.page)
    if span:
        first, *rest = (index[i] for i in span)
        return _resolved(ev, first, f"the quote runs across {len(span)} consecutive elements", "span",
                         tuple(e.id for e in rest))
    by_lines = (anchor_by_lines(doc, ev.quote, ev.page, match_text)
                or anchor_by_stored_lines(doc, ev.quote, ev.page, match_text))
    if by_lines:
        first, *rest = by_lines.elements
        return _resolved(ev, first, f"{by_lines.method}: {len(by_lines.elements)} element(s)", by_lines.method,
                         tuple(e.id for e in rest))
    where = f"on page {ev.page}" if ev.page else "in the document"
    return _failed(ev, f"quote {ev.quote[:40]!r} is not found {where}, neither whole nor line by line "
                       "(compared after NFKC, ignoring spaces)")


def _spanning_elements(doc: Document, quote: str, page: int | None) -> list[str]:
    """Ids of consecutive elements (reading order) whose joined text contains the quote."""
    pages = [doc.page(page)] if page and 1 <= page <= doc.page_count else doc.pages
    for p in pages:
        elements = list(p.elements)
        texts = [match_text(e.text) for e in elements]
        for length in range(2, min(6, len(elements)) + 1):  # shortest run first
            for i in range(len(elements) - length + 1):
                if quote in "".join(texts[i:i + length]):
                    return [e.id for e in elements[i:i + length]]
    return []


def _resolved(ev: Evidence, element: Element, note: str, method: str = "",
              also: tuple[str, ...] = ()) -> AnchorResult:
    return AnchorResult(Evidence(element.id, element.page, element.bbox, ev.quote, True, method, also, ev.copies),
                        ANCHORED, note)


def _failed(ev: Evidence, reason: str) -> AnchorResult:
    return AnchorResult(replace(ev, anchored=False), UNANCHORED, reason)


@dataclass(frozen=True)
class ItemReport:
    item_id: str
    question: str
    results: tuple[AnchorResult, ...]

    @property
    def problems(self) -> list[tuple[int, AnchorResult]]:
        return [(i, r) for i, r in enumerate(self.results) if r.level != ANCHORED]

    @property
    def ok(self) -> bool:
        return all(r.level == ANCHORED for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.item_id, "evidence": len(self.results),
            "anchored": sum(r.level == ANCHORED for r in self.results),
            "page_only": sum(r.level == PAGE_ONLY for r in self.results),
            "unanchored": sum(r.level == UNANCHORED for r in self.results),
            "problems": [{"evidence": i, "level": r.level, "quote": r.evidence.quote[:60], "reason": r.note}
                         for i, r in self.problems],
            "notes": [{"evidence": i, "note": r.note} for i, r in enumerate(self.results)
                      if r.level == ANCHORED and r.note],
        }


def anchor_item(doc: Document, item: GoldItem) -> tuple[GoldItem, ItemReport]:
    results = tuple(anchor_evidence(doc, ev) for ev in item.evidence)
    anchored = replace(item, doc_id=doc.doc_id, source=doc.source,
                       evidence=tuple(r.evidence for r in results))
    return anchored, ItemReport(item.id, item.question, results)


# ---- reading and writing ------------------------------------------------------------------------
def parse_gold_jsonl(text: str, origin: str = "gold file") -> list[GoldItem]:
    """All items, or BadInput naming the first bad line (nothing is half-read)."""
    items: list[GoldItem] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = loads_checked(line)
        except JsonShapeError as err:
            raise BadInput(f"{origin}, line {number}: {err}") from None
        except json.JSONDecodeError as err:
            raise BadInput(f"{origin}, line {number}: not JSON ({err.msg}); each line must be one gold/v1 "
                           "object") from err
        if not isinstance(raw, dict):
            raise BadInput(f"{origin}, line {number}: expected a JSON object, got {type(raw).__name__}")
        try:
            item = GoldItem.from_dict(raw)
        except (TypeError, ValueError, KeyError) as err:
            raise BadInput(f"{origin}, line {number}: {err}") from err
        if not item.id:
            item = replace(item, id=new_item_id(item.doc_id, item.question + str(number)))
        if item.id in seen:
            raise BadInput(f"{origin}, line {number}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def to_jsonl(items: Iterable[GoldItem]) -> str:
    return "".join(json.dumps(i.to_dict(), ensure_ascii=False) + "\n" for i in items)


def resolve_doc_id(ws: Workspace, item: GoldItem) -> str | None:
    """The workspace document an item is about: its doc_id, else the one document with its file name."""
    if ws.find_document(item.doc_id):
        return item.doc_id
    if item.source:
        matches = [d.doc_id for d in ws.documents() if d.source == item.source]
        if len(matches) == 1:
            return matches[0]
    return None


@dataclass(frozen=True)
class ImportReport:
    items: tuple[ItemReport, ...]
    remapped: tuple[tuple[str, str, str], ...] = ()  # (item id, old doc_id, new doc_id)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.items)


def anchor_items(ws: Workspace, items: Sequence[GoldItem]) -> tuple[list[GoldItem], ImportReport]:
    """Anchor every item against its corrected Document (nothing is stored).

    Every document is looked up first, so a set naming a missing document fails as a whole.
    """
    from core.review.corrections import corrected_document

    missing = [(i.id, i.doc_id, i.source) for i in items if resolve_doc_id(ws, i) is None]
    if missing:
        listed = "; ".join(f"{iid} → {doc} ({src or 'no file name'})" for iid, doc, src in missing[:5])
        raise UnknownDocument(
            f"{len(missing)} gold item(s) name a document this workspace does not have: {listed}. "
            "Ingest those PDFs first (`python -m core ingest FILE`), then try again; nothing was changed."
        )
    docs: dict[str, Document] = {}
    anchored: list[GoldItem] = []
    reports: list[ItemReport] = []
    remapped: list[tuple[str, str, str]] = []
    for item in items:
        doc_id = resolve_doc_id(ws, item)
        assert doc_id is not None
        if doc_id not in docs:
            docs[doc_id] = corrected_document(ws, doc_id)
        if doc_id != item.doc_id:
            remapped.append((item.id, item.doc_id, doc_id))
        fixed, report = anchor_item(docs[doc_id], item)
        fixed = replace(fixed, evidence=tuple(anchor_copies(ws, ev, docs) for ev in fixed.evidence))
        anchored.append(fixed)
        reports.append(report)
    return anchored, ImportReport(tuple(reports), tuple(remapped))


def anchor_copies(ws: Workspace, ev: Evidence, docs: dict[str, Document]) -> Evidence:
    """Each copy anchored on its own document and page; a copy whose document this workspace lacks,
    or whose page no longer holds the quote, is dropped (it is an alternative, not the evidence)."""
    from core.review.corrections import corrected_document

    kept = []
    for copy in ev.copies:
        doc_id = resolve_doc_id(ws, GoldItem("copy", "copy", "", copy.doc_id, (), source=copy.source))
        if doc_id is None:
            continue
        if doc_id not in docs:
            docs[doc_id] = corrected_document(ws, doc_id)
        result = anchor_evidence(docs[doc_id], Evidence(None, copy.page, None, ev.quote))
        if result.level == ANCHORED and result.evidence.page == copy.page:
            kept.append(Copy(doc_id, copy.page, docs[doc_id].source, result.evidence.record_id, result.evidence.also))
        elif 1 <= copy.page <= docs[doc_id].page_count:  # printed there, not matched to an element: the page counts
            kept.append(Copy(doc_id, copy.page, docs[doc_id].source))
    return replace(ev, copies=tuple(kept))


def import_gold(ws: Workspace, items: Sequence[GoldItem]) -> ImportReport:
    """Anchor and store; items with unanchored evidence are stored flagged, and reported."""
    anchored, report = anchor_items(ws, items)
    for item in anchored:
        ws.put_gold_item(item.to_dict())
    return report


# ---- workspace access ---------------------------------------------------------------------------
def load_items(ws: Workspace, doc_id: str | None = None, tag: str | None = None) -> list[GoldItem]:
    items = [GoldItem.from_dict(d) for d in ws.gold_items(doc_id)]
    return [i for i in items if tag is None or tag in i.tags]


def save_item(ws: Workspace, item: GoldItem) -> None:
    ws.document(item.doc_id)
    ws.put_gold_item(item.to_dict())


def delete_item(ws: Workspace, item_id: str) -> None:
    ws.delete_gold_item(item_id)


def all_tags(items: Iterable[GoldItem]) -> list[str]:
    return sorted({t for i in items for t in i.tags})



# ---- redaction ----------------------------------------------------------------------------------
def redacted_items(ws: Workspace, items: Sequence[GoldItem]) -> list[GoldItem]:
    """The items with every personal value of their documents masked: a clicked element's whole text
    is a quote, and a question or an answer can repeat a value. Every export format starts here."""
    from core.forms.masking import workspace_masker

    masker = workspace_masker(ws, [i.doc_id for i in items])
    if not masker:
        return list(items)
    return [GoldItem.from_dict(masker.json(i.to_dict())) for i in items]
