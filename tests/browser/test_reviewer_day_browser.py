"""In Chromium at the window sizes reviewers use (1400×900, 1920×1080): the page fills its column and
follows a resize, labels sit outside the boxes without overlapping, upload feedback shows at the
top, the audit reads as text, the Gold set editor fits at 1400 px and confirms a save, and a Forms
click after a mode switch lands (issue 18)."""
from __future__ import annotations

import re

import pymupdf
import pytest

from core.categories import Category
from core.review.corrections import record_events
from core.store.opening import open_workspace

from tests.browser.steps import (
    STEP_TIMEOUT_MS, click_until_visible, first_visit, new_page, sample, settle, stable_canvas,
)

pytestmark = pytest.mark.browser

CANVAS = "canvas.dc-background-canvas"


def in_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and 0 <= box["y"] and box["y"] + min(box["height"], 40) <= height


def grid_text(page) -> str:
    """What the first st.dataframe holds: its grid is a canvas, with the cells also in an
    accessible table that Chromium keeps in the DOM."""
    grid = page.locator("[data-testid='stDataFrame']").first
    grid.wait_for(timeout=STEP_TIMEOUT_MS)
    return grid.locator("table").first.text_content() or ""


# ---- item 7: a readable audit ---------------------------------------------------------------------
def test_the_audit_names_elements_by_page_and_text_and_shows_ids_only_in_the_details(app_server, chromium):
    context, page = new_page(chromium, 1400, 900)
    first_visit(page, app_server)
    doc_id, doc = sample(app_server)
    page_two = doc.page(2)
    heading = next(e for e in page_two.elements if e.text.startswith("第1条"))
    ws = open_workspace(app_server.workspace)
    try:
        record_events(ws, doc_id, [{"kind": "relabel", "target": heading.id, "category": "section_header"}], "佐藤")
    finally:
        ws.close()
    try:
        first_visit(page, app_server, f"audit?doc={doc_id}")
        text = grid_text(page)
        assert f"p2 · 「{heading.text.split()[0][:10]}" in text and "→ relabelled section_header" in text
        assert heading.id not in text  # no element ids in the list
        grid = page.locator("[data-testid='stDataFrame']").first.bounding_box()
        page.mouse.click(grid["x"] + 18, grid["y"] + 35 + 17)  # the first row's selection cell
        details = page.locator(".st-key-rli-audit-details")
        details.wait_for(timeout=STEP_TIMEOUT_MS)
        details.get_by_text(heading.id, exact=False).first.wait_for(timeout=STEP_TIMEOUT_MS)  # ids: only here
    finally:
        context.close()


# ---- item 8: Gold set at 1400 px, a confirmation after a save -----------------------------------------
def button_text_fits(button) -> bool:
    return button.evaluate("b => { const p = b.querySelector('p') || b; return p.scrollWidth <= p.clientWidth + 1; }")


def test_the_gold_editor_fits_at_1400_px_and_a_save_says_so(app_server, chromium):
    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server, "gold")
        doc_id, doc = sample(app_server)
        page.goto(f"{app_server.url}/gold?doc={doc_id}")
        canvas = page.locator(CANVAS).first
        canvas.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
        settle(page, 1000)
        page_one = doc.page(1)
        target = max((e for e in page_one.elements if e.text.strip() and e.category != Category.DECORATIVE),
                     key=lambda e: (e.bbox[2] - e.bbox[0]) * (e.bbox[3] - e.bbox[1]))
        scale = canvas.bounding_box()["width"] / page_one.width
        point = {"x": (target.bbox[0] + target.bbox[2]) / 2 * scale, "y": (target.bbox[1] + target.bbox[3]) / 2 * scale}
        show = page.get_by_role("button", name=re.compile(r"^Show p\d+$"))
        click_until_visible(page, lambda: page.locator("canvas.upper-canvas").first.click(position=point), show)
        remove = page.get_by_role("button", name=re.compile("Remove"))
        assert button_text_fits(show) and button_text_fits(remove)
        assert show.bounding_box()["width"] >= 60  # not squeezed to "S."

        question = page.get_by_role("textbox", name="Question", exact=True)
        question.fill("経費精算規程の目的は何か")
        page.get_by_role("button", name="Save item").click()
        settle(page, 1500)
        saved = page.get_by_text("Saved 「経費精算規程の目的は何か」", exact=False)
        assert saved.count() >= 1 and saved.first.is_visible()  # still there after the run that followed
    finally:
        context.close()


# ---- item 3: upload feedback at the top --------------------------------------------------------
def many_page_pdf(tmp_path, pages: int = 30):
    pdf = pymupdf.open()
    for n in range(pages):
        page = pdf.new_page(width=595, height=842)
        for line in range(20):
            page.insert_text((72, 90 + line * 30), f"第{n + 1}頁 第{line + 1}行 経費の精算について定める。",
                             fontname="japan", fontsize=11)
    path = tmp_path / "thirty_pages.pdf"
    pdf.save(path)
    return path


def test_an_upload_shows_its_progress_and_result_at_the_top_with_the_real_rate(app_server, chromium, tmp_path):
    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server, "documents")
        page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(many_page_pdf(tmp_path)))
        page.get_by_text("fast (no model)").click()
        settle(page)
        ingest = page.get_by_role("button", name="Ingest")
        assert in_viewport(page, ingest)  # the button is in view at 1400×900, not below the fold
        ingest.click()
        result = page.get_by_text(re.compile(r"Added thirty_pages\.pdf: 30 pages in \d+ s \(\d+\.\d\d pages/s\)"))
        result.first.wait_for(timeout=120_000)
        settle(page)
        assert in_viewport(page, result.first)
        uploader = page.locator("[data-testid='stFileUploader']").first
        assert result.first.bounding_box()["y"] < uploader.bounding_box()["y"]  # at the top of the page
    finally:
        context.close()


# ---- item 5: Forms clicks that land, overlays that stay; the legend's colours are the page's -----------
def canvas_click(page, bbox, page_width: float) -> None:
    canvas = stable_canvas(page)
    scale = canvas.bounding_box()["width"] / page_width
    canvas.click(position={"x": (bbox[0] + bbox[2]) / 2 * scale, "y": (bbox[1] + bbox[3]) / 2 * scale})


def selectbox_shows(page, text: str, timeout_ms: int = 15_000) -> bool:
    """A selectbox shows `text` as its choice (the choice sits in its text or its input's value)."""
    script = """t => [...document.querySelectorAll("[data-testid='stSelectbox']")].some(
        b => b.textContent.includes(t) || [...b.querySelectorAll('input')].some(i => (i.value || '').includes(t)))"""
    for _ in range(timeout_ms // 250):
        if page.evaluate(script, text):
            return True
        page.wait_for_timeout(250)
    return False


def test_the_first_click_after_switching_to_pairing_picks_the_key(app_server, chromium):
    from core.forms.fields import extract_fields
    from core.geometry import center
    from core.render import element_at
    from ui.edit_panel import element_label

    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server)
        doc_id, doc = sample(app_server, "shinseisho_form.pdf")
        field = next(f for f in extract_fields(doc) if f.key_ref and f.value_ref and not f.is_selection
                     and f.key_ref in doc.element_index() and f.value_ref in doc.element_index())
        key, value = doc.element(field.key_ref), doc.element(field.value_ref)
        page.goto(f"{app_server.url}/forms?doc={doc_id}")
        page.locator(CANVAS).first.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
        settle(page, 1000)
        canvas_click(page, value.bbox, doc.page(key.page).width)  # a click in toggle mode: nothing to toggle
        settle(page)
        page.get_by_text("Pair key → value").click()
        settle(page, 1000)
        canvas_click(page, key.bbox, doc.page(key.page).width)
        assert selectbox_shows(page, element_label(key)), "the first click after the switch was lost"
        settle(page)
        canvas_click(page, value.bbox, doc.page(key.page).width)
        under = element_at(doc.page(key.page).elements, *center(value.bbox), tolerance=2.0)  # the smallest box there
        assert selectbox_shows(page, element_label(under)), "the click after the key was picked was lost"
        assert page.get_by_role("button", name="Pair", exact=True).is_enabled()
    finally:
        context.close()


def test_the_forms_legend_uses_the_colours_the_page_draws(app_server, chromium):
    from core.forms.field_edits import STATUS_COLOURS

    context, page = new_page(chromium, 1400, 900)
    try:
        first_visit(page, app_server)
        doc_id, _ = sample(app_server, "shinseisho_form.pdf")
        page.goto(f"{app_server.url}/forms?doc={doc_id}")
        chip = page.locator(".rli-status-chip[data-status='redacted']")
        chip.wait_for(timeout=STEP_TIMEOUT_MS)
        for status, colour in STATUS_COLOURS.items():
            shown = page.locator(f".rli-status-chip[data-status='{status}']").evaluate(
                "e => getComputedStyle(e).backgroundColor")
            r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
            assert shown == f"rgb({r}, {g}, {b})", status
    finally:
        context.close()



# ---- the page stays put: a selection's tools and details show beside it ------------------------------
@pytest.mark.parametrize("width, height", [(1400, 900), (1920, 1080)])
def test_a_click_leaves_the_page_in_place_and_shows_the_element_and_its_tools_beside_it(app_server, chromium, width, height):
    context, page = new_page(chromium, width, height)
    try:
        first_visit(page, app_server)
        name = page.get_by_placeholder("your name")
        name.fill("校正者")
        name.press("Enter")
        settle(page)
        _, doc = sample(app_server)
        page_one = doc.page(1)
        canvas = stable_canvas(page)
        before = canvas.bounding_box()
        assert before["y"] < 0.4 * height, f"the page image starts at y={before['y']:.0f} of {height}"
        # the topmost text on the page, so the click needs no scrolling
        target = min((e for e in page_one.elements if e.text.strip() and e.category != Category.DECORATIVE),
                     key=lambda e: e.bbox[1])
        canvas_click(page, target.bbox, page_one.width)
        page.get_by_text(target.id).first.wait_for(timeout=STEP_TIMEOUT_MS)
        settle(page)
        after = canvas.bounding_box()
        assert abs(after["y"] - before["y"]) <= 2, f"the page moved from y={before['y']:.0f} to {after['y']:.0f}"
        code = page.locator("[data-testid='stCode']").filter(has_text=target.text.strip().splitlines()[0][:12]).first
        assert in_viewport(page, code), "the selected element's text is below the fold"
        assert in_viewport(page, page.get_by_role("button", name="Relabel", exact=True))
    finally:
        context.close()
