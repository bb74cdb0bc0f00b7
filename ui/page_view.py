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

Clicks: the canvas (streamlit-drawable-canvas) only shows the page, read-only. A small frame of our
own after it (ui.column_width.page_events) reports each click at once with an id, in canvas pixels
at the zoom it was drawn at; `take_click` turns the newest unseen one into a `Click`. A page that
wants the click's effect drawn in the same run (Inspect's highlight) calls `take_click` before
`page_view`; otherwise `page_view` takes it and returns it.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Iterable, Sequence
from urllib.parse import urlsplit

import streamlit as st

from core.categories import Category
from core.model import Document, Element
from core.render import (
    Box, Line, as_box, element_at, image_size, interactive_view, overlay_boxes,
    hover_label_boxes, page_view_image, pixels_to_points, prefetch_pages, with_page_image,
)
from ui import state
from ui.column_width import page_events, page_events_key
from ui.text import md_escape
from ui.trace import trace


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
    background, drawing = interactive_view(pdf, page, zoom, drawn, lines, size=(width, height))
    # The next page (and the one before) are made while the reviewer looks at this one: a page
    # turn then costs the cached image, not a MuPDF render of a heavy page.
    prefetch_pages(pdf, [doc.page(n) for n in (page_number + 1, page_number - 1) if 1 <= n <= doc.page_count], zoom)
    click = take_click(doc, page_number, key=key, elements=shown, visible=visible)
    _page_canvas(with_page_image(drawing, served_image(background, key), (width, height)),
                 width, height, f"{key}:canvas")
    hover = hover_label_boxes(shown, zoom, (width, height), visible) if shown and not labels else []
    page_events(key, hover, {"zoom": zoom, "page": page_number, "doc": doc.doc_id, "width": width})
    return click


def take_clicks(
    doc: Document, page_number: int, *, key: str, elements: Iterable[Element] | None = None,
    visible: set[Category] | frozenset[Category] | None = None,
) -> list[Click]:
    """The clicks made on `key`'s page view since the last call, oldest first (none made on another
    page or document), each hit-tested against `elements` (default: the page's) within `visible`.

    Each click is reported once, however many reruns follow, and its pixels are converted with the
    zoom the page was drawn at when it was clicked."""
    value = st.session_state.get(page_events_key(key))
    if not isinstance(value, dict) or not isinstance(value.get("clicks"), list):
        return []
    seen_key = f"{page_events_key(key)}:seen"
    instance, seen = st.session_state.get(seen_key, (None, 0))
    if value.get("instance") != instance:
        seen = 0  # a new frame (the page was drawn afresh): its clicks are all new
    fresh = [c for c in value["clicks"] if isinstance(c, dict) and isinstance(c.get("seq"), int) and c["seq"] > seen]
    st.session_state[seen_key] = (value.get("instance"), max([seen, *(c["seq"] for c in fresh)]))
    shown = doc.page(page_number).elements if elements is None else tuple(elements)
    clicks = [click for c in fresh if (click := _as_click(c, doc, page_number, shown, visible)) is not None]
    if fresh:
        trace("clicks", view=key, instance=value.get("instance"), seqs=[c["seq"] for c in fresh],
              hits=[c.element_id for c in clicks])
    return clicks


def take_click(doc: Document, page_number: int, **where) -> Click | None:
    """The latest click since the last call (`take_clicks`' arguments): for views where only the
    reviewer's last choice matters, such as selecting an element."""
    clicks = take_clicks(doc, page_number, **where)
    return clicks[-1] if clicks else None


def _as_click(value: dict, doc: Document, page_number: int, elements, visible) -> Click | None:
    if value.get("doc") != doc.doc_id or value.get("page") != page_number:
        return None  # made on a page no longer shown
    try:
        zoom = float(value["zoom"])
        x, y = pixels_to_points(float(value["x"]), zoom), pixels_to_points(float(value["y"]), zoom)
    except (KeyError, TypeError, ValueError):
        return None  # not one of our frame's reports
    hit = element_at(elements, x, y, visible=visible, tolerance=2.0)
    return Click(page=page_number, x=x, y=y, element_id=hit.id if hit else None)


def served_image(data: bytes, slot: str) -> str:
    """The page image as a URL for the canvas drawing: one the app serves (Streamlit's media files,
    as st.image uses), so each rerun sends the canvas a short URL instead of the image itself: a
    click that moves the highlight used to send the whole page again (260 KB of base64 at 1400 px),
    and the browser decodes a URL it has seen once from its cache. `slot` names the place, so the
    previous image is freed. Without a running server (AppTest) the bytes as a data: URL."""
    from streamlit import runtime

    url = st.context.url if runtime.exists() else None
    if not url:
        kind = "png" if data.startswith(b"\x89PNG") else "jpeg"
        return f"data:image/{kind};base64,{base64.b64encode(data).decode('ascii')}"
    parts = urlsplit(url)
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    path = runtime.get_instance().media_file_mgr.add(data, "image/jpeg", f"rli-page-image:{slot}")
    return f"{parts.scheme}://{parts.netloc}/{base + '/' if base else ''}{path.lstrip('/')}"


def _page_canvas(drawing: dict, width: int, height: int, canvas_key: str) -> None:
    from streamlit_drawable_canvas import st_canvas  # imported late: it registers a component

    # Read-only and silent: it never sends its drawing back, so a click costs no 200-ms wait, no
    # 35-KB upload and no extra run, and a new drawing cannot wipe a click (ui.column_width reports it).
    # One canvas per view, kept across page turns and zooms: it takes a new size, background and
    # drawing in place (streamlit-drawable-canvas 0.13), where a new one per page cost each turn
    # the set-up of three page-sized canvases (bench/browser.py, most felt at 1920 px).
    # The page image is in the drawing (core.render.with_page_image), not a `background_image`: the
    # canvas then shows a new page's image and boxes in the same frame (see there).
    st_canvas(initial_drawing=drawing, width=width, height=height,
              drawing_mode="point", update_streamlit=False, disabled=True, key=canvas_key)


def page_turner(doc: Document, number: int, key: str) -> None:
    """◀ · file and page · ▶ in one row: the compact page navigation of the Forms and Links pages."""
    prev_col, label_col, next_col = st.columns([1, 3, 1], vertical_alignment="center")
    prev_col.button("◀", key=f"rli:{key}:prev", disabled=number <= 1, on_click=state.set_page, args=(number - 1, doc))
    label_col.markdown(f"**{md_escape(doc.source)}** · page {number} of {doc.page_count}")
    next_col.button("▶", key=f"rli:{key}:next", disabled=number >= doc.page_count,
                    on_click=state.set_page, args=(number + 1, doc))
