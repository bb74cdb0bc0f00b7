"""In Chromium: on the Gold set page a click on an element adds it as evidence (drawn on the page),
a second click removes it, and the saved item points at that element."""
from __future__ import annotations

import pytest

from core.categories import Category
from core.evaluation.gold import load_items
from core.review.corrections import corrected_document
from core.store.opening import open_workspace

from tests.browser.steps import FIRST_VISIT_TIMEOUT_MS, settle

pytestmark = pytest.mark.browser

CANVAS = "canvas.dc-background-canvas"


def evidence_count(page) -> int:
    text = page.get_by_text("Evidence (", exact=False).first.inner_text()
    return int(text.split("(")[1].split(")")[0])


def saved_items(workspace, question: str) -> list:
    ws = open_workspace(workspace)
    try:
        return [i for i in load_items(ws) if i.question == question]
    finally:
        ws.close()


def wait_for_evidence(page, expected: int) -> int:
    # a click comes back one rerun later (two runs of this page); on a loaded machine (full suite
    # beside other work) that took longer than the 10 s this waited
    for _ in range(120):
        if evidence_count(page) == expected:
            break
        page.wait_for_timeout(250)
    return evidence_count(page)


def test_clicking_elements_on_the_gold_page_builds_the_evidence_and_saves_it(app_server, browser_page):
    page = browser_page
    page.goto(app_server.url)
    page.locator(CANVAS).first.wait_for(state="visible", timeout=FIRST_VISIT_TIMEOUT_MS)
    page.get_by_role("link", name="Gold set").click()
    canvas = page.locator(CANVAS).first
    canvas.wait_for(state="visible", timeout=60_000)
    settle(page, 1500)

    ws = open_workspace(app_server.workspace)
    try:
        doc = corrected_document(ws, ws.documents()[0].doc_id)
    finally:
        ws.close()
    page_one = doc.page(1)
    target = max((e for e in page_one.elements if e.text.strip() and e.category != Category.DECORATIVE),
                 key=lambda e: (e.bbox[2] - e.bbox[0]) * (e.bbox[3] - e.bbox[1]))

    page.get_by_role("textbox", name="Question").fill("この文書の目次はどこにあるか")
    page.get_by_role("textbox", name="Question").press("Control+Enter")
    settle(page, 600)
    upper = page.locator("canvas.upper-canvas").first
    box = canvas.bounding_box()
    scale = box["width"] / page_one.width
    point = {"x": (target.bbox[0] + target.bbox[2]) / 2 * scale, "y": (target.bbox[1] + target.bbox[3]) / 2 * scale}

    upper.click(position=point)
    settle(page, 600)
    assert wait_for_evidence(page, 1) == 1
    upper.click(position=point)  # a second click on the same element takes it back out
    settle(page, 600)
    assert wait_for_evidence(page, 0) == 0
    upper.click(position=point)
    settle(page, 600)
    assert wait_for_evidence(page, 1) == 1

    page.get_by_role("button", name="Save item").click()
    # the save is a callback of the click's rerun, which may not have started when settle() first
    # looks: read the workspace until the item is there (or the wait is over)
    items = []
    for _ in range(120):
        items = saved_items(app_server.workspace, "この文書の目次はどこにあるか")
        if items:
            break
        page.wait_for_timeout(250)
    assert len(items) == 1
    assert [e.record_id for e in items[0].evidence] == [target.id]
    assert items[0].evidence[0].bbox == target.bbox
