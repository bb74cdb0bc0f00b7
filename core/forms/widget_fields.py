"""Fields from AcroForm widgets (`source == "widget"` elements), the most trusted source: exact
value and state; the key is the visible label found by geometry (core.forms.labels), falling
back to the tooltip (TU) and then the field name. A radio group with two options or more is also
one field, valued by the chosen option's label.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from core.categories import Category
from core.forms.form_field import (
    FormField, clean_label, element_ids, field_id, infer_value_type, normalize_selection_state,
)
from core.forms.labels import fillers_of, group_label, label_candidates, mark_label, widget_label
from core.forms.units import Unit, union_box, widget_shadows
from core.geometry import coverage, overlap_area
from core.model import Document, Element, Page, SELECTION_STATES
from core.text import squash


_CHECK_TYPES = {"checkbox", "check box", "check"}
_RADIO_TYPES = {"radiobutton", "radio button", "radio"}


def widget_kind(e: Element) -> str:
    kind = str(e.attr("field_type", "") or "").strip().lower()
    if kind in _CHECK_TYPES or (not kind and e.category is Category.SELECTION_MARK):
        return "checkbox"
    if kind in _RADIO_TYPES:
        return "radio"
    if kind in {"combobox", "combo box", "listbox", "list box", "choice"}:
        return "choice"
    if kind in {"signature"}:
        return "signature"
    if kind in {"button", "pushbutton", "push button"}:
        return "button"
    return "text"


def widget_state(e: Element) -> str:
    if e.state in SELECTION_STATES:
        return e.state
    value, on = e.attr("value"), e.attr("on_state")
    if on is not None and value is not None:
        return "selected" if str(value) == str(on) else "unselected"
    return normalize_selection_state(value)


def widget_value_text(e: Element) -> str:
    value = e.attr("value")
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "、".join(str(v) for v in value if str(v).strip())
    text = str(value)
    return "" if text == "Off" and widget_kind(e) in ("checkbox", "radio") else text.strip()


def widget_fields(doc: Document, page: Page, units: Sequence[Unit]) -> list[FormField]:
    widgets = [e for e in page.elements if e.source == "widget"
               and e.category in (Category.FORM_FIELD, Category.SELECTION_MARK)]
    if not widgets:
        return []
    own_print = _values_printed_in_place(units, widgets)
    labels = label_candidates([u for u in units if u.id not in own_print], exclude=[w.bbox for w in widgets])
    shadows = widget_shadows(page)
    fillers = fillers_of(units)
    marks = [w.bbox for w in widgets if widget_kind(w) in ("checkbox", "radio")]
    used: set[str] = set()
    out: list[FormField] = []
    radios: dict[str, list[tuple[Element, FormField]]] = {}
    for w in widgets:
        kind = widget_kind(w)
        if kind == "button":
            continue  # push buttons carry no value
        name = str(w.attr("field_name") or w.id)
        tooltip = str(w.attr("field_label") or "").strip()
        if kind in ("checkbox", "radio"):
            label = mark_label(w.bbox, labels, used, marks, fillers)
        else:
            label = widget_label(w.bbox, labels, used, fillers)
        if label is not None:
            used.add(label.id)
        key = clean_label(label.text) if label is not None else ""
        key = key or tooltip or name
        if kind in ("checkbox", "radio"):
            anchor = f"widget|{name}|{w.attr('on_state', '')}" if kind == "radio" else f"widget|{name}"
            f = FormField(
                id=field_id(doc.doc_id, anchor), page=page.number, key=key, value="",
                selection_state=widget_state(w), value_type="selection_mark",
                key_bbox=label.bbox if label else None, value_bbox=w.bbox, confidence=1.0,
                source_element_ids=element_ids(label, w), source="widget",
                key_ref=label.id if label else None, value_ref=w.id, field_name=name,
            )
            if kind == "radio":
                radios.setdefault(name, []).append((w, f))
        else:
            value = widget_value_text(w)
            f = FormField(
                id=field_id(doc.doc_id, f"widget|{name}"), page=page.number, key=key, value=value,
                selection_state="unknown", value_type=infer_value_type(value),
                key_bbox=label.bbox if label else None, value_bbox=w.bbox, confidence=1.0,
                source_element_ids=element_ids(label, w), source="widget",
                key_ref=label.id if label else None, value_ref=w.id, field_name=name,
            )
        inside = tuple(e.id for e in shadows if coverage(e.bbox, w.bbox) >= 0.6)
        if inside:  # the value also printed into the page: the field speaks for it (and redacts it)
            f = replace(f, source_element_ids=f.source_element_ids + inside)
        out.append(f)
    for name, options in radios.items():
        if len(options) < 2:
            continue  # a lone option is just a selection mark
        group = radio_group_field(doc, page, name, options, labels, used)
        out.append(group)
        out[:] = [replace(f, group=group.key) if f.field_name == name and f.is_selection else f for f in out]
    return out


def _values_printed_in_place(units: Sequence[Unit], widgets: Sequence[Element]) -> set[str]:
    """Ids of the units that are a widget's own value printed on the page where the widget sits (its
    appearance, a filled form's print), though overflowing its rectangle: no label of any widget. (A
    check box's or radio button's value is its export name, often its label's words: "Male".)"""
    out: set[str] = set()
    for w in widgets:
        value = squash(widget_value_text(w)) if widget_kind(w) in ("text", "choice") else ""
        if not value:
            continue
        for u in units:
            if u.kind == "text" and squash(u.text) == value and overlap_area(u.bbox, w.bbox) > 0:
                out.add(u.id)
    return out


def radio_group_field(doc: Document, page: Page, name: str, options: Sequence[tuple[Element, FormField]],
                      labels: Sequence[Unit], used: set[str]) -> FormField:
    """One field for a radio group: its value is the chosen option's label."""
    widget = options[0][0]
    tooltip = str(widget.attr("field_label") or "").strip()
    area = union_box([w.bbox for w, _ in options] + [f.key_bbox for _, f in options if f.key_bbox])
    heading = group_label(area, labels, used)
    if heading is not None:
        used.add(heading.id)
    key = (clean_label(heading.text) if heading else "") or tooltip or name
    chosen = [f for _, f in options if f.selection_state == "selected"]
    value = chosen[0].key if chosen else ""
    value_bbox = union_box([b for b in (chosen[0].value_bbox, chosen[0].key_bbox) if b]) if chosen else area
    return FormField(
        id=field_id(doc.doc_id, f"radio|{name}"), page=page.number, key=key, value=value,
        selection_state="unknown", value_type="radio",
        key_bbox=heading.bbox if heading else None, value_bbox=value_bbox, confidence=1.0,
        source_element_ids=tuple(dict.fromkeys(
            ([heading.element_id] if heading and heading.element_id else [])
            + [w.id for w, _ in options])),
        source="widget", key_ref=heading.id if heading else None, value_ref=None, field_name=name,
    )
