"""In Chromium: a first visit shows a sample document on Inspect, overlaid in category colours, and a
click on an element selects it."""
from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image

from core.categories import Category
from core.review.corrections import corrected_document
from core.store.opening import open_workspace

from tests.browser.steps import FIRST_VISIT_TIMEOUT_MS, PAGE_DRAWN

pytestmark = pytest.mark.browser

CANVAS = "canvas.dc-background-canvas"  # streamlit-drawable-canvas's bottom layer: where the page is, and its size
VIEW = "div.dc-container"  # the page image with the overlay canvas (category boxes) on top


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def pixels_near(image: Image.Image, colour: str, tolerance: int = 12) -> int:
    pixels = np.asarray(image.convert("RGB"), dtype=np.int16)
    return int((np.abs(pixels - np.array(hex_rgb(colour), dtype=np.int16)) <= tolerance).all(axis=2).sum())


def first_sample(app_server):
    ws = open_workspace(app_server.workspace)
    try:
        record = ws.documents()[0]
        return corrected_document(ws, record.doc_id)
    finally:
        ws.close()


def settled_screenshot(page, attempts: int = 5) -> bytes:
    """The page view's pixels. Fit width redraws the view once the browser has reported the column's
    real width, so the first view can be replaced while it is being shot: take the new one."""
    for attempt in range(attempts):
        try:
            return page.locator(VIEW).first.screenshot(timeout=10_000)
        except Exception:
            if attempt == attempts - 1:
                raise
            page.wait_for_timeout(1_000)
    raise AssertionError("unreachable")


def open_inspect(page, app_server):
    page.goto(app_server.url)
    canvas = page.locator(CANVAS).first
    canvas.wait_for(state="visible", timeout=FIRST_VISIT_TIMEOUT_MS)
    page.wait_for_function(PAGE_DRAWN, timeout=30_000)  # the page image is drawn once it has loaded
    return canvas


def test_first_visit_shows_the_sample_document_on_inspect_with_category_overlays(app_server, browser_page):
    canvas = open_inspect(browser_page, app_server)
    doc = first_sample(app_server)
    assert browser_page.get_by_text(f"page 1 of {doc.page_count}", exact=False).first.is_visible()

    box = canvas.bounding_box()
    page_one = doc.page(1)
    assert box["width"] > 400 and box["height"] > 400
    assert box["height"] / box["width"] == pytest.approx(page_one.height / page_one.width, rel=0.02)

    shot = Image.open(io.BytesIO(settled_screenshot(browser_page))).convert("RGB")
    # Grey categories (headers, footers, decorative) could match anti-aliased text; count chromatic ones.
    drawn = {e.category for e in page_one.elements if max(hex_rgb(e.category.colour)) - min(hex_rgb(e.category.colour)) > 60}
    coloured = {c for c in drawn if pixels_near(shot, c.colour) >= 40}
    assert len(coloured) >= min(2, len(drawn)), f"categories on page 1: {sorted(drawn)}, seen: {sorted(coloured)}"


def test_clicking_an_element_on_the_page_selects_it_and_shows_its_text(app_server, browser_page):
    canvas = open_inspect(browser_page, app_server)
    doc = first_sample(app_server)
    page_one = doc.page(1)
    # A text-bearing element not covered by a smaller one, so the click can only mean it.
    target = max((e for e in page_one.elements if e.text.strip() and e.category != Category.DECORATIVE),
                 key=lambda e: (e.bbox[2] - e.bbox[0]) * (e.bbox[3] - e.bbox[1]))
    box = canvas.bounding_box()
    scale = box["width"] / page_one.width
    x = (target.bbox[0] + target.bbox[2]) / 2
    y = target.bbox[1] + min(8.0, (target.bbox[3] - target.bbox[1]) / 2)
    browser_page.mouse.click(box["x"] + x * scale, box["y"] + y * scale)

    first_line = target.text.strip().splitlines()[0][:20]
    code = browser_page.locator("[data-testid='stCode']").filter(has_text=first_line).first
    code.wait_for(timeout=20_000)  # the details panel shows the selected element's text
    heading = browser_page.locator("[data-testid='stMarkdownContainer']").filter(has_text=re.compile(r"· reading order \d+")).first
    assert f"{target.category.label_ja} · {target.category.value}" in heading.inner_text()
