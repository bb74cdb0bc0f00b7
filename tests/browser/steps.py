"""Steps the browser tests share: open the app on its first visit, wait for a Streamlit run to
finish, and read a sample document as the workspace holds it after its corrections."""
from __future__ import annotations

import base64
import re

from core.review.corrections import corrected_document
from core.store.opening import open_workspace

FIRST_VISIT_TIMEOUT_MS = 120_000  # the first visit ingests the sample documents
STEP_TIMEOUT_MS = 30_000
KEIHI = "keihi_seisan_kitei.pdf"


def sample(app_server, source: str = KEIHI):
    """(doc_id, corrected document) of the sample ingested from `source`."""
    ws = open_workspace(app_server.workspace)
    try:
        record = next(r for r in ws.documents() if r.source == source)
        return record.doc_id, corrected_document(ws, record.doc_id)
    finally:
        ws.close()


def new_page(chromium, width: int, height: int):
    context = chromium.new_context(viewport={"width": width, "height": height})
    return context, context.new_page()


def settle(page, extra_ms: int = 500, max_wait_ms: int = 40_000) -> None:
    """Wait until Streamlit's run has finished (its status widget says "Running" meanwhile)."""
    page.wait_for_timeout(250)
    for _ in range(max_wait_ms // 250):
        if page.locator('[data-testid="stStatusWidget"]').filter(has_text="Running").count() == 0:
            break
        page.wait_for_timeout(250)
    page.wait_for_timeout(extra_ms)


def first_visit(page, app_server, path: str = "") -> None:
    """Open the app (the module's first visit ingests the samples) at `path`."""
    page.goto(f"{app_server.url}/{path}")
    page.locator("[data-testid='stSidebarNav']").wait_for(timeout=FIRST_VISIT_TIMEOUT_MS)
    page.get_by_text("First visit: reading").first.wait_for(state="detached", timeout=FIRST_VISIT_TIMEOUT_MS)
    page.get_by_label("Document", exact=True).first.wait_for(timeout=FIRST_VISIT_TIMEOUT_MS)
    settle(page)


def stable_canvas(page, quiet_ms: int = 1500):
    """The page canvas once its size has stopped changing (the first run draws at a guessed width,
    the next at the column's measured width)."""
    canvas = page.locator("canvas.upper-canvas").first
    last, since = None, 0
    for _ in range(200):
        canvas.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
        box = canvas.bounding_box()
        size = (round(box["width"]), round(box["height"])) if box else None
        since = since + 250 if size == last else 0
        last = size
        if since >= quiet_ms:
            break
        page.wait_for_timeout(250)
    return canvas


# The page canvas (streamlit-drawable-canvas, in its component's shadow root) has two layers: its
# background canvas, and the drawing canvas (Fabric's lower canvas) over it. The page image is in
# the drawing (core.render.with_page_image), so it is drawn on the drawing canvas with its boxes;
# scripts that look for the page look at both layers, as the reviewer sees them.
PAGE_LAYERS = """() => { const root = [...document.querySelectorAll('*')].map(e => e.shadowRoot).filter(Boolean)
    .find(r => r.querySelector('div.dc-container canvas.lower-canvas'));
  return root ? [...root.querySelectorAll('div.dc-container canvas')].filter(c => c.width &&
    (c.classList.contains('dc-background-canvas') || c.classList.contains('lower-canvas'))) : []; }"""
# True once the page image is drawn: dark pixels (text) on either layer.
PAGE_DRAWN = f"""() => ({PAGE_LAYERS})().some(c => {{ const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  for (let i = 0; i < d.length; i += 4 * 97) if (d[i + 3] > 0 && d[i] < 200) return true; return false; }})"""
MEDIA_JPEG = re.compile(r"/media/[^/?]+\.jpe?g")


def record_page_images(page) -> list:
    """From now on, the page images the browser receives (Streamlit media JPEGs), oldest first."""
    responses: list = []
    page.on("response", lambda r: responses.append(r) if MEDIA_JPEG.search(r.url) else None)
    return responses


def latest_page_image(responses) -> str:
    """The newest page image received, as a data: URL (the bare page, before any box is drawn)."""
    assert responses, "no page image came from the server"
    return "data:image/jpeg;base64," + base64.b64encode(responses[-1].body()).decode("ascii")


def logged_events(workspace, doc_id: str) -> int:
    ws = open_workspace(workspace)
    try:
        return len(ws.events(doc_id))
    finally:
        ws.close()


def click_until_logged(page, button, workspace, doc_id: str, shown: str, attempts: int = 3) -> None:
    """Click `button` as a reviewer would until the document's event log holds one more event and
    `shown` is on the page. On a loaded 2-core machine Streamlit can drop a click that lands while a
    rerun another widget asked for is starting (the reviewer sees nothing happen and clicks again);
    the log is read before each retry, so a click the app stored is never repeated, and two stores
    for one intent fail the test."""
    before = logged_events(workspace, doc_id)
    for _ in range(attempts):
        button.click()
        if wait_for_count(workspace, doc_id, before + 1, page, timeout_ms=15_000):
            break
        settle(page)
    else:
        raise AssertionError(f"{attempts} clicks on {button} stored no event")
    page.get_by_text(shown, exact=False).first.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
    page.wait_for_timeout(500)  # a second store would show up here, and the rerun's widgets are drawn
    assert logged_events(workspace, doc_id) == before + 1, "one click, one event"


def click_until_visible(page, click, shown, attempts: int = 3, timeout_ms: int = 15_000) -> None:
    """Make `click` (a click that stores nothing: a selection on the page canvas) until the locator
    `shown` is visible. Streamlit can drop a click that lands while a rerun is starting (see
    click_until_logged); a selection made twice selects the same element, so repeating it is harmless."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # as conftest: only where a browser runs

    for _ in range(attempts):
        click()
        try:
            shown.wait_for(state="visible", timeout=timeout_ms)
            return
        except PlaywrightTimeout:  # the app settles, and the reviewer clicks again
            settle(page)
    raise AssertionError(f"{attempts} clicks never showed {shown}")


def wait_for_count(workspace, doc_id: str, count: int, page, timeout_ms: int) -> bool:
    for _ in range(timeout_ms // 250):
        if logged_events(workspace, doc_id) >= count:
            return True
        page.wait_for_timeout(250)
    return logged_events(workspace, doc_id) >= count
