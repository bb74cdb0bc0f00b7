"""Reading order by dragging: the page's elements as rows in reading order; a row dropped on another
moves before it (upper half) or after it (lower half). Each drop is one `reorder` event
({"kind": "reorder", "target": ID, "before"|"after": ID}), saved through ui.edit_panel.save, so it
has undo, shows in Audit and reaches the chunks. The number inputs in the structure tools do the same
for one selected element.

    reading_order_list(doc, page_number)   # on Inspect, under the element table

A component of our own (ui/frontend/reading_order/index.html, HTML5 drag and drop).
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

from core.model import Document
from ui import state
from ui.text import element_label, shorten

_FRONTEND = Path(__file__).resolve().parent / "frontend" / "reading_order"
_component = components.declare_component("rli_reading_order", path=str(_FRONTEND))
WHERE = ("before", "after")


def _key(doc_id: str) -> str:
    # one list per document, kept across page turns (a new one per page reloaded its frame on every
    # turn); a drop names its elements by id, and _dropped refuses two from different pages
    return f"rli:reading_order:{doc_id}"


def reading_order_list(doc: Document, number: int, save) -> None:
    """`save(doc_id, events, done_message)` is ui.edit_panel.save (passed in, as structure_tools')."""
    elements = sorted(doc.page(number).elements, key=lambda e: e.seq)
    if len(elements) < 2:
        return
    items = [{"id": e.id, "seq": e.seq + 1, "category": e.category.value, "colour": e.category.colour,
              "text": shorten(e.text, 120) or f"({e.category.value})"} for e in elements]
    key = _key(doc.doc_id)
    with st.expander("Reading order · drag a row to move it before or after another"):
        if not state.reviewer():
            st.caption("Set your name in the sidebar (Reviewer) to move elements.")
        # on_change takes no arguments here (a component's keyword arguments all go to the browser)
        _component(items=items, disabled=not state.reviewer(), key=key, default=None,
                   on_change=partial(_dropped, doc, key, save))


def _dropped(doc: Document, key: str, save) -> None:
    value = st.session_state.get(key)
    seen_key = f"{key}:seen"
    if not isinstance(value, dict) or not value.get("id") or st.session_state.get(seen_key) == value["id"]:
        return
    st.session_state[seen_key] = value["id"]
    index = doc.element_index()
    where = next((w for w in WHERE if w in value), None)
    target, other = index.get(str(value.get("target"))), index.get(str(value.get(where))) if where else None
    if target is None or other is None or target.page != other.page:
        return  # a drop from a view of another version (the ids are gone) or of another page
    save(doc.doc_id, [{"kind": "reorder", "target": target.id, where: other.id}],
         f"Moved {element_label(target)} {where} {element_label(other)}")
