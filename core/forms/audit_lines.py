"""The Audit page's lines for people: each event names its element or form field by its text and
its page ("p3 · 「図表Ⅰ-4-1-2」 → linked to the picture", "p1 · 「Initial return」 → selected"), never
by id. Ids stay in the log, in the downloaded JSONL and in the event's detail view.

Lives in forms (not review) because a check box has no text of its own: its name is the label the
forms stage found for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from core.forms.fields import extract_fields
from core.forms.form_events import element_id_of
from core.forms.form_field import FormField
from core.model import Document, Element
from core.review.corrections import corrected_document, machine_document
from core.review.status import AuditRow, audit_log
from core.store.workspace import Workspace

NAME_CHARS = 24
TEXTLESS = {"picture": "the picture", "table": "the table", "selection_mark": "a check box",
            "form_field": "a form field", "formula": "the formula", "decorative": "a decoration"}


@dataclass(frozen=True)
class AuditLine:
    row: AuditRow  # who, when, kind, page, status (core.review.status)
    text: str  # the readable line
    payload: Mapping[str, Any]  # the event as stored, with its ids: for the detail view


def quoted(text: str) -> str:
    flat = " ".join(str(text).split())
    return f"「{flat[:NAME_CHARS]}{'…' if len(flat) > NAME_CHARS else ''}」" if flat else ""


class Namer:
    """Readable names for the element and field ids events carry, over the corrected and the
    machine view (an event may name an element a later correction deleted)."""

    def __init__(self, docs: Sequence[Document], fields: Sequence[FormField], events: Sequence[Any]):
        self.elements: dict[str, Element] = {}
        for doc in reversed(docs):
            self.elements.update(doc.element_index())
        self.fields = {f.id: f for f in fields}
        self.mark_labels = {element_id_of(f.value_ref): f.key for f in fields if f.is_selection and f.value_ref}
        self.anchors: dict[str, str] = {}
        for e in events:  # what the reviewer saw, for elements no parse has any more
            for key, anchor in (e.payload.get("anchor") or {}).items():
                if isinstance(anchor, dict) and isinstance(e.payload.get(key), str):
                    self.anchors.setdefault(e.payload[key], str(anchor.get("text", "")))

    def element(self, ref: Any) -> str:
        element_id = element_id_of(ref) if isinstance(ref, str) else None
        if not element_id:
            return "an element"
        e = self.elements.get(element_id)
        if e is None:
            return quoted(self.anchors.get(element_id, "")) or "an element that is gone"
        label = self.mark_labels.get(element_id)
        if label and not e.text.strip():
            return quoted(label)
        return quoted(e.text) or TEXTLESS.get(e.category.value, f"the {e.category.value}")

    def field_page(self, payload: Mapping[str, Any]) -> int | None:
        f = self.fields.get(payload.get("field")) if isinstance(payload.get("field"), str) else None
        return f.page if f is not None else None

    def field(self, field_id: Any) -> str:
        f = self.fields.get(field_id) if isinstance(field_id, str) else None
        return quoted(f.key) if f is not None and f.key.strip() else "a form field"


def _element_phrase(payload: Mapping[str, Any], n: Namer) -> str | None:
    kind, target = payload.get("kind"), payload.get("target")
    phrases = {
        "relabel": lambda: f"{n.element(target)} → relabelled {payload.get('category')}",
        "delete_element": lambda: f"{n.element(target)} → deleted",
        "add_element": lambda: f"new {payload.get('category')} box drawn",
        "move_bbox": lambda: f"{n.element(target)} → box moved",
        "link": lambda: f"{n.element(payload.get('source'))} → linked to {n.element(target)}",
        "unlink": lambda: f"{n.element(payload.get('source'))} → unlinked"
                          + (f" from {n.element(target)}" if target else ""),
        "set_selection": lambda: f"{n.element(target)} → {payload.get('state')}",
        "set_text": lambda: f"{n.element(target)} → text corrected",
        "reorder": lambda: (f"{n.element(target)} → moved after {n.element(payload['after'])}" if payload.get("after")
                            else f"{n.element(target)} → moved before {n.element(payload.get('before'))}"),
        "split_element": lambda: f"{n.element(target)} → split after line {payload.get('at_line')}",
        "chunk_break": lambda: f"{n.element(payload.get('before'))} → starts a new chunk",
        "join_chunks": lambda: f"{n.element(payload.get('before'))} → kept in the chunk before it",
    }
    make = phrases.get(kind)
    return make() if make else None


def _form_phrase(payload: Mapping[str, Any], n: Namer) -> str | None:
    kind, field = payload.get("kind"), payload.get("field")
    phrases = {
        "pair": lambda: f"{n.element(payload.get('key'))} → paired with {n.element(payload.get('value'))}",
        "unpair": lambda: f"{n.field(field)} → unpaired",
        "set_value": lambda: f"{n.field(field)} → value corrected",  # the value itself may be personal
        "redact": lambda: f"{n.field(field)} → redacted",
        "unredact": lambda: f"{n.field(field)} → no longer redacted",
        "mark_reviewed": lambda: f"page marked {payload.get('status')}",
    }
    make = phrases.get(kind)
    return make() if make else None


def event_phrase(payload: Mapping[str, Any], n: Namer, by_id: Mapping[str, Any] | None = None) -> str:
    """What the event did, in words (without the page)."""
    if payload.get("kind") == "undo":
        undone = (by_id or {}).get(str(payload.get("event")))
        return f"undid: {event_phrase(undone.payload, n, by_id)}" if undone else "undid an event"
    return _element_phrase(payload, n) or _form_phrase(payload, n) or str(payload.get("kind"))


def readable_line(row: AuditRow, payload: Mapping[str, Any], n: Namer, by_id: Mapping[str, Any]) -> str:
    phrase = event_phrase(payload, n, by_id)
    undone = by_id.get(str(payload.get("event"))) if payload.get("kind") == "undo" else None
    page = row.page if row.page is not None else n.field_page(undone.payload if undone else payload)
    return f"p{page} · {phrase}" if page is not None else phrase


def readable_audit(ws: Workspace, doc_id: str) -> list[AuditLine]:
    """`core.review.status.audit_log` with a line for people per event, newest last."""
    rows = audit_log(ws, doc_id)
    events = ws.events(doc_id)
    by_id = {e.event_id: e for e in events}
    corrected, machine = corrected_document(ws, doc_id), machine_document(ws, doc_id)
    fields = [*extract_fields(machine), *extract_fields(corrected)]  # the corrected field wins
    namer = Namer((corrected, machine), fields, events)
    return [AuditLine(r, readable_line(r, by_id[r.event_id].payload, namer, by_id), dict(by_id[r.event_id].payload))
            for r in rows]
