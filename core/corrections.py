"""The correction log: reviewer events replayed over the machine Document.

corrected Document = replay(machine Document, events). Undo appends an inverse event; nothing is
ever deleted from the log.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Any

from core.categories import parse_category
from core.model import Document
from core.store import StoredEvent, Workspace


def corrected_document(ws: Workspace, doc_id: str) -> Document:
    return replay(ws.load_machine_document(doc_id), ws.events(doc_id))


def replay(doc: Document, events: Iterable[StoredEvent]) -> Document:
    # Initial version: relabel and delete only. The review-corrections work extends this.
    for event in events:
        doc = apply_event(doc, event.payload, event.event_id)
    return doc


def apply_event(doc: Document, event: Mapping[str, Any], event_id: str = "") -> Document:
    kind = event["kind"]
    if kind == "relabel":
        category = parse_category(event["category"])
        return _map_element(doc, event["target"], lambda e: replace(e, category=category).touched_by(f"reviewer:relabel"))
    if kind == "delete_element":
        return doc.with_pages(
            replace(p, elements=tuple(e for e in p.elements if e.id != event["target"])) for p in doc.pages
        )
    return doc


def _map_element(doc: Document, target: str, change) -> Document:
    return doc.with_pages(
        replace(p, elements=tuple(change(e) if e.id == target else e for e in p.elements))
        if any(e.id == target for e in p.elements) else p
        for p in doc.pages
    )
