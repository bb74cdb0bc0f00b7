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
from core.model import Document
from core.review.corrections import corrected_document, machine_document
from core.review.describe import ElementNames, element_phrase, quoted
from core.review.status import AuditRow, audit_log
from core.store.workspace import Workspace


@dataclass(frozen=True)
class AuditLine:
    row: AuditRow  # who, when, kind, page, status (core.review.status)
    text: str  # the readable line
    payload: Mapping[str, Any]  # the event as stored, with its ids: for the detail view


class Namer:
    """Readable names for the element and field ids events carry: elements as
    `core.review.describe.ElementNames` names them, a check box by its label, a field by its key."""

    def __init__(self, docs: Sequence[Document], fields: Sequence[FormField], events: Sequence[Any]):
        labels = {element_id_of(f.value_ref): f.key for f in fields if f.is_selection and f.value_ref}
        self.element = ElementNames(docs, events, labels)
        self.fields = {f.id: f for f in fields}

    def field_page(self, payload: Mapping[str, Any]) -> int | None:
        f = self.fields.get(payload.get("field")) if isinstance(payload.get("field"), str) else None
        return f.page if f is not None else None

    def field(self, field_id: Any) -> str:
        f = self.fields.get(field_id) if isinstance(field_id, str) else None
        return quoted(f.key) if f is not None and f.key.strip() else "a form field"


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
    return element_phrase(payload, n.element) or _form_phrase(payload, n) or str(payload.get("kind"))


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
