"""In Chromium, a reviewer fixes the sample 経費精算規程: a footer the parser read as body text is
relabelled, a caption the parser missed is drawn on the page and linked to its figure, and the
exported chunks (`python -m core chunks`, a separate process on the same workspace) change so.

Setup through the API stands in for a worse parse: the fast engine gets this footer and caption
right, so the test first makes them wrong (a `relabel` to text, a `delete_element` of the caption).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.categories import Category
from core.review.corrections import corrected_document, record_events
from core.store.opening import open_workspace
from tests.browser.steps import click_until_logged

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SOURCE = "keihi_seisan_kitei.pdf"
FIRST_VISIT_TIMEOUT_MS = 120_000  # the first visit ingests the sample documents
STEP_TIMEOUT_MS = 30_000
REVIEWER = "佐藤"
FOOTER_TEXT = "© 2026 株式会社サンプル"
CAPTION_TEXT = "図1　経費精算の流れ"


def sample_document(workspace: Path):
    ws = open_workspace(workspace)
    try:
        record = next(r for r in ws.documents() if r.source == SOURCE)
        return record.doc_id, corrected_document(ws, record.doc_id)
    finally:
        ws.close()


def chunks(workspace: Path, doc_id: str) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "core", "chunks", doc_id, "--workspace", str(workspace)],
                         cwd=REPO, capture_output=True, text=True, timeout=120, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def chunks_on(records: list[dict], page: int) -> list[dict]:
    return [c for c in records if c["metadata"]["start_page"] <= page <= c["metadata"]["end_page"]]


def make_the_parse_wrong(workspace: Path) -> tuple[str, str, str, str]:
    """Footer read as text, caption missed; returns (doc_id, footer id, first picture id, the caption)."""
    doc_id, doc = sample_document(workspace)
    footer = next(e for e in doc.elements() if e.category is Category.PAGE_FOOTER and e.text.startswith("©")
                  and any(x.category is Category.PICTURE for x in doc.page(e.page).elements))
    page = doc.page(footer.page)
    caption = next(e for e in page.elements if e.category is Category.CAPTION and e.text.startswith("図1"))
    picture = min((e for e in page.elements if e.category is Category.PICTURE), key=lambda e: e.bbox[0])
    ws = open_workspace(workspace)
    try:
        record_events(ws, doc_id, [{"kind": "relabel", "target": footer.id, "category": "text"},
                                   {"kind": "delete_element", "target": caption.id}], "setup")
    finally:
        ws.close()
    return doc_id, footer.id, picture.id, caption


def wait_for_text(page, text: str) -> None:
    page.get_by_text(text, exact=False).first.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)


def click_on_page(page, element_bbox, page_width: float, attempts: int = 5) -> None:
    """Click the middle of a box on the page view; the canvas is re-created when the page or the
    zoom changes, so a click that finds it detached waits and tries again."""
    x0, y0, x1, y1 = element_bbox
    for attempt in range(attempts):
        try:
            canvas = page.locator("canvas.upper-canvas").first
            canvas.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
            canvas.scroll_into_view_if_needed(timeout=5_000)
            scale = canvas.bounding_box()["width"] / page_width
            canvas.click(position={"x": (x0 + x1) / 2 * scale, "y": (y0 + y1) / 2 * scale}, timeout=5_000)
            return
        except Exception:
            if attempt == attempts - 1:
                raise
            page.wait_for_timeout(1_000)


def choose_option(page, label: str, option: str) -> None:
    """Pick from a selectbox by typing (long option lists are virtualised: not all are in the DOM)."""
    box = page.get_by_label(label, exact=True)
    for _ in range(100):  # while a rerun finishes, the old widget can still be on the page
        if box.count() == 1:
            break
        page.wait_for_timeout(100)
    box.click()
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).click()


def test_reviewer_fixes_footer_draws_caption_links_it_and_chunks_follow(app_server, browser_page):
    page = browser_page
    page.goto(app_server.url)
    page.locator("canvas.dc-background-canvas").first.wait_for(state="visible", timeout=FIRST_VISIT_TIMEOUT_MS)
    doc_id, footer_id, picture_id, missed_caption = make_the_parse_wrong(app_server.workspace)
    _, doc = sample_document(app_server.workspace)
    number = missed_caption.page
    width = doc.page(number).width
    before = chunks_on(chunks(app_server.workspace, doc_id), number)
    assert any(FOOTER_TEXT in c["text"] for c in before), "setup: the footer should be body text now"
    assert not any(CAPTION_TEXT in c["text"] for c in before), "setup: the caption should be missing"

    reopen_as_the_reviewer_on_page(page, number, doc.page_count)
    relabel_as_footer(page, doc.element(footer_id), width, app_server.workspace, doc_id)
    draw_caption_box(page, padded(missed_caption.bbox), width, app_server.workspace, doc_id)
    new_caption = the_drawn_caption(app_server.workspace, doc_id, number)
    assert new_caption.text.replace("\n", "") == CAPTION_TEXT
    drawn = tuple(pytest.approx(v, abs=1) for v in padded(missed_caption.bbox))
    assert new_caption.bbox == drawn  # canvas pixels landed on the same PDF points
    link_caption_to_figure(page, new_caption.bbox, doc.element(picture_id).bbox, width)
    assert_the_log_holds_setup_then_the_reviewers_events(app_server.workspace, doc_id, picture_id)
    assert_chunks_carry_the_footer_as_metadata_and_the_caption_with_its_figure(
        app_server.workspace, doc_id, number, picture_id, new_caption.id)


def reopen_as_the_reviewer_on_page(page, number: int, page_count: int) -> None:
    """The reviewer opens the document on the figure's page, with their name in the sidebar."""
    page.reload()
    page.locator("canvas.dc-background-canvas").first.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
    sign_in_and_go_to_page(page, REVIEWER, number, page_count)


def relabel_as_footer(page, footer, page_width: float, workspace: Path, doc_id: str) -> None:
    """Step 1: the footer that was read as text gets its category back."""
    click_on_page(page, footer.bbox, page_width)
    wait_for_text(page, footer.id)
    choose_option(page, "Category", f"{Category.PAGE_FOOTER.label_ja} · page_footer")
    click_until_logged(page, page.get_by_role("button", name="Relabel", exact=True), workspace, doc_id, "Relabelled")


def padded(bbox) -> tuple[float, float, float, float]:
    """The box the reviewer draws around a caption: a little wider than its text."""
    x0, y0, x1, y1 = bbox
    return x0 - 3, y0 - 2, x1 + 3, y1 + 2


def draw_caption_box(page, box_points, page_width: float, workspace: Path, doc_id: str) -> None:
    """Step 2: draw the missed caption; its text comes from the PDF under the box."""
    page.get_by_role("radio", name="Draw a box").click()
    choose_option(page, "Category of new boxes", f"{Category.CAPTION.label_ja} · caption")
    wait_for_text(page, "to draw a caption box")  # the app has the new category: the canvas is ready
    canvas = page.locator("canvas.upper-canvas").first
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    scale = box["width"] / page_width
    x0, y0, x1, y1 = box_points
    start = (box["x"] + x0 * scale, box["y"] + y0 * scale)
    end = (box["x"] + x1 * scale, box["y"] + y1 * scale)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=5)
    page.mouse.move(*end, steps=5)
    page.mouse.up()
    wait_for_text(page, CAPTION_TEXT)  # the preview of the text under the box
    click_until_logged(page, page.get_by_role("button", name="Add 1 box"), workspace, doc_id, "Added 1 box")


def the_drawn_caption(workspace: Path, doc_id: str, number: int):
    """The element the last event added, after checking that event is the reviewer's caption."""
    ws = open_workspace(workspace)
    try:
        added = ws.events(doc_id)[-1]
        assert (added.kind, added.actor, added.payload["category"]) == ("add_element", REVIEWER, "caption")
        return corrected_document(ws, doc_id).element(f"{doc_id[:8]}-p{number}-rev{added.event_id}")
    finally:
        ws.close()


def link_caption_to_figure(page, caption_bbox, picture_bbox, page_width: float) -> None:
    """Step 3: on the Links page, click the caption, then the figure, then Link."""
    page.get_by_role("link", name="Links").click()
    wait_for_text(page, "Caption or footnote")
    click_on_page(page, caption_bbox, page_width)
    wait_for_text(page, "Now attached to")
    click_on_page(page, picture_bbox, page_width)
    link = page.get_by_role("button", name="Link", exact=True)
    page.wait_for_function("b => !b.disabled", arg=link.element_handle(), timeout=STEP_TIMEOUT_MS)
    link.click()
    wait_for_text(page, "Linked")


def assert_the_log_holds_setup_then_the_reviewers_events(workspace: Path, doc_id: str, picture_id: str) -> None:
    ws = open_workspace(workspace)
    try:
        events = ws.events(doc_id)
        assert [e.kind for e in events] == ["relabel", "delete_element", "relabel", "add_element", "unlink", "link"]
        assert {e.actor for e in events[2:]} == {REVIEWER}
        assert events[-1].payload["target"] == picture_id
    finally:
        ws.close()


def assert_chunks_carry_the_footer_as_metadata_and_the_caption_with_its_figure(
        workspace: Path, doc_id: str, number: int, picture_id: str, caption_id: str) -> None:
    after = chunks_on(chunks(workspace, doc_id), number)
    assert not any(FOOTER_TEXT in c["text"] for c in after)
    assert all(FOOTER_TEXT in c["metadata"].get("page_footers", []) for c in after)
    figure = next(c for c in after if any(r["record_id"] == picture_id for r in c["metadata"]["source_record_refs"]))
    assert re.search(r"図1\s*経費精算の流れ", figure["text"])
    assert caption_id in [r["record_id"] for r in figure["metadata"]["source_record_refs"]]
    assert "caption" in figure["metadata"]["source_categories"]


def sign_in_and_go_to_page(page, reviewer: str, number: int, page_count: int) -> None:
    """With the app open: the reviewer's name in the sidebar, the sample document, its page `number`."""
    name = page.get_by_placeholder("your name")
    name.fill(reviewer)
    name.press("Enter")
    choose_option(page, "Document", f"{SOURCE} · {page_count}p")
    wait_for_text(page, f"page 1 of {page_count}")
    jump = page.get_by_label("Page", exact=True)
    jump.fill(str(number))
    jump.press("Enter")
    wait_for_text(page, f"page {number} of {page_count}")


def open_document_page(page, app_server, reviewer: str, number: int, page_count: int) -> None:
    page.goto(app_server.url)
    page.locator("canvas.dc-background-canvas").first.wait_for(state="visible", timeout=FIRST_VISIT_TIMEOUT_MS)
    sign_in_and_go_to_page(page, reviewer, number, page_count)


def relabels_of(ws, doc_id: str, target: str) -> list[tuple[str, str]]:
    """(reviewer, category) of every relabel of `target` in the log, oldest first."""
    return [(e.actor, e.payload["category"]) for e in ws.events(doc_id) if e.payload.get("target") == target]


def race_two_relabels(first, second, relabels) -> None:
    """Both reviewers have one element open. 鈴木 (second) picks list_item, then 田中 (first) saves
    text: 鈴木's save is refused with Reload and overwrites nothing; after Reload it lands.
    `relabels()` reads the log's relabels of the element."""
    choose_option(second, "Category", f"{Category.LIST_ITEM.label_ja} · list_item")
    choose_option(first, "Category", f"{Category.TEXT.label_ja} · text")
    first.get_by_role("button", name="Relabel", exact=True).click()
    wait_for_text(first, "Relabelled")
    second.get_by_role("button", name="Relabel", exact=True).click()
    wait_for_text(second, "changed in another session")
    assert relabels() == [("田中", "text")]
    second.get_by_role("button", name="Reload", exact=True).click()
    second.get_by_text("changed in another session").first.wait_for(state="hidden", timeout=STEP_TIMEOUT_MS)
    choose_option(second, "Category", f"{Category.LIST_ITEM.label_ja} · list_item")
    second.get_by_role("button", name="Relabel", exact=True).click()
    wait_for_text(second, "Relabelled")
    assert relabels() == [("田中", "text"), ("鈴木", "list_item")]


def test_two_sessions_the_stale_one_gets_a_conflict_and_reload_and_nothing_is_overwritten(
        app_server, browser_page, chromium):
    doc_id, doc = sample_document(app_server.workspace)
    target = next(e for e in doc.page(2).elements if e.text.startswith("第1条"))
    width = doc.page(2).width
    other = chromium.new_context(viewport={"width": 1600, "height": 1100})
    try:
        first, second = browser_page, other.new_page()
        for page, who in ((first, "田中"), (second, "鈴木")):
            open_document_page(page, app_server, who, 2, doc.page_count)
            click_on_page(page, target.bbox, width)
            wait_for_text(page, target.id)
        ws = open_workspace(app_server.workspace)
        try:
            race_two_relabels(first, second, lambda: relabels_of(ws, doc_id, target.id))
            assert corrected_document(ws, doc_id).element(target.id).category is Category.LIST_ITEM
        finally:
            ws.close()
    finally:
        other.close()
