"""The correction log of a workspace document: read as the corrected Document, appended to.

corrected Document = replay(machine Document, events in effect). `corrected_document(ws, doc_id)`
is the one entry point every consumer (chunks, exports, forms, gold evidence, pages) uses; it
replays (core/review/replay.py) from in-process caches keyed by document version and log head.
`record_events` validates (core/review/events.py) and appends. What the tool adds when it writes:
- `anchor`: for every element the event names, {page, bbox, text, category} as the reviewer saw
  it, so the event can be re-anchored after a re-ingest (core/review/reanchor.py).
- all events written in one save share one `base`; that run of events is one *action* for undo
  (core/review/undo.py).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from core.errors import StaleView
from core.model import Document, Element
from core.review.events import BadEvent, validate_event
from core.review.reanchor import (
    ELEMENT_REFS, AnchorPlan, Unanchored, anchor_of, is_reviewer_element_id, old_element_lookup,
    plan_reanchoring,
)
from core.review.replay import ReplayCache, apply_event, element_text_reader
from core.store.records import StoredEvent
from core.store.workspace import Workspace

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


# ---- recording ----------------------------------------------------------------------------
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
