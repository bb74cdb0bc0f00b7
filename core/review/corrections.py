"""The correction log: reviewer events replayed over the machine Document.

corrected Document = replay(machine Document, events in effect). `corrected_document(ws, doc_id)`
is the one entry point every consumer (chunks, exports, forms, gold evidence, pages) uses.

Events (DESIGN.md, "Corrections") are small JSON objects; the store adds `id` (its seq), `actor`,
`at` and `base` (the log head the edit was made against). What the tool adds when it writes one:
- `anchor`: for every element the event names, {page, bbox, text, category} as the reviewer saw
  it, so the event can be re-anchored after a re-ingest (core/review/reanchor.py).
- all events written in one save share one `base`; that run of events is one *action* for undo.

Undo and redo are appended events, never deletions:
- `{"kind":"undo","event":ID}` takes event ID out of effect (replay skips it);
- redo is an undo of that undo: the undo is then out of effect, so the original event is back.
An event is in effect unless an undo that is itself in effect names it.

Element kinds are applied here; form kinds (pair, unpair, set_value, redact, unredact) are
applied by core/forms/fields.py over the corrected Document, so replay passes them over.
Every element an event touches gets `reviewer:<kind>` in its `rules`. An event whose element no
longer exists (deleted earlier, or unanchored after a re-ingest) changes nothing; `skipped` lists it.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from core.categories import Category, parse_category
from core.errors import BadInput, InspectorError, StaleView
from core.geometry import coverage, horizontal_overlap
from core.model import SELECTION_STATES, BBox, Document, Element, Page, make_bbox, renumber
from core.review.reanchor import (
    ELEMENT_REFS, AnchorPlan, Unanchored, anchor_of, is_reviewer_element_id, old_element_lookup,
    plan_reanchoring, reviewer_element_id,
)
from core.store.records import StoredEvent
from core.store.workspace import Workspace

TextReader = Callable[[int, BBox], str]

ELEMENT_KINDS = ("relabel", "delete_element", "add_element", "move_bbox", "link", "unlink", "set_selection")
FORM_KINDS = ("pair", "unpair", "set_value", "redact", "unredact")
REVIEW_STATUSES = ("unreviewed", "in_progress", "reviewed")
EVENT_KINDS = ELEMENT_KINDS + FORM_KINDS + ("mark_reviewed", "undo")
LINK_SOURCES = (Category.CAPTION, Category.FOOTNOTE)


class BadEvent(BadInput):
    """An event that cannot be appended; the message names the line or position."""


class NothingToUndo(InspectorError):
    pass


# ---- which events are in effect --------------------------------------------------------------
def cancelled_ids(events: Sequence[StoredEvent]) -> set[str]:
    """Ids of events out of effect. Walk backwards: an undo only counts if it is itself in effect,
    and an undo always names an earlier event, so later events are decided first."""
    cancelled: set[str] = set()
    for event in reversed(events):
        if event.event_id not in cancelled and event.kind == "undo":
            cancelled.add(str(event.payload.get("event")))
    return cancelled


def events_in_effect(events: Sequence[StoredEvent]) -> list[StoredEvent]:
    cancelled = cancelled_ids(events)
    return [e for e in events if e.kind != "undo" and e.event_id not in cancelled]


# ---- replay ---------------------------------------------------------------------------------
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
        # carried on the Document (meta "form_events") for core/forms/fields.py to apply, so chunks and
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
    if kind == "relabel":
        category = parse_category(event["category"])
        # a selection state only means something on a check box
        state = target.state if category in (Category.SELECTION_MARK, Category.FORM_FIELD) else None
        return _replace_element(doc, replace(target, category=category, state=state).touched_by(rule))
    if kind == "delete_element":
        return _delete_element(doc, target, where)
    if kind == "move_bbox":
        bbox = make_bbox(event["bbox"])
        text = event["text"] if isinstance(event.get("text"), str) else read_text(target.page, bbox)
        return _replace_element(doc, replace(target, bbox=bbox, text=text).touched_by(rule))
    if kind == "link":
        links = target.links + (() if event["target"] in target.links else (event["target"],))
        where.linking.add(target.id)
        return _replace_element(doc, replace(target, links=links).touched_by(rule))
    if kind == "unlink":
        only = event.get("target")
        links = tuple(t for t in target.links if only is not None and t != only)
        if not links:
            where.linking.discard(target.id)
        return _replace_element(doc, replace(target, links=links).touched_by(rule))
    if kind == "set_selection":
        return _replace_element(doc, replace(target, state=event["state"]).touched_by(rule))
    return doc


def _with_page(doc: Document, page: Page) -> Document:
    # untouched pages stay the same objects, so per-page caches downstream stay valid
    pages = list(doc.pages)
    pages[page.number - 1] = page
    return replace(doc, pages=tuple(pages))


def _replace_element(doc: Document, new: Element) -> Document:
    page = doc.page(new.page)
    return _with_page(doc, replace(page, elements=tuple(new if e.id == new.id else e for e in page.elements)))


def _delete_element(doc: Document, target: Element, where: Where) -> Document:
    # a caption or footnote that pointed at the deleted element no longer does
    pointing = [e for e in (where.element(doc, i) for i in sorted(where.linking)) if e and target.id in e.links]
    pages = {target.page} | {e.page for e in pointing}
    for number in sorted(pages):
        page = doc.page(number)
        kept = [e for e in page.elements if e.id != target.id]
        kept = [replace(e, links=tuple(t for t in e.links if t != target.id)).touched_by("reviewer:delete_element")
                if target.id in e.links else e for e in kept]
        doc = _with_page(doc, replace(page, elements=renumber(kept)))
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
    return _with_page(doc, replace(page, elements=renumber(elements)))


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


_CACHE = ReplayCache()


@dataclass(frozen=True)
class CorrectedView:
    """The corrected Document with what a page needs to edit it safely."""
    doc: Document
    head: int  # log head it was built from: pass it back as expected_head when saving
    skipped: tuple[str, ...]  # events in effect that changed nothing (their element is gone)
    unanchored: tuple[Unanchored, ...]  # event references lost after a re-ingest


def corrected_view(ws: Workspace, doc_id: str) -> CorrectedView:
    record = ws.document(doc_id)
    events = ws.events(doc_id)
    key = (str(Path(ws.root).resolve()), doc_id, record.engine, record.updated_at)
    machine = _machine_loader(ws, doc_id, key)
    plan = _anchor_plan(ws, doc_id, key, machine, events)
    pdf = ws.document_pdf(doc_id)
    reader = None
    if pdf is not None:
        from core.review.box_text import pdf_text_reader  # pymupdf only when a box has to be read
        reader = pdf_text_reader(pdf)
    result = _CACHE.get(key, machine, events, reader, plan)
    head = events[-1].seq if events else 0
    return CorrectedView(result.doc, head, result.skipped, plan.unanchored)


def machine_document(ws: Workspace, doc_id: str) -> Document:
    """The current machine Document, from the same in-process cache replay uses."""
    record = ws.document(doc_id)
    return _machine_loader(ws, doc_id, (str(Path(ws.root).resolve()), doc_id, record.engine, record.updated_at))()


def corrected_document(ws: Workspace, doc_id: str) -> Document:
    """The machine Document with the reviewer's events in effect replayed (the one entry point)."""
    return corrected_view(ws, doc_id).doc


_MACHINE: OrderedDict[Any, Document] = OrderedDict()
_MACHINE_LOCK = threading.Lock()


def _machine_loader(ws: Workspace, doc_id: str, key: Any) -> Callable[[], Document]:
    def load() -> Document:
        with _MACHINE_LOCK:
            if key in _MACHINE:
                return _MACHINE[key]
        doc = ws.load_machine_document(doc_id)
        with _MACHINE_LOCK:
            _MACHINE[key] = doc
            while len(_MACHINE) > 8:
                _MACHINE.popitem(last=False)
        return doc
    return load


def _anchor_plan(ws: Workspace, doc_id: str, key: Any, machine: Callable[[], Document],
                 events: Sequence[StoredEvent]) -> AnchorPlan:
    if not any(ref for e in events for ref in _refs(e)):
        return AnchorPlan({}, ())
    doc = machine()
    known = {e.id for e in doc.elements()}
    if all(r in known or is_reviewer_element_id(r) for e in events for r in _refs(e)):
        return AnchorPlan({}, ())

    def old_element(old_id: str) -> Element | None:
        engines = [e for e in ws.machine_engines(doc_id) if e != ws.document(doc_id).engine]
        return old_element_lookup(ws.load_machine_document(doc_id, e) for e in engines)(old_id)
    return plan_reanchoring(doc, events, old_element)


def _refs(event: StoredEvent) -> list[str]:
    return [event.payload[k] for k in ELEMENT_REFS.get(event.kind, ()) if isinstance(event.payload.get(k), str)]


def clear_cache() -> None:
    _CACHE.clear()
    with _MACHINE_LOCK:
        _MACHINE.clear()


# ---- validation and recording ---------------------------------------------------------------
def validate_event(doc: Document, raw: Any, log: Sequence[StoredEvent]) -> dict[str, Any]:
    """The event in its stored shape (category as wire value, bbox as 4 numbers), or BadEvent."""
    event = _well_formed_envelope(raw)
    check = _EventCheck(doc, event, log, doc.element_index())
    _VALIDATORS[check.kind](check)
    return event


def _well_formed_envelope(raw: Any) -> dict[str, Any]:
    """What every kind shares: a JSON object of a known kind, string actor/at, a log position as base."""
    if not isinstance(raw, Mapping):
        raise BadEvent(f"expected a JSON object, got {type(raw).__name__}")
    event = dict(raw)
    kind = event.get("kind")
    if kind not in EVENT_KINDS:
        raise BadEvent(f"unknown kind {kind!r}; expected one of {', '.join(EVENT_KINDS)}")
    for meta, kind_of in (("actor", str), ("at", str)):
        if meta in event and not isinstance(event[meta], kind_of):
            raise BadEvent(f"{meta!r} must be a string, got {event[meta]!r}")
    if "base" in event and (not isinstance(event["base"], int) or event["base"] < 0):
        raise BadEvent(f"'base' must be a log position (integer >= 0), got {event['base']!r}")
    return event


@dataclass(frozen=True)
class _EventCheck:
    """One event being validated against the corrected Document; the checks its fields share.

    `event` is the caller's copy: a validator writes the stored shape of a field back into it."""
    doc: Document
    event: dict[str, Any]
    log: Sequence[StoredEvent]
    index: Mapping[str, Element]

    @property
    def kind(self) -> str:
        return self.event["kind"]

    def element(self, key: str) -> Element:
        value = self.event.get(key)
        if not isinstance(value, str) or not value:
            raise BadEvent(f"{self.kind} needs {key!r}: an element id")
        if value not in self.index:
            raise BadEvent(f"{key} {value!r} is not an element of document {self.doc.doc_id} "
                           "(corrected view; `python -m core elements DOC` lists them)")
        return self.index[value]

    def page_number(self) -> int:
        page = self.event.get("page")
        if not isinstance(page, int) or isinstance(page, bool) or not 1 <= page <= self.doc.page_count:
            raise BadEvent(f"'page' must be a page number 1..{self.doc.page_count}, got {page!r}")
        return page

    def bbox_on(self, page: int) -> list[float]:
        value = self.event.get("bbox")
        if (not isinstance(value, (list, tuple)) or len(value) != 4
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
            raise BadEvent(f"'bbox' must be [x0, y0, x1, y1] in PDF points, got {value!r}")
        x0, y0, x1, y1 = value
        if not (x0 < x1 and y0 < y1):
            raise BadEvent(f"'bbox' must have x0 < x1 and y0 < y1, got {list(value)}")
        p = self.doc.page(page)
        if x0 < -1 or y0 < -1 or x1 > p.width + 1 or y1 > p.height + 1:
            raise BadEvent(f"'bbox' {list(value)} lies outside page {page} (0..{p.width:g} x 0..{p.height:g} pt)")
        return list(make_bbox(value))

    def category(self) -> str:
        try:
            return parse_category(self.event.get("category")).value
        except (ValueError, KeyError, TypeError) as err:
            raise BadEvent(str(err)) from None


def _relabel_names_an_element_and_a_category(c: _EventCheck) -> None:
    c.element("target")
    c.event["category"] = c.category()


def _delete_names_an_element(c: _EventCheck) -> None:
    c.element("target")


def _added_element_has_a_box_on_a_page_and_a_category(c: _EventCheck) -> None:
    c.event["bbox"] = c.bbox_on(c.page_number())
    c.event["category"] = c.category()
    if "text" in c.event and not isinstance(c.event["text"], str):
        raise BadEvent(f"'text' must be a string when given, got {c.event['text']!r}")


def _moved_box_lies_on_its_elements_page(c: _EventCheck) -> None:
    c.event["bbox"] = c.bbox_on(c.element("target").page)


def _link_goes_from_a_caption_or_footnote_to_another_element(c: _EventCheck) -> None:
    source = c.element("source")
    target = c.element("target")
    if source.category not in LINK_SOURCES:
        raise BadEvent(f"link source {source.id!r} is a {source.category.value}; only a caption or a "
                       "footnote links to its figure, table or body text (relabel it first)")
    if source.id == target.id:
        raise BadEvent(f"an element cannot link to itself ({source.id!r})")


def _unlink_names_its_elements(c: _EventCheck) -> None:
    c.element("source")
    if c.event.get("target") is not None:
        c.element("target")


def _selection_names_an_element_and_a_state(c: _EventCheck) -> None:
    c.element("target")
    if c.event.get("state") not in SELECTION_STATES:
        raise BadEvent(f"'state' must be one of {', '.join(SELECTION_STATES)}, got {c.event.get('state')!r}")


def _review_mark_names_a_page_and_a_status(c: _EventCheck) -> None:
    c.page_number()
    if c.event.get("status") not in REVIEW_STATUSES:
        raise BadEvent(f"'status' must be one of {', '.join(REVIEW_STATUSES)}, got {c.event.get('status')!r}")


def _undo_names_an_event_in_effect(c: _EventCheck) -> None:
    target = c.event.get("event")
    if isinstance(target, int) and not isinstance(target, bool):
        target = str(target)
    if not isinstance(target, str) or not target:
        raise BadEvent("undo needs 'event': the id of an event of this document")
    ids = {e.event_id for e in c.log}
    if target not in ids:
        raise BadEvent(f"undo names event {target!r}, which is not in this document's log")
    if target in cancelled_ids(c.log):
        raise BadEvent(f"event {target} is already undone (undo its undo to bring it back)")
    c.event["event"] = target


def _pair_names_a_key_and_a_value_element(c: _EventCheck) -> None:
    c.element("key")
    c.element("value")


def _field_event_names_a_field(c: _EventCheck) -> None:
    """unpair, set_value, redact, unredact: what a form field is belongs to core/forms/fields.py."""
    if not isinstance(c.event.get("field"), str) or not c.event["field"]:
        raise BadEvent(f"{c.kind} needs 'field': a form field id (`python -m core forms DOC` lists them)")
    if c.kind == "set_value" and not isinstance(c.event.get("value"), str):
        raise BadEvent(f"set_value needs 'value': a string, got {c.event.get('value')!r}")


# kind -> the checks of its own fields (after the envelope); one entry per EVENT_KINDS
_VALIDATORS: dict[str, Callable[[_EventCheck], None]] = {
    "relabel": _relabel_names_an_element_and_a_category,
    "delete_element": _delete_names_an_element,
    "add_element": _added_element_has_a_box_on_a_page_and_a_category,
    "move_bbox": _moved_box_lies_on_its_elements_page,
    "link": _link_goes_from_a_caption_or_footnote_to_another_element,
    "unlink": _unlink_names_its_elements,
    "set_selection": _selection_names_an_element_and_a_state,
    "mark_reviewed": _review_mark_names_a_page_and_a_status,
    "undo": _undo_names_an_event_in_effect,
    "pair": _pair_names_a_key_and_a_value_element,
    "unpair": _field_event_names_a_field,
    "set_value": _field_event_names_a_field,
    "redact": _field_event_names_a_field,
    "unredact": _field_event_names_a_field,
}


def _with_anchors(event: dict[str, Any], doc: Document) -> dict[str, Any]:
    index = doc.element_index()
    anchors = {k: anchor_of(index[v]).to_dict() for k, v in
               ((k, event.get(k)) for k in ELEMENT_REFS.get(event["kind"], ()))
               if isinstance(v, str) and v in index and not is_reviewer_element_id(v)}
    if anchors and "anchor" not in event:
        event["anchor"] = anchors
    return event


def record_events(
    ws: Workspace, doc_id: str, events: Sequence[Any], actor: str,
    expected_head: int | None = None, labels: Sequence[str] | None = None,
) -> list[StoredEvent]:
    """Validate and append events as one action, in one transaction; all or nothing.

    `expected_head` is the head of the view the reviewer saw (CorrectedView.head): if the log has
    moved on, StaleView is raised and nothing is written. `labels` name each event in error
    messages (e.g. "line 3"); by default "event 1", "event 2", ...
    """
    if not events:
        raise BadEvent("no events to record")
    if not actor or not str(actor).strip():
        raise BadEvent("every correction needs an actor: set the reviewer name")
    view = corrected_view(ws, doc_id)
    if expected_head is not None and expected_head != view.head:
        raise StaleView(
            "this document was changed in another session since your view was loaded "
            f"(log head {view.head}, your view {expected_head}); reload to see the changes, then redo your edit")
    head = view.head
    log = ws.events(doc_id)
    doc = view.doc
    labels = list(labels or [f"event {i + 1}" for i in range(len(events))])
    clean: list[dict[str, Any]] = []
    for i, (raw, label) in enumerate(zip(events, labels)):
        try:
            event = validate_event(doc, raw, log)
        except BadEvent as err:
            raise BadEvent(f"{label}: {err}; nothing was appended") from None
        clean.append(_with_anchors(event, doc))
        # later events in the same file see this one (a relabel then a link, a delete then ...)
        pending = StoredEvent(-(i + 1), doc_id, event["kind"], event, actor, "", head)
        doc = apply_event(doc, event, f"pending{i + 1}", element_text_reader(doc)) or doc
        log = log + [pending]
    for event in clean:
        event.setdefault("base", head)
    return ws.append_events(doc_id, clean, actor=actor, expected_head=head)


# ---- actions, undo and redo -----------------------------------------------------------------
@dataclass(frozen=True)
class Action:
    """Events saved together (one `base`, one actor): the unit the Undo button takes back."""
    events: tuple[StoredEvent, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.event_id for e in self.events)

    @property
    def is_undo(self) -> bool:
        return all(e.kind == "undo" for e in self.events)

    @property
    def undone_ids(self) -> set[str]:
        return {str(e.payload.get("event")) for e in self.events if e.kind == "undo"}


def actions(events: Sequence[StoredEvent]) -> list[Action]:
    groups: list[list[StoredEvent]] = []
    for event in events:
        last = groups[-1][-1] if groups else None
        if last is not None and last.base == event.base and last.actor == event.actor:
            groups[-1].append(event)
        else:
            groups.append([event])
    return [Action(tuple(g)) for g in groups]


@dataclass(frozen=True)
class UndoState:
    undo: tuple[Action, ...]  # actions that Undo would take back, most recent last
    redo: tuple[Action, ...]  # undo actions that Redo would take back, most recent last


def undo_state(events: Sequence[StoredEvent]) -> UndoState:
    """Replays the log as an editor's undo/redo stacks: a new action empties the redo stack."""
    undo: list[Action] = []
    redo: list[Action] = []
    undone_by: dict[str, Action] = {}  # id of an undo event -> the action it took back
    for action in actions(events):
        if not action.is_undo:
            undo.append(action)
            redo.clear()
            continue
        targets = action.undone_ids
        redone = [a for a in redo if set(a.ids) & targets]
        if redone:  # an undo of an undo: redo
            for a in redone:
                redo.remove(a)
                original = undone_by.get(a.ids[0])
                if original is not None:
                    undo.append(original)
            continue
        taken = [a for a in undo if set(a.ids) & targets]
        for a in taken:
            undo.remove(a)
        if taken:
            for e in action.events:
                undone_by[e.event_id] = taken[-1]
            redo.append(action)
    return UndoState(tuple(undo), tuple(redo))


def undo_last(ws: Workspace, doc_id: str, actor: str, expected_head: int | None = None) -> list[StoredEvent]:
    state = undo_state(ws.events(doc_id))
    if not state.undo:
        raise NothingToUndo("nothing to undo in this document")
    live = cancelled_ids(ws.events(doc_id))
    targets = [e for e in reversed(state.undo[-1].events) if e.event_id not in live]
    return record_events(ws, doc_id, [{"kind": "undo", "event": e.event_id} for e in targets], actor, expected_head)


def redo_last(ws: Workspace, doc_id: str, actor: str, expected_head: int | None = None) -> list[StoredEvent]:
    state = undo_state(ws.events(doc_id))
    if not state.redo:
        raise NothingToUndo("nothing to redo in this document")
    return record_events(ws, doc_id, [{"kind": "undo", "event": e.event_id} for e in reversed(state.redo[-1].events)],
                         actor, expected_head)


# ---- describing events (audit, messages) ----------------------------------------------------
def describe(payload: Mapping[str, Any], name: Callable[[str], str] | None = None) -> str:
    """One line for people; `name` turns an element id into something readable (its text)."""
    n = name or (lambda element_id: str(element_id))
    kind = payload.get("kind")
    if kind == "relabel":
        return f"relabel {n(payload.get('target'))} → {payload.get('category')}"
    if kind == "delete_element":
        return f"delete {n(payload.get('target'))}"
    if kind == "add_element":
        return f"add {payload.get('category')} on page {payload.get('page')} at {payload.get('bbox')}"
    if kind == "move_bbox":
        return f"move {n(payload.get('target'))} to {payload.get('bbox')}"
    if kind == "link":
        return f"link {n(payload.get('source'))} → {n(payload.get('target'))}"
    if kind == "unlink":
        return f"unlink {n(payload.get('source'))}" + (f" from {n(payload['target'])}" if payload.get("target") else "")
    if kind == "set_selection":
        return f"set {n(payload.get('target'))} {payload.get('state')}"
    if kind == "mark_reviewed":
        return f"page {payload.get('page')} {payload.get('status')}"
    if kind == "undo":
        return f"undo event {payload.get('event')}"
    return f"{kind} " + ", ".join(f"{k}={v}" for k, v in payload.items() if k not in ("kind", "anchor"))


def element_pages(docs: Sequence[Document]) -> dict[str, int]:
    """Element id -> page over several views (the first that has an id wins)."""
    pages: dict[str, int] = {}
    for doc in reversed(docs):
        pages.update((e.id, e.page) for e in doc.elements())
    return pages


def event_page(payload: Mapping[str, Any], where: Mapping[str, int] | Sequence[Document]) -> int | None:
    """The page an event is about: its `page`, else its element's page (`where`: element id -> page,
    or the documents to look in), else its stored anchor's, else a reviewer id's page."""
    if isinstance(payload.get("page"), int):
        return payload["page"]
    if not isinstance(where, Mapping):
        where = element_pages(where)
    for key in ELEMENT_REFS.get(payload.get("kind", ""), ()) + ("field",):
        ref = payload.get(key)
        if not isinstance(ref, str):
            continue
        if ref in where:
            return where[ref]
        anchor = (payload.get("anchor") or {}).get(key)
        if isinstance(anchor, Mapping) and isinstance(anchor.get("page"), int):
            return anchor["page"]
        if is_reviewer_element_id(ref):
            try:
                return int(ref.rsplit("-p", 1)[1].split("-", 1)[0])
            except (IndexError, ValueError):
                pass
    return None


# ---- event files (JSONL) ----------------------------------------------------------------------
def parse_jsonl(text: str, name: str = "input") -> tuple[list[Any], list[str]]:
    """Events and their labels ("FILE line N") from JSONL; blank lines are skipped."""
    events, labels = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise BadEvent(f"{name} line {number}: not valid JSON ({err.msg} at column {err.colno}); "
                           "nothing was appended") from None
        labels.append(f"{name} line {number}")
    return events, labels
