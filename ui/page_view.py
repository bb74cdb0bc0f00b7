"""The page image with boxes, shared by every page that shows a PDF page.

    click = page_view(doc, page_number, zoom=zoom, key="inspect")
    if click and click.element_id:
        ...

Draws the page at `zoom` with the document's elements in their category colours (or only the
boxes you pass), and lets the reviewer click on the page. In the clickable view the browser draws
the boxes over the bare page image (core.render.fabric_drawing); the plain view draws them into the
image on the server (core.render.page_view_image). Both look the same. A click comes back as a `Click` in PDF
points with the id of the element under it (smallest box wins). With `clickable=False` it is a plain
image (cheaper; for pages that only show).

Clicks come from streamlit-drawable-canvas in "point" mode: every click adds a tiny invisible circle
to the canvas drawing; this module remembers how many it has already handled, so a click is reported
once, on the rerun right after it happened.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import streamlit as st

from core.categories import Category
from core.model import Document, Element
from core.render import (
    Box, Line, as_box, element_at, fabric_drawing, image_size, overlay_boxes, page_image_bytes,
    hover_label_boxes, page_view_image, pixels_to_points, prefetch_pages,
)
from ui import state

# The point tool places a circle whose left edge is (click x - radius - stroke/2), vertically centred
# on the click; these two numbers undo that offset exactly.
_POINT_RADIUS = 1
_POINT_STROKE = 0


@dataclass(frozen=True)
class Click:
    """Where the reviewer clicked, in PDF points of `page`, and the element under it (if any)."""
    page: int
    x: float
    y: float
    element_id: str | None


def page_view(
    doc: Document,
    page_number: int,
    *,
    zoom: float,
    key: str,
    elements: Iterable[Element] | None = None,
    visible: set[Category] | frozenset[Category] | None = None,
    selected: str | None = None,
    show_order: bool = False,
    boxes: Iterable[Box | Sequence[Any]] = (),
    lines: Iterable[Line | Sequence[Any]] = (),
    clickable: bool = True,
    labels: bool | None = None,
) -> Click | None:
    """Show page `page_number` of `doc` with overlays; return the click made since the last rerun.

    - `elements`: drawn in category colours; default the page's own elements. Pass `[]` to draw
      only `boxes`/`lines` (e.g. chunk highlights, evidence boxes, caption links).
    - `visible`: categories to draw (None = all); the `selected` element is always drawn, emphasised.
    - `boxes`, `lines`: extra `core.render.Box` / `Line` values (or `(bbox, colour, label)` /
      `(p0, p1, colour)` tuples), in PDF points, drawn on top.
    - `key`: unique per place the view appears (one per page of the app is enough).
    - Clicks are hit-tested against `elements` restricted to `visible`.
    - `labels`: category names on every element box; None follows the reviewer's "Labels" toggle
      (off by default: only the selected element is labelled, outside its box, so no text is hidden).
    """
    labels = state.labels_shown() if labels is None else labels
    page = doc.page(page_number)
    shown = tuple(page.elements if elements is None else elements)
    pdf = state.document_pdf(doc.doc_id)
    if not clickable:
        # Drawn into the image on the server (cached per view): nothing to click, so no canvas.
        st.image(page_view_image(pdf, page, zoom, elements=shown, visible=visible, selected=selected,
                                 show_order=show_order, extra_boxes=boxes, lines=lines, labels=labels),
                 width="content")
        return None
    # Clickable: the bare page is the canvas background (encoded once per page and zoom) and the
    # boxes are drawn by the browser, so a new selection or toggle only sends a little JSON.
    drawn = [*overlay_boxes(shown, visible=visible, selected=selected, show_order=show_order, labels=labels),
             *(as_box(b) for b in boxes)]
    width, height = image_size(page.width, page.height, zoom)
    drawing = fabric_drawing(drawn, lines, zoom=zoom, size=(width, height))
    background = page_image_bytes(pdf, page, zoom)
    # The next page (and the one before) are made while the reviewer looks at this one: a page
    # turn then costs the cached image, not a MuPDF render of a heavy page.
    prefetch_pages(pdf, [doc.page(n) for n in (page_number + 1, page_number - 1) if 1 <= n <= doc.page_count], zoom)
    click = _clickable_image(background, drawing, width, height, doc.doc_id, page_number, zoom, shown, visible, key)
    if shown and not labels:  # with every label on there is nothing to add on hover
        from ui.column_width import hover_labels

        hover_labels(key, hover_label_boxes(shown, zoom, (width, height), visible))
    return click


def _clickable_image(
    background: bytes, drawing: dict, width: int, height: int, doc_id: str, page_number: int,
    zoom: float, elements: Sequence[Element], visible, key: str,
) -> Click | None:
    from streamlit_drawable_canvas import st_canvas  # imported late: it registers a component

    # A new canvas per (document, page, zoom): its click list starts empty and its size is right.
    canvas_key = f"{key}:canvas:{doc_id}:{page_number}:{zoom}"
    result = st_canvas(
        background_image=background, initial_drawing=drawing, width=width, height=height, drawing_mode="point",
        point_display_radius=_POINT_RADIUS, stroke_width=_POINT_STROKE,
        stroke_color="rgba(0,0,0,0)", fill_color="rgba(0,0,0,0)",
        update_streamlit=True, key=canvas_key,
    )
    objects = (result.json_data or {}).get("objects") or []
    points = [o for o in objects if o.get("type") in ("Circle", "circle")]
    # Clicks are counted per drawing: new overlays (a toggle, a mode switch) make the canvas start
    # again from no points, while the value Streamlit still holds is the old drawing's. Counting
    # across drawings dropped the first click after every change (the value box became the key).
    seen_key = f"{canvas_key}:seen"
    drawing_id = drawing_signature(objects)
    seen_drawing, seen = st.session_state.get(seen_key, (None, 0))
    if seen_drawing != drawing_id:
        seen = 0
    st.session_state[seen_key] = (drawing_id, len(points))
    if len(points) <= seen:  # nothing new (the toolbar's undo/reset also clear points)
        return None
    x_px, y_px = click_position(points[-1])
    x, y = pixels_to_points(x_px, zoom), pixels_to_points(y_px, zoom)
    hit = element_at(elements, x, y, visible=visible, tolerance=2.0)
    return Click(page=page_number, x=x, y=y, element_id=hit.id if hit else None)


def drawing_signature(objects: Sequence[dict[str, Any]]) -> int:
    """Which drawing a canvas value was made from: its overlay shapes (everything but click points)."""
    return hash(tuple((o.get("type"), round(float(o.get("left", 0))), round(float(o.get("top", 0))),
                       o.get("stroke"), o.get("text")) for o in objects if o.get("type") not in ("Circle", "circle")))


def click_position(circle: dict[str, Any]) -> tuple[float, float]:
    """Canvas pixels of a click from the circle the point tool drew for it."""
    radius = float(circle.get("radius", _POINT_RADIUS))
    stroke = float(circle.get("strokeWidth", _POINT_STROKE) or 0)
    left, top = float(circle.get("left", 0)), float(circle.get("top", 0))
    origin_x, origin_y = circle.get("originX", "left"), circle.get("originY", "center")
    diameter = 2 * radius + stroke
    x = left + {"left": diameter / 2, "center": 0.0, "right": -diameter / 2}.get(origin_x, diameter / 2)
    y = top + {"top": diameter / 2, "center": 0.0, "bottom": -diameter / 2}.get(origin_y, 0.0)
    return x, y
