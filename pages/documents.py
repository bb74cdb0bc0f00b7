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
TOAST_KEY = "rli:upload_toast"
ENGINES = {"layout": "layout model (best categories; slower, the speed shows while it reads)",
           "fast": "fast (no model)"}


def max_upload_mb() -> float | None:
    """`RLI_MAX_UPLOAD_MB` as ingest enforces it (None when the setting is unusable; ingest then
    reports why). Streamlit's `server.maxUploadSize` is the outer cap."""
    from core.ingest.pipeline import configured_max_bytes

    try:
        return configured_max_bytes() / 1024 / 1024
    except ValueError:
        return None


class Pace:
    """Pages per second and time left from the pages read so far (the real rate, not a promise)."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def line(self, done: int, total: int) -> str:
        elapsed = self.elapsed()
        if done <= 0 or elapsed <= 0:
            return f"page 0 of {total} · starting…"
        rate = done / elapsed
        left = (total - done) / rate
        return f"page {done} of {total} · {rate:.2f} pages/s · about {seconds_text(left)} left"


def seconds_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds} s" if seconds < 90 else f"{seconds // 60} min {seconds % 60:02d} s"


class BatchProgress:
    """Over several uploaded files (a folder): file i of n, pages read so far and pages per second."""

    def __init__(self, count: int, where):
        self.count, self.index, self.pages, self.current = count, 0, 0, 0
        self.started = time.perf_counter()
        self.bar = where.progress(0.0, text=f"{count} files to read…")

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


class ReadingStatus:
    """One file's status box at the top of the page: its progress while it is read, then done or not."""

    def __init__(self, where, name: str, label: str) -> None:
        self.name, self.pace = md_escape(name), Pace()
        self.box = where.status(label, expanded=True)
        self.bar = self.box.progress(0.0, text="starting…")

    def progress(self, done: int, total: int) -> None:
        self.bar.progress(done / total if total else 1.0, text=self.pace.line(done, total))

    def failed(self, why: str) -> None:
        self.box.update(label=f"{self.name} {why}", state="error")

    def done(self) -> None:
        self.box.update(label=f"{self.name}: done", state="complete", expanded=False)


def ingest_upload(name: str, data: bytes, engine: str, password: str | None, where,
                  overall: BatchProgress | None = None) -> tuple[str, str]:
    """Ingest one uploaded file, showing its progress in `where` (the top of the page); returns
    (level, message) for the results. Nothing is written when it fails: ingest stores the PDF and
    its output in one go, only after parsing succeeded."""
    from core.ingest.pipeline import ingest_bytes

    reading = ReadingStatus(where, name, f"Reading {md_escape(name)} with the {engine} engine…")

    def progress(done: int, total: int) -> None:
        reading.progress(done, total)
        if overall is not None:
            overall.page(done, total)

    try:
        # Ingest checks the size limit first. The name is only a label: the PDF is stored under
        # its SHA-256, never under this name.
        result = ingest_bytes(state.workspace(), data, name, engine=engine, password=password or None,
                              progress=progress)
    except (PasswordRequired, WrongPassword) as err:
        st.session_state.setdefault(NEEDS_PASSWORD_KEY, set()).add(name)
        reading.failed("needs a password")
        return "error", md_escape(str(err))
    except (InspectorError, ValueError) as err:  # ValueError: a bad RLI_MAX_UPLOAD_MB setting
        reading.failed("was not added")
        return "error", md_escape(str(err))
    st.session_state.get(NEEDS_PASSWORD_KEY, set()).discard(name)
    reading.done()
    return result_message(name, result, reading.pace.elapsed())


def result_message(name: str, result, seconds: float) -> tuple[str, str]:
    record = result.record
    if not result.created:
        return "info", (f"{md_escape(name)} is already in the workspace (as {md_escape(record.source)}); "
                        "nothing was re-read.")
    state.select_document(record.doc_id)
    pages = f"{record.page_count} page{'s' if record.page_count != 1 else ''}"
    rate = f"{record.page_count / seconds:.2f} pages/s" if seconds > 0 else "instantly"
    scanned = _scanned_pages_line(record)
    verb, why = "Added", ""
    if result.replaced_version:
        verb, why = "Parsed", (" again: the stored parse was made by an older version of the parser, and the "
                               "reviewer's corrections re-anchor to the new one")
    return ("warning" if "no OCR available" in scanned else "success",
            f"{verb} {md_escape(record.source)}{why}: {pages} in {seconds_text(seconds)} ({rate}), "
            f"{record.engine} engine.{scanned}")


def _scanned_pages_line(record) -> str:
    """" Scanned pages: …" with what read them (core.ingest.ocr), or "" for a born-digital file."""
    from core.ingest.ocr import scanned_page_notes

    doc = state.workspace().load_machine_document(record.doc_id, record.engine)
    notes = [n.split(": ", 1)[1] for n in scanned_page_notes(doc)]
    return (" " + md_escape("; ".join(notes[:3]) + (f" (and {len(notes) - 3} more)" if len(notes) > 3 else ""))
            if notes else "")


def upload_section(feedback) -> None:
    limit = max_upload_mb()
    files = st.file_uploader(
        "PDF files or scans (PNG, JPEG, TIFF)", type=["pdf", "png", "jpg", "jpeg", "tif", "tiff"],
        accept_multiple_files=True, key="rli:uploader",
        help=(f"Up to {limit:.0f} MB each. " if limit else "") + "Files are stored by content hash in the workspace. "
             "Scanned pages and images are read with OCR (Tesseract) when it is installed.",
    )
    folder = st.file_uploader(
        "…or a whole folder", type=["pdf", "png", "jpg", "jpeg", "tif", "tiff"], accept_multiple_files="directory",
        key="rli:folder_uploader",
        help="Every PDF and scan in the folder; a corpus of thousands goes faster with `python -m core batch ingest`.")
    files = list(files or []) + list(folder or [])
    engine = st.radio("Engine", list(ENGINES), format_func=ENGINES.__getitem__, horizontal=True, key="rli:engine")
    password = None
    if st.session_state.get(NEEDS_PASSWORD_KEY):
        names = md_escape(", ".join(sorted(st.session_state[NEEDS_PASSWORD_KEY])))
        password = st.text_input(f"Password for {names}", type="password", key="rli:pdf_password")
    if st.button("Ingest", type="primary", disabled=not files, key="rli:ingest"):
        results = ingest_all(files, engine, password, feedback)
        st.session_state[RESULTS_KEY] = results
        st.session_state[TOAST_KEY] = "; ".join(message for _, message in results)
        st.rerun()  # the sidebar picker and the list below must show the new documents


def ingest_all(files, engine: str, password: str | None, where) -> list[tuple[str, str]]:
    """Each file in turn; with several, an overall bar with pages per second above the file's own."""
    overall = BatchProgress(len(files), where) if len(files) > 1 else None
    results = []
    for i, f in enumerate(files):
        if overall is not None:
            overall.next_file(i)
        results.append(ingest_upload(f.name, f.getvalue(), engine, password, where, overall))
    if overall is not None:
        overall.empty()
    return results


def upload_results(feedback) -> None:
    """The last upload's results, at the top of the page (and once as a toast, which shows
    wherever the reviewer has scrolled to)."""
    for level, message in st.session_state.pop(RESULTS_KEY, []):
        getattr(feedback, level)(message)
    toast = st.session_state.pop(TOAST_KEY, None)
    if toast:
        st.toast(toast[:300], icon=":material/upload_file:")


def documents_frame(records, stale: set[str]) -> pd.DataFrame:
    return pd.DataFrame({
        "source": [r.source for r in records],
        "pages": [r.page_count for r in records],
        "engine": [r.engine for r in records],
        "parse": ["older parser: parse again" if r.doc_id in stale else "current" for r in records],
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


def stale_documents(records) -> set[str]:
    from core.ingest.pipeline import is_stale

    ws = state.workspace()
    return {r.doc_id for r in records if is_stale(ws, r)}


def parse_again_action(records, feedback) -> None:
    """Read each document again with today's parser, showing its progress at the top of the page."""
    st.session_state[RESULTS_KEY] = [parse_one_again(r, feedback) for r in records]


def parse_one_again(record, feedback) -> tuple[str, str]:
    from core.ingest.pipeline import parse_again

    reading = ReadingStatus(feedback, record.source,
                            f"Reading {md_escape(record.source)} again with the {record.engine} engine…")
    try:
        result = parse_again(state.workspace(), record.doc_id, progress=reading.progress)
    except InspectorError as err:
        reading.failed("was not parsed again")
        return "error", md_escape(str(err))
    reading.done()
    return result_message(record.source, result, reading.pace.elapsed())


def stale_notice(records, stale: set[str], feedback) -> None:
    """Which documents an older parser read, and one button to read them all again."""
    older = [r for r in records if r.doc_id in stale]
    names = ", ".join(md_escape(r.source) for r in older[:3]) + (f" and {len(older) - 3} more" if len(older) > 3 else "")
    notice = st.container(horizontal=True, vertical_alignment="center")
    them = "it" if len(older) == 1 else "them"
    notice.caption(f"{len(older)} of {len(records)} documents were parsed by an older version of the parser "
                   f"({names}). Parse {them} again to read {them} with today's; corrections re-anchor.")
    label = "Parse it again" if len(older) == 1 else f"Parse all {len(older)} again"
    if notice.button(label, key="rli:parse_all_again"):
        parse_again_action(older, feedback)
        st.rerun()


def documents_section(feedback) -> None:
    st.subheader("Documents in the workspace")
    records = state.documents()
    if not records:
        st.info("The workspace is empty. Add a PDF above.")
        return
    stale = stale_documents(records)
    if stale:
        stale_notice(records, stale, feedback)
    event = st.dataframe(
        documents_frame(records, stale), hide_index=True, on_select="rerun", selection_mode="single-row",
        key=TABLE_KEY, width="stretch",
    )
    rows = event.selection.rows if event and event.selection else []
    chosen = records[rows[0]] if rows and rows[0] < len(records) else None
    if chosen is None:
        current = state.current_doc_id()
        chosen = next((r for r in records if r.doc_id == current), records[0])
        st.caption("Select a row to choose another document.")
    st.markdown(f"**{md_escape(chosen.source)}** · {chosen.page_count} pages · `{chosen.doc_id}`")
    actions = st.container(horizontal=True, gap="small")
    if actions.button("Open in Inspect", key="rli:open", type="primary"):
        open_in_inspect(chosen.doc_id)
    if chosen.doc_id in stale and actions.button("Parse again", key="rli:parse_again",
                                                 help="Read this PDF again with today's parser"):
        parse_again_action([chosen], feedback)
        st.rerun()
    with actions.popover("Delete…"):
        st.write("Removes the document and its parser output. Its correction log is kept.")
        if st.button(f"Delete {md_escape(chosen.source)}", key="rli:delete"):
            delete_document(chosen.doc_id)
            st.rerun()


st.title("Documents")
# Progress and results of an upload go here, at the top, where the eye is after clicking Ingest
# (the uploader sits right below, so at 1400×900 the button and this block are both in view).
feedback = st.container(key="rli-upload-feedback")
upload_results(feedback)
add_tab, import_tab = st.tabs(["Add PDFs", "Import a parser's output"])
with add_tab:
    upload_section(feedback)
with import_tab:
    import_section()  # Docling / Azure / Textract imports and the Docling export (ui/import_form.py)
st.divider()
documents_section(feedback)
