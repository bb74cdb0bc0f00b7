"""Links: which caption belongs to which figure or table, and which footnote to which body text.

The page shows every attachment as a line from the caption/footnote to its target, exactly as the
chunker will attach them (the reviewer's links where set, else its automatic rules). To relink,
click the caption or footnote, then its target, and press Link; Unlink leaves it attached to
nothing. The review queue lists what needs a look across the document.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.categories import Category
from core.chunks.links import LinkIssue, link_attachments, link_queue
from core.geometry import center, connector
from core.model import Document, Element
from core.render import MIN_LINK_PT, Box, Line
from ui import state
from ui.edit_panel import (
    element_label, messages_above_the_page, remember_view, save, undo_redo_buttons,
)
from ui.column_width import measure_column
from ui.page_view import page_turner, page_view, take_click
from ui.text import md_escape, shorten

SOURCES = (Category.CAPTION, Category.FOOTNOTE)
LINKABLE = (Category.CAPTION, Category.FOOTNOTE, Category.PICTURE, Category.TABLE, Category.TEXT,
            Category.LIST_ITEM, Category.FORMULA, Category.CODE, Category.SECTION_HEADER)
ISSUE_LABELS = {
    "unattached_caption": "caption without figure/table",
    "unattached_footnote": "footnote without body text",
    "far_caption": "caption far from its figure/table",
    "caption_to_other": "caption attached to text",
    "uncaptioned": "figure/table without caption",
}


def _key(name: str, doc_id: str) -> str:
    return f"rli:links:{name}:{doc_id}"


# ---- what is linked -------------------------------------------------------------------------
@st.cache_resource(max_entries=8, show_spinner=False)
def _attachments(version: tuple, _doc: Document) -> dict:
    return link_attachments(_doc)


def attachments(doc: Document) -> dict:
    return _attachments(state.view_version(doc.doc_id), doc)


def link_lines(doc: Document, number: int, found: dict) -> list[Line]:
    index = doc.element_index()
    lines = []
    for source_id, attachment in found.items():
        source, target = index.get(source_id), index.get(attachment.target or "")
        if source is None or target is None or number not in (source.page, target.page):
            continue
        if source.page != target.page:
            continue  # a line across pages cannot be drawn; the list below shows it
        ends = connector(source.bbox, target.bbox, MIN_LINK_PT) or (center(source.bbox), center(target.bbox))
        lines.append(Line(*ends, source.category.colour, width=3))
    return lines


# ---- choosing a source and a target ---------------------------------------------------------
def source_and_target(doc_id: str) -> tuple[str | None, str | None]:
    return st.session_state.get(_key("source", doc_id)), st.session_state.get(_key("target", doc_id))


def choose(doc_id: str, source: str | None, target: str | None) -> None:
    st.session_state[_key("source", doc_id)] = source
    st.session_state[_key("target", doc_id)] = target


def handle_click(doc: Document, element: Element | None) -> None:
    """First click: a caption or footnote (the source); next click: what it belongs to."""
    source, _target = source_and_target(doc.doc_id)
    if element is None:
        return
    if element.category in SOURCES and (source is None or element.id == source):
        choose(doc.doc_id, element.id, None)
    elif source is not None and element.id != source:
        choose(doc.doc_id, source, element.id)
    elif element.category in SOURCES:
        choose(doc.doc_id, element.id, None)


def _link(doc: Document, source: Element, target: Element) -> None:
    # relink = forget the old attachment, then attach: one action, one undo
    if save(doc.doc_id, [{"kind": "unlink", "source": source.id},
                         {"kind": "link", "source": source.id, "target": target.id}],
            f"Linked {element_label(source)} → {element_label(target)}"):
        choose(doc.doc_id, None, None)


def _unlink(doc: Document, source: Element) -> None:
    if save(doc.doc_id, [{"kind": "unlink", "source": source.id}], f"Unlinked {element_label(source)}"):
        choose(doc.doc_id, None, None)


def element_picker(label: str, elements: list, current: str | None, placeholder: str, key: str) -> str | None:
    """A select box over `elements`, showing their labels, on `current` (a click on the page sets it)."""
    ids = [e.id for e in elements]
    return st.selectbox(label, ids, index=ids.index(current) if current in ids else None,
                        format_func={e.id: element_label(e) for e in elements}.__getitem__,
                        placeholder=placeholder, label_visibility="collapsed", key=key)


def link_tools(doc: Document, number: int, found: dict) -> None:
    page = doc.page(number)
    index = doc.element_index()
    source_id, target_id = source_and_target(doc.doc_id)
    source = index.get(source_id or "")
    target = index.get(target_id or "")
    sources = [e for e in page.elements if e.category in SOURCES]
    targets = [e for e in page.elements if e.category in LINKABLE and e.id != source_id]

    st.markdown("**1. Caption or footnote**")
    picked = element_picker("Caption or footnote", sources, source_id, "click one on the page",
                            _key(f"source_box:{number}:{source_id}", doc.doc_id))
    if picked != source_id and picked is not None:
        choose(doc.doc_id, picked, None)
        st.rerun()
    if source is not None:
        attached = found.get(source.id)
        now = index.get(attached.target) if attached and attached.target else None
        st.caption(f"Now attached to: {md_escape(element_label(now)) if now else 'nothing'}"
                   + (f" ({attached.how})" if attached else ""))
    st.markdown("**2. What it belongs to**")
    picked = element_picker("Target", targets, target_id, "then click its figure, table or text",
                            _key(f"target_box:{number}:{source_id}:{target_id}", doc.doc_id))
    if picked != target_id and picked is not None:
        choose(doc.doc_id, source_id, picked)
        st.rerun()
    link_col, unlink_col, clear_col = st.columns(3)
    link_col.button("Link", key="rli:links:link", type="primary", width="stretch",
                    disabled=source is None or target is None,
                    on_click=_link, args=(doc, source, target))
    unlink_col.button("Unlink", key="rli:links:unlink", width="stretch", disabled=source is None,
                      help="Attached to nothing: it stays in the text flow", on_click=_unlink, args=(doc, source))
    clear_col.button("Clear", key="rli:links:clear", width="stretch", on_click=choose, args=(doc.doc_id, None, None))
    undo_col, redo_col = st.columns(2)
    undo_redo_buttons(doc.doc_id, undo_col, redo_col, prefix="rli:links")


# ---- the review queue -----------------------------------------------------------------------
def _go_to(doc: Document, issue: LinkIssue) -> None:
    state.set_page(issue.page, doc)
    element = doc.element(issue.element_id)
    choose(doc.doc_id, issue.element_id if element.category in SOURCES else None,
           None if element.category in SOURCES else issue.element_id)


def review_queue(doc: Document, issues: list[LinkIssue]) -> None:
    st.subheader(f"Needs a look ({len(issues)})")
    if not issues:
        st.caption("Every caption and footnote is attached, and every figure and table has a caption.")
        return
    frame = pd.DataFrame({
        "page": [i.page for i in issues],
        "what": [ISSUE_LABELS.get(i.kind, i.kind) for i in issues],
        "text": [shorten(i.text, 60) for i in issues],
        "detail": [i.detail for i in issues],
    })
    key = _key(f"queue:{len(issues)}", doc.doc_id)

    def picked() -> None:
        rows = st.session_state[key].selection.rows
        if rows:
            _go_to(doc, issues[rows[0]])

    st.dataframe(frame, key=key, on_select=picked, selection_mode="single-row", hide_index=True, width="stretch")
    st.caption("Select a row to go to its page.")


def attachment_list(doc: Document, number: int, found: dict) -> None:
    index = doc.element_index()
    rows = []
    for source_id, a in found.items():
        source = index.get(source_id)
        if source is None or source.page != number:
            continue
        target = index.get(a.target or "")
        rows.append({"caption / footnote": shorten(source.text, 40), "attached to": (
            f"p{target.page} {target.category.value} · {shorten(target.text, 30)}" if target else "—"), "how": a.how})
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


# ---- the page -------------------------------------------------------------------------------
def links_page(doc: Document) -> None:
    st.title("Links")
    number = state.current_page(doc)
    found = attachments(doc)
    in_conflict = messages_above_the_page(doc.doc_id)
    page_turner(doc, number, key="links")
    page = doc.page(number)
    source_id, target_id = source_and_target(doc.doc_id)
    shown = [e for e in page.elements if e.category in LINKABLE]
    click = take_click(doc, number, key="links", elements=shown)  # applied at once (see pages/gold.py)
    if click is not None:
        handle_click(doc, doc.element_index().get(click.element_id or ""))
        st.rerun()  # a saved link changes the document: draw from the new log
    marks = [Box(e.bbox, "#000000", label, fill_alpha=0, width=4, dashed=True)
             for e, label in ((doc.element_index().get(source_id or ""), "link from"),
                              (doc.element_index().get(target_id or ""), "to")) if e is not None and e.page == number]
    page_col, side_col = st.columns([7, 3], gap="medium")
    with page_col:
        measure_column("inspect")  # the same [7, 3] page column as Inspect: one width
        page_view(doc, number, zoom=state.zoom(page, view="inspect"), key="links", elements=shown,
                  lines=link_lines(doc, number, found), boxes=marks)
    with side_col:
        if not state.reviewer():
            st.caption("Set your name in the sidebar (Reviewer) to change links.")
        link_tools(doc, number, found)
        st.divider()
        attachment_list(doc, number, found)
    review_queue(doc, link_queue(doc, found))
    if not in_conflict:
        remember_view(doc.doc_id)


document = state.corrected_doc()
if document is None:
    st.title("Links")
    st.info("No document yet. Add a PDF on the Documents page.")
else:
    links_page(document)
