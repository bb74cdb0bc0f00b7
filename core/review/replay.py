"""Replay: the reviewer's events in effect applied, one by one, over the machine Document.

Element kinds are applied here; form kinds (pair, unpair, set_value, redact, unredact) are
applied by core/forms/form_events.py over the corrected Document, so replay passes them over.
Every element an event touches gets `reviewer:<kind>` in its `rules`. An event whose element no
longer exists (deleted earlier, or unanchored after a re-ingest) changes nothing; `skipped` lists it.
`ReplayCache` keeps corrected Documents per log head and extends them with later events.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from core.categories import Category, parse_category
from core.geometry import coverage, horizontal_overlap
from core.model import BBox, Document, Element, make_bbox, renumber
from core.review.events import ELEMENT_KINDS, FORM_KINDS, events_in_effect
from core.review.reanchor import ELEMENT_REFS, AnchorPlan, reviewer_element_id
from core.review.structure import STRUCTURE_KINDS, apply_structure, replace_element, with_page
from core.store.records import StoredEvent

# The same alias as core.review.box_text's, written again so replay never imports pymupdf: only
# an event that has to read a box from the PDF loads box_text.
TextReader = Callable[[int, BBox], str]


def element_text_reader(doc: Document) -> TextReader:
    """For documents without a stored PDF (imports): the text of the elements inside the box."""
    def read(page: int, bbox: BBox) -> str:
        if not 1 <= page <= doc.page_count:
            return ""
        inside = [e for e in doc.page(page).elements if e.text and coverage(e.bbox, bbox) >= 0.5]
        return "\n".join(e.text for e in inside)
    return read


@dataclass(frozen=True)
class Replayed:
    doc: Document
    skipped: tuple[str, ...] = ()  # ids of events in effect whose element was not there


def replay(doc: Document, events: Iterable[StoredEvent], read_text: TextReader | None = None) -> Document:
    return replay_report(doc, list(events), read_text).doc


def replay_report(
    doc: Document, events: Sequence[StoredEvent], read_text: TextReader | None = None,
    plan: AnchorPlan | None = None,
) -> Replayed:
    reader = read_text or element_text_reader(doc)
    where = Where.of(doc)
    skipped: list[str] = []
    for event in events_in_effect(events):
        payload = plan.rewrite(event.payload) if plan else event.payload
        new = apply_event(doc, payload, event.event_id, reader, where)
        if new is None:
            skipped.append(event.event_id)
        else:
            doc = new
    return Replayed(doc, tuple(skipped))


@dataclass
class Where:
    """Which page each element is on, and which elements carry links, kept in step with the
    Document during a replay: one event then costs one page, not a scan of the whole document."""
    page_of: dict[str, int]
    linking: set[str]

    @classmethod
    def of(cls, doc: Document) -> "Where":
        return cls({e.id: e.page for e in doc.elements()}, {e.id for e in doc.elements() if e.links})

    def element(self, doc: Document, element_id: Any) -> Element | None:
        page = self.page_of.get(element_id) if isinstance(element_id, str) else None
        if page is None:
            return None
        return next((e for e in doc.page(page).elements if e.id == element_id), None)


def apply_event(
    doc: Document, event: Mapping[str, Any], event_id: str, read_text: TextReader, where: Where | None = None,
) -> Document | None:
    """The Document after one event, or None when the event's element is not there.
    `where` (updated in place) saves a scan of the document per event during a replay."""
    kind = event.get("kind")
    if kind in FORM_KINDS:
        # carried on the Document (meta "form_events") for core/forms/form_events.py to apply, so chunks and
        # every export built from the corrected Document see pairs and redactions too
        from core.model import freeze_attrs
        carried = dict(doc.meta).get("form_events", ()) + (freeze_attrs({**event, "id": event_id}),)
        return replace(doc, meta=freeze_attrs({**dict(doc.meta), "form_events": carried}))
    if kind not in ELEMENT_KINDS:
        return doc  # review and unknown kinds do not change elements
    where = where if where is not None else Where.of(doc)
    if kind == "add_element":
        return _add_element(doc, event, event_id, read_text, where)
    refs = [where.element(doc, event.get(k)) for k in ELEMENT_REFS[kind] if event.get(k) is not None]
    if not refs or any(r is None for r in refs):
        return None
    target = refs[0]
    rule = f"reviewer:{kind}"
    if kind in STRUCTURE_KINDS:
        new = apply_structure(doc, event, refs, reviewer_element_id(doc.doc_id, target.page, event_id))
        if new is not None and kind == "split_element":
            where.page_of[reviewer_element_id(doc.doc_id, target.page, event_id)] = target.page
        return new
    if kind == "relabel":
        category = parse_category(event["category"])
        # a selection state only means something on a check box
        state = target.state if category in (Category.SELECTION_MARK, Category.FORM_FIELD) else None
        return replace_element(doc, replace(target, category=category, state=state).touched_by(rule))
    if kind == "delete_element":
        return _delete_element(doc, target, where)
    if kind == "move_bbox":
        bbox = make_bbox(event["bbox"])
        text = event["text"] if isinstance(event.get("text"), str) else read_text(target.page, bbox)
        return replace_element(doc, replace(target, bbox=bbox, text=text).touched_by(rule))
    if kind == "link":
        links = target.links + (() if event["target"] in target.links else (event["target"],))
        where.linking.add(target.id)
        return replace_element(doc, replace(target, links=links).touched_by(rule))
    if kind == "unlink":
        only = event.get("target")
        links = tuple(t for t in target.links if only is not None and t != only)
        if not links:
            where.linking.discard(target.id)
        return replace_element(doc, replace(target, links=links).touched_by(rule))
    if kind == "set_selection":
        return replace_element(doc, replace(target, state=event["state"]).touched_by(rule))
    return doc


def _delete_element(doc: Document, target: Element, where: Where) -> Document:
    # a caption or footnote that pointed at the deleted element no longer does
    pointing = [e for e in (where.element(doc, i) for i in sorted(where.linking)) if e and target.id in e.links]
    pages = {target.page} | {e.page for e in pointing}
    for number in sorted(pages):
        page = doc.page(number)
        kept = [e for e in page.elements if e.id != target.id]
        kept = [replace(e, links=tuple(t for t in e.links if t != target.id)).touched_by("reviewer:delete_element")
                if target.id in e.links else e for e in kept]
        doc = with_page(doc, replace(page, elements=renumber(kept)))
    where.page_of.pop(target.id, None)
    where.linking.discard(target.id)
    for e in pointing:
        if not [t for t in e.links if t != target.id]:
            where.linking.discard(e.id)
    return doc


def _add_element(doc: Document, event: Mapping[str, Any], event_id: str, read_text: TextReader,
                 where: Where) -> Document | None:
    page_number = int(event["page"])
    if not 1 <= page_number <= doc.page_count:
        return None
    bbox = make_bbox(event["bbox"])
    new = Element(
        id=reviewer_element_id(doc.doc_id, page_number, event_id), page=page_number, seq=0,
        category=parse_category(event["category"]), bbox=bbox, text="", source="reviewer",
        rules=("reviewer:add_element",),
    )
    if new.id in where.page_of:
        return None
    text = event["text"] if isinstance(event.get("text"), str) else read_text(page_number, bbox)
    new = replace(new, text=text)
    page = doc.page(page_number)
    elements = list(page.elements)
    elements.insert(_reading_position(elements, bbox), new)
    where.page_of[new.id] = page_number
    return with_page(doc, replace(page, elements=renumber(elements)))


def _reading_position(elements: Sequence[Element], bbox: BBox) -> int:
    """Where a new box goes in reading order: before the first element of its column that starts
    below it, else after the last element of its column, else by height on the page."""
    column = [i for i, e in enumerate(elements) if horizontal_overlap(e.bbox, bbox) > 0.3]
    for i in column:
        if elements[i].bbox[1] >= bbox[1]:
            return i
    if column:
        return column[-1] + 1
    for i, e in enumerate(elements):
        if e.bbox[1] >= bbox[1]:
            return i
    return len(elements)


# ---- cached replay --------------------------------------------------------------------------
class ReplayCache:
    """Corrected Documents per (document, machine version, log head), replayed incrementally.

    A snapshot at head h can be extended with later events unless one of them undoes an event at
    or before h (then the events in effect up to h changed and we go back to an older snapshot, or
    to the machine Document). Snapshots share unchanged pages, so keeping a few is cheap.
    """

    def __init__(self, snapshots_per_doc: int = 12, docs: int = 16):
        self._snapshots: OrderedDict[Any, OrderedDict[int, Replayed]] = OrderedDict()
        self._per_doc = snapshots_per_doc
        self._docs = docs
        self._lock = threading.Lock()
        self.replayed_events = 0  # how many events were applied; lets tests see the cache work

    def get(self, key: Any, machine: Callable[[], Document], events: Sequence[StoredEvent],
            read_text: TextReader | None = None, plan: AnchorPlan | None = None) -> Replayed:
        head = events[-1].seq if events else 0
        with self._lock:
            snaps = self._snapshots.get(key)
            if snaps is not None:
                self._snapshots.move_to_end(key)
                if head in snaps:
                    return snaps[head]
                start = _usable_snapshot(snaps, events, head)
            else:
                start = None
        if start is None:
            base, skipped, rest = machine(), (), list(events)
        else:
            base_head, replayed = start
            base, skipped = replayed.doc, replayed.skipped
            rest = [e for e in events if e.seq > base_head]
        # undos among `rest` only name events in `rest` (that is what made the snapshot usable)
        result = replay_report(base, rest, read_text or element_text_reader(base), plan)
        result = Replayed(result.doc, skipped + result.skipped)
        with self._lock:
            self.replayed_events += len(rest)
            snaps = self._snapshots.setdefault(key, OrderedDict())
            if 0 not in snaps and start is None:
                snaps[0] = Replayed(base)
            snaps[head] = result
            while len(snaps) > self._per_doc:
                oldest = next(h for h in snaps if h != 0)  # keep the machine Document
                del snaps[oldest]
            while len(self._snapshots) > self._docs:
                self._snapshots.popitem(last=False)
        return result

    def clear(self) -> None:
        with self._lock:
            self._snapshots.clear()


def _usable_snapshot(snaps: Mapping[int, Replayed], events: Sequence[StoredEvent], head: int):
    for h in sorted((h for h in snaps if h < head), reverse=True):
        later = (e for e in events if e.seq > h)
        if not any(e.kind == "undo" and _as_int(e.payload.get("event")) <= h for e in later):
            return h, snaps[h]
    return None


def _as_int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1
