"""Reviewer form events applied to fields: `pair`, `unpair`, `set_value`, `redact`, `unredact`
from the shared correction log (an `undo` cancels its target). `set_selection` is applied to the
element by core.review.replay, so that state is already in the Document the fields are read
from. An event that no longer applies is reported as a `SkippedEvent`, never dropped.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from core.categories import Category
from core.forms.form_field import FormField, field_id, finish_field, infer_value_type, reading_order, tidy
from core.forms.pair_fields import field_from_pair
from core.forms.redaction import DEFAULT_RULES, RedactionRules
from core.forms.unit_index import unit_index
from core.forms.units import Unit, section_paths
from core.forms.widget_fields import widget_kind, widget_state, widget_value_text
from core.model import Document, Element
from core.review.describe import element_id_of
from core.review.events import FORM_KINDS

def active_events(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Events still in force: an `undo` cancels its target; undoing an undo restores it."""
    cancelled: set[str] = set()
    for event in reversed(list(events)):
        eid = str(event.get("id", ""))
        if eid and eid in cancelled:
            continue
        if event.get("kind") == "undo":
            cancelled.add(str(event.get("event")))
    return [e for e in events if e.get("kind") != "undo" and str(e.get("id", "")) not in cancelled]


def events_in_effect(doc: Document, events: Sequence[Any]) -> list[Mapping[str, Any]]:
    """Form events in effect: those core.review.replay carried on the corrected Document, then the
    given ones (dicts or stored events) that are not already among them (same id)."""
    folded = _thawed(doc.meta_value("form_events", ()))
    seen = {str(e.get("id")) for e in folded if e.get("id") not in (None, "")}
    given = [e.to_dict() if hasattr(e, "to_dict") else e for e in events]
    fresh = [e for e in active_events(given) if e.get("kind") in FORM_KINDS
             and (e.get("id") in (None, "") or str(e.get("id")) not in seen)]
    return list(folded) + fresh


def _thawed(value: Any) -> list[Mapping[str, Any]]:
    from core.model import thaw
    value = thaw(value)
    if isinstance(value, Mapping):
        return [value]
    return [e for e in (value or []) if isinstance(e, Mapping)]


@dataclass(frozen=True)
class SkippedEvent:
    """An event that could not be applied (its field or element is gone): reported, never dropped."""
    event: Mapping[str, Any]
    reason: str


def apply_form_events(
    doc: Document, fields: Sequence[FormField], events: Sequence[Mapping[str, Any]],
    rules: RedactionRules = DEFAULT_RULES,
) -> tuple[tuple[FormField, ...], tuple[SkippedEvent, ...]]:
    """Replay form events over machine fields; returns the fields and the events that did not apply."""
    current: dict[str, FormField] = {f.id: f for f in fields}
    redaction: dict[str, bool] = {}
    skipped: list[SkippedEvent] = []
    sections = section_paths(doc)
    units_by_id: dict[str, Unit] | None = None
    for event in events:
        kind = event.get("kind")
        if kind in ("redact", "unredact"):
            fid = str(event.get("field", ""))
            if fid not in current:
                skipped.append(SkippedEvent(event, f"no field {fid!r}"))
                continue
            redaction[fid] = kind == "redact"
        elif kind == "set_value":
            fid = str(event.get("field", ""))
            f = current.get(fid)
            if f is None:
                skipped.append(SkippedEvent(event, f"no field {fid!r}"))
                continue
            current[fid] = _with_value(f, str(event.get("value", "")))
        elif kind == "unpair":
            fid = str(event.get("field", ""))
            f = current.pop(fid, None)
            if f is None:
                skipped.append(SkippedEvent(event, f"no field {fid!r}"))
                continue
            for orphan in _orphans(doc, f, None):
                current[orphan.id] = orphan
        elif kind == "pair":
            if units_by_id is None:
                units_by_id = unit_index(doc)
            key = units_by_id.get(str(event.get("key", "")))
            value = units_by_id.get(str(event.get("value", "")))
            if key is None or value is None or key.id == value.id:
                missing = [n for n, u in (("key", key), ("value", value)) if u is None]
                why = f"unknown {' and '.join(missing)} {[event.get(n) for n in missing]}" if missing \
                    else "key and value are the same element"
                skipped.append(SkippedEvent(event, why))
                continue
            if key.page != value.page:
                skipped.append(SkippedEvent(event, "key and value are on different pages"))
                continue
            for fid in [fid for fid, f in current.items()
                        if f.key_ref in (key.id, value.id) or f.value_ref in (key.id, value.id)]:
                old = current.pop(fid)
                for orphan in _orphans(doc, old, (key.id, value.id)):
                    current[orphan.id] = orphan
            new = _reviewer_pair(doc, key, value)
            new = finish_field(new, sections, rules)
            current[new.id] = new
    out = []
    for f in current.values():
        if f.id in redaction:
            f = replace(f, redacted=redaction[f.id])
        out.append(f)
    return tuple(sorted(out, key=reading_order)), tuple(skipped)


def _with_value(f: FormField, value: str) -> FormField:
    value = tidy(value)
    if f.value_type in ("selection_mark",):
        return replace(f, value=value, confidence=1.0)
    vtype = "radio" if f.value_type == "radio" else infer_value_type(value)
    return replace(f, value=value, value_type=vtype, confidence=1.0)


def _reviewer_pair(doc: Document, key: Unit, value: Unit) -> FormField:
    element = _element_or_none(doc, value.element_id) if value.element_id == value.id else None
    if element is not None and element.source == "widget":
        f = field_from_pair(doc.doc_id, key, element, "widget", 1.0)
        name = str(element.attr("field_name") or element.id)
        is_mark = element.category is Category.SELECTION_MARK or widget_kind(element) in ("checkbox", "radio")
        if is_mark:
            on = element.attr("on_state", "") if widget_kind(element) == "radio" else None
            anchor = f"widget|{name}|{on}" if on is not None else f"widget|{name}"
            f = replace(f, value="", value_type="selection_mark", selection_state=widget_state(element))
        else:
            anchor = f"widget|{name}"
            text = widget_value_text(element)
            f = replace(f, value=text, value_type=infer_value_type(text))
        return replace(f, id=field_id(doc.doc_id, anchor), field_name=name, key_ref=key.id)
    return field_from_pair(doc.doc_id, key, value, "reviewer", 1.0)


def _element_or_none(doc: Document, eid: str | None) -> Element | None:
    if not eid:
        return None
    try:
        return doc.element(eid)
    except KeyError:
        return None


def _orphans(doc: Document, old: FormField, taken: tuple[str, ...] | None) -> list[FormField]:
    """What survives of a field whose pairing was undone or stolen.

    A selection mark or widget stays a field (it is evidence on its own) without its label; a key
    that lost its value becomes an empty field (its key is still on the page); a plain value
    without its key goes back to being text.
    """
    taken = taken or ()
    out: list[FormField] = []
    value_el = _element_or_none(doc, old.value_ref)
    keeps_value = old.value_ref and old.value_ref not in taken and (
        old.is_selection or (value_el is not None and value_el.source == "widget"))
    if keeps_value and taken:
        # only the label was taken away: the value stays, with the widget's fallback key
        key = str(value_el.attr("field_label") or value_el.attr("field_name") or "") if value_el else ""
        out.append(replace(old, key=key, key_bbox=None, key_ref=None,
                           source_element_ids=tuple(i for i in old.source_element_ids
                                                    if i != element_id_of(old.key_ref)),
                           confidence=1.0))
    elif keeps_value:  # unpair of a mark/widget field: it loses its label
        key = str(value_el.attr("field_label") or value_el.attr("field_name") or "") if value_el else ""
        out.append(replace(old, key=key, key_bbox=None, key_ref=None,
                           source_element_ids=tuple(i for i in old.source_element_ids
                                                    if i != element_id_of(old.key_ref)),
                           confidence=1.0))
    elif taken and old.key_ref and old.key_ref not in taken and not old.is_selection:
        # the value was taken by another key: this key is left with an empty value
        out.append(replace(old, value="", value_type="empty_value", value_bbox=None, value_ref=None,
                           source_element_ids=tuple(i for i in old.source_element_ids
                                                    if i == element_id_of(old.key_ref)),
                           confidence=1.0))
    if old.value_type == "radio":
        return []  # a radio group field is rebuilt from its options; never orphaned
    return out
