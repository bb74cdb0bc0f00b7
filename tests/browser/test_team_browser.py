"""Two reviewers, one PostgreSQL database: two Streamlit processes (two machines, each with its own
PDF cache folder) on the same database. A save in one shows in the other after a rerun; both
editing the same element at once gives the second the conflict message with Reload, as on SQLite."""
from __future__ import annotations

import pytest

from core.categories import Category
from core.review.corrections import corrected_document
from core.store.postgres import PostgresWorkspace
from test_review_browser import (FIRST_VISIT_TIMEOUT_MS, SOURCE, STEP_TIMEOUT_MS, choose_option, click_on_page,
                                 open_document_page, wait_for_text)

pytestmark = pytest.mark.browser


@pytest.fixture
def two_servers(pg_url, tmp_path, start_app):
    with start_app(tmp_path / "laptop-a" / "ws", RLI_DATABASE_URL=pg_url) as a, \
            start_app(tmp_path / "laptop-b" / "ws", RLI_DATABASE_URL=pg_url) as b:
        yield a, b, pg_url


def the_sample(url: str, cache):
    ws = PostgresWorkspace(url, cache=cache)
    try:
        record = next(r for r in ws.documents() if r.source == SOURCE)
        return record.doc_id, corrected_document(ws, record.doc_id)
    finally:
        ws.close()


def relabels_of(url: str, cache, doc_id: str, target: str) -> list[tuple[str, str]]:
    ws = PostgresWorkspace(url, cache=cache)
    try:
        return [(e.actor, e.payload["category"]) for e in ws.events(doc_id) if e.payload.get("target") == target]
    finally:
        ws.close()


def test_two_app_processes_on_one_postgresql_share_saves_and_refuse_a_stale_one(two_servers, chromium, tmp_path):
    server_a, server_b, url = two_servers
    contexts = [chromium.new_context(viewport={"width": 1600, "height": 1100}) for _ in range(2)]
    try:
        first, second = (c.new_page() for c in contexts)
        first.goto(server_a.url)  # the first visit ingests the samples into the shared database
        first.locator("canvas.dc-background-canvas").first.wait_for(state="visible", timeout=FIRST_VISIT_TIMEOUT_MS)
        doc_id, doc = the_sample(url, tmp_path / "check")
        target = next(e for e in doc.page(2).elements if e.text.startswith("第1条"))
        width = doc.page(2).width
        for page, server, who in ((first, server_a, "田中"), (second, server_b, "鈴木")):
            open_document_page(page, server, who, 2, doc.page_count)
            click_on_page(page, target.bbox, width)
            wait_for_text(page, target.id)

        choose_option(second, "Category", f"{Category.LIST_ITEM.label_ja} · list_item")
        choose_option(first, "Category", f"{Category.TEXT.label_ja} · text")
        first.get_by_role("button", name="Relabel", exact=True).click()
        wait_for_text(first, "Relabelled")

        # the other process's view is stale: its save is refused, nothing is overwritten
        second.get_by_role("button", name="Relabel", exact=True).click()
        wait_for_text(second, "changed in another session")
        assert relabels_of(url, tmp_path / "check", doc_id, target.id) == [("田中", "text")]
        second.get_by_role("button", name="Reload", exact=True).click()
        second.get_by_text("changed in another session").first.wait_for(state="hidden", timeout=STEP_TIMEOUT_MS)
        choose_option(second, "Category", f"{Category.LIST_ITEM.label_ja} · list_item")
        second.get_by_role("button", name="Relabel", exact=True).click()
        wait_for_text(second, "Relabelled")
        assert relabels_of(url, tmp_path / "check", doc_id, target.id) == [("田中", "text"), ("鈴木", "list_item")]

        # the first process shows the second's save after a rerun (its audit page, opened anew)
        first.goto(f"{server_a.url}/audit?doc={doc_id}")
        wait_for_text(first, "2 of 2 events")
    finally:
        for c in contexts:
            c.close()
