"""The Forms page's pure helpers: the status a field is coloured by, the field under a click,
and the correction events a check-box toggle or an edited table row becomes.
"""
from __future__ import annotations

from typing import Any, Sequence

from core.forms.form_events import element_id_of
from core.forms.form_field import FormField
from core.forms.units import ROUND_GLYPHS, strip_mark_glyphs
from core.forms.widget_fields import widget_kind
from core.model import Document


STATUS_COLOURS = {
    "selected": "#2ca02c",  # a ticked box
    "unselected": "#9e9e9e",  # an empty box
    "empty": "#ff7f0e",  # a key whose value is blank
    "redacted": "#000000",  # exports show [REDACTED]
    "filled": "#1f77b4",  # a key with a value
}
STATUS_LABELS = {"selected": "選択 selected", "unselected": "未選択 unselected", "empty": "空欄 empty",
                 "redacted": "伏字 redacted", "filled": "記入済み filled"}


def field_status(f: FormField) -> str:
    """What the Forms page colours a field by."""
    if f.redacted:
        return "redacted"
    if f.is_selection:
        return "selected" if f.selection_state == "selected" else "unselected"
    return "empty" if f.is_empty else "filled"


def mark_element_id(doc: Document, f: FormField) -> str | None:
    """The element whose state a toggle changes: the mark (or check-box widget) the field reads."""
    if not f.is_selection or not f.value_ref:
        return None
    index = doc.element_index()
    return f.value_ref if f.value_ref in index else None


def toggle_events(doc: Document, fields: Sequence[FormField], f: FormField) -> list[dict[str, Any]]:
    """`set_selection` events that flip a check box; choosing a radio option also clears the other
    options of its group, so the group keeps one answer."""
    target = mark_element_id(doc, f)
    if target is None:
        return []
    new = "unselected" if f.selection_state == "selected" else "selected"
    events = [{"kind": "set_selection", "target": target, "state": new}]
    if new == "selected":
        for other in _radio_siblings(doc, fields, f):
            sibling = mark_element_id(doc, other)
            if sibling and other.selection_state == "selected":
                events.append({"kind": "set_selection", "target": sibling, "state": "unselected"})
    return events


def _radio_siblings(doc: Document, fields: Sequence[FormField], f: FormField) -> list[FormField]:
    index = doc.element_index()
    own = index.get(f.value_ref or "")
    if own is None:
        return []
    if own.source == "widget":
        if widget_kind(own) != "radio":
            return []
        name = own.attr("field_name")
        return [o for o in fields if o.id != f.id and o.is_selection and o.field_name == name]
    if strip_mark_glyphs(own.text) == "" and own.text.strip() in ROUND_GLYPHS and f.group:
        return [o for o in fields if o.id != f.id and o.is_selection and o.group == f.group
                and (index.get(o.value_ref or "") is not None
                     and index[o.value_ref or ""].text.strip() in ROUND_GLYPHS)]
    return []


def field_at(fields: Sequence[FormField], page: int, x: float, y: float, tolerance: float = 2.0) -> FormField | None:
    """The field whose key or value box is under a point (smallest box wins), for clicks."""
    best: tuple[float, str, FormField] | None = None
    for f in fields:
        if f.page != page:
            continue
        for box in (f.value_bbox, f.key_bbox):
            if box and box[0] - tolerance <= x <= box[2] + tolerance and box[1] - tolerance <= y <= box[3] + tolerance:
                size = (box[2] - box[0]) * (box[3] - box[1])
                if best is None or (size, f.id) < best[:2]:
                    best = (size, f.id, f)
    return best[2] if best else None


def edit_events(doc: Document, fields: Sequence[FormField], before: FormField,
                value: str | None = None, state: str | None = None, redacted: bool | None = None,
                key_element: str | None = None) -> list[dict[str, Any]]:
    """Correction events for one edited table row (only what changed)."""
    events: list[dict[str, Any]] = []
    if key_element is not None and key_element != element_id_of(before.key_ref) and before.value_ref \
            and before.value_ref in doc.element_index():
        events.append({"kind": "pair", "key": key_element, "value": before.value_ref})
    if value is not None and not before.is_selection and value != before.export_value and value != before.value:
        events.append({"kind": "set_value", "field": before.id, "value": value})
    if state is not None and before.is_selection and state != before.selection_state:
        target = mark_element_id(doc, before)
        if target is not None:
            events.append({"kind": "set_selection", "target": target, "state": state})
    if redacted is not None and bool(redacted) != before.redacted:
        events.append({"kind": "redact" if redacted else "unredact", "field": before.id})
    return events
