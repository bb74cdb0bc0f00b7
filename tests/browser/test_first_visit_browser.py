"""In Chromium: a first visit cut short (the tab closed while the samples are read) still leaves the
sample documents to the next visit. Streamlit stops the run of a closed tab; the samples must not
be marked as done then."""
from __future__ import annotations

import pytest

from core.store.opening import open_workspace
from tests.browser.steps import FIRST_VISIT_TIMEOUT_MS, first_visit, new_page
from ui.bootstrap import sample_pdfs

pytestmark = pytest.mark.browser


def stored_sources(workspace) -> set[str]:
    ws = open_workspace(workspace)
    try:
        return {record.source for record in ws.documents()}
    finally:
        ws.close()


def test_a_first_visit_closed_midway_leaves_the_samples_to_the_next_visit(start_app, chromium, tmp_path):
    # the layout engine, so that reading the samples lasts long enough to be cut short
    with start_app(tmp_path / "ws", RLI_SAMPLE_ENGINE="layout") as server:
        context, page = new_page(chromium, 1400, 900)
        page.goto(server.url)
        page.get_by_text("First visit: reading").first.wait_for(timeout=FIRST_VISIT_TIMEOUT_MS)
        context.close()  # the reviewer closes the tab while the samples are being read

        context, page = new_page(chromium, 1400, 900)
        try:
            first_visit(page, server)
            assert page.get_by_text("No documents yet").count() == 0
        finally:
            context.close()
        assert stored_sources(server.workspace) == {pdf.name for pdf in sample_pdfs()}
