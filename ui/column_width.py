"""The width of the column a page image goes in, as the reviewer's browser lays it out.

    measure_column("inspect")          # inside the column, before the page image
    zoom = state.zoom(page, view="inspect")

A component of our own (ui/frontend/column_width/index.html, no height) reports its iframe's width,
which is its column's, when it loads and after every resize; each new width reruns the script, and
"fit width" then draws the page that wide. Until the first report (a new session, or tests without
a browser) `state.zoom` falls back to a laptop-sized guess.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

from ui import state

_FRONTEND = Path(__file__).resolve().parent / "frontend" / "column_width"
_component = components.declare_component("rli_column_width", path=str(_FRONTEND))


def measure_column(view: str) -> int | None:
    """Ask the browser for this column's width (in CSS pixels); returns the latest known width."""
    known = state.column_width(view)
    # `known` goes to the browser so that a component created again (back on this page) does not
    # rerun the script just to say the same width.
    value = _component(known=known, key=f"rli:column_width_widget:{view}", default=None)
    if isinstance(value, (int, float)) and value > 0 and int(value) != known:
        state.set_column_width(view, int(value))
    return state.column_width(view)


def page_events_key(view: str) -> str:
    """The session-state key holding the latest click `page_events(view, …)` reported."""
    return f"rli:page_events:{view}"


def page_events(view: str, hover, click: dict) -> None:
    """After a page image, a frame of the same component listens on the column for the canvas before
    it: it names the element under the mouse (`hover`: core.render.hover_label_boxes, a chip outside
    the box) and reports each click at once as {id, x, y (canvas pixels), zoom, page, doc}, taken from
    `click` (zoom, page, doc and the canvas width). ui.page_view.take_click reads it."""
    _component(hover=hover, click=click, key=page_events_key(view), default=None)
