"""Documents page: import another parser's output (Docling, Azure Document Intelligence, Textract),
and download the current document, corrections applied, as DoclingDocument JSON.

An import is checked fully before anything is stored; a bad file gets a message naming what is
wrong and leaves the workspace unchanged.
"""
from __future__ import annotations

import json

import streamlit as st

from core.errors import InspectorError
from ui import state
from ui.text import md_escape

FORMATS = {
    "docling": "Docling (DoclingDocument JSON)",
    "azure": "Azure Document Intelligence (analyzeResult, v2.1 / v3 / v4)",
    "textract": "AWS Textract (AnalyzeDocument Blocks)",
}
RESULT_KEY = "rli:import:result"
PAGE_TYPES = ["pdf", "png", "jpg", "jpeg", "tif", "tiff"]


def import_section() -> None:
    """The import form, then the Docling download of the selected document."""
    st.subheader("Import a parser's output")
    st.caption("Already ran Docling, Azure or Textract? Review its output here: it goes through the same "
               "inspection, corrections and chunking as an ingested PDF.")
    fmt = st.radio("Format", list(FORMATS), format_func=FORMATS.__getitem__, horizontal=True, key="rli:import:format")
    left, right = st.columns(2)
    output = left.file_uploader("Parser output (JSON)", type=["json"], key="rli:import:json")
    page_file = right.file_uploader(
        "Source PDF or page image (optional)", type=PAGE_TYPES, key="rli:import:pdf",
        help="Gives the pages their image and lets the boxes be checked against the text. Without it, "
             "pages are blank at the right size.")
    replace = st.checkbox("Replace this parser's stored output of the same document", key="rli:import:replace",
                          help="Without it, a different output for a document already here is refused. With it, "
                               "the corrections are kept and re-anchored; the Audit page lists those that no "
                               "longer match.")
    if st.button("Import", type="primary", disabled=output is None, key="rli:import:go"):
        st.session_state[RESULT_KEY] = run_import(output.name, output.getvalue(), fmt,
                                                  page_file.getvalue() if page_file else None, replace)
        st.rerun()
    for level, message in st.session_state.pop(RESULT_KEY, []):
        getattr(st, level)(message)
    docling_download()


def run_import(name: str, data: bytes, fmt: str, page_bytes: bytes | None,
               replace: bool = False) -> list[tuple[str, str]]:
    """Import one upload; (level, message) pairs for the page. Uploaded names are only labels."""
    from core.ingest.importers import import_file

    try:
        with st.spinner(f"Importing {md_escape(name)}…"):
            result = import_file(state.workspace(), data, fmt, pdf=page_bytes, name=name, replace=replace)
    except InspectorError as err:
        return [("error", f"Could not import {md_escape(name)}: {md_escape(str(err))}")]
    record = result.record
    state.select_document(record.doc_id)
    notices = {p.notice for p in result.document.pages if p.notice}
    messages = [("success" if result.created else "info",
                 f"{'Imported' if result.created else 'Already imported'} {md_escape(record.source)}: "
                 f"{record.page_count} page(s), {sum(1 for _ in result.document.elements())} elements "
                 f"({md_escape(FORMATS[fmt])}).")]
    messages += [("warning", md_escape(n)) for n in sorted(notices)]
    return messages


def docling_download() -> None:
    """Download the selected document, corrections and form events applied, as DoclingDocument JSON."""
    from core.export.docling import docling_export_for, file_name

    record = state.current_record()
    if record is None:
        return
    with st.expander("Export the corrected document as DoclingDocument JSON"):
        st.caption("For Docling pipelines: the reviewer's corrections included, redacted form values removed.")
        if st.button("Prepare Docling JSON", key="rli:docling:prepare"):
            try:
                payload = docling_export_for(state.workspace(), record.doc_id)
            except InspectorError as err:
                st.error(md_escape(str(err)))
                return
            st.download_button(
                f"Download {md_escape(file_name(record.source))}",
                data=json.dumps(payload, ensure_ascii=False, indent=1).encode("utf-8"),
                file_name=file_name(record.source), mime="application/json", key="rli:docling:download")
