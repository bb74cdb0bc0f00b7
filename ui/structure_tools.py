"""Fixes to the selected element's text and place on the Inspect page: its text, its place in the
reading order, a split at a line, and where chunks break. Each is one event (core/review/structure.py),
saved through ui.edit_panel.save, so it has undo, shows in Audit and reaches the chunks.

    structure_tools(doc, elements, element)   # under the relabel/delete/merge row
"""
from __future__ import annotations

from typing import Sequence

import streamlit as st

from core.model import Document, Element
from core.review.structure import BREAK, CHUNK_WISH, JOIN, element_lines
from ui.text import element_label, shorten

BEFORE, AFTER = "before", "after"
OPEN_KEY = "rli:structure:open"  # the tools stay open after one of them saved: fixes come in runs
WISH_LABELS = {BREAK: "a chunk starts here", JOIN: "kept with the chunk before"}


def structure_tools(doc: Document, elements: Sequence[Element], element: Element, save) -> None:
    """`save(doc_id, events, done_message)` is ui.edit_panel.save (passed in: the panel imports us)."""
    def saving(doc_id, events, done):
        st.session_state[OPEN_KEY] = True
        return save(doc_id, events, done)

    with st.expander("Text, reading order, split, chunk breaks", expanded=bool(st.session_state.get(OPEN_KEY))):
        text_tool(doc, element, saving)
        order_tool(doc, elements, element, saving)
        split_tool(doc, element, saving)
        chunk_tool(doc, element, saving)


def text_tool(doc: Document, element: Element, save) -> None:
    key = f"rli:structure:text:{element.id}:{hash(element.text)}"
    st.text_area("Text", value=element.text, key=key, height=90,
                 help="Fix what the parser read (broken glyphs, OCR errors); the machine's text is kept")
    machine = element.attr("machine_text")
    if machine is not None and machine != element.text:
        st.caption(f"Machine read: {shorten(machine, 160)}")
    st.button("Save text", key=f"rli:structure:save_text:{element.id}",
              on_click=_save_text, args=(doc.doc_id, element, key, save))


def _save_text(doc_id: str, element: Element, key: str, save) -> None:
    text = st.session_state.get(key, element.text)
    if text == element.text:
        st.toast("The text is unchanged: nothing saved.")
        return
    save(doc_id, [{"kind": "set_text", "target": element.id, "text": text}],
         f"Text of {element_label(element)} saved")


def order_tool(doc: Document, elements: Sequence[Element], element: Element, save) -> None:
    others = [e for e in elements if e.id != element.id]
    if not others:
        return
    where_key, other_key = f"rli:structure:where:{element.id}", f"rli:structure:other:{element.id}"
    st.selectbox("in reading order, next to", [e.id for e in others], index=None,
                 placeholder="another element on this page",
                 format_func={e.id: element_label(e) for e in others}.__getitem__, key=other_key)
    where_col, go_col = st.columns(2, vertical_alignment="bottom")
    where_col.selectbox("Move", (BEFORE, AFTER), key=where_key)
    go_col.button("Move", key=f"rli:structure:reorder:{element.id}", width="stretch",
                  disabled=not st.session_state.get(other_key),
                  on_click=_reorder, args=(doc.doc_id, element, where_key, other_key, save))


def _reorder(doc_id: str, element: Element, where_key: str, other_key: str, save) -> None:
    where, other = st.session_state.get(where_key, BEFORE), st.session_state.get(other_key)
    if other:
        save(doc_id, [{"kind": "reorder", "target": element.id, where: other}],
             f"Moved {element_label(element)} {where} the element chosen")


def split_tool(doc: Document, element: Element, save) -> None:
    lines = element_lines(element)
    if len(lines) < 2:
        return
    key = f"rli:structure:split_at:{element.id}"
    st.selectbox("Split after line", list(range(1, len(lines))), key=key,
                 format_func=lambda n: f"{n}: {shorten(lines[n - 1][1], 50)}")
    st.button("Split", key=f"rli:structure:split:{element.id}", width="stretch",
              help="The first lines stay in this box; the rest become a new box of the same category",
              on_click=_split, args=(doc.doc_id, element, key, save))


def _split(doc_id: str, element: Element, key: str, save) -> None:
    at = int(st.session_state.get(key, 1))
    save(doc_id, [{"kind": "split_element", "target": element.id, "at_line": at}],
         f"Split {element_label(element)} after line {at}")


def chunk_tool(doc: Document, element: Element, save) -> None:
    wish = element.attr(CHUNK_WISH)
    if wish:
        st.caption(f"Chunks: {WISH_LABELS.get(wish, wish)} (undo to take it back)")
    st.button("Start a new chunk here", key=f"rli:structure:break:{element.id}", width="stretch",
              disabled=wish == BREAK, on_click=save,
              args=(doc.doc_id, [{"kind": "chunk_break", "before": element.id}], "A chunk now starts here"))
    st.button("Keep with the chunk before", key=f"rli:structure:join:{element.id}", width="stretch",
              disabled=wish == JOIN, on_click=save,
              args=(doc.doc_id, [{"kind": "join_chunks", "before": element.id}],
                    "Kept with the chunk before it"))
