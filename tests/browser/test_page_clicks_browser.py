"""In Chromium: clicks on the page image land however fast they come, overlays stay on the page while
a Forms check box toggles, hovering a box names it outside the box, and "fit width" follows a window
resize (issue 18, items 1, 2 and 5)."""
from __future__ import annotations

import pytest

from core.categories import Category
from core.forms.fields import extract_fields
from core.render import element_at
from core.geometry import center
from core.store.opening import open_workspace

from tests.browser.steps import (
    KEIHI, PAGE_LAYERS, STEP_TIMEOUT_MS, first_visit, latest_page_image, new_page, record_page_images, sample, settle,
    stable_canvas,
)

pytestmark = pytest.mark.browser

FORM = "shinseisho_form.pdf"
# Overlay pixels (sampled) and a checksum of their colours, on every animation frame from now until
# `ms` later: the smallest count is the worst moment the reviewer saw. An overlay pixel is one the
# canvas has painted (both its layers, as seen) in another colour than the bare page image `bare` (a
# data: URL, tests.browser.steps.latest_page_image) has there: a blank canvas, or the page without
# its boxes, counts none.
WATCH_OVERLAYS = """({ms, bare}) => new Promise(done => {
  const layers = LAYERS;
  const image = new Image();
  image.onload = () => {
    const mix = document.createElement('canvas'), page = document.createElement('canvas');
    const mixCtx = mix.getContext('2d', {willReadFrequently: true}), pageCtx = page.getContext('2d');
    let pageData = null;
    const painted = () => { const ls = layers(); if (!ls.length) return [0, 0];
      const [w, h] = [ls[0].width, ls[0].height];
      if (!pageData || page.width !== w || page.height !== h) {
        page.width = w; page.height = h; pageCtx.drawImage(image, 0, 0, w, h);
        pageData = pageCtx.getImageData(0, 0, w, h).data; }
      mix.width = w; mix.height = h;
      for (const c of ls) mixCtx.drawImage(c, 0, 0);
      const d = mixCtx.getImageData(0, 0, w, h).data; let n = 0, colour = 0;
      for (let i = 0; i < d.length; i += 4 * 7)
        if (d[i + 3] === 255 && (Math.abs(d[i] - pageData[i]) > 24 || Math.abs(d[i + 1] - pageData[i + 1]) > 24
            || Math.abs(d[i + 2] - pageData[i + 2]) > 24)) { n++; colour = (colour * 31 + d[i] + d[i + 1] * 7) % 1000003; }
      return [n, colour]; };
    const counts = [], end = performance.now() + ms;
    const tick = () => { counts.push(painted()); performance.now() < end ? requestAnimationFrame(tick) : done(counts); };
    window.__rliOverlayCounts = counts; tick();
  };
  image.src = bare;
})""".replace("LAYERS", PAGE_LAYERS)


def page_point(canvas, bbox, page_width: float, where=None) -> tuple[float, float]:
    """Viewport pixels of a point of `bbox` (PDF points; its centre by default) on the canvas, with
    the point scrolled into view and the mouse on it (the page is taller than the window)."""
    scale = canvas.bounding_box()["width"] / page_width
    x, y = where or center(bbox)
    canvas.hover(position={"x": x * scale, "y": y * scale})
    box = canvas.bounding_box()
    return box["x"] + x * scale, box["y"] + y * scale


def selectbox_shows(page, text: str, timeout_ms: int = 15_000) -> bool:
    script = """t => [...document.querySelectorAll("[data-testid='stSelectbox']")].some(
        b => b.textContent.includes(t) || [...b.querySelectorAll('input')].some(i => (i.value || '').includes(t)))"""
    for _ in range(timeout_ms // 250):
        if page.evaluate(script, text):
            return True
        page.wait_for_timeout(250)
    return False


def sign_in(page, name: str = "tester") -> None:
    box = page.get_by_label("Reviewer", exact=True)
    box.fill(name)
    box.press("Enter")
    settle(page)


# ---- item 5: Forms clicks that land ---------------------------------------------------------------
def test_a_key_and_its_value_clicked_faster_than_a_rerun_both_count(app_server, chromium):
    """Right after the switch to pairing, the key and then its value, 100 ms apart. The canvas used
    to report only its latest point after 200 ms, so the first click was lost and the value box
    became the key (what the issue saw)."""
    from ui.edit_panel import element_label

    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server)
        doc_id, doc = sample(app_server, FORM)
        field = next(f for f in extract_fields(doc) if f.key == "氏名")
        key, value = doc.element(field.key_ref), doc.element(field.value_ref)
        width = doc.page(key.page).width
        page.goto(f"{app_server.url}/forms?doc={doc_id}")
        canvas = stable_canvas(page)
        settle(page, 1000)
        key_at, value_at = page_point(canvas, key.bbox, width), page_point(canvas, value.bbox, width)
        page.get_by_text("Pair key → value").click()  # no waiting for its rerun
        page.mouse.click(*key_at)
        page.wait_for_timeout(100)
        page.mouse.click(*value_at)
        under = element_at(doc.page(key.page).elements, *center(value.bbox), tolerance=2.0)  # the smallest box there
        assert selectbox_shows(page, element_label(key)), "the key click was lost"
        assert selectbox_shows(page, element_label(under)), "the value click was lost"
        settle(page)
        assert page.get_by_role("button", name="Pair", exact=True).is_enabled()
    finally:
        context.close()


def test_overlays_stay_on_the_page_while_a_check_box_toggles(app_server, chromium):
    """A toggle redraws the overlays in the check box's new colour; at no moment in between is the
    page without them (the issue saw them vanish for seconds)."""
    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server)
        doc_id, doc = sample(app_server, FORM)
        box = next(f for f in extract_fields(doc) if f.is_selection and f.key == "会議費")
        images = record_page_images(page)
        page.goto(f"{app_server.url}/forms?doc={doc_id}")
        canvas = stable_canvas(page)
        sign_in(page)
        canvas = stable_canvas(page)
        bare = latest_page_image(images)
        start = page.evaluate(WATCH_OVERLAYS, {"ms": 300, "bare": bare})
        before, colours_before = min(n for n, *_ in start), start[-1][1]
        assert before > 100, "no overlays drawn before the toggle"
        at = page_point(canvas, box.value_bbox, doc.page(box.page).width)
        page.evaluate(f"a => {{ window.__rliWatch = ({WATCH_OVERLAYS})(a); }}", {"ms": 6000, "bare": bare})  # for 6 s
        page.mouse.click(*at)
        counts = page.evaluate("() => window.__rliWatch")
        settle(page)
        _, after = sample(app_server, FORM)
        toggled = next(f for f in extract_fields(after) if f.key == "会議費")
        assert toggled.selection_state == "selected", "the toggle was not saved"
        worst = min(n for n, *_ in counts)
        assert worst > 0.5 * before, f"overlays vanished: {worst} of {before} painted pixels at the worst moment"
        assert page.evaluate(WATCH_OVERLAYS, {"ms": 100, "bare": bare})[-1][1] != colours_before, \
            "the overlays were not redrawn in the new colour"
    finally:
        context.close()


# ---- item 2: labels on hover ----------------------------------------------------------------------
def test_hovering_a_box_names_it_outside_the_box(app_server, chromium):
    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server)
        doc_id, doc = sample(app_server, KEIHI)
        page.goto(f"{app_server.url}/?doc={doc_id}&page=1")
        canvas = stable_canvas(page)
        settle(page, 1000)
        width = doc.page(1).width
        target = max((e for e in doc.page(1).elements if e.category is not Category.DECORATIVE and e.text.strip()),
                     key=lambda e: (e.bbox[2] - e.bbox[0]) * (e.bbox[3] - e.bbox[1]))
        x, y = page_point(canvas, target.bbox, width, (target.bbox[0] + 4, center(target.bbox)[1]))
        page.mouse.move(x + 3, y, steps=3)
        chip = page.locator(".rli-hover-label")
        chip.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
        assert chip.inner_text().strip() == target.category.value
        label, on_screen = chip.bounding_box(), canvas.bounding_box()
        scale = on_screen["width"] / width
        x0, y0, x1, y1 = (on_screen["x"] + target.bbox[0] * scale, on_screen["y"] + target.bbox[1] * scale,
                          on_screen["x"] + target.bbox[2] * scale, on_screen["y"] + target.bbox[3] * scale)
        inside = label["x"] < x1 and label["x"] + label["width"] > x0 and label["y"] < y1 and label["y"] + label["height"] > y0
        assert not inside, f"the label {label} covers the box {(x0, y0, x1, y1)}"
        page.mouse.move(2, 2)  # off the page: the label goes
        chip.wait_for(state="hidden", timeout=STEP_TIMEOUT_MS)
    finally:
        context.close()


# ---- item 1: fit width follows a resize -----------------------------------------------------------
def test_fit_width_follows_a_window_resize(app_server, chromium):
    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server)
        doc_id, doc = sample(app_server, KEIHI)
        page.goto(f"{app_server.url}/?doc={doc_id}&page=1")
        narrow = stable_canvas(page).bounding_box()["width"]
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.wait_for_timeout(1000)
        canvas = stable_canvas(page)
        wide = canvas.bounding_box()["width"]
        column = canvas.evaluate("c => c.getRootNode().host.closest('[data-testid=\"stColumn\"]').getBoundingClientRect().width")
        assert wide > narrow + 200, f"the page stayed {narrow:.0f} px wide after the window grew ({wide:.0f} px)"
        assert column - 40 <= wide <= column, f"page {wide:.0f} px in a {column:.0f}-px column"
    finally:
        context.close()


# ---- icons: Streamlit's own icon font, never an emoji the machine may lack ------------------------
def test_the_evaluate_link_to_the_gold_set_draws_its_icon_from_the_icon_font(app_server, chromium):
    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server, "evaluate")
        link = page.locator("[data-testid='stPageLink']").filter(has_text="Go to Gold set").first
        link.wait_for(timeout=STEP_TIMEOUT_MS)
        assert link.locator("[data-testid='stIconEmoji']").count() == 0  # ⭐ was a box without an emoji font
        assert link.locator("[data-testid='stIconMaterial']").inner_text().strip() == "star"
    finally:
        context.close()


# ---- item 6: reading order by dragging a row ---------------------------------------------------------
def test_dragging_a_row_of_the_reading_order_moves_the_element_and_logs_a_reorder(app_server, chromium):
    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server)
        doc_id, doc = sample(app_server, KEIHI)
        elements = sorted(doc.page(1).elements, key=lambda e: e.seq)
        moved, onto = elements[3], elements[0]
        page.goto(f"{app_server.url}/?doc={doc_id}&page=1")
        stable_canvas(page)
        sign_in(page)
        page.get_by_text("Reading order · drag a row").click()
        rows = page.frame_locator("iframe[title*='rli_reading_order']")
        # draggable only once the rerun after sign_in has reached the frame: a drag before that
        # starts nothing (CI at stop 36 dragged a row still rendered for no reviewer)
        source = rows.locator(f".row[data-id='{moved.id}'][draggable='true']")
        source.wait_for(timeout=STEP_TIMEOUT_MS)
        target = rows.locator(f".row[data-id='{onto.id}']")
        source.drag_to(target, target_position={"x": 40, "y": 4})  # the upper half: before it
        page.get_by_text("Moved").first.wait_for(timeout=STEP_TIMEOUT_MS)
        settle(page)
        ws = open_workspace(app_server.workspace)
        try:
            events = [e for e in ws.events(doc_id) if e.payload.get("kind") == "reorder"]
        finally:
            ws.close()
        assert events, "no reorder event in the log"
        assert (events[-1].payload["target"], events[-1].payload.get("before")) == (moved.id, onto.id)
        _, after = sample(app_server, KEIHI)
        assert sorted(after.page(1).elements, key=lambda e: e.seq)[0].id == moved.id
        assert rows.locator(".row").first.get_attribute("data-id") == moved.id  # the list shows the new order
    finally:
        context.close()


# ---- item 4: a page turn reuses the page canvas and the frames -------------------------------------
PAGE_PIXELS = f"""() => {{ let dark = 0, sum = 0;
  for (const c of ({PAGE_LAYERS})()) {{ const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < d.length; i += 4 * 101) {{ if (d[i + 3] > 0 && d[i] < 200) dark++; sum = (sum * 31 + d[i]) % 1000003; }} }}
  return dark > 20 ? sum : null; }}"""
MARK_CANVAS_AND_FRAMES = """() => { window.__rliCanvas = [...document.querySelectorAll('*')].map(e => e.shadowRoot)
    .filter(Boolean).map(r => r.querySelector('canvas.dc-background-canvas')).find(c => c && c.width);
  const frames = [...document.querySelectorAll('iframe')]; frames.forEach(f => { f.contentWindow.__rliMark = 1; });
  return frames.length; }"""
STILL_MARKED = """() => [[...document.querySelectorAll('*')].map(e => e.shadowRoot).filter(Boolean)
    .map(r => r.querySelector('canvas.dc-background-canvas')).find(c => c && c.width) === window.__rliCanvas,
  [...document.querySelectorAll('iframe')].filter(f => !f.contentWindow.__rliMark).map(f => f.title)]"""


def test_a_page_turn_draws_the_new_page_on_the_same_canvas_and_reloads_no_frame(app_server, chromium):
    """A page turn used to make a new canvas (three page-sized canvases set up again) and reload the
    reading-order frame: most of a turn's browser time at 1920 px (bench/browser.py)."""
    context, page = new_page(chromium, 1920, 1080)
    try:
        first_visit(page, app_server)
        doc_id, doc = sample(app_server, KEIHI)
        images = record_page_images(page)
        page.goto(f"{app_server.url}/?doc={doc_id}&page=1")
        stable_canvas(page)
        settle(page, 1000)
        before = page.evaluate(PAGE_PIXELS)
        overlays_before = page.evaluate(WATCH_OVERLAYS, {"ms": 100, "bare": latest_page_image(images)})[-1]
        assert before is not None and page.evaluate(MARK_CANVAS_AND_FRAMES) >= 2  # page events, reading order
        page.get_by_role("button", name="Next ▶").click()
        page.get_by_text(f"page 2 of {doc.page_count}").first.wait_for(timeout=STEP_TIMEOUT_MS)
        settle(page, 1000)
        for _ in range(80):
            if page.evaluate(PAGE_PIXELS) not in (None, before):
                break
            page.wait_for_timeout(250)
        assert page.evaluate(PAGE_PIXELS) not in (None, before), "page 2 was not drawn"
        overlays = page.evaluate(WATCH_OVERLAYS, {"ms": 100, "bare": latest_page_image(images)})[-1]
        assert overlays[0] > 0 and overlays[1] != overlays_before[1], "the boxes of page 2 were not drawn"
        same_canvas, reloaded = page.evaluate(STILL_MARKED)
        assert same_canvas, "the page turn made a new canvas"
        assert reloaded == [], f"the page turn reloaded frames: {reloaded}"
    finally:
        context.close()
