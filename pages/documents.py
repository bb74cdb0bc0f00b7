"""Documents: add PDFs to the workspace, see what is there, open or delete a document."""
from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from core.errors import InspectorError, PasswordRequired, WrongPassword
from ui import state
from ui.import_form import import_section
from ui.text import md_escape

NEEDS_PASSWORD_KEY = "rli:needs_password"
RESULTS_KEY = "rli:upload_results"
TABLE_KEY = "rli:documents_table"
ENGINES = {"layout": "layout model (best categories, ~0.2 s a page)", "fast": "fast (no model)"}


def max_upload_mb() -> float | None:
    """`RLI_MAX_UPLOAD_MB` as ingest enforces it (None when the setting is unusable; ingest then
    reports why). Streamlit's `server.maxUploadSize` is the outer cap."""
    from core.ingest.pipeline import configured_max_bytes

    try:
        return configured_max_bytes() / 1024 / 1024
    except ValueError:
        return None


class BatchProgress:
    """Over several uploaded files (a folder): file i of n, pages read so far and pages per second."""

    def __init__(self, count: int):
        self.count, self.index, self.pages, self.current = count, 0, 0, 0
        self.started = time.perf_counter()
        self.bar = st.progress(0.0, text=f"{count} files to read…")

    def next_file(self, index: int) -> None:
        self.index, self.pages, self.current = index, self.pages + self.current, 0

    def page(self, done: int, total: int) -> None:
        self.current = done
        pages = self.pages + done
        rate = pages / max(time.perf_counter() - self.started, 1e-6)
        within = done / total if total else 1.0
        self.bar.progress(min(1.0, (self.index + within) / self.count),
                          text=f"File {self.index + 1} of {self.count} · {pages} pages · {rate:.1f} pages/s")

    def empty(self) -> None:
        self.bar.empty()


def ingest_upload(name: str, data: bytes, engine: str, password: str | None,
                  overall: BatchProgress | None = None) -> tuple[str, str]:
    """Ingest one uploaded file; returns (level, message) for the results list. Nothing is written
    when it fails: ingest stores the PDF and its output in one go, only after parsing succeeded."""
    from core.ingest.pipeline import ingest_bytes

    bar = st.progress(0.0, text=f"Reading {md_escape(name)}…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total if total else 1.0, text=f"Reading {md_escape(name)}: page {done} of {total}")
        if overall is not None:
            overall.page(done, total)

    try:
        # Ingest checks the size limit first. The name is only a label: the PDF is stored under
        # its SHA-256, never under this name.
        result = ingest_bytes(state.workspace(), data, name, engine=engine, password=password or None,
                              progress=progress)
    except (PasswordRequired, WrongPassword) as err:
        st.session_state.setdefault(NEEDS_PASSWORD_KEY, set()).add(name)
        return "error", md_escape(str(err))
    except (InspectorError, ValueError) as err:  # ValueError: a bad RLI_MAX_UPLOAD_MB setting
        return "error", md_escape(str(err))
    finally:
        bar.empty()
    st.session_state.get(NEEDS_PASSWORD_KEY, set()).discard(name)
    record = result.record
    if result.created:
        state.select_document(record.doc_id)
        pages = f"{record.page_count} page{'s' if record.page_count != 1 else ''}"
        return "success", f"Added {md_escape(record.source)}: {pages}, {record.engine} engine."
    return "info", (f"{md_escape(name)} is already in the workspace (as {md_escape(record.source)}); "
                    "nothing was re-read.")


def upload_section() -> None:
    limit = max_upload_mb()
    files = st.file_uploader(
        "PDF files", type=["pdf"], accept_multiple_files=True, key="rli:uploader",
        help=(f"Up to {limit:.0f} MB each. " if limit else "") + "Files are stored by content hash in the workspace.",
    )
    folder = st.file_uploader(
        "…or a whole folder", type=["pdf"], accept_multiple_files="directory", key="rli:folder_uploader",
        help="Every PDF in the folder; a corpus of thousands goes faster with `python -m core batch ingest`.")
    files = list(files or []) + list(folder or [])
    engine = st.radio("Engine", list(ENGINES), format_func=ENGINES.__getitem__, horizontal=True, key="rli:engine")
    password = None
    if st.session_state.get(NEEDS_PASSWORD_KEY):
        names = md_escape(", ".join(sorted(st.session_state[NEEDS_PASSWORD_KEY])))
        password = st.text_input(f"Password for {names}", type="password", key="rli:pdf_password")
    if st.button("Ingest", type="primary", disabled=not files, key="rli:ingest"):
        st.session_state[RESULTS_KEY] = ingest_all(files, engine, password)
        st.rerun()  # the sidebar picker and the list below must show the new documents
    for level, message in st.session_state.pop(RESULTS_KEY, []):
        getattr(st, level)(message)


def ingest_all(files, engine: str, password: str | None) -> list[tuple[str, str]]:
    """Each file in turn; with several, an overall bar with pages per second above the file's own."""
    overall = BatchProgress(len(files)) if len(files) > 1 else None
    results = []
    for i, f in enumerate(files):
        if overall is not None:
            overall.next_file(i)
        results.append(ingest_upload(f.name, f.getvalue(), engine, password, overall))
    if overall is not None:
        overall.empty()
    return results


def documents_frame(records) -> pd.DataFrame:
    return pd.DataFrame({
        "source": [r.source for r in records],
        "pages": [r.page_count for r in records],
        "engine": [r.engine for r in records],
        "created": [time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at)) for r in records],
        "review status": [state.review_status(r.doc_id) for r in records],
        "doc_id": [r.doc_id for r in records],
    })


def open_in_inspect(doc_id: str) -> None:
    state.select_document(doc_id)
    st.switch_page("pages/inspect.py")


def delete_document(doc_id: str) -> None:
    state.workspace().delete_document(doc_id)
    if st.session_state.get(state.DOC_KEY) == doc_id:
        state.select_document(None)


def documents_section() -> None:
    st.subheader("Documents in the workspace")
    records = state.documents()
    if not records:
        st.info("The workspace is empty. Add a PDF above.")
        return
    event = st.dataframe(
        documents_frame(records), hide_index=True, on_select="rerun", selection_mode="single-row",
        key=TABLE_KEY, width="stretch",
    )
    rows = event.selection.rows if event and event.selection else []
    chosen = records[rows[0]] if rows and rows[0] < len(records) else None
    if chosen is None:
        current = state.current_doc_id()
        chosen = next((r for r in records if r.doc_id == current), records[0])
        st.caption("Select a row to choose another document.")
    st.markdown(f"**{md_escape(chosen.source)}** · {chosen.page_count} pages · `{chosen.doc_id}`")
    left, right, _ = st.columns([1, 1, 3])
    if left.button("Open in Inspect", key="rli:open", type="primary"):
        open_in_inspect(chosen.doc_id)
    with right.popover("Delete…"):
        st.write("Removes the document and its parser output. Its correction log is kept.")
        if st.button(f"Delete {md_escape(chosen.source)}", key="rli:delete"):
            delete_document(chosen.doc_id)
            st.rerun()


st.title("Documents")
documents_section()
st.divider()
add_tab, import_tab = st.tabs(["Add PDFs", "Import a parser's output"])
with add_tab:
    upload_section()
with import_tab:
    import_section()  # Docling / Azure / Textract imports and the Docling export (ui/import_form.py)
