"""Session state in one place: the workspace, the current document, page and element, the zoom and
the reviewer's name. Pages call these functions instead of touching `st.session_state` keys, so the
keys can change without breaking a page.

Selection rules: the current document is remembered per session; the current page and the selected
element are remembered per document, so switching documents and back returns to where you were.
Setters are safe to call from widget callbacks (`on_click=`, `on_change=`); when called from the
script body, call `st.rerun()` afterwards if widgets drawn earlier in the run must show the change.
"""
from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from core.model import Document
from core.review.corrections import corrected_document
from core.store.records import DocumentRecord, workspace_root
from core.errors import InspectorError
from core.store.interface import WorkspaceStore
from core.store import opening
from core.store.opening import SERVER_ENV, database_name_for, open_workspace
from core.store.schema import redacted_url

DOC_KEY = "rli:doc_id"
REVIEWER_KEY = "rli:reviewer"
ZOOM_KEY = "rli:zoom"
WORKSPACE_KEY = "rli:workspace"
OPENED_AS_KEY = "rli:workspace_opened_as"
ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
DEFAULT_ZOOM = 1.25
FIT = "fit"  # zoom setting: the page as wide as its column (measured in the browser, ui.column_width)
ZOOM_CHOICES = (FIT, *ZOOMS)  # for a zoom widget: state.set_zoom(choice), label with state.zoom_label
FIT_WIDTH_PX = 640  # until the browser has reported the column: its width in a 1400-px window with the sidebar open
FIT_STEP = 0.05  # fit zooms are rounded down to this, so a few pixels of resize reuse the cached render
FIT_RANGE = (0.5, 3.0)
COLUMN_WIDTH_KEY = "rli:column_width:"  # + view name: the page column's width in CSS pixels


# ---- workspace ----------------------------------------------------------------------------------
def workspace_path() -> Path:
    """`RLI_WORKSPACE` or ./workspace, resolved once so every session of this process agrees."""
    return _resolved_root(os.environ.get("RLI_WORKSPACE", ""))


@st.cache_resource(show_spinner=False)
def _resolved_root(env_value: str) -> Path:
    root = workspace_root(env_value or None).resolve()
    root.mkdir(parents=True, exist_ok=True)
    return root


def database_url() -> str:
    """`RLI_DATABASE_URL` (a shared PostgreSQL workspace), "" for the SQLite folder."""
    return opening.database_url() or ""


def workspace_label() -> str:
    """Where this app's workspace is, for people (a database URL without its password)."""
    url = database_url()
    if url:
        return redacted_url(url)
    server = os.environ.get(SERVER_ENV)
    if server:
        return f"{redacted_url(server)} · database {database_name_for(workspace_path())}"
    return str(workspace_path())


def workspace() -> WorkspaceStore:
    """This session's workspace, opened once per session: PostgreSQL when RLI_DATABASE_URL is set,
    else the SQLite folder. A database that cannot be used stops the page with its message.

    One connection per session rather than one per process: a connection carries at most one
    open transaction, and two sessions writing at once (two first visits ingesting the samples) must
    each get their own transaction, which the database then serialises across connections.
    """
    opened_as = (str(workspace_path()), database_url())
    ws = st.session_state.get(WORKSPACE_KEY)
    if ws is None or st.session_state.get(OPENED_AS_KEY) != opened_as:
        try:
            ws = open_workspace(opened_as[0], opened_as[1] or None)
        except InspectorError as err:
            st.error(str(err))
            st.stop()
        st.session_state[WORKSPACE_KEY] = ws
        st.session_state[OPENED_AS_KEY] = opened_as
    return ws


# ---- current document ---------------------------------------------------------------------------
def documents() -> list[DocumentRecord]:
    return workspace().documents()


def current_doc_id() -> str | None:
    """The selected document, falling back to the first one so a first visit shows something."""
    ws = workspace()
    doc_id = st.session_state.get(DOC_KEY)
    if doc_id and ws.find_document(doc_id) is not None:
        return doc_id
    records = ws.documents()
    doc_id = records[0].doc_id if records else None
    st.session_state[DOC_KEY] = doc_id
    return doc_id


def select_document(doc_id: str | None) -> None:
    st.session_state[DOC_KEY] = doc_id


def current_record() -> DocumentRecord | None:
    doc_id = current_doc_id()
    return workspace().find_document(doc_id) if doc_id else None


# ---- the corrected document (the one call to core.review.corrections) ----------------------------------
@st.cache_resource(max_entries=8, show_spinner=False)
def _corrected(root: str, doc_id: str, engine: str, updated_at: float, head: int, _ws: WorkspaceStore) -> Document:
    # Keyed by what changes the result: a new engine run (updated_at) or a new event (head).
    # cache_resource, not cache_data: a Document is frozen, so sharing it is safe, and it is not
    # pickled on every rerun (that would cost ~100 ms on a 300-page document).
    return corrected_document(_ws, doc_id)


def log_head(doc_id: str) -> int:
    """The correction-log head the current view is built from (pass it as `expected_head`)."""
    return workspace().head(doc_id)


def corrected_doc(doc_id: str | None = None) -> Document | None:
    """The corrected Document (machine output + the reviewer's events), cached by (doc_id, log head)."""
    ws = workspace()
    doc_id = doc_id or current_doc_id()
    if doc_id is None:
        return None
    record = ws.document(doc_id)
    return _corrected(str(ws.root), doc_id, record.engine, record.updated_at, ws.head(doc_id), ws)


def view_version(doc_id: str) -> tuple:
    """What a view derived from the corrected document must be keyed by (for caches of your own)."""
    ws = workspace()
    record = ws.document(doc_id)
    return (str(ws.root), doc_id, record.engine, record.updated_at, ws.head(doc_id))


def document_pdf(doc_id: str) -> Path | None:
    """The stored PDF, or None for an import without one (pages then render blank)."""
    return workspace().document_pdf(doc_id)


# ---- current page and element -------------------------------------------------------------------
def _page_key(doc_id: str) -> str:
    return f"rli:page:{doc_id}"


def _element_key(doc_id: str) -> str:
    return f"rli:element:{doc_id}"


def current_page(doc: Document | None = None) -> int:
    """1-based page of the current document, clamped to the document (1 when there is none)."""
    doc_id = doc.doc_id if doc else current_doc_id()
    if doc_id is None:
        return 1
    number = int(st.session_state.get(_page_key(doc_id), 1))
    if doc is not None:
        number = min(max(number, 1), max(doc.page_count, 1))
    return number


def set_page(number: int, doc: Document | None = None) -> None:
    doc_id = doc.doc_id if doc else current_doc_id()
    if doc_id is None:
        return
    if doc is not None:
        number = min(max(int(number), 1), doc.page_count)
    if st.session_state.get(_page_key(doc_id)) != number:
        st.session_state[_page_key(doc_id)] = int(number)
        select_element(None, doc_id)  # a selection on another page would be invisible


def selected_element_id(doc_id: str | None = None) -> str | None:
    doc_id = doc_id or current_doc_id()
    return st.session_state.get(_element_key(doc_id)) if doc_id else None


def select_element(element_id: str | None, doc_id: str | None = None) -> None:
    doc_id = doc_id or current_doc_id()
    if doc_id:
        st.session_state[_element_key(doc_id)] = element_id


# ---- view settings and reviewer -----------------------------------------------------------------
def zoom_setting() -> float | str:
    """What the reviewer chose: FIT (the default) or one of ZOOMS."""
    value = st.session_state.get(ZOOM_KEY, FIT)
    return FIT if value == FIT else float(value)


# The last width any session reported per view: a new session's first guess, so that on the same
# screen its first page image is already the right size (and cached) instead of being drawn twice.
_last_widths: dict[str, int] = {}


def column_width(view: str) -> int | None:
    """The width the browser last reported for `view`'s page column (ui.column_width); before this
    session's browser has said, the last width another session reported; else None."""
    value = st.session_state.get(COLUMN_WIDTH_KEY + view) or _last_widths.get(view)
    return int(value) if value else None


def set_column_width(view: str, width: int) -> None:
    st.session_state[COLUMN_WIDTH_KEY + view] = int(width)
    _last_widths[view] = int(width)


def fit_zoom(width_pt: float, column_px: int | None = None) -> float:
    """The zoom at which a page this wide fills a column `column_px` wide (rounded down to
    FIT_STEP); before the browser has measured the column, the largest of ZOOMS that fits FIT_WIDTH_PX."""
    if not column_px:
        return max((z for z in ZOOMS if width_pt * z <= FIT_WIDTH_PX), default=ZOOMS[0])
    steps = int((column_px - 2) / width_pt / FIT_STEP + 1e-9)  # 2 px: the canvas border
    return round(min(max(steps * FIT_STEP, FIT_RANGE[0]), FIT_RANGE[1]), 2)


def zoom(page=None, view: str = "inspect") -> float:
    """The zoom to draw at. With "fit width" it depends on the page (`page`, a core.model.Page, or
    else the current page of the current document) and on the width of `view`'s page column."""
    setting = zoom_setting()
    if setting != FIT:
        return float(setting)
    if page is None:
        doc = corrected_doc()
        page = doc.page(current_page(doc)) if doc is not None and doc.page_count else None
    return fit_zoom(page.width, column_width(view)) if page is not None else DEFAULT_ZOOM


def set_zoom(value: float | str) -> None:
    st.session_state[ZOOM_KEY] = FIT if value == FIT else float(value)


def zoom_label(value: float | str) -> str:
    return "fit width" if value == FIT else f"{round(float(value) * 100)}%"


LABELS_KEY = "rli:show_labels"


def labels_shown() -> bool:
    """The "Labels" toggle: category names on every box (off: only on the selected element)."""
    return bool(st.session_state.get(LABELS_KEY, False))


def set_labels_shown(shown: bool) -> None:
    st.session_state[LABELS_KEY] = bool(shown)


def reviewer() -> str:
    """The reviewer's name as typed in the sidebar ("" until set); corrections record it as actor."""
    return str(st.session_state.get(REVIEWER_KEY, "")).strip()


def set_reviewer(name: str) -> None:
    st.session_state[REVIEWER_KEY] = name.strip()


# ---- links into the app -------------------------------------------------------------------------
def apply_link(params) -> None:
    """Open the document and page a link names: `?doc=<doc_id>&page=<n>` (both optional).

    Used once per run by app.py with `st.query_params`; the parameters are then removed so the
    reviewer's own navigation is not overridden on the next rerun. Unknown ids and bad numbers are
    ignored (a stale link opens the app as it was)."""
    doc_id, page = params.get("doc"), params.get("page")
    if doc_id and workspace().find_document(str(doc_id)) is not None:
        select_document(str(doc_id))
    if page and current_doc_id():
        try:
            number = int(str(page))
        except ValueError:
            number = 0
        if number >= 1:
            st.session_state[_page_key(current_doc_id())] = number  # clamped when the page is read


def link_to(doc_id: str, page: int | None = None) -> str:
    """A relative URL that opens Inspect on this document (and page): for st.markdown links."""
    return f"./?doc={doc_id}" + (f"&page={int(page)}" if page else "")


# ---- review status (Documents list) -------------------------------------------------------------
def review_status(doc_id: str) -> str:
    """One short word or phrase for the Documents list.

    Reviewed pages / pages from the `mark_reviewed` events (core.review.status); the Documents page only
    calls this function. Cached per document version; a document without events is unreviewed
    without loading it (the list stays quick with many large documents).
    """
    from core.review.status import ReviewProgress

    ws = workspace()
    if ws.head(doc_id) == 0:
        return ReviewProgress(ws.document(doc_id).page_count, 0, 0).label
    return _review_label(view_version(doc_id), ws)


@st.cache_resource(max_entries=256, show_spinner=False)
def _review_label(version: tuple, _ws: WorkspaceStore) -> str:
    from core.review.status import review_progress  # reviewed pages / pages, from mark_reviewed events

    return review_progress(_ws, version[1]).label
