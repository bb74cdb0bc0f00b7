"""Re-anchoring: keep reviewer events pointing at the right elements after a re-ingest.

Element ids are deterministic per file *and engine*, so re-ingesting the same PDF with another
engine (or another version of one) gives new ids. An event that names an id the current machine
Document does not have is re-anchored to the element on the same page whose box overlaps the old
one best and whose text is most alike. The log itself is never rewritten: the mapping is computed
each time, and what cannot be matched is returned so the reviewer sees it, never dropped silently.

Where the old element comes from: the `anchor` the tool stores in each event when it is written
(page, bbox, text, category of every element the event names), else any other engine's machine
Document still in the workspace.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Callable, Iterable, Mapping, Sequence

from core.geometry import coverage, iou
from core.model import BBox, Document, Element, make_bbox
from core.store.records import StoredEvent

# payload keys that hold element ids, per event kind
ELEMENT_REFS: dict[str, tuple[str, ...]] = {
    "relabel": ("target",),
    "delete_element": ("target",),
    "move_bbox": ("target",),
    "link": ("source", "target"),
    "unlink": ("source", "target"),
    "set_selection": ("target",),
    "set_text": ("target",),
    "reorder": ("target", "after", "before"),
    "split_element": ("target",),
    "chunk_break": ("before",),
    "join_chunks": ("before",),
    "pair": ("key", "value"),
}

# A match must clear both: enough shared area (or one box inside the other with similar text),
# and a combined score; the numbers were tuned on the sample documents re-ingested fast <-> layout.
MIN_SCORE = 0.45
MIN_IOU = 0.3
MIN_CONTAINMENT = 0.8
MIN_TEXT_WHEN_CONTAINED = 0.6

_REVIEWER_ID = re.compile(r"-rev\d+$")


def reviewer_element_id(doc_id: str, page: int, event_id: str) -> str:
    """Id of an element a reviewer added: derived from the event, so it survives any re-ingest."""
    return f"{doc_id[:8]}-p{page}-rev{event_id}"


def is_reviewer_element_id(element_id: str) -> bool:
    return bool(_REVIEWER_ID.search(element_id))


@dataclass(frozen=True)
class Anchor:
    """Where an element was and what it said, enough to find it again in another parse."""
    page: int
    bbox: BBox
    text: str
    category: str

    def to_dict(self) -> dict[str, Any]:
        return {"page": self.page, "bbox": list(self.bbox), "text": self.text, "category": self.category}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Anchor":
        return cls(int(d["page"]), make_bbox(d["bbox"]), str(d.get("text", "")), str(d.get("category", "")))


def anchor_of(element: Element) -> Anchor:
    return Anchor(element.page, element.bbox, element.text[:80], element.category.value)


def text_similarity(a: str, b: str) -> float:
    a, b = "".join(a.split())[:4000], "".join(b.split())[:4000]
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    ratio = SequenceMatcher(None, a[:200], b[:200], autojunk=False).ratio()
    # one parse may split a block the other kept whole: containment is strong evidence
    return max(ratio, 0.7) if (a in b or b in a) else ratio


def match_score(anchor: Anchor, element: Element) -> float:
    """0 when the element cannot be the anchored one; otherwise higher is a better match."""
    if element.page != anchor.page:
        return 0.0
    overlap = iou(anchor.bbox, element.bbox)
    contained = max(coverage(anchor.bbox, element.bbox), coverage(element.bbox, anchor.bbox))
    text = text_similarity(anchor.text, element.text)
    same_kind = anchor.category == element.category.value
    # one box inside the other: the same thing split or merged differently (lines -> paragraph,
    # four flow-chart boxes -> one picture) when the text agrees or the category does
    plausible = overlap >= MIN_IOU or (
        contained >= MIN_CONTAINMENT and (text >= MIN_TEXT_WHEN_CONTAINED or same_kind))
    if not plausible:
        return 0.0
    score = 0.5 * overlap + 0.2 * contained + 0.3 * text + (0.15 if same_kind else 0.0)
    return score if score >= MIN_SCORE else 0.0


def find_anchor(doc: Document, anchor: Anchor) -> Element | None:
    """The element of `doc` that best matches `anchor`, or None when nothing is close enough."""
    if not 1 <= anchor.page <= doc.page_count:
        return None
    best: tuple[float, str] | None = None
    by_id = {}
    for element in doc.page(anchor.page).elements:
        score = match_score(anchor, element)
        if score > 0 and (best is None or (score, _neg(element.id)) > (best[0], _neg(best[1]))):
            best = (score, element.id)
        by_id[element.id] = element
    return by_id[best[1]] if best else None


def _neg(element_id: str) -> tuple[int, ...]:
    # ties go to the smaller id, so the choice does not depend on element order
    return tuple(-ord(c) for c in element_id)


@dataclass(frozen=True)
class Unanchored:
    """An event reference that no longer resolves: shown to the reviewer, who can redo the edit."""
    event_id: str
    kind: str
    key: str  # which payload field (target, source, ...)
    old_id: str
    page: int | None
    text: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.event_id, "kind": self.kind, "field": self.key, "old_id": self.old_id,
                "page": self.page, "text": self.text, "reason": self.reason}


@dataclass(frozen=True)
class AnchorPlan:
    mapping: Mapping[str, str]  # old element id -> id in the current machine Document
    unanchored: tuple[Unanchored, ...]

    def rewrite(self, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        """The payload with re-anchored ids; the stored event is left as it was."""
        keys = [k for k in ELEMENT_REFS.get(payload.get("kind", ""), ()) if payload.get(k) in self.mapping]
        if not keys:
            return payload
        return {**payload, **{k: self.mapping[payload[k]] for k in keys}}


def element_refs(payload: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(k, payload[k]) for k in ELEMENT_REFS.get(payload.get("kind", ""), ())
            if isinstance(payload.get(k), str)]


OldElementLookup = Callable[[str], Element | None]


def plan_reanchoring(
    doc: Document, events: Sequence[StoredEvent], old_element: OldElementLookup | None = None
) -> AnchorPlan:
    """Map every event reference that `doc` (the current machine Document) lacks onto its elements.

    Each old id is matched on its own (not greedily against the others), so appending an event
    never changes how earlier events were anchored; that keeps cached replays valid.
    """
    known = {e.id for e in doc.elements()}
    mapping: dict[str, str] = {}
    unanchored: list[Unanchored] = []
    resolved: dict[str, str | None] = {}
    for event in events:
        anchors = event.payload.get("anchor") or {}
        for key, old_id in element_refs(event.payload):
            if old_id in known or is_reviewer_element_id(old_id):
                continue
            anchor = _anchor_for(old_id, anchors.get(key), old_element)
            if old_id not in resolved:
                found = find_anchor(doc, anchor) if anchor else None
                resolved[old_id] = found.id if found else None
            if resolved[old_id] is not None:
                mapping[old_id] = resolved[old_id]
            else:
                reason = ("no element on that page overlaps its old box with similar text"
                          if anchor else "the event stores no anchor and no old parse has this element")
                unanchored.append(Unanchored(
                    event.event_id, event.kind, key, old_id, anchor.page if anchor else None,
                    anchor.text if anchor else "", reason))
    return AnchorPlan(mapping, tuple(unanchored))


def _anchor_for(old_id: str, stored: Any, old_element: OldElementLookup | None) -> Anchor | None:
    if isinstance(stored, Mapping):
        try:
            return Anchor.from_dict(stored)
        except (KeyError, TypeError, ValueError):
            pass
    if old_element is not None:
        element = old_element(old_id)
        if element is not None:
            return anchor_of(element)
    return None


def old_element_lookup(docs: Iterable[Document]) -> OldElementLookup:
    index: dict[str, Element] = {}
    for d in docs:
        for e in d.elements():
            index.setdefault(e.id, e)
    return index.get
