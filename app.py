"""RAG Layout Inspector: the Streamlit entry point.

Builds the navigation, the sidebar (document picker, reviewer name) and, on a first visit to an empty
workspace, ingests the bundled sample documents. Each page lives in pages/ and reads its state
through ui.state.
"""
from __future__ import annotations

import streamlit as st

from core.store.schema import DatabaseUnavailable
from ui import state
from ui.bootstrap import ensure_sample_documents

st.set_page_config(page_title="RAG Layout Inspector", page_icon=":material/description:", layout="wide")
# Streamlit pads the page 6 rem from the top: a blank band above every title. The fixed header
# (the sidebar button and the menu) is 3.75 rem high, so start the page just below it.
# The column-width probe (ui/column_width.py) is an empty frame: it must keep its column's width
# but take no height, nor the 1 rem gap after it, or every page image starts 42 px lower.
st.html("<style>[data-testid='stMainBlockContainer'] { padding-top: 4rem; }"
        "[class*='st-key-rli-column_width_widget'] { height: 0 !important; overflow: hidden; margin-bottom: -1rem; }"
        "</style>")

PAGES = [
    st.Page("pages/documents.py", title="Documents", icon=":material/folder_open:", url_path="documents"),
    st.Page("pages/inspect.py", title="Inspect", icon=":material/search:", url_path="inspect", default=True),
    st.Page("pages/forms.py", title="Forms", icon=":material/edit_note:", url_path="forms"),
    st.Page("pages/links.py", title="Links", icon=":material/link:", url_path="links"),
    st.Page("pages/audit.py", title="Audit", icon=":material/history:", url_path="audit"),
    st.Page("pages/chunks.py", title="Chunks", icon=":material/view_agenda:", url_path="chunks"),
    st.Page("pages/gold.py", title="Gold set", icon=":material/star:", url_path="gold"),
    st.Page("pages/evaluate.py", title="Evaluate", icon=":material/bar_chart:", url_path="evaluate"),
]

PICKER_KEY = "rli:doc_picker"


def _picker_changed() -> None:
    state.select_document(st.session_state[PICKER_KEY])


def document_picker() -> None:
    records = state.documents()
    if not records:
        st.sidebar.info("No documents yet: add one on the Documents page.")
        return
    labels = {r.doc_id: f"{r.source} · {r.page_count}p" for r in records}
    current = state.current_doc_id()
    # Keep the widget in step with selections made elsewhere (Documents page, links between pages);
    # setting a widget's state is allowed before the widget is drawn in a run.
    if st.session_state.get(PICKER_KEY) != current:
        st.session_state[PICKER_KEY] = current
    st.sidebar.selectbox(
        "Document", list(labels), key=PICKER_KEY, format_func=labels.__getitem__, on_change=_picker_changed,
    )


def reviewer_box() -> None:
    if "rli:reviewer_box" not in st.session_state:
        st.session_state["rli:reviewer_box"] = state.reviewer()
    st.sidebar.text_input(
        "Reviewer", key="rli:reviewer_box", placeholder="your name",
        help="Recorded with every correction you make.",
        on_change=lambda: state.set_reviewer(st.session_state["rli:reviewer_box"]),
    )


def run_page(navigation) -> None:
    ensure_sample_documents()
    if "doc" in st.query_params or "page" in st.query_params:
        state.apply_link(st.query_params)
        st.query_params.clear()
    document_picker()
    reviewer_box()
    st.sidebar.caption(f"Workspace: `{state.workspace_label()}`")
    navigation.run()


navigation = st.navigation(PAGES)
try:
    run_page(navigation)
except DatabaseUnavailable as err:  # a shared database that went away mid-session (restart, network)
    st.error(str(err))
    st.button("Try again", icon=":material/refresh:", type="primary")
