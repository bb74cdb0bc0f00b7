"""FormField, the value type of form evidence, and the small pure helpers that build one: stable
ids, selection states, value types, clean labels, reading order, the finishing touches.

Field ids are derived from what anchors a field (the widget's field name, the selection mark's
element, else the key's element), never from its position in a list, so an event that names a
field still finds it after the fields are extracted again.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from typing import Any, Mapping

from core.forms.redaction import RedactionRules, redact_value
from core.forms.units import DOT_LEADER_END, Unit, strip_mark_glyphs, union_box
from core.model import BBox, SELECTION_STATES
from core.text import normalise


def tidy(text: str) -> str:
    """Whitespace runs collapsed; the characters themselves kept as the document has them."""
    return " ".join(str(text).split())


VALUE_TYPES = ("text", "empty_value", "selection_mark", "radio", "date", "number")
FIELD_SOURCES = ("widget", "import", "geometry", "reviewer")


@dataclass(frozen=True)
class FormField:
    """One piece of form evidence: a key with its value, or a selection mark with its label."""

    id: str
    page: int  # 1-based physical page
    key: str
    value: str  # the real value; exports show `export_value` (redaction applied)
    selection_state: str = "unknown"  # selected | unselected | unknown (text fields: unknown)
    value_type: str = "text"  # text | empty_value | selection_mark | radio | date | number
    key_bbox: BBox | None = None
    value_bbox: BBox | None = None
    confidence: float | None = None
    section_path: tuple[str, ...] = ()
    source_element_ids: tuple[str, ...] = ()  # real element ids (key's first), for citations
    source: str = "geometry"  # widget | import | geometry | reviewer
    redacted: bool = False
    key_ref: str | None = None  # the key's unit id (element id, "<element>:<n>" line, or box id)
    value_ref: str | None = None  # the value's unit id; None when the value has no place yet
    group: str = ""  # the row label a check box sits under (経費区分 for ☑交通費), or the radio group
    field_name: str | None = None  # the AcroForm field name, for widgets

    def __post_init__(self) -> None:
        if self.page < 1:
            raise ValueError(f"field {self.id}: page is 1-based, got {self.page}")
        if self.selection_state not in SELECTION_STATES:
            raise ValueError(f"field {self.id}: selection_state must be one of {SELECTION_STATES}, "
                             f"got {self.selection_state!r}")
        if self.value_type not in VALUE_TYPES:
            raise ValueError(f"field {self.id}: value_type must be one of {VALUE_TYPES}, got {self.value_type!r}")
        if self.source not in FIELD_SOURCES:
            raise ValueError(f"field {self.id}: source must be one of {FIELD_SOURCES}, got {self.source!r}")
        for name in ("key_bbox", "value_bbox"):
            box = getattr(self, name)
            if box is not None:
                object.__setattr__(self, name, tuple(round(float(v), 2) for v in box))
        object.__setattr__(self, "section_path", tuple(self.section_path))
        object.__setattr__(self, "source_element_ids", tuple(self.source_element_ids))

    @property
    def is_selection(self) -> bool:
        return self.value_type == "selection_mark"

    @property
    def is_empty(self) -> bool:
        return self.value_type == "empty_value" or (self.value_type == "radio" and not self.value)

    @property
    def export_value(self) -> str:
        """The value as every export shows it."""
        return redact_value(self.value) if self.redacted else self.value

    @property
    def bbox(self) -> BBox:
        """Key and value together: what a citation highlights."""
        boxes = [b for b in (self.key_bbox, self.value_bbox) if b is not None]
        return union_box(boxes) if boxes else (0.0, 0.0, 0.0, 0.0)

    def to_dict(self) -> dict[str, Any]:
        """The `forms` CLI row (DESIGN.md); the value is redacted when the field is."""
        row: dict[str, Any] = {
            "id": self.id, "page": self.page, "key": self.key, "value": self.export_value,
            "selection_state": self.selection_state, "value_type": self.value_type,
            "key_bbox": list(self.key_bbox) if self.key_bbox else None,
            "value_bbox": list(self.value_bbox) if self.value_bbox else None,
            "source": self.source, "redacted": self.redacted, "confidence": self.confidence,
            "section_path": list(self.section_path), "source_element_ids": list(self.source_element_ids),
            "key_ref": self.key_ref, "value_ref": self.value_ref,
        }
        if self.group:
            row["group"] = self.group
        if self.field_name is not None:
            row["field_name"] = self.field_name
        return row


# ---- small pure helpers ---------------------------------------------------------------------
def field_id(doc_id: str, anchor: str) -> str:
    return f"{doc_id[:8]}-f-{hashlib.sha1(anchor.encode('utf-8')).hexdigest()[:10]}"


def normalize_selection_state(raw: Any) -> str:
    """Parser spellings of a check state → selected | unselected | unknown."""
    if isinstance(raw, bool):
        return "selected" if raw else "unselected"
    value = str(raw or "").strip().lower()
    if value in {"selected", "checked", "filled", ":selected:", "on", "true", "yes", "1"}:
        return "selected"
    if value in {"unselected", "unchecked", "unfilled", ":unselected:", "off", "false", "no", "0"}:
        return "unselected"
    return "unknown"


_DATE = re.compile(
    r"^(?:(?:令和|平成|昭和|R|H|S)\s*\d{1,2}|\d{4})\s*[年/\-.]\s*\d{1,2}\s*[月/\-.]\s*\d{1,2}\s*日?$"
    r"|^\d{1,2}/\d{1,2}/\d{2,4}$"
    r"|^\d{4}年\d{1,2}月\d{1,2}日$"
)
_NUMBER = re.compile(r"^[¥￥$€]?\s*[+\-−]?\d[\d,]*(?:\.\d+)?\s*(?:円|%|％)?$")


def infer_value_type(value: str) -> str:
    """text | empty_value | date | number, from the value alone."""
    text = normalise(value)
    if not text:
        return "empty_value"
    if _DATE.match(text):
        return "date"
    if _NUMBER.match(text):
        return "number"
    return "text"


def clean_label(text: str) -> str:
    """A label as a key: check glyphs, dot leaders, trailing colons and stray spaces removed."""
    text = "".join(ch for ch in strip_mark_glyphs(text) if ch.isprintable() or ch == " ")
    text = re.sub(r"[\s▶►]+$", "", text)
    text = DOT_LEADER_END.sub("", text)
    text = re.sub(r"[\s▶►]+$", "", text)
    text = re.sub(r"\s*[:：]\s*$", "", text)
    return tidy(text)


def finish_field(f: FormField, sections: Mapping[str, tuple[str, ...]], rules: RedactionRules) -> FormField:
    """The field's section path (its own, else that of the element it cites first) and its
    redaction by the rules (a sensitive key or field name)."""
    element = f.source_element_ids[0] if f.source_element_ids else ""
    section = f.section_path or sections.get(element, ())
    # a check box's state is not a value a pattern hides; the reviewer can still redact one
    sensitive = not f.is_selection and rules.is_sensitive(f.key, f.field_name)
    return replace(f, section_path=section, redacted=f.redacted or bool(sensitive))


def reading_order(f: FormField) -> tuple:
    box = f.key_bbox or f.value_bbox or (0, 0, 0, 0)
    # group radio fields right after their options' row; ties broken by id for determinism
    return (f.page, round(box[1] / 6), box[0], f.value_type == "radio", f.id)


def element_ids(*units: Any) -> tuple[str, ...]:
    """The distinct element ids of units or elements, in order (a line unit names its element)."""
    out = []
    for u in units:
        if u is None:
            continue
        eid = u.element_id if isinstance(u, Unit) else u.id
        if eid and eid not in out:
            out.append(eid)
    return tuple(out)
