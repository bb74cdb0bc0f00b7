"""In Chromium, a reviewer fixes an element's text and forces a chunk break from the Inspect page;
the exported chunks (`python -m core chunks`, another process on the same workspace) follow."""
from __future__ import annotations

import os

import pytest

from core.review.corrections import corrected_document
from core.store.opening import open_workspace
from test_review_browser import (
    STEP_TIMEOUT_MS, chunks, click_on_page, open_document_page, sample_document, wait_for_text,
)

pytestmark = pytest.mark.browser

FIXED = "本規程は、出張旅費の精算を定める（校正済み）。"


def test_reviewer_fixes_text_and_breaks_a_chunk_and_chunks_follow(app_server, browser_page):
    page = browser_page
    page.goto(app_server.url)
    page.locator("canvas.dc-background-canvas").first.wait_for(state="visible", timeout=120_000)
    doc_id, doc = sample_document(app_server.workspace)
    target = next(e for e in doc.page(2).elements if e.text.startswith("本規程は、株式会社"))
    before = chunks(app_server.workspace, doc_id)
    assert not any(c["metadata"]["source_record_refs"][0]["record_id"] == target.id for c in before)
    open_document_page(page, app_server, "校正者", 2, doc.page_count)
    click_on_page(page, target.bbox, doc.page(2).width)
    wait_for_text(page, target.id)

    page.get_by_text("Text, reading order, split, chunk breaks").click()
    area = page.get_by_label("Text", exact=True)
    area.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
    area.fill(FIXED)
    area.press("Control+Enter")  # commit the text area before the button reads it
    page.get_by_role("button", name="Save text").click()
    wait_for_text(page, "saved")
    if os.environ.get("RLI_SHOTS"):
        page.screenshot(path=os.path.join(os.environ["RLI_SHOTS"], "structure_after_save.png"), full_page=True)
    page.get_by_role("button", name="Start a new chunk here").click()
    wait_for_text(page, "A chunk now starts here")

    ws = open_workspace(app_server.workspace)
    try:
        assert [e.kind for e in ws.events(doc_id)][-2:] == ["set_text", "chunk_break"]
        fixed = corrected_document(ws, doc_id).element(target.id)
        assert fixed.text == FIXED and fixed.attr("machine_text") == target.text
    finally:
        ws.close()
    after = chunks(app_server.workspace, doc_id)
    starting = [c for c in after if c["metadata"]["source_record_refs"][0]["record_id"] == target.id]
    assert len(starting) == 1 and FIXED in starting[0]["text"]  # after its section path, the policy's prefix
    assert not any(target.text in c["text"] for c in after)
