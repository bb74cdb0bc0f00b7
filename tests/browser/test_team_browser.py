"""Two reviewers, one PostgreSQL database: two Streamlit processes (two machines, each with its own
PDF cache folder) on the same database. A save in one shows in the other after a rerun; both
editing the same element at once gives the second the conflict message with Reload, as on SQLite."""
from __future__ import annotations

import pytest

from core.review.corrections import corrected_document
from core.store.postgres import PostgresWorkspace
from test_review_browser import (FIRST_VISIT_TIMEOUT_MS, SOURCE, click_on_page, open_document_page, race_two_relabels,
                                 relabels_of, wait_for_text)

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

        ws = PostgresWorkspace(url, cache=tmp_path / "check")
        try:
            race_two_relabels(first, second, lambda: relabels_of(ws, doc_id, target.id))
        finally:
            ws.close()

        # the first process shows the second's save after a rerun (its audit page, opened anew)
        first.goto(f"{server_a.url}/audit?doc={doc_id}")
        wait_for_text(first, "2 of 2 events")
    finally:
        for c in contexts:
            c.close()
