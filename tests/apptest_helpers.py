"""Shared helpers for AppTests of the real app (app.py with its st.navigation).

Every page's AppTest starts the same way: a temporary workspace holding sample documents, the app
pointed at it with `RLI_WORKSPACE`, then a switch to the page under test:

    from apptest_helpers import open_page, sample_workspace  # noqa: F401  (sample_workspace is a fixture)

    def test_forms_page_lists_fields(sample_workspace):
        at = open_page("pages/forms.py", sample_workspace, doc="shinseisho_form.pdf")
        assert not at.exception

`sample_workspace` is a pytest fixture: a fresh copy (per test) of a workspace in which every
`sample_docs/*.pdf` was ingested once per test session with the fast engine (no model: quick). It
also points `RLI_WORKSPACE` at that copy for the test (monkeypatch; undone afterwards), which is how
the app finds it. `empty_workspace` does the same for an empty folder (the first-visit case).
Tests that need the layout engine's output should ingest what they need themselves.
`doc=` selects a document by its source file name, as the sidebar picker would.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.ingest.pipeline import ingest_path
from core.store.opening import open_workspace
from store_backends import copy_workspace

REPO = Path(__file__).resolve().parents[1]
APP = REPO / "app.py"
SAMPLE_DOCS = REPO / "sample_docs"
DEFAULT_TIMEOUT = 60  # seconds; the first run in a process imports pymupdf, pandas and friends
DOC_KEY = "rli:doc_id"  # ui.state.DOC_KEY, repeated so tests do not import streamlit-side modules


def build_sample_workspace(root: Path, engine: str = "fast", names: tuple[str, ...] | None = None) -> Path:
    """Ingest the sample PDFs (all, or those named) into a workspace at `root`; returns `root`."""
    ws = open_workspace(root)
    try:
        for pdf in sorted(SAMPLE_DOCS.glob("*.pdf")):
            if names is None or pdf.name in names:
                ingest_path(ws, pdf, engine=engine)
    finally:
        ws.close()  # checkpoint the WAL so a file copy of the folder is complete
    return root


_template: Path | None = None


def sample_workspace_template() -> Path:
    """The fast-engine sample workspace, built once per test process and removed at exit.
    (A plain function rather than a session fixture, so test modules import one name only.)"""
    global _template
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="rli_sample_ws_"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _template = build_sample_workspace(folder / "ws")
    return _template


def _navigation_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep AppTest from treating pages/ as an old-style pages directory.

    AppTest resets `PagesManager.uses_pages_directory` before every run, so with a folder named
    `pages/` next to app.py each rerun after the first would run the page file on its own (its
    url_path hash equals the file's), without app.py's sidebar and first-visit code. A real server
    sets the flag to False for good on its first `st.navigation` call; this does the same.
    """
    from streamlit.runtime.pages_manager import PagesManager

    original_init = PagesManager.__init__

    def init_then_use_navigation(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init_then_use_navigation)


def _point_app_at(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _navigation_only(monkeypatch)
    monkeypatch.setenv("RLI_WORKSPACE", str(root))
    monkeypatch.setenv("RLI_SAMPLE_ENGINE", "fast")  # a first visit to an empty workspace stays quick
    return root


@pytest.fixture
def sample_workspace(tmp_path, monkeypatch) -> Path:
    """A workspace folder with every sample document (fast engine), private to this test."""
    target = tmp_path / "ws"
    copy_workspace(sample_workspace_template(), target)
    return _point_app_at(target, monkeypatch)


@pytest.fixture
def empty_workspace(tmp_path, monkeypatch) -> Path:
    """An empty workspace folder: the app's first visit ingests the samples into it."""
    target = tmp_path / "empty_ws"
    target.mkdir()
    return _point_app_at(target, monkeypatch)


def doc_id_of(workspace_root: Path, source: str) -> str:
    ws = open_workspace(workspace_root)
    try:
        for record in ws.documents():
            if record.source == source:
                return record.doc_id
    finally:
        ws.close()
    raise LookupError(f"{source} is not in the workspace {workspace_root}")


def app_test(workspace_root: Path, *, doc: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> AppTest:
    """An AppTest of app.py on `workspace_root` (not yet run), which must be the folder a fixture
    above pointed RLI_WORKSPACE at."""
    if Path(os.environ.get("RLI_WORKSPACE", "")) != Path(workspace_root):
        raise RuntimeError("use the sample_workspace / empty_workspace fixture: it points RLI_WORKSPACE "
                           f"at the test's workspace (now {os.environ.get('RLI_WORKSPACE')!r})")
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    if doc is not None:
        at.session_state[DOC_KEY] = doc_id_of(workspace_root, doc)
    return at


def open_page(page: str, workspace_root: Path, *, doc: str | None = None,
              timeout: float = DEFAULT_TIMEOUT) -> AppTest:
    """Run the app, switch to `page` (a path like "pages/inspect.py") and run it; returns the AppTest."""
    at = app_test(workspace_root, doc=doc, timeout=timeout).run()
    assert not at.exception, [e.value for e in at.exception]
    return at.switch_page(page).run()


def texts(at: AppTest) -> str:
    """Everything the page wrote as markdown, captions, text, code, alerts: for `in` checks."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [t.value for t in at.text]
    parts += [c.value for c in at.code]
    parts += [a.value for kind in (at.info, at.success, at.warning, at.error) for a in kind]
    return "\n".join(str(p) for p in parts)
