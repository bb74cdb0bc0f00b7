"""Forms: every field of the document (key, value, state, empty, redacted), fixed on the page.

The page image shows each field's key box and value box joined by a line, coloured by state
(selected, unselected, empty, redacted, filled). In "Toggle check boxes" mode a click on a check
box flips it; in "Pair key → value" mode the first click picks a key and the second its value,
then Pair saves it. The table below edits key, value, state and redaction. Every change is a
correction event (core.review.corrections), so Undo takes it back and it survives a restart; a save made
against an outdated view is refused with a Reload button.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.chunks.policy import DEFAULT
from core.forms.field_edits import STATUS_COLOURS, STATUS_LABELS, edit_events, field_at, field_status, toggle_events
from core.forms.fields import extract_fields
from core.forms.form_chunks import form_chunks
from core.forms.form_events import element_id_of
from core.forms.form_field import FormField
from core.geometry import connector
from core.model import Document, Element
from core.render import MIN_LINK_PT, Box, Line, element_at
from ui import state
from ui.edit_panel import (
    conflict_banner, element_label, flash_message, messages_above_the_page, remember_view, save, seen_head,
    undo_redo_buttons,
)
from ui.column_width import measure_column
from ui.page_view import page_turner, page_view, take_clicks
from ui.text import shorten

TOGGLE, PAIR = "Toggle check boxes", "Pair key → value"
STATES = ("selected", "unselected", "unknown")


def _key(name: str, doc_id: str) -> str:
    return f"rli:forms:{name}:{doc_id}"


# ---- the fields (derived from the corrected document, cached per view version) ---------------
@st.cache_resource(max_entries=8, show_spinner=False)
def _fields(version: tuple, _doc: Document) -> tuple[FormField, ...]:
    return extract_fields(_doc)


def document_fields(doc: Document) -> tuple[FormField, ...]:
    return _fields(state.view_version(doc.doc_id), doc)


# ---- drawing ----------------------------------------------------------------------------------
def field_overlays(fields: list[FormField], picked: tuple[str | None, str | None],
                   index: dict[str, Element]) -> tuple[list[Box], list[Line]]:
    boxes: list[Box] = []
    lines: list[Line] = []
    for f in fields:
        colour = STATUS_COLOURS[field_status(f)]
        if f.key_bbox:
            boxes.append(Box(f.key_bbox, colour, "", fill_alpha=30, width=2))
        if f.value_bbox:
            boxes.append(Box(f.value_bbox, colour, "", fill_alpha=60, width=2))
        ends = connector(f.key_bbox, f.value_bbox, MIN_LINK_PT) if f.key_bbox and f.value_bbox else None
        if ends:  # boxes side by side need no line: their shared colour pairs them
            lines.append(Line(*ends, colour, width=2))
    for element_id, label in zip(picked, ("key", "value")):
        e = index.get(element_id or "")
        if e is not None:
            boxes.append(Box(e.bbox, "#d62728", label, fill_alpha=0, width=4, dashed=True))
    return boxes, lines


def legend() -> None:
    # The same hex colours the page draws with (markdown's named colours were close, not equal:
    # redacted was violet here and black on the page). Our own constants, so the HTML is safe.
    chips = " &nbsp; ".join(
        f'<span class="rli-status-chip" data-status="{status}" style="display:inline-block;width:0.9em;'
        f'height:0.9em;background:{STATUS_COLOURS[status]};border-radius:2px;vertical-align:middle"></span> {label}'
        for status, label in STATUS_LABELS.items())
    st.markdown(f'<span style="font-size:0.875rem">{chips}</span>', unsafe_allow_html=True)


# ---- choosing a key and a value ---------------------------------------------------------------
def picked(doc_id: str) -> tuple[str | None, str | None]:
    return st.session_state.get(_key("key", doc_id)), st.session_state.get(_key("value", doc_id))


def choose(doc_id: str, key: str | None, value: str | None) -> None:
    st.session_state[_key("key", doc_id)] = key
    st.session_state[_key("value", doc_id)] = value


def handle_click(doc: Document, fields: list[FormField], number: int, x: float, y: float, mode: str) -> bool:
    """Toggle the check box or pick the key/value under (x, y). True after a toggle was tried: the
    page must be drawn again from the new log (or show why nothing was saved)."""
    if mode == TOGGLE:
        hit = field_at([f for f in fields if f.is_selection], number, x, y)
        if hit is not None:
            toggle(doc, fields, hit)
        return hit is not None
    element = element_at(doc.page(number).elements, x, y, tolerance=2.0)
    if element is None:
        return False
    key, value = picked(doc.doc_id)
    if key is None or element.id == key:
        choose(doc.doc_id, element.id, None)
    else:
        choose(doc.doc_id, key, element.id)
    return False


def toggle(doc: Document, fields: list[FormField], f: FormField) -> None:
    events = toggle_events(doc, fields, f)
    if events:
        save(doc.doc_id, events, f"{f.key or 'check box'} → {events[0]['state']}")


def pair(doc: Document, key: Element, value: Element) -> None:
    if save(doc.doc_id, [{"kind": "pair", "key": key.id, "value": value.id}],
            f"Paired {shorten(key.text, 20)} → {shorten(value.text, 20) or value.category.value}"):
        choose(doc.doc_id, None, None)


def unpair(doc: Document, f: FormField) -> None:
    if save(doc.doc_id, [{"kind": "unpair", "field": f.id}], f"Unpaired {f.key}"):
        choose(doc.doc_id, None, None)


def pair_tools(doc: Document, number: int, fields: list[FormField]) -> None:
    page = doc.page(number)
    index = doc.element_index()
    key_id, value_id = picked(doc.doc_id)
    candidates = [e for e in page.elements if e.text.strip() or e.source == "widget"
                  or e.category.value in ("selection_mark", "form_field")]
    labels = {e.id: element_label(e) for e in candidates}
    ids = list(labels)
    st.markdown("**Re-pair: 1. key**")
    chosen = st.selectbox("Key", ids, index=ids.index(key_id) if key_id in ids else None,
                          format_func=labels.__getitem__, placeholder="click a key on the page",
                          label_visibility="collapsed", key=_key(f"key_box:{number}:{key_id}", doc.doc_id))
    if chosen is not None and chosen != key_id:
        choose(doc.doc_id, chosen, None)
        st.rerun()
    st.markdown("**2. value**")
    chosen = st.selectbox("Value", ids, index=ids.index(value_id) if value_id in ids else None,
                          format_func=labels.__getitem__, placeholder="then click its value",
                          label_visibility="collapsed",
                          key=_key(f"value_box:{number}:{key_id}:{value_id}", doc.doc_id))
    if chosen is not None and chosen != value_id:
        choose(doc.doc_id, key_id, chosen)
        st.rerun()
    key, value = index.get(key_id or ""), index.get(value_id or "")
    current = next((f for f in fields if key_id and element_id_of(f.key_ref) == key_id), None) or \
        next((f for f in fields if value_id and f.value_ref == value_id), None)
    pair_col, unpair_col, clear_col = st.columns(3)
    pair_col.button("Pair", key="rli:forms:pair", type="primary", width="stretch",
                    disabled=key is None or value is None, on_click=pair, args=(doc, key, value))
    unpair_col.button("Unpair", key="rli:forms:unpair", width="stretch", disabled=current is None,
                      help="The key and value are not a pair (a check box keeps its state)",
                      on_click=unpair, args=(doc, current))
    clear_col.button("Clear", key="rli:forms:clear", width="stretch", on_click=choose, args=(doc.doc_id, None, None))


# ---- the table --------------------------------------------------------------------------------
def field_table(doc: Document, fields: list[FormField], number: int, in_conflict: bool = False) -> None:
    st.subheader(f"Fields on page {number} ({len(fields)})")
    if not fields:
        st.caption("No form fields found on this page. Pair a key with its value on the page to add one.")
        return
    page = doc.page(number)
    key_options = {element_label(e): e.id for e in page.elements if e.text.strip()}
    rows = []
    for f in fields:
        # a key that is a whole element shows as that element (so another can be picked instead);
        # a key read from one line of a larger block shows as its own words
        key_label = next((label for label, eid in key_options.items() if eid == f.key_ref), None)
        rows.append({
            "key": key_label or f.key, "value": f.export_value, "state": f.selection_state if f.is_selection else None,
            "empty": f.is_empty, "redacted": f.redacted, "type": f.value_type, "source": f.source,
        })
    frame = pd.DataFrame(rows)
    options = list(key_options) + [r["key"] for r in rows if r["key"] not in key_options]
    # keyed by the head of the view the reviewer saw: an edit made on an outdated view still
    # arrives, and is refused as a conflict instead of vanishing with a reset table
    editor_key = _key(f"table:{number}:{seen_head(doc.doc_id)}", doc.doc_id)
    edited = st.data_editor(
        frame, key=editor_key, hide_index=True, width="stretch", num_rows="fixed",
        column_config={
            "key": st.column_config.SelectboxColumn("key", options=options, help="Pick another text as this value's key"),
            "value": st.column_config.TextColumn("value", help="Fix what was read"),
            "state": st.column_config.SelectboxColumn("state", options=list(STATES)),
            "empty": st.column_config.CheckboxColumn("empty", disabled=True),
            "redacted": st.column_config.CheckboxColumn("redacted", help="Exports show [REDACTED]"),
            "type": st.column_config.TextColumn("type", disabled=True),
            "source": st.column_config.TextColumn("source", disabled=True),
        },
    )
    events: list[dict] = []
    for f, (_, before), (_, after) in zip(fields, frame.iterrows(), edited.iterrows()):
        events += edit_events(
            doc, fields, f,
            value=str(after["value"] or "") if _changed(before["value"], after["value"]) else None,
            state=after["state"] if _changed(before["state"], after["state"]) else None,
            redacted=bool(after["redacted"]) if _changed(before["redacted"], after["redacted"]) else None,
            key_element=key_options.get(after["key"]) if _changed(before["key"], after["key"]) else None,
        )
    if events and not in_conflict:
        if save(doc.doc_id, events, f"Saved {len(events)} change(s) from the table"):
            st.rerun()  # show the saved state
        # not saved: say why right here (no rerun, so the same edit is not tried again and again)
        conflict_banner(doc.doc_id)
        flash_message(doc.doc_id)


def _changed(before, after) -> bool:
    missing = pd.isna(before), pd.isna(after)
    if missing[0] or missing[1]:
        return missing[0] != missing[1]
    return before != after


def chunk_preview(doc: Document, fields: list[FormField], number: int) -> None:
    """The page's form chunks exactly as the exports write them (values redacted)."""
    chunks = [c for c in form_chunks(doc, extract_fields(doc), DEFAULT) if c.start_page <= number <= c.end_page]
    with st.expander(f"Form chunks on this page, as exported ({len(chunks)})"):
        for c in chunks:
            st.caption(f"{c.id} · {' > '.join(c.section_path) or '(no section)'}")
            st.code(c.text, language=None)


# ---- the page -------------------------------------------------------------------------------
def summary(fields: tuple[FormField, ...]) -> None:
    counts = {s: 0 for s in STATUS_LABELS}
    for f in fields:
        counts[field_status(f)] += 1
    cols = st.columns(len(counts) + 1)
    cols[0].metric("fields", len(fields))
    for col, (status, n) in zip(cols[1:], counts.items()):
        col.metric(STATUS_LABELS[status], n)


def forms_page(doc: Document) -> None:
    st.title("Forms")
    number = state.current_page(doc)
    all_fields = document_fields(doc)
    in_conflict = messages_above_the_page(doc.doc_id)
    summary(all_fields)
    page_turner(doc, number, key="forms")
    fields = [f for f in all_fields if f.page == number]
    index = doc.element_index()
    mode_col, legend_col = st.columns([3, 5], vertical_alignment="bottom")  # one row: the page starts higher
    mode = mode_col.radio("Click on the page to", (TOGGLE, PAIR), horizontal=True, key="rli:forms:mode")
    with legend_col:
        legend()
    # Clicks are handled before the overlays are drawn, in the mode they were made in (the radio's
    # value is already this run's), every one in order: a key and its value clicked faster than a
    # rerun both count. A toggle reruns at once on the new log (a second toggle in the same
    # moment would be judged on the old state, so it is left out).
    for click in [] if in_conflict else take_clicks(doc, number, key="forms", elements=[]):
        if handle_click(doc, fields, number, click.x, click.y, mode):
            st.rerun()
    boxes, lines = field_overlays(fields, picked(doc.doc_id) if mode == PAIR else (None, None), index)
    page_col, side_col = st.columns([7, 3], gap="medium")
    with page_col:
        measure_column("inspect")  # the same [7, 3] page column as Inspect: one width
        page_view(doc, number, zoom=state.zoom(doc.page(number), view="inspect"), key="forms", elements=[],
                  boxes=boxes, lines=lines)
    with side_col:
        if not state.reviewer():
            st.caption("Set your name in the sidebar (Reviewer) to change fields.")
        pair_tools(doc, number, fields)
        undo_col, redo_col = st.columns(2)
        undo_redo_buttons(doc.doc_id, undo_col, redo_col, prefix="rli:forms")
    field_table(doc, fields, number, in_conflict)
    chunk_preview(doc, fields, number)
    if not in_conflict:
        remember_view(doc.doc_id)


document = state.corrected_doc()
if document is None:
    st.title("Forms")
    st.info("No document yet. Add a PDF on the Documents page.")
else:
    forms_page(document)
