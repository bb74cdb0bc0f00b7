"""Editing on the Inspect page: relabel, delete, merge, draw a box, move or resize boxes, undo/redo,
and the page's review status. Every change is a correction event saved through core.review.corrections.

    edit_panel(doc, page_number)                  # once, above the page view: modes, undo, page status
    element_tools(doc, page_number, element)      # beside the page, for the selected element
    click = None if editing_canvas(doc, page_number) else page_view(...)   # where the page view goes

Select mode edits the element selected on the page view. Draw and Move modes put a drawing
canvas (streamlit-drawable-canvas, "labeled_rect" boxes) where the page view was until the reviewer
goes back to Select. Canvas pixels and PDF points convert with core.render's functions, so a box lands
on the same points at every zoom.

Safety: every save passes the log head of the view the reviewer last saw (`expected_head`). If
another session saved in between, nothing is written; a conflict message with a Reload button
appears, and the reviewer redoes the edit on the fresh view.
"""
from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

import streamlit as st

from core.categories import Category
from core.errors import InspectorError, StaleView
from core.geometry import coverage, union
from core.model import BBox, Document, Element
from core.render import image_size, page_view_image, pixels_to_bbox, points_to_pixels, with_page_image
from core.review.corrections import machine_document, record_events
from core.review.describe import describe
from core.review.events import REVIEW_STATUSES
from core.review.undo import NothingToUndo, redo_last, undo_last, undo_state
from ui import state
from ui.page_view import served_image
from ui.structure_tools import structure_tools
from ui.text import element_label, shorten
from ui.trace import trace

SELECT, DRAW, MOVE = "Select", "Draw a box", "Move / resize"
MODES = (SELECT, DRAW, MOVE)
MODE_KEY = "rli:edit:mode"
STATUS_LABELS = {"unreviewed": "Unreviewed", "in_progress": "In progress", "reviewed": "Reviewed"}
CANVAS_STROKE = 2
TABLE_GENERATION_KEY = "rli:table_generation"  # pages/inspect.py's TABLE_GEN_KEY


# ---- canvas pixels <-> PDF points ------------------------------------------------------------
def canvas_box(bbox: BBox, zoom: float, label: str = "") -> dict[str, Any]:
    """A bbox in points as a canvas box (`CanvasResult.boxes` shape) in pixels at `zoom`."""
    x0, y0, x1, y1 = (points_to_pixels(v, zoom) for v in bbox)
    return {"label": label, "left": x0, "top": y0, "width": x1 - x0, "height": y1 - y0}


def box_bbox(box: Mapping[str, Any], zoom: float) -> BBox:
    """A canvas box (pixels at `zoom`) as a bbox in PDF points; the exact inverse of canvas_box."""
    left, top = float(box["left"]), float(box["top"])
    return pixels_to_bbox((left, top, left + float(box["width"]), top + float(box["height"])), zoom)


def clamp_to_page(bbox: BBox, width: float, height: float) -> BBox:
    x0, y0, x1, y1 = bbox
    return (max(0.0, x0), max(0.0, y0), min(width, x1), min(height, y1))


# ---- saving, with the stale-view check -------------------------------------------------------
def _key(name: str, doc_id: str) -> str:
    return f"rli:edit:{name}:{doc_id}"


def seen_head(doc_id: str) -> int:
    """Log head of the view this session last showed; edits are made against it."""
    value = st.session_state.get(_key("view_head", doc_id))
    return state.log_head(doc_id) if value is None else int(value)


# A save's message is shown in the run its click starts, but Streamlit stops a run when another
# rerun comes in (a component reporting its size, a second click), and a message shown only in the
# stopped run never reaches the screen. So it stays for FLASH_SECONDS and for two runs at least.
FLASH_SECONDS = 3.0
FLASH_RUNS = 2


def _flash(doc_id: str, kind: str, message: str) -> None:
    st.session_state[_key("flash", doc_id)] = {"kind": kind, "message": message, "at": time.monotonic(), "runs": 0}


def save(doc_id: str, events: Sequence[Mapping[str, Any]], done: str) -> bool:
    """Append `events` as one action. Safe to call from a widget callback."""
    actor = state.reviewer()
    if not actor:
        _flash(doc_id, "warning", "Set your name in the sidebar (Reviewer) first: every correction records who made it.")
        return False
    kinds = [e.get("kind") for e in events]
    try:
        stored = record_events(state.workspace(), doc_id, list(events), actor, expected_head=seen_head(doc_id))
    except StaleView as err:
        trace("save", kinds=kinds, outcome="stale view", seen_head=seen_head(doc_id))
        st.session_state[_key("conflict", doc_id)] = str(err)
        return False
    except InspectorError as err:
        trace("save", kinds=kinds, outcome=type(err).__name__)
        _flash(doc_id, "error", str(err))
        return False
    trace("save", kinds=kinds, outcome="stored", head=stored[-1].seq)
    st.session_state[_key("view_head", doc_id)] = stored[-1].seq
    _flash(doc_id, "success", done)
    return True


def _undo_or_redo(doc_id: str, redo: bool) -> None:
    actor = state.reviewer()
    if not actor:
        _flash(doc_id, "warning", "Set your name in the sidebar (Reviewer) first: every correction records who made it.")
        return
    try:
        stored = (redo_last if redo else undo_last)(state.workspace(), doc_id, actor, expected_head=seen_head(doc_id))
    except StaleView as err:
        st.session_state[_key("conflict", doc_id)] = str(err)
        return
    except (NothingToUndo, InspectorError) as err:
        trace("undo" if not redo else "redo", outcome=type(err).__name__)
        _flash(doc_id, "info", str(err))
        return
    trace("undo" if not redo else "redo", outcome="stored", head=stored[-1].seq)
    st.session_state[_key("view_head", doc_id)] = stored[-1].seq
    _flash(doc_id, "success", f"{'Redone' if redo else 'Undone'}: {len(stored)} event(s)")


def _reload(doc_id: str) -> None:
    st.session_state.pop(_key("conflict", doc_id), None)
    st.session_state[_key("view_head", doc_id)] = state.log_head(doc_id)


def conflict_banner(doc_id: str) -> bool:
    """The stale-view message with its Reload button; True while a conflict is open."""
    message = st.session_state.get(_key("conflict", doc_id))
    if not message:
        return False
    st.error(f"Not saved: {message}")
    st.button("Reload", key=_key("reload", doc_id), type="primary", on_click=_reload, args=(doc_id,))
    return True


def remember_view(doc_id: str) -> None:
    """Called after drawing: what the reviewer now sees is the current head (unless in conflict,
    when only Reload may move it on)."""
    if not st.session_state.get(_key("conflict", doc_id)):
        st.session_state[_key("view_head", doc_id)] = state.log_head(doc_id)


def flash_message(doc_id: str) -> None:
    key = _key("flash", doc_id)
    flash = st.session_state.get(key)
    if not flash:
        return
    flash["runs"] += 1
    if flash["runs"] >= FLASH_RUNS and time.monotonic() - flash["at"] >= FLASH_SECONDS:
        del st.session_state[key]  # shown in this run for the last time
    getattr(st, flash["kind"])(flash["message"])
    if flash["kind"] == "success" and flash["runs"] == 1:  # a toast outlives the next rerun by itself
        st.toast(flash["message"], icon=":material/check_circle:")


def messages_above_the_page(doc_id: str) -> bool:
    """The conflict banner and the last save's message, in one slot that is there on every run:
    a message appearing above the page image would move the image's place in the page, and the
    browser would build its canvas again from nothing (seconds without overlays after a toggle).
    True while a conflict is open."""
    with st.container():
        in_conflict = conflict_banner(doc_id)
        flash_message(doc_id)
    return in_conflict


# ---- the panel -------------------------------------------------------------------------------
def category_label(category: Category) -> str:
    return f"{category.label_ja} · {category.value}"


def edit_panel(doc: Document, number: int) -> None:
    """The page's editing bar, above the page view. It never grows with a selection (the selected
    element's tools are `element_tools`, beside the page): the page under it stays where the
    reviewer clicked."""
    page = doc.page(number)
    with st.container(border=True):
        in_conflict = conflict_banner(doc.doc_id)
        flash_message(doc.doc_id)
        mode = toolbar(doc, number)
        if not state.reviewer():
            st.caption("Set your name in the sidebar (Reviewer) to edit: every correction records who made it.")
        if mode == SELECT:
            off_page_tool(doc, page)
    if not in_conflict:
        remember_view(doc.doc_id)


def element_tools(doc: Document, number: int, element: Element) -> None:
    """What Select mode can do to the selected element: relabel, delete, its text, order, split and
    chunk breaks, merge. Drawn beside the page, under the element's text."""
    if st.session_state.get(MODE_KEY, SELECT) == SELECT:
        selected_element_tools(doc, doc.page(number).elements, element)


def editing_canvas(doc: Document, number: int) -> bool:
    """In Draw or Move mode, the drawing canvas in place of the page view (True when drawn).

    Called where the page view goes, so the rest of the page (legend, table) keeps its widgets:
    a run that skipped them would lose their state."""
    mode = st.session_state.get(MODE_KEY, SELECT)
    if mode == DRAW:
        draw_boxes(doc, number)
    elif mode == MOVE:
        move_boxes(doc, number)
    return mode in (DRAW, MOVE)


def toolbar(doc: Document, number: int) -> str:
    events = state.workspace().events(doc.doc_id)
    stacks = undo_state(events)
    mode_col, undo_col, redo_col, status_col, next_col = st.columns([3.2, 1, 1, 1.8, 1.6], vertical_alignment="bottom")
    st.session_state.setdefault(MODE_KEY, SELECT)
    # labels folded into the controls keep the bar one control high, so the page starts higher
    mode = mode_col.segmented_control("Edit", MODES, key=MODE_KEY, label_visibility="collapsed") or SELECT
    undo_redo_buttons(doc.doc_id, undo_col, redo_col, stacks)
    from core.review.status import next_page_to_review, page_statuses  # review status is computed from the log

    statuses = page_statuses((doc, machine_document(state.workspace(), doc.doc_id)), events)
    status_key = f"rli:edit:status:{doc.doc_id}:{number}"
    # the log decides the status; the widget only shows it (and reports a change by the reviewer)
    st.session_state[status_key] = statuses[number]
    status_col.selectbox("Page status", REVIEW_STATUSES, format_func=lambda s: f"Page: {STATUS_LABELS[s]}",
                         key=status_key, label_visibility="collapsed",
                         on_change=_status_changed, args=(doc.doc_id, number, status_key, statuses[number]))
    following = next_page_to_review({**statuses, number: "reviewed"}, after=number)
    next_col.button("✓ Reviewed, next", key="rli:edit:reviewed_next", width="stretch",
                    help="Mark this page reviewed and go to the next page not reviewed yet",
                    on_click=_reviewed_next, args=(doc, number, following))
    return mode


def undo_redo_buttons(doc_id: str, undo_col, redo_col, stacks=None, prefix: str = "rli:edit") -> None:
    """The Undo and Redo buttons (also used by the Links page), each saying what it would take back."""
    stacks = stacks or undo_state(state.workspace().events(doc_id))
    undo_col.button("↶ Undo", key=f"{prefix}:undo", disabled=not stacks.undo, width="stretch",
                    help=_action_help(stacks.undo), on_click=_undo_or_redo, args=(doc_id, False))
    redo_col.button("↷ Redo", key=f"{prefix}:redo", disabled=not stacks.redo, width="stretch",
                    help=_action_help(stacks.redo), on_click=_undo_or_redo, args=(doc_id, True))


def _action_help(actions) -> str:
    if not actions:
        return "nothing to take back"
    last = actions[-1]
    return "; ".join(describe(e.payload) for e in last.events)[:300]


def _status_changed(doc_id: str, number: int, key: str, shown: str) -> None:
    status = st.session_state[key]
    if status == shown:
        return
    save(doc_id, [{"kind": "mark_reviewed", "page": number, "status": status}],
         f"Page {number}: {STATUS_LABELS[status].lower()}")


def _reviewed_next(doc: Document, number: int, following: int | None) -> None:
    if save(doc.doc_id, [{"kind": "mark_reviewed", "page": number, "status": "reviewed"}],
            f"Page {number} reviewed" + ("" if following else "; every page is reviewed")):
        if following:
            state.set_page(following, doc)


def off_page(page, element: Element) -> bool:
    x0, y0, x1, y1 = element.bbox
    return x1 <= 0 or y1 <= 0 or x0 >= page.width or y0 >= page.height


def off_page_tool(doc: Document, page) -> None:
    """Boxes wholly outside the page (printers' marks some parsers report) cannot be clicked."""
    outside = [e for e in page.elements if off_page(page, e)]
    if outside:
        st.button(f"Delete the {len(outside)} box{'es' if len(outside) > 1 else ''} outside the page "
                  f"({', '.join(sorted({e.category.value for e in outside}))})", key="rli:edit:delete_off_page",
                  on_click=_delete, args=(doc, outside))


def overlapping(elements: Sequence[Element], element: Element) -> list[Element]:
    """Elements on (nearly) the same spot: a click always picks the smallest, these need a way in."""
    return [e for e in elements if e.id != element.id
            and max(coverage(e.bbox, element.bbox), coverage(element.bbox, e.bbox)) >= 0.8]


def selected_element_tools(doc: Document, elements: Sequence[Element], element: Element) -> None:
    """Laid out for the narrow side column: one control a row, buttons in pairs."""
    same_spot = overlapping(elements, element)
    if same_spot:
        following = same_spot[0]
        st.button(f"Next on this spot ({len(same_spot)} more)", key="rli:edit:next_here", width="stretch",
                  help=f"{len(same_spot)} other element(s) on the same spot; select {element_label(following)}",
                  on_click=_select, args=(doc.doc_id, following.id))
    categories = list(Category)
    picker = f"rli:edit:category:{element.id}"
    st.selectbox("Category", categories, index=categories.index(element.category),
                 format_func=category_label, key=picker)
    alike = [e for e in elements if e.category == element.category and e.id != element.id]
    all_key = f"rli:edit:all_alike:{element.id}"
    if alike:
        st.checkbox(f"Also the {len(alike)} other {element.category.value} element{'s' if len(alike) > 1 else ''} "
                    "on this page (one action, one undo)", key=all_key)
    targets = [element] + (alike if st.session_state.get(all_key) else [])
    relabel_col, delete_col = st.columns(2)
    relabel_col.button("Relabel", key="rli:edit:relabel", type="primary", width="stretch",
                       on_click=_relabel, args=(doc.doc_id, targets, picker))
    delete_col.button("Delete", key="rli:edit:delete", width="stretch",
                      on_click=_delete, args=(doc, targets))
    others = [e for e in elements if e.id != element.id]
    structure_tools(doc, elements, element, save)
    if others:
        merge_key = f"rli:edit:merge_with:{element.id}"
        st.selectbox("Merge with", [e.id for e in others], index=None, placeholder="another element on this page",
                     format_func={e.id: element_label(e) for e in others}.__getitem__, key=merge_key)
        st.button("Merge", key="rli:edit:merge", width="stretch",
                  disabled=not st.session_state.get(merge_key),
                  help="One box around both; its text is re-read from the PDF; keeps this category",
                  on_click=_merge, args=(doc, element, merge_key))


def _what(elements: Sequence[Element]) -> str:
    return element_label(elements[0]) + (f" and {len(elements) - 1} more" if len(elements) > 1 else "")


def _relabel(doc_id: str, elements: Sequence[Element], picker: str) -> None:
    category = st.session_state[picker]
    changed = [e for e in elements if e.category != category]
    if not changed:
        _flash(doc_id, "info", f"Already {category.value}.")
        return
    save(doc_id, [{"kind": "relabel", "target": e.id, "category": category.value} for e in changed],
         f"Relabelled {_what(changed)} → {category.value}")


def _delete(doc: Document, elements: Sequence[Element]) -> None:
    if save(doc.doc_id, [{"kind": "delete_element", "target": e.id} for e in elements], f"Deleted {_what(elements)}"):
        _select(doc.doc_id, None)


def _select(doc_id: str, element_id: str | None) -> None:
    state.select_element(element_id, doc_id)
    # the Inspect page's element table keeps its own row selection; a new generation clears it,
    # so a deleted row's checkbox does not stay ticked on the row that moved up
    st.session_state[TABLE_GENERATION_KEY] = st.session_state.get(TABLE_GENERATION_KEY, 0) + 1


def _merge(doc: Document, element: Element, merge_key: str) -> None:
    other_id = st.session_state.get(merge_key)
    other = doc.element_index().get(other_id)
    if other is None:
        return
    box = union([element.bbox, other.bbox])
    if save(doc.doc_id, [{"kind": "move_bbox", "target": element.id, "bbox": list(box)},
                         {"kind": "delete_element", "target": other.id}],
            f"Merged {element_label(other)} into {element_label(element)}"):
        _select(doc.doc_id, element.id)


# ---- drawing and moving boxes ----------------------------------------------------------------
def _canvas(doc: Document, number: int, background: bytes, mode: str, initial: dict | None, label: str = ""):
    from streamlit_drawable_canvas import st_canvas  # imported late: it registers a component

    page = doc.page(number)
    zoom = state.zoom(page)
    width, height = image_size(page.width, page.height, zoom)
    key = f"rli:edit:canvas:{mode}:{doc.doc_id}:{number}:{zoom}:{seen_head(doc.doc_id)}"
    # The page in the drawing, not a `background_image`, so it comes with the boxes in one frame
    # (core.render.with_page_image); served as a URL, so the drawing the canvas sends back on each
    # box drawn or moved carries a short address, not the image.
    drawing = with_page_image(initial or {"objects": []}, served_image(background, f"edit:{mode}"),
                              (width, height))
    return st_canvas(
        width=width, height=height, drawing_mode="labeled_rect", label=label,
        stroke_width=CANVAS_STROKE, stroke_color="#d62728", fill_color="rgba(214, 39, 40, 0.12)",
        initial_drawing=drawing, update_streamlit=True, font_size=11, key=key,
    )


def draw_boxes(doc: Document, number: int) -> None:
    page = doc.page(number)
    zoom = state.zoom(page)
    categories = list(Category)
    pick_col, help_col = st.columns([2, 5], vertical_alignment="bottom")
    category = pick_col.selectbox("Category of new boxes", categories, index=categories.index(Category.TEXT),
                                  format_func=category_label, key="rli:edit:draw_category")
    help_col.caption(f"Drag on the page to draw a {category.value} box; its text is read from the PDF under it. "
                     "Each box keeps the category chosen when it was drawn.")
    background = page_view_image(state.document_pdf(doc.doc_id), page, zoom, elements=page.elements)
    result = _canvas(doc, number, background, "draw", None, label=category.value)
    drawn = [(b.get("label") or category.value, clamp_to_page(box_bbox(b, zoom), page.width, page.height))
             for b in result.boxes]
    drawn = [(label, bbox) for label, bbox in drawn if bbox[2] - bbox[0] >= 1 and bbox[3] - bbox[1] >= 1]
    if not drawn:
        st.caption("No new box yet.")
        return
    pdf = state.document_pdf(doc.doc_id)
    for label, bbox in drawn:
        text = _text_under(pdf, number, bbox)
        st.text(f"{label} · {', '.join(f'{v:.1f}' for v in bbox)} pt · {shorten(text, 80) or '(no text under the box)'}")
    events = [{"kind": "add_element", "page": number, "bbox": list(bbox), "category": label} for label, bbox in drawn]
    st.button(f"Add {len(drawn)} box{'es' if len(drawn) > 1 else ''}", key="rli:edit:add_boxes", type="primary",
              on_click=_save_and_select, args=(doc.doc_id, events, f"Added {len(drawn)} box(es) on page {number}"))


def _text_under(pdf, number: int, bbox: BBox) -> str:
    if pdf is None:
        return ""
    from core.review.box_text import read_text

    return read_text(pdf, number, bbox)


def _save_and_select(doc_id: str, events: list[dict[str, Any]], done: str) -> None:
    if save(doc_id, events, done):
        st.session_state[MODE_KEY] = SELECT


def move_boxes(doc: Document, number: int) -> None:
    page = doc.page(number)
    zoom = state.zoom(page)
    st.caption("Turn on the canvas toolbar's edit toggle, then drag a box to move it or pull its corners to "
               "resize it; the text is re-read from the PDF when you save.")
    # boxes wholly off the page (printers' marks some parsers report) cannot be dragged: leave them out
    labels = {f"#{e.seq + 1}": e for e in page.elements  # short chips: long ones hide small boxes
              if e.bbox[2] > 0 and e.bbox[3] > 0 and e.bbox[0] < page.width and e.bbox[1] < page.height}
    initial = {"objects": [
        {**_drawing_object(canvas_box(e.bbox, zoom, label)), "stroke": e.category.colour}
        for label, e in labels.items()]}
    background = page_view_image(state.document_pdf(doc.doc_id), page, zoom, elements=())
    result = _canvas(doc, number, background, "move", initial)
    moved = []
    for box in result.boxes:
        element = labels.get(box.get("label"))
        if element is None:
            continue
        bbox = box_bbox(box, zoom)
        if max(abs(a - b) for a, b in zip(bbox, element.bbox)) < 0.5:
            continue  # untouched (sub-point differences are the canvas's rounding)
        bbox = clamp_to_page(bbox, page.width, page.height)
        if bbox[2] - bbox[0] >= 1 and bbox[3] - bbox[1] >= 1:
            moved.append((element, bbox))
    if not moved:
        st.caption("No box moved yet.")
        return
    for element, bbox in moved:
        st.text(f"{element_label(element)} → {', '.join(f'{v:.1f}' for v in bbox)} pt")
    events = [{"kind": "move_bbox", "target": e.id, "bbox": list(b)} for e, b in moved]
    st.button(f"Save {len(moved)} moved box{'es' if len(moved) > 1 else ''}", key="rli:edit:save_moves",
              type="primary", on_click=_save_and_select,
              args=(doc.doc_id, events, f"Moved {len(moved)} box(es) on page {number}"))


def _drawing_object(box: Mapping[str, Any]) -> dict[str, Any]:
    """One LabeledRect as `streamlit_drawable_canvas.boxes_to_drawing` builds it (its exact inverse
    is `CanvasResult.boxes`), without importing the component outside a running app."""
    return {"type": "LabeledRect", "label": box["label"], "left": box["left"], "top": box["top"],
            "width": box["width"], "height": box["height"], "originX": "left", "originY": "top",
            "scaleX": 1, "scaleY": 1, "angle": 0, "strokeWidth": CANVAS_STROKE,
            "fill": "rgba(0, 0, 0, 0)", "lockRotation": True, "strokeUniform": True}
