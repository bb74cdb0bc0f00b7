"""First visit: an empty workspace gets the bundled sample documents, so Inspect has something to show.

Runs once per workspace per app process, under a lock, so two sessions arriving together wait for
one ingest instead of both running it. Across processes, ingest is idempotent by SHA-256 and
workspace writes serialise in SQLite, so a second process finds the documents already there.
If the reviewer later deletes every document, they stay deleted until the app restarts.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import streamlit as st

from core.errors import InspectorError
from ui import state

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_docs"


def sample_pdfs() -> list[Path]:
    return sorted(SAMPLE_DIR.glob("*.pdf"))


def sample_engine() -> str:
    """The samples are ingested with the layout model, as a reviewer would; `RLI_SAMPLE_ENGINE=fast`
    skips the model (quick starts on slow machines)."""
    return os.environ.get("RLI_SAMPLE_ENGINE", "layout")


# Module state lives as long as the process (this module is imported, not re-run like app.py).
_lock = threading.Lock()
_checked_roots: set[str] = set()
# Roots whose sample ingest began in this process and has not finished: Streamlit stops a run whose
# tab was closed or reloaded, and the next visit must go on with the samples that are still missing.
_unfinished_roots: set[str] = set()


def ensure_sample_documents() -> list[str]:
    """Ingest the samples into an empty workspace, with a progress bar; a no-op afterwards.

    Returns the doc_ids ingested by this call (empty when nothing had to be done)."""
    root = state.workspace_label()
    if root in _checked_roots:
        return []
    if not _lock.acquire(blocking=False):
        with st.spinner("Another session is reading the sample documents…"):
            _lock.acquire()
    try:
        if root in _checked_roots:  # another session did it while we waited
            return []
        ws = state.workspace()
        if ws.documents() and root not in _unfinished_roots:
            _checked_roots.add(root)
            return []
        _unfinished_roots.add(root)
        ingested = _ingest_samples(ws)  # a sample already stored costs nothing (same file, same engine)
        _unfinished_roots.discard(root)
        _checked_roots.add(root)
        return ingested
    finally:
        _lock.release()


def _ingest_samples(ws) -> list[str]:
    pdfs = sample_pdfs()
    if not pdfs:
        return []
    from core.ingest.pipeline import ingest_path

    engine = sample_engine()
    bar = st.progress(0.0, text="First visit: reading the sample documents…")
    done: list[str] = []
    for i, path in enumerate(pdfs):
        def progress(done: int, total: int, _i: int = i, _name: str = path.name) -> None:
            overall = (_i + (done / total if total else 1.0)) / len(pdfs)
            bar.progress(overall, text=f"First visit: reading sample {_name} ({_i + 1}/{len(pdfs)})")

        try:
            result = ingest_path(ws, path, engine=engine, progress=progress)
        except InspectorError as err:  # a broken sample must not keep the app from starting
            st.warning(f"Sample {path.name} could not be read: {err}")
            continue
        done.append(result.record.doc_id)
    bar.empty()
    return done
