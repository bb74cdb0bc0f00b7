"""Fields from key/value pairs: those an imported parser recorded on elements (Docling, Azure,
Textract: the `kv_*` attributes) and those core.forms.pairing finds in a flattened or scanned
page's geometry. `field_from_pair` is also what a reviewer's `pair` event builds.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from core.categories import Category
from core.forms.form_field import FormField, clean_label, element_ids, field_id, infer_value_type, tidy
from core.forms.pairing import Pair, pair_page
from core.forms.units import Unit, strip_mark_glyphs, union_box
from core.forms.widget_fields import widget_value_text
from core.model import Document, Element, Page, SELECTION_STATES


# ---- source 2 (core.forms.fields): imported key/value pairs ----------------------------------
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
        raw = value_text if value_text is not None else (strip_mark_glyphs(value.text) if value is not None else "")
        if value is not None and getattr(value, "source", "") == "widget":
            raw = widget_value_text(value) if isinstance(value, Element) else raw
        vtext = tidy(raw)
        vtype = infer_value_type(vtext)
    kref = _ref(key)
    vref = _ref(value)
    anchor = f"mark|{vref}" if is_mark else (f"key|{kref}" if kref else f"value|{vref}")
    return FormField(
        id=field_id(doc_id, anchor), page=page, key=ktext, value=vtext, selection_state=state,
        value_type=vtype, key_bbox=key.bbox if key is not None else None,
        value_bbox=value.bbox if value is not None else None, confidence=confidence,
        source_element_ids=element_ids(key, value), source=source, key_ref=kref, value_ref=vref,
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
            vtext = tidy(value_text)
            out.append(FormField(
                id=field_id(doc.doc_id, f"key|{e.id}"), page=page.number, key=clean_label(key_text),
                value=vtext, value_type=infer_value_type(vtext),
                key_bbox=tuple(kb) if kb else e.bbox, value_bbox=tuple(vb) if vb else e.bbox,
                confidence=conf, source_element_ids=(e.id,), source="import", key_ref=e.id, value_ref=e.id,
            ))
    return out


# ---- source 3 (core.forms.fields): geometry --------------------------------------------------
def geometry_fields(doc: Document, page: Page, units: Sequence[Unit], taken: set[str]) -> list[FormField]:
    """Fields of a flattened or scanned form page, from core.forms.pairing."""
    out: list[FormField] = []
    for pair in pair_page(page, units, taken, doc.doc_id, doc):
        if pair.kind == "mark":
            f = field_from_pair(doc.doc_id, pair.key, pair.value, "geometry", pair.confidence)
            out.append(replace(f, group=clean_label(pair.group.text) if pair.group else ""))
        elif pair.kind == "radio":
            out.append(_geometry_radio(doc, page, pair))
        else:
            f = field_from_pair(doc.doc_id, pair.key, pair.value, "geometry", pair.confidence)
            out.append(f)
    return out


def _geometry_radio(doc: Document, page: Page, pair: "Pair") -> FormField:
    options = pair.options
    chosen = [(m, l) for m, l in options if m.state == "selected"]
    value = clean_label(chosen[0][1].text) if chosen and chosen[0][1] is not None else ""
    boxes = [b for m, l in chosen[:1] for b in (m.bbox, l.bbox if l else None) if b]
    area = union_box([m.bbox for m, _ in options])
    key = pair.key
    return FormField(
        id=field_id(doc.doc_id, f"radio|{key.id}"), page=page.number, key=clean_label(key.text), value=value,
        selection_state="unknown", value_type="radio",
        key_bbox=key.bbox, value_bbox=union_box(boxes) if boxes else area, confidence=pair.confidence,
        source_element_ids=element_ids(key, *[m for m, _ in options]), source="geometry",
        key_ref=key.id, value_ref=None,
    )
