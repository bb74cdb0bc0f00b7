"""Inspect: one page of the current document, every element drawn in its category's colour.

Previous / next / jump, zoom and reading order on top, then the editing bar (modes, undo, the page's
review status); the page (click an element to select it) with, beside it, the selected element's text,
its tools and provenance above the category legend; the page's element table below (selecting a row
selects the element). A selection never moves the page: nothing above it grows. Only the current page is touched on a
rerun, so a 300-page document stays as quick as a 3-page one.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from core.categories import Category
from core.model import Document, Element, thaw
from ui import state
from ui.column_width import measure_column
from ui.edit_panel import edit_panel, editing_canvas, element_tools, save
from ui.reading_order import reading_order_list
from ui.page_view import page_view, take_click
from ui.text import md_escape, shorten

VISIBLE_KEY = "rli:visible_categories"  # persisted across pages; widget keys are dropped off-page
ORDER_KEY = "rli:show_order"
TABLE_GEN_KEY = "rli:table_generation"
COUNT_SLOT_PX = 52  # the legend's colour chip and count on this page ("■ 128")
LONG_TEXT = 400  # characters: a selected element's text longer than this scrolls in its own box
LEGEND_VERSION_KEY = "rli:legend_version"  # the document version the legend was drawn from


# ---- persisted view settings ---------------------------------------------------------------------
def visible_categories() -> set[Category]:
    return set(st.session_state.get(VISIBLE_KEY, set(Category)))


def set_category_visible(category: Category, shown: bool) -> None:
    visible = visible_categories()
    visible.add(category) if shown else visible.discard(category)
    st.session_state[VISIBLE_KEY] = visible


def set_all_visible(shown: bool) -> None:
    st.session_state[VISIBLE_KEY] = set(Category) if shown else set()


def widget_synced_to(key: str, value) -> str:
    """Give a widget the persisted value before it is drawn (its own state is dropped off-page)."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value
    return key


TABLE_KEY = "rli:elements_table_key"  # the element table's widget key in the last run


def choose_element(element_id: str | None, doc: Document) -> None:
    state.select_element(element_id, doc.doc_id)
    # A table with a row picked would disagree: a new table key clears its row selection. Only then:
    # a new key mounts a new grid in the browser, which a click on the page should not wait for.
    table = st.session_state.get(st.session_state.get(TABLE_KEY, ""))
    if table is not None and table.get("selection", {}).get("rows"):
        st.session_state[TABLE_GEN_KEY] = st.session_state.get(TABLE_GEN_KEY, 0) + 1


# ---- counts (cached per document version) ---------------------------------------------------------
@st.cache_resource(max_entries=16, show_spinner=False)
def _document_counts(version: tuple, _doc: Document) -> Counter:
    return Counter(e.category for e in _doc.elements())


def document_counts(doc: Document) -> Counter:
    return _document_counts(state.view_version(doc.doc_id), doc)


# ---- the parts of the page -------------------------------------------------------------------------
def page_caption(doc: Document, number: int) -> str:
    page = doc.page(number)
    label = f" · printed page {md_escape(page.label)}" if page.label and page.label != str(number) else ""
    return f"**{md_escape(doc.source)}** · page {number} of {doc.page_count}{label} · {doc.engine} engine"


def navigation_bar(doc: Document, number: int) -> None:
    prev_col, jump_col, next_col, zoom_col, order_col = st.columns([1, 1.2, 1, 2.4, 2.2], vertical_alignment="bottom")
    prev_col.button("◀ Previous", key="rli:prev", disabled=number <= 1, width="stretch",
                    on_click=state.set_page, args=(number - 1, doc))
    jump_key = widget_synced_to(f"rli:jump:{doc.doc_id}", number)
    jump_col.number_input(
        "Page", min_value=1, max_value=doc.page_count, step=1, key=jump_key,
        on_change=lambda: state.set_page(int(st.session_state[jump_key]), doc),
    )
    next_col.button("Next ▶", key="rli:next", disabled=number >= doc.page_count, width="stretch",
                    on_click=state.set_page, args=(number + 1, doc))
    zoom_key = widget_synced_to("rli:zoom_widget", state.zoom_setting())
    zoom_col.select_slider(
        "Zoom", options=state.ZOOM_CHOICES, key=zoom_key, format_func=state.zoom_label,
        on_change=lambda: state.set_zoom(st.session_state[zoom_key]),
    )
    order_key = widget_synced_to("rli:order_widget", bool(st.session_state.get(ORDER_KEY, False)))
    toggles = order_col.container(horizontal=True, gap="medium")
    toggles.toggle("Reading order", key=order_key,
                     on_change=lambda: st.session_state.__setitem__(ORDER_KEY, st.session_state[order_key]))
    labels_key = widget_synced_to("rli:labels_widget", state.labels_shown())
    toggles.toggle("Labels", key=labels_key, help="Category names on every box (off: only the selected one)",
                      on_change=lambda: state.set_labels_shown(st.session_state[labels_key]))


def swatch(colour: str) -> str:
    # Our own constant colour, never document content: safe to give to the HTML renderer.
    return (f'<span style="display:inline-block;width:0.9em;height:0.9em;background:{colour};'
            f'border:2px solid {colour};opacity:0.85;border-radius:2px;vertical-align:middle"></span>')


def category_toggle(category: Category, in_doc: int, visible: set[Category]):
    """A category's row: its colour (with the count on the page shown, which the page fragment
    writes into the returned slot) and its checkbox."""
    # a fixed-width slot: the count sits by its checkbox at every window width (columns left a gap at 1920)
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    slot = row.container(width=COUNT_SLOT_PX).empty()
    key = widget_synced_to(f"rli:show:{category.value}", category in visible)
    row.checkbox(
        f"{category.label_ja} · {category.value} ({in_doc})", key=key,
        on_change=lambda: set_category_visible(category, st.session_state[key]),
    )
    return slot


def page_count_chip(category: Category, on_page: int) -> str:
    # a number we counted next to our own colour: safe for the HTML renderer
    return f"{swatch(category.colour)}&nbsp;{on_page}" if on_page else swatch(category.colour)


def legend(doc: Document) -> dict[Category, Any]:
    """The category toggles, drawn by full runs only: a page turn or a click reruns the page
    fragment, not these ~90 widgets and blocks (a third of a turn's server time). Returns, per
    category in the document, the slot where the fragment writes its count on the page shown."""
    in_doc = document_counts(doc)
    visible = visible_categories()
    st.markdown("**Categories** · count on this page (in the document)")
    all_col, none_col = st.columns(2)
    all_col.button("Show all", key="rli:show_all", on_click=set_all_visible, args=(True,), width="stretch")
    none_col.button("Hide all", key="rli:hide_all", on_click=set_all_visible, args=(False,), width="stretch")
    slots = {category: category_toggle(category, in_doc[category], visible) for category in Category if in_doc[category]}
    absent = [c for c in Category if not in_doc[c]]
    if absent:
        with st.expander(f"Not in this document ({len(absent)})"):
            for category in absent:
                category_toggle(category, 0, visible).markdown(swatch(category.colour), unsafe_allow_html=True)
    return slots


def page_counts(slots: dict[Category, Any], page_elements: tuple[Element, ...]) -> None:
    on_page = Counter(e.category for e in page_elements)
    for category, slot in slots.items():
        slot.markdown(page_count_chip(category, on_page[category]), unsafe_allow_html=True)


def element_heading(element: Element) -> None:
    category = element.category
    st.markdown(
        f"{swatch(category.colour)} **{category.label_ja} · {category.value}** · reading order {element.seq + 1}",
        unsafe_allow_html=True,  # only the swatch is HTML; the rest is our own vocabulary
    )
    # a long paragraph scrolls in its box, so the tools under it stay in view
    st.code(element.text or "(no text)", language=None, wrap_lines=True,
            height="content" if len(element.text) <= LONG_TEXT else 180)


def element_facts(doc: Document, element: Element) -> None:
    x0, y0, x1, y1 = element.bbox
    facts = {
        "id": element.id,
        "bbox (pt)": f"{x0:.1f}, {y0:.1f}, {x1:.1f}, {y1:.1f}  ({x1 - x0:.1f} × {y1 - y0:.1f})",
        "source": element.source,
        "rules": ", ".join(element.rules) if element.rules else "none (as the parser gave it)",
    }
    if element.state is not None:
        facts["selection state"] = element.state
    st.table(pd.DataFrame({"": list(facts.values())}, index=list(facts.keys())))
    if element.links:
        st.markdown("**Linked to**")
        for target_id in element.links:
            try:
                target = doc.element(target_id)
                st.text(f"{target.category.value} p{target.page} · {shorten(target.text, 60)}  [{target_id}]")
            except KeyError:
                st.text(f"{target_id} (no longer in the document)")
    if element.attrs:
        with st.expander("Attributes"):
            st.json(thaw(dict(element.attrs)), expanded=True)


def element_table(doc: Document, number: int, elements: tuple[Element, ...], selected: str | None) -> None:
    ids = [e.id for e in elements]
    frame = pd.DataFrame({
        "": ["▶" if e.id == selected else "" for e in elements],
        "#": [e.seq + 1 for e in elements],
        "category": [f"{e.category.label_ja} · {e.category.value}" for e in elements],
        "text": [shorten(e.text, 120) for e in elements],
        "source": [e.source for e in elements],
        "rules": [", ".join(e.rules) for e in elements],
        "id": ids,
    })
    key = f"rli:elements:{doc.doc_id}:{number}:{st.session_state.get(TABLE_GEN_KEY, 0)}"
    st.session_state[TABLE_KEY] = key

    def table_selected() -> None:
        rows = st.session_state[key].selection.rows
        state.select_element(ids[rows[0]] if rows else None, doc.doc_id)

    st.dataframe(
        frame, key=key, on_select=table_selected, selection_mode="single-row", hide_index=True,
        width="stretch", column_config={"": st.column_config.TextColumn(width=24)},
    )


# ---- the page --------------------------------------------------------------------------------------
def no_document() -> None:
    st.title("Inspect")
    st.info("No document to inspect yet. Add a PDF on the Documents page.")
    st.page_link("pages/documents.py", label="Go to Documents", icon=":material/folder_open:")


def low_confidence_boxes(page) -> list[tuple]:
    """The boxes of OCR words Tesseract was unsure of (core.ingest.ocr's attrs["ocr_low_words"])."""
    return [(tuple(box), "#d62728", "") for e in page.elements for box in (e.attr("ocr_low_words") or ())]


def take_page_click(doc: Document, number: int, visible: set[Category]) -> None:
    """A click on the page selects what it hit, before anything is drawn: the edit panel, the
    highlight, the details and the table marker then all show it in this one run."""
    click = take_click(doc, number, key="inspect", visible=visible)
    if click is not None and click.element_id != state.selected_element_id(doc.doc_id):  # a miss clears it
        choose_element(click.element_id, doc)


@dataclass(frozen=True)
class InspectLayout:
    """Where the page fragment writes: containers made by the full run, so the legend between them
    stays put while the fragment redraws the rest in place."""
    top: Any        # caption, navigation, edit panel, notices
    page: Any       # the page view
    details: Any    # the selected element and its tools, above the legend
    below: Any      # the element table and the reading-order list
    counts: dict    # Category -> the legend's slot for its count on the page shown


@dataclass(frozen=True)
class SelectionLayout:
    """Where the selection fragment writes: slots the page fragment made in its own places."""
    edit: Any       # the edit panel, under the navigation
    page: Any       # the page view
    details: Any    # the selected element
    table: Any      # the element table, above the reading-order list


def inspect_page(doc: Document) -> None:
    top = st.container()
    page_col, side_col = st.columns([7, 3], gap="medium")
    with side_col:  # the selection first, beside the page where the reviewer clicked; the legend under it
        details, legend_box = st.container(), st.container()
    below = st.container()
    with legend_box:
        counts = legend(doc)
    st.session_state[LEGEND_VERSION_KEY] = state.view_version(doc.doc_id)
    page_fragment(doc.doc_id, InspectLayout(top=top, page=page_col, details=details, below=below, counts=counts))


def current_document(doc_id: str) -> Document:
    """The corrected document, or a full run when a correction changed it since the legend was
    drawn: the legend's counts must follow, and a fragment's rerun cannot redraw it."""
    doc = state.corrected_doc(doc_id)
    if doc is None or st.session_state.get(LEGEND_VERSION_KEY) != state.view_version(doc_id):
        st.rerun()
    return doc


@st.fragment
def page_fragment(doc_id: str, layout: InspectLayout) -> None:
    """Everything on Inspect that a page turn changes. Its widgets (navigation, zoom, the
    reading-order list) rerun only this function: the legend, drawn once per full run, is most of
    what a turn used to redraw (bench/browser.py). What a selection changes is the nested
    selection fragment's."""
    doc = current_document(doc_id)
    number = state.current_page(doc)
    page = doc.page(number)
    with layout.top:
        st.markdown(page_caption(doc, number))
        navigation_bar(doc, number)
        edit = st.container()
        if page.notice:
            st.caption(md_escape(page.notice))
        doubtful = low_confidence_boxes(page)
        if doubtful:
            st.caption(f"{len(doubtful)} OCR word{'s' if len(doubtful) != 1 else ''} read with low confidence "
                       "(below 0.6) are outlined in red.")
    page_counts(layout.counts, page.elements)
    with layout.below:
        table = st.container()
        reading_order_list(doc, number, save)  # drag a row to move it in the reading order
    selection_fragment(doc_id, SelectionLayout(edit=edit, page=layout.page, details=layout.details, table=table))


@st.fragment
def selection_fragment(doc_id: str, layout: SelectionLayout) -> None:
    """Everything a selection shows: the edit panel's target, the details, the highlight on the page
    and the table's marker. A click on the page or a row of the table reruns only this, not the
    navigation, the legend's counts or the reading-order list (a click's deltas, bench/browser.py)."""
    doc = current_document(doc_id)
    number = state.current_page(doc)
    page = doc.page(number)
    take_page_click(doc, number, visible_categories())
    with layout.edit:
        edit_panel(doc, number)  # ui/edit_panel.py (corrections): modes, undo, the page's status

    visible = visible_categories()
    selected = state.selected_element_id(doc.doc_id)
    if selected is not None and all(e.id != selected for e in page.elements):
        selected = None  # deleted by a correction, or from another page
    show_order = bool(st.session_state.get(ORDER_KEY, False))

    # The side column is written first: its details reach the browser before the canvas's new
    # drawing, whose loading keeps the browser busy for a few hundred ms on a full page.
    with layout.details:
        if selected is None:
            st.caption("Click an element on the page or pick a row in the table below: its text, what you can "
                       "do to it and where it came from show here. *Draw a box* adds one the parser missed.")
        else:
            element = next(e for e in page.elements if e.id == selected)
            element_heading(element)
            element_tools(doc, number, element)
            element_facts(doc, element)
        st.divider()
    with layout.page:
        measure_column("inspect")  # "fit width" fills this column, and follows a resize
        if not editing_canvas(doc, number):  # the click was taken above (take_page_click)
            page_view(doc, number, zoom=state.zoom(page), key="inspect", visible=visible,
                      selected=selected, show_order=show_order, boxes=low_confidence_boxes(page))

    with layout.table:
        shown = tuple(e for e in page.elements if e.category in visible or e.id == selected)
        st.markdown(f"**Elements on page {number}** · {len(shown)} of {len(page.elements)} shown "
                    "(hidden categories are left out)")
        if shown:
            element_table(doc, number, shown, selected)
        else:
            st.caption("No elements to show on this page.")


document = state.corrected_doc()
if document is None:
    no_document()
else:
    inspect_page(document)
