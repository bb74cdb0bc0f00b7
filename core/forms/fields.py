"""Form evidence (seed 001): key/value pairs, selection marks, empty values, redaction.

A form is not prose: "氏名 [ ] 対象 [x] 対象外 [ ]" read as text answers nothing. Each field
becomes one `FormField` (key, value, selection state, boxes, provenance), and retrieval sees
`項目: / 値: / 状態:` lines plus the phrasings people ask with ("X を選択", "X が空欄").

Sources, most trusted first:
1. AcroForm widgets (`source == "widget"` elements): exact value and state; the key is the visible
   label found by geometry, falling back to the tooltip (TU) and then the field name.
2. Key/value pairs given by an imported parser's output (Docling/Azure/Textract), see
   `field_from_pair` and the `kv_*` element attributes.
3. Geometry over the page's text, marks and rulings, for flattened or scanned forms
   (core.forms.geometry).

Reviewer events from the shared correction log change the result: `pair`, `unpair`, `set_value`,
`redact`, `unredact` are applied here; `set_selection` is applied to the element by
core.review.corrections, so the state is already in the Document this module reads.

Field ids are derived from what anchors a field (the widget's field name, the selection mark's
element, else the key's element), never from its position in a list, so an event that names a
field still finds it after the fields are extracted again.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Sequence

from core.forms import geometry as fg
from core.categories import Category
from core.forms.geometry import Unit
from core.geometry import coverage
from core.model import BBox, Chunk, Document, Element, Page, SELECTION_STATES, SourceRef
from core.forms.redaction import DEFAULT_RULES, RedactionRules, redact_value, rules_from_policy
from core.text import normalise


def _tidy(text: str) -> str:
    """Whitespace runs collapsed; the characters themselves kept as the document has them."""
    return " ".join(str(text).split())

VALUE_TYPES = ("text", "empty_value", "selection_mark", "radio", "date", "number")
FIELD_SOURCES = ("widget", "import", "geometry", "reviewer")
FORM_EVENT_KINDS = ("pair", "unpair", "set_value", "redact", "unredact")
EMPTY_TEXT = "空欄"
STATE_TEXT = {"selected": "選択されている", "unselected": "選択されていない", "unknown": "選択状態不明"}


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
        return fg.union_box(boxes) if boxes else (0.0, 0.0, 0.0, 0.0)

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
    text = "".join(ch for ch in fg.strip_mark_glyphs(text) if ch.isprintable() or ch == " ")
    text = re.sub(r"[\s▶►]+$", "", text)
    text = re.sub(r"(?:\s*[.．・…‥]){3,}\s*$", "", text)  # dot leaders to a box: "check here . . . . ▶"
    text = re.sub(r"[\s▶►]+$", "", text)
    text = re.sub(r"\s*[:：]\s*$", "", text)
    return _tidy(text)


# ---- extraction -----------------------------------------------------------------------------
def extract_fields(
    doc: Document,
    events: Sequence[Mapping[str, Any]] = (),
    rules: RedactionRules = DEFAULT_RULES,
) -> tuple[FormField, ...]:
    """Every form field of the document, reviewer events applied, in page and reading order.

    `events` are correction-log events (dicts; an `id` lets `undo` events cancel them). Events that
    core.review.corrections already folded into `doc` (its `form_events` meta) are applied too, so passing
    the corrected Document alone is enough.
    """
    return apply_form_events(doc, machine_fields(doc, rules), _form_events(doc, events), rules)[0]


def machine_fields(doc: Document, rules: RedactionRules = DEFAULT_RULES) -> tuple[FormField, ...]:
    """Fields before any reviewer event: widgets, then imported pairs, then geometry."""
    sections = fg.section_paths(doc)
    out: list[FormField] = []
    units_of = {page.number: fg.page_units(doc, page) for page in doc.pages}
    # geometry only reads a document that shows itself a form somewhere (a labelled check box, or
    # "氏名：" style labels): boxes, rules and tables in a report or a slide deck are not fields
    is_form = any(fg.form_signal(page, units_of[page.number]) for page in doc.pages)
    for page in doc.pages:
        units = units_of[page.number]
        page_fields = widget_fields(doc, page, units)
        page_fields += import_fields(doc, page, units)
        if is_form and not any(e.source == "widget" for e in page.elements):
            taken = {ref for f in page_fields for ref in (f.key_ref, f.value_ref) if ref}
            page_fields += geometry_fields(doc, page, units, taken)
        out.extend(page_fields)
    unique = _unique_ids(out)
    return tuple(_finish(f, sections, rules) for f in sorted(unique, key=_reading_order))


def _finish(f: FormField, sections: Mapping[str, tuple[str, ...]], rules: RedactionRules) -> FormField:
    element = f.source_element_ids[0] if f.source_element_ids else ""
    section = f.section_path or sections.get(element, ())
    # a check box's state is not a value a pattern hides; the reviewer can still redact one
    sensitive = not f.is_selection and rules.is_sensitive(f.key, f.field_name)
    return replace(f, section_path=section, redacted=f.redacted or bool(sensitive))


def _reading_order(f: FormField) -> tuple:
    box = f.key_bbox or f.value_bbox or (0, 0, 0, 0)
    # group radio fields right after their options' row; ties broken by id for determinism
    return (f.page, round(box[1] / 6), box[0], f.value_type == "radio", f.id)


def _unique_ids(fields: Iterable[FormField]) -> list[FormField]:
    """Two fields with one anchor (a field name used twice) get distinct, still stable, ids."""
    seen: dict[str, int] = {}
    out = []
    for f in fields:
        n = seen.get(f.id, 0)
        seen[f.id] = n + 1
        out.append(f if n == 0 else replace(f, id=f"{f.id}-{n + 1}"))
    return out


# ---- 1. widgets -----------------------------------------------------------------------------
_CHECK_TYPES = {"checkbox", "check box", "check"}
_RADIO_TYPES = {"radiobutton", "radio button", "radio"}


def _widget_kind(e: Element) -> str:
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


def _widget_state(e: Element) -> str:
    if e.state in SELECTION_STATES:
        return e.state
    value, on = e.attr("value"), e.attr("on_state")
    if on is not None and value is not None:
        return "selected" if str(value) == str(on) else "unselected"
    return normalize_selection_state(value)


def _widget_value_text(e: Element) -> str:
    value = e.attr("value")
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "、".join(str(v) for v in value if str(v).strip())
    text = str(value)
    return "" if text == "Off" and _widget_kind(e) in ("checkbox", "radio") else text.strip()


def widget_fields(doc: Document, page: Page, units: Sequence[Unit]) -> list[FormField]:
    widgets = [e for e in page.elements if e.source == "widget"
               and e.category in (Category.FORM_FIELD, Category.SELECTION_MARK)]
    if not widgets:
        return []
    labels = fg.label_candidates(units, exclude=[w.bbox for w in widgets])
    shadows = fg.widget_shadows(page)
    fillers = fg.fillers_of(units)
    marks = [w.bbox for w in widgets if _widget_kind(w) in ("checkbox", "radio")]
    used: set[str] = set()
    out: list[FormField] = []
    radios: dict[str, list[tuple[Element, FormField]]] = {}
    for w in widgets:
        kind = _widget_kind(w)
        if kind == "button":
            continue  # push buttons carry no value
        name = str(w.attr("field_name") or w.id)
        tooltip = str(w.attr("field_label") or "").strip()
        if kind in ("checkbox", "radio"):
            label = fg.mark_label(w.bbox, labels, used, marks, fillers)
        else:
            label = fg.widget_label(w.bbox, labels, used, fillers)
        if label is not None:
            used.add(label.id)
        key = clean_label(label.text) if label is not None else ""
        key = key or tooltip or name
        if kind in ("checkbox", "radio"):
            anchor = f"widget|{name}|{w.attr('on_state', '')}" if kind == "radio" else f"widget|{name}"
            f = FormField(
                id=field_id(doc.doc_id, anchor), page=page.number, key=key, value="",
                selection_state=_widget_state(w), value_type="selection_mark",
                key_bbox=label.bbox if label else None, value_bbox=w.bbox, confidence=1.0,
                source_element_ids=_ids(label, w), source="widget",
                key_ref=label.id if label else None, value_ref=w.id, field_name=name,
            )
            if kind == "radio":
                radios.setdefault(name, []).append((w, f))
        else:
            value = _widget_value_text(w)
            f = FormField(
                id=field_id(doc.doc_id, f"widget|{name}"), page=page.number, key=key, value=value,
                selection_state="unknown", value_type=infer_value_type(value),
                key_bbox=label.bbox if label else None, value_bbox=w.bbox, confidence=1.0,
                source_element_ids=_ids(label, w), source="widget",
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


def radio_group_field(doc: Document, page: Page, name: str, options: Sequence[tuple[Element, FormField]],
                      labels: Sequence[Unit], used: set[str]) -> FormField:
    """One field for a radio group: its value is the chosen option's label."""
    widget = options[0][0]
    tooltip = str(widget.attr("field_label") or "").strip()
    area = fg.union_box([w.bbox for w, _ in options] + [f.key_bbox for _, f in options if f.key_bbox])
    heading = fg.group_label(area, labels, used)
    if heading is not None:
        used.add(heading.id)
    key = (clean_label(heading.text) if heading else "") or tooltip or name
    chosen = [f for _, f in options if f.selection_state == "selected"]
    value = chosen[0].key if chosen else ""
    value_bbox = fg.union_box([b for b in (chosen[0].value_bbox, chosen[0].key_bbox) if b]) if chosen else area
    return FormField(
        id=field_id(doc.doc_id, f"radio|{name}"), page=page.number, key=key, value=value,
        selection_state="unknown", value_type="radio",
        key_bbox=heading.bbox if heading else None, value_bbox=value_bbox, confidence=1.0,
        source_element_ids=tuple(dict.fromkeys(
            ([heading.element_id] if heading and heading.element_id else [])
            + [w.id for w, _ in options])),
        source="widget", key_ref=heading.id if heading else None, value_ref=None, field_name=name,
    )


def _ids(*units: Any) -> tuple[str, ...]:
    out = []
    for u in units:
        if u is None:
            continue
        eid = u.element_id if isinstance(u, Unit) else u.id
        if eid and eid not in out:
            out.append(eid)
    return tuple(out)


# ---- 2. imported key/value pairs -----------------------------------------------------------
def field_from_pair(doc_id: str, key: Element | Unit | None, value: Element | Unit | None,
                    source: str = "import", confidence: float | None = None,
                    key_text: str | None = None, value_text: str | None = None) -> FormField:
    """A field from a (key, value) pair of elements or units: what importers and `pair` build.

    A selection-mark value gives a check-box field (label = key); anything else a text field.
    """
    if key is None and value is None:
        raise ValueError("a field needs a key or a value")
    anchor_el = key if key is not None else value
    page = anchor_el.page
    is_mark = value is not None and _category_of(value) is Category.SELECTION_MARK
    ktext = clean_label(key_text if key_text is not None else (key.text if key is not None else ""))
    if is_mark:
        state = _state_of(value)
        vtext, vtype = "", "selection_mark"
    else:
        state = "unknown"
        raw = value_text if value_text is not None else (fg.strip_mark_glyphs(value.text) if value is not None else "")
        if value is not None and getattr(value, "source", "") == "widget":
            raw = _widget_value_text(value) if isinstance(value, Element) else raw
        vtext = _tidy(raw)
        vtype = infer_value_type(vtext)
    kref = _ref(key)
    vref = _ref(value)
    anchor = f"mark|{vref}" if is_mark else (f"key|{kref}" if kref else f"value|{vref}")
    return FormField(
        id=field_id(doc_id, anchor), page=page, key=ktext, value=vtext, selection_state=state,
        value_type=vtype, key_bbox=key.bbox if key is not None else None,
        value_bbox=value.bbox if value is not None else None, confidence=confidence,
        source_element_ids=_ids(key, value), source=source, key_ref=kref, value_ref=vref,
    )


def _ref(u: Element | Unit | None) -> str | None:
    return None if u is None else u.id


def _category_of(u: Element | Unit) -> Category | None:
    return u.category


def _state_of(u: Element | Unit) -> str:
    state = getattr(u, "state", None)
    return state if state in SELECTION_STATES else "unknown"


def import_fields(doc: Document, page: Page, units: Sequence[Unit]) -> list[FormField]:
    """Pairs an importer recorded on elements.

    Two shapes are accepted (see core/ingest importers):
    - a key element with attr `kv_value_id` = the id of its value element (which may be a
      selection mark); attr `kv_confidence` optional;
    - one element holding both: attrs `kv_key` (text) and `kv_value` (text), with optional
      `kv_key_bbox` / `kv_value_bbox` (points) and `kv_confidence`.
    """
    index = {e.id: e for e in page.elements}
    unit_index = {u.id: u for u in units}
    out: list[FormField] = []
    for e in page.elements:
        if e.source == "widget":
            continue
        conf = e.attr("kv_confidence")
        conf = float(conf) if conf is not None else None
        value_id = e.attr("kv_value_id")
        if value_id is not None:
            value = index.get(str(value_id)) or unit_index.get(str(value_id))
            out.append(field_from_pair(doc.doc_id, e, value, "import", conf))
        elif e.attr("kv_key") is not None or e.attr("kv_value") is not None:
            key_text = str(e.attr("kv_key") or "")
            value_text = str(e.attr("kv_value") or "")
            kb, vb = e.attr("kv_key_bbox"), e.attr("kv_value_bbox")
            vtext = _tidy(value_text)
            out.append(FormField(
                id=field_id(doc.doc_id, f"key|{e.id}"), page=page.number, key=clean_label(key_text),
                value=vtext, value_type=infer_value_type(vtext),
                key_bbox=tuple(kb) if kb else e.bbox, value_bbox=tuple(vb) if vb else e.bbox,
                confidence=conf, source_element_ids=(e.id,), source="import", key_ref=e.id, value_ref=e.id,
            ))
    return out


# ---- 3. geometry ----------------------------------------------------------------------------
def geometry_fields(doc: Document, page: Page, units: Sequence[Unit], taken: set[str]) -> list[FormField]:
    """Fields of a flattened or scanned form page, from core.forms.geometry's pairing."""
    out: list[FormField] = []
    for pair in fg.pair_page(page, units, taken, doc.doc_id, doc):
        if pair.kind == "mark":
            f = field_from_pair(doc.doc_id, pair.key, pair.value, "geometry", pair.confidence)
            out.append(replace(f, group=clean_label(pair.group.text) if pair.group else ""))
        elif pair.kind == "radio":
            out.append(_geometry_radio(doc, page, pair))
        else:
            f = field_from_pair(doc.doc_id, pair.key, pair.value, "geometry", pair.confidence)
            out.append(f)
    return out


def _geometry_radio(doc: Document, page: Page, pair: "fg.Pair") -> FormField:
    options = pair.options
    chosen = [(m, l) for m, l in options if m.state == "selected"]
    value = clean_label(chosen[0][1].text) if chosen and chosen[0][1] is not None else ""
    boxes = [b for m, l in chosen[:1] for b in (m.bbox, l.bbox if l else None) if b]
    area = fg.union_box([m.bbox for m, _ in options])
    key = pair.key
    return FormField(
        id=field_id(doc.doc_id, f"radio|{key.id}"), page=page.number, key=clean_label(key.text), value=value,
        selection_state="unknown", value_type="radio",
        key_bbox=key.bbox, value_bbox=fg.union_box(boxes) if boxes else area, confidence=pair.confidence,
        source_element_ids=_ids(key, *[m for m, _ in options]), source="geometry",
        key_ref=key.id, value_ref=None,
    )


# ---- reviewer events ------------------------------------------------------------------------
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


def _form_events(doc: Document, events: Sequence[Any]) -> list[Mapping[str, Any]]:
    """Form events in effect: those core.review.corrections carried on the corrected Document, then the
    given ones (dicts or stored events) that are not already among them (same id)."""
    folded = _thawed(doc.meta_value("form_events", ()))
    seen = {str(e.get("id")) for e in folded if e.get("id") not in (None, "")}
    given = [e.to_dict() if hasattr(e, "to_dict") else e for e in events]
    fresh = [e for e in active_events(given) if e.get("kind") in FORM_EVENT_KINDS
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
    sections = fg.section_paths(doc)
    unit_index: dict[str, Unit] | None = None
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
            if unit_index is None:
                unit_index = fg.unit_index(doc)
            key = unit_index.get(str(event.get("key", "")))
            value = unit_index.get(str(event.get("value", "")))
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
            new = _finish(new, sections, rules)
            current[new.id] = new
    out = []
    for f in current.values():
        if f.id in redaction:
            f = replace(f, redacted=redaction[f.id])
        out.append(f)
    return tuple(sorted(out, key=_reading_order)), tuple(skipped)


def _with_value(f: FormField, value: str) -> FormField:
    value = _tidy(value)
    if f.value_type in ("selection_mark",):
        return replace(f, value=value, confidence=1.0)
    vtype = "radio" if f.value_type == "radio" else infer_value_type(value)
    return replace(f, value=value, value_type=vtype, confidence=1.0)


def _reviewer_pair(doc: Document, key: Unit, value: Unit) -> FormField:
    element = _element_or_none(doc, value.element_id) if value.element_id == value.id else None
    if element is not None and element.source == "widget":
        f = field_from_pair(doc.doc_id, key, element, "widget", 1.0)
        name = str(element.attr("field_name") or element.id)
        is_mark = element.category is Category.SELECTION_MARK or _widget_kind(element) in ("checkbox", "radio")
        if is_mark:
            on = element.attr("on_state", "") if _widget_kind(element) == "radio" else None
            anchor = f"widget|{name}|{on}" if on is not None else f"widget|{name}"
            f = replace(f, value="", value_type="selection_mark", selection_state=_widget_state(element))
        else:
            anchor = f"widget|{name}"
            text = _widget_value_text(element)
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
                           source_element_ids=tuple(i for i in old.source_element_ids if i != _el(old.key_ref)),
                           confidence=1.0))
    elif keeps_value:  # unpair of a mark/widget field: it loses its label
        key = str(value_el.attr("field_label") or value_el.attr("field_name") or "") if value_el else ""
        out.append(replace(old, key=key, key_bbox=None, key_ref=None,
                           source_element_ids=tuple(i for i in old.source_element_ids if i != _el(old.key_ref)),
                           confidence=1.0))
    elif taken and old.key_ref and old.key_ref not in taken and not old.is_selection:
        # the value was taken by another key: this key is left with an empty value
        out.append(replace(old, value="", value_type="empty_value", value_bbox=None, value_ref=None,
                           source_element_ids=tuple(i for i in old.source_element_ids if i == _el(old.key_ref)),
                           confidence=1.0))
    if old.value_type == "radio":
        return []  # a radio group field is rebuilt from its options; never orphaned
    return out


def _el(ref: str | None) -> str | None:
    return ref.split(":")[0] if ref else None


def form_element_ids(fields: Iterable[FormField]) -> frozenset[str]:
    """Elements whose text is represented by form chunks: the chunker keeps them out of flow text,
    so a redacted value never reaches an export through a plain text chunk."""
    return frozenset(eid for f in fields for eid in f.source_element_ids)


# ---- retrieval text and chunks --------------------------------------------------------------
def query_phrasings(f: FormField) -> tuple[str, ...]:
    """How people ask about this field (seed 001): stored in metadata, added to text by policy."""
    out: list[str] = []
    key = f.key or "(無題)"
    if f.is_selection:
        if f.selection_state == "selected":
            out += [f"{key} を選択", f"{key} がチェック済み"]
        elif f.selection_state == "unselected":
            out += [f"{key} を選択しない", f"{key} が未チェック"]
    elif f.value_type == "radio" and f.value and not f.redacted:
        out += [f"{key} は {f.value}", f"{f.value} を選択"]
    if f.is_empty:
        out += [f"{key} が空欄", f"{key} 未入力"]
    return tuple(out)


def field_text(f: FormField, phrasings: bool = False) -> str:
    """Retrieval text of one field: 項目 / 値 / 状態 lines (seed 001)."""
    key = f.key or "(無題)"
    lines = [f"項目: {key}"]
    if f.group and f.group != f.key:
        lines.append(f"区分: {f.group}")
    if f.is_selection:
        lines.append(f"状態: {key} は {STATE_TEXT[f.selection_state]}")
    else:
        lines.append(f"値: {f.export_value or EMPTY_TEXT}")
    if phrasings:
        extra = query_phrasings(f)
        if extra:
            lines.append("言い換え: " + " / ".join(extra))
    return "\n".join(lines)


# The CLI row's provenance handles that a chunk's citation has no use for.
_CLI_ONLY_KEYS = ("id", "key_ref", "value_ref", "field_name")


def field_metadata(f: FormField) -> dict[str, Any]:
    """One entry of a chunk's `form_fields`: the `forms` CLI row (value redacted when the field is)
    keyed by `field_id`, with its query phrasings."""
    row = f.to_dict()
    return {"field_id": row["id"], **{k: v for k, v in row.items() if k not in _CLI_ONLY_KEYS},
            "query_phrasings": list(query_phrasings(f))}


def form_chunks(doc: Document, fields: Sequence[FormField] | None = None, policy: Any = None) -> tuple[Chunk, ...]:
    """Form chunks, one per form section (split between fields when over the policy's size).

    `fields` defaults to `extract_fields(doc)` with the policy's sensitive-key patterns. Text is
    the fields' 項目/値/状態 lines; with the policy switch `form_query_phrasings` on, each field also
    carries its phrasings. Metadata: `form_fields` (redacted values as [REDACTED]),
    `form_query_phrasings`, and `source_record_refs` (via Chunk.refs) for highlighting.
    """
    if fields is None:
        fields = extract_fields(doc, rules=rules_from_policy(policy))
    phrasings = bool(getattr(policy, "form_query_phrasings", False))
    max_chars = int(getattr(policy, "max_chars", 800) or 800)
    policy_name = str(getattr(policy, "name", "default") if policy is not None else "default")
    index = doc.element_index()
    leftovers = _leftover_text(fields, index)
    placed: set[str] = set()
    chunks: list[Chunk] = []
    for section, group in _by_section(fields):
        for part in _split_by_size(group, section, phrasings, max_chars):
            extra = []
            for f in part:
                for eid in f.source_element_ids:
                    if eid in leftovers and eid not in placed:
                        placed.add(eid)
                        extra.append(leftovers[eid])
            chunks.append(_form_chunk(doc, section, part, phrasings, policy_name, index, extra))
    return tuple(chunks)


def _ref_parts(ref: str) -> tuple[str, str | None]:
    """A unit id → (element id, line index or None for the whole element)."""
    head, _, line = ref.partition(":")
    return head.split("~")[0], (line.split("~")[0] if line else None)


def _leftover_text(fields: Sequence[FormField], index: Mapping[str, Element]) -> dict[str, str]:
    """Lines of elements the form chunks take over that no field used as key or value (a label's
    neighbour on the same text block). The chunker drops those elements from flow text, so their
    other lines travel in the form chunk instead of being lost."""
    whole: set[str] = set()
    lines: dict[str, set[int]] = {}
    for f in fields:
        for ref in (f.key_ref, f.value_ref):
            for part in (ref or "").split("+"):
                if not part:
                    continue
                eid, line = _ref_parts(part)
                if line is None or not line.isdigit():
                    whole.add(eid)
                else:
                    lines.setdefault(eid, set()).add(int(line))
    out: dict[str, str] = {}
    for eid, used in lines.items():
        element = index.get(eid)
        if element is None or eid in whole:
            continue
        rest = [ln for i, ln in enumerate(fg._stored_lines(element)) if i not in used]
        text = " ".join(_tidy(t) for _, t, _ in rest if _tidy(t))
        text = _tidy(re.sub(r"(?:\s*[.．・…‥]){3,}|[▶►]", " ", text))  # dot leaders say nothing
        if text:
            out[eid] = text
    return out


def _by_section(fields: Sequence[FormField]) -> list[tuple[tuple[str, ...], list[FormField]]]:
    """Consecutive fields (reading order) of one section path, split again at page changes."""
    groups: list[tuple[tuple[str, ...], list[FormField]]] = []
    for f in sorted(fields, key=_reading_order):
        if groups and groups[-1][0] == f.section_path and groups[-1][1][-1].page == f.page:
            groups[-1][1].append(f)
        else:
            groups.append((f.section_path, [f]))
    return groups


def _chunk_text(section: tuple[str, ...], fields: Sequence[FormField], phrasings: bool) -> str:
    head = [f"関連見出し: {' > '.join(section)}"] if section else []
    return "\n\n".join(["\n".join(head)] * bool(head) + [field_text(f, phrasings) for f in fields])


def _split_by_size(fields: list[FormField], section: tuple[str, ...], phrasings: bool,
                   max_chars: int) -> list[list[FormField]]:
    parts: list[list[FormField]] = [[]]
    for f in fields:
        if parts[-1] and len(_chunk_text(section, parts[-1] + [f], phrasings)) > max_chars:
            parts.append([])
        parts[-1].append(f)
    return [p for p in parts if p]


def _form_chunk(doc: Document, section: tuple[str, ...], fields: Sequence[FormField], phrasings: bool,
                policy_name: str, index: Mapping[str, Element], leftovers: Sequence[str] = ()) -> Chunk:
    refs: list[SourceRef] = []
    seen: set[str] = set()
    for f in fields:
        for eid in f.source_element_ids:
            if eid in seen:
                continue
            seen.add(eid)
            element = index.get(eid)
            box = element.bbox if element else f.bbox
            category = element.category if element else Category.FORM_FIELD
            refs.append(SourceRef(eid, f.page, box, category))
    categories = tuple(dict.fromkeys([r.category for r in refs] or [Category.FORM_FIELD]))
    digest = hashlib.sha1("|".join(f.id for f in fields).encode()).hexdigest()[:10]
    return Chunk(
        id=f"{doc.doc_id[:8]}-form-{digest}",
        text=_chunk_text(section, fields, phrasings) + "".join(f"\n\n{t}" for t in leftovers),
        doc_id=doc.doc_id, source=doc.source, start_page=min(f.page for f in fields),
        end_page=max(f.page for f in fields), section_path=section, source_categories=categories,
        atomic=True, refs=tuple(refs), policy=policy_name,
        extra=(("contains_form", True),
               ("form_fields", tuple(_freeze(field_metadata(f)) for f in fields)),
               ("form_query_phrasings", tuple(p for f in fields for p in query_phrasings(f)))),
    )


def _freeze(d: Mapping[str, Any]) -> Any:
    from core.model import freeze_attrs
    return freeze_attrs(d)


# ---- a stored document's fields ---------------------------------------------------------------
def document_fields(ws: Any, doc_id: str) -> tuple[FormField, ...]:
    """The corrected fields of a stored document (what the CLI, the page and exports show)."""
    from core.review.corrections import corrected_document

    # the corrected Document carries the form events in effect (meta "form_events")
    return extract_fields(corrected_document(ws, doc_id))


# ---- review helpers (pure; the Forms page calls these) ---------------------------------------
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
        if _widget_kind(own) != "radio":
            return []
        name = own.attr("field_name")
        return [o for o in fields if o.id != f.id and o.is_selection and o.field_name == name]
    if fg.strip_mark_glyphs(own.text) == "" and own.text.strip() in fg.ROUND_GLYPHS and f.group:
        return [o for o in fields if o.id != f.id and o.is_selection and o.group == f.group
                and (index.get(o.value_ref or "") is not None
                     and index[o.value_ref or ""].text.strip() in fg.ROUND_GLYPHS)]
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
    if key_element is not None and key_element != _el(before.key_ref) and before.value_ref \
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
