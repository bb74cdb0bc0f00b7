"""Form events checked against the document's fields before they are appended.

core.review.events checks what an event says about elements, pages and categories; a field id is
the forms stage's, so the check that it names a field of the document is a separate step here,
run on the whole batch before anything is appended. A `pair` earlier in the same batch makes the
field that a later `set_value` or `redact` names, so each check sees the batch so far.
"""
from __future__ import annotations

from typing import Any, Sequence

from core.forms.fields import extract_fields
from core.model import Document
from core.review.events import BadEvent

FIELD_REF_KINDS = ("unpair", "set_value", "redact", "unredact")
_CHANGES_FIELDS = ("pair", "unpair")


def check_field_refs(doc: Document, events: Sequence[Any], labels: Sequence[str] | None = None) -> None:
    """BadEvent naming the first event (by its label, e.g. "FILE line 3") whose field is not one of
    the corrected document's fields; nothing is appended by the caller then."""
    labels = list(labels or [f"event {i + 1}" for i in range(len(events))])
    known: set[str] | None = None
    earlier: list[dict[str, Any]] = []
    for i, (raw, label) in enumerate(zip(events, labels)):
        if not isinstance(raw, dict):
            continue  # the envelope check reports it
        kind = raw.get("kind")
        if kind in FIELD_REF_KINDS and isinstance(raw.get("field"), str):
            if known is None:
                known = {f.id for f in extract_fields(doc, earlier)}
            if raw["field"] not in known:
                raise BadEvent(f"{label}: field {raw['field']!r} is not a form field of document {doc.doc_id} "
                               "(`python -m core forms DOC` lists them); nothing was appended")
        if kind in _CHANGES_FIELDS:
            known = None  # the fields change: read them again with this event applied
        earlier.append({**raw, "id": f"pending{i + 1}"})
