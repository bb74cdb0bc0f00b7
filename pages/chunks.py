"""Chunks: the current document's chunks under a policy, each with its boxes on the page.

Pick a policy (default, naive, a TOML in policies/, or one you upload); filter the chunks by
category and page; select one to see every box it came from (the next page too when it crosses
one), its text, metadata and attached captions and footnotes. Compare with the naive baseline,
see what the reviewer's corrections changed, and download the chunks in three shapes. Chunks are
rebuilt only when the document, its corrections or the policy change (core.chunks.pipeline caches them).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from core.categories import Category
from core.chunks.chunking import build_chunks
from core.chunks.evidence import summarise
from core.chunks.pipeline import chunks_for, evidence_for
from core.chunks.policy import DEFAULT, Policy, describe, load_policy, policy_from_toml
from core.errors import InspectorError
from core.export.formats import FORMATS, export, file_name
from core.model import Chunk, Document
from core.render import Box
from ui import state
from ui.crops_view import crops_section
from ui.column_width import measure_column
from ui.page_view import page_view
from ui.text import md_escape, shorten

POLICY_DIR = Path(__file__).resolve().parents[1] / "policies"
POLICY_KEY = "rli:chunks:policy"
UPLOADED_KEY = "rli:chunks:uploaded_policy"
UPLOAD_CHOICE = "upload a TOML…"
SIZE_BINS = (0, 100, 200, 400, 800, 1200, 1600, 2048, 10**9)


# ---- policy --------------------------------------------------------------------------------------
def policy_choices() -> dict[str, str]:
    """Label → what load_policy takes; the team files in policies/ are offered by name."""
    choices = {"default": "default", "naive": "naive"}
    for path in sorted(POLICY_DIR.glob("*.toml")):
        if path.stem != "default":
            choices[f"policies/{path.name}"] = str(path)
    return choices


def policy_picker() -> Policy | None:
    choices = policy_choices()
    labels = list(choices) + [UPLOAD_CHOICE]
    if st.session_state.get(POLICY_KEY) not in labels:
        st.session_state[POLICY_KEY] = "default"
    label = st.selectbox("Policy", labels, key=POLICY_KEY,
                         help="default: seed 000's category policy · naive: page text split at 。(2048/300)")
    if label != UPLOAD_CHOICE:
        try:
            return load_policy(choices[label])
        except InspectorError as err:
            st.error(str(err))
            return None
    upload = st.file_uploader("Policy TOML (merged over the defaults)", type=["toml"], key="rli:chunks:upload")
    if upload is not None:
        try:
            st.session_state[UPLOADED_KEY] = policy_from_toml(upload.getvalue().decode("utf-8", "replace"),
                                                              default_name="uploaded", where="uploaded")
        except InspectorError as err:
            st.error(f"{err}. The previous policy is kept.")
    policy = st.session_state.get(UPLOADED_KEY)
    if policy is None:
        st.info("Upload a policy TOML (see policies/team_example.toml); until then the default policy is used.")
        return DEFAULT
    return policy


# ---- chunks and what to show of them --------------------------------------------------------------
def chunk_table(chunks: list[Chunk]) -> pd.DataFrame:
    return pd.DataFrame({
        "pages": [f"{c.start_page}" if c.start_page == c.end_page else f"{c.start_page}–{c.end_page}" for c in chunks],
        "text": [shorten(c.text, 90) for c in chunks],
        "categories": [", ".join(x.value for x in c.source_categories) for c in chunks],
        "chars": [len(c.text) for c in chunks],
        "atomic": [c.atomic for c in chunks],
        "section": [shorten(c.section_path[-1], 40) if c.section_path else "" for c in chunks],
    })


def filtered(chunks: tuple[Chunk, ...], categories: list[str], page: int | None) -> list[Chunk]:
    wanted = {Category(c) for c in categories}
    return [c for c in chunks
            if (not wanted or wanted & set(c.source_categories))
            and (page is None or c.start_page <= page <= c.end_page)]


def chunk_boxes(chunk: Chunk, page: int) -> list[Box]:
    return [Box(r.bbox, r.category.colour, r.category.value) for r in chunk.refs if r.page == page]


def selected_chunk(doc: Document, shown: list[Chunk]) -> Chunk | None:
    key = f"rli:chunks:selected:{doc.doc_id}"
    chosen = next((c for c in shown if c.id == st.session_state.get(key)), None)
    return chosen or (shown[0] if shown else None)


def chunk_list(doc: Document, shown: list[Chunk], policy: Policy) -> None:
    ids = [c.id for c in shown]
    table_key = f"rli:chunks:table:{doc.doc_id}:{policy.fingerprint}:{len(shown)}:{hash(tuple(ids))}"

    def on_select() -> None:
        rows = st.session_state[table_key].selection.rows
        if rows:
            st.session_state[f"rli:chunks:selected:{doc.doc_id}"] = ids[rows[0]]

    st.dataframe(chunk_table(shown), key=table_key, on_select=on_select, selection_mode="single-row",
                 hide_index=True, width="stretch", height=520,
                 column_config={"chars": st.column_config.NumberColumn(width="small"),
                                "atomic": st.column_config.CheckboxColumn(width="small")})


def chunk_details(doc: Document, chunk: Chunk) -> None:
    pages = [chunk.start_page] + ([chunk.start_page + 1] if chunk.end_page > chunk.start_page else [])
    span = f"page {chunk.start_page}" if len(pages) == 1 else f"pages {chunk.start_page}–{chunk.end_page}"
    st.markdown(f"**{md_escape(' > '.join(chunk.section_path) or '(no section)')}** · {span} · "
                f"{len(chunk.text)} characters · {len(chunk.refs)} source boxes"
                + (" · atomic" if chunk.atomic else ""))
    measure_column("chunks")
    for number in pages:
        st.caption(f"Page {number}: every box this chunk cites, in its category's colour")
        page_view(doc, number, zoom=state.zoom(doc.page(number), view="chunks"), key=f"chunks:{number}", elements=[],
                  boxes=chunk_boxes(chunk, number), clickable=False)
    st.markdown("**Text** (what retrieval sees)")
    st.code(chunk.text or "(empty)", language=None, wrap_lines=True)
    attached_parts(doc, chunk)
    with st.expander("Metadata (chunk/v1)"):
        st.json(chunk.to_record()["metadata"], expanded=False)


def attached_parts(doc: Document, chunk: Chunk) -> None:
    index = doc.element_index()
    for key, title in (("captions", "Attached captions"), ("footnotes", "Attached footnotes")):
        ids = chunk.extra_value(key, ())
        if ids:
            st.markdown(f"**{title}**")
            for element_id in ids:
                element = index.get(element_id)
                st.text(f"p{element.page} · {element.text}" if element else f"{element_id} (gone)")
    for key, title in (("page_headers", "Page headers (metadata only)"), ("page_footers", "Page footers (metadata only)")):
        values = chunk.extra_value(key, ())
        if values:
            st.markdown(f"**{title}**")
            st.text("\n".join(values))


def chunks_tab(doc: Document, chunks: tuple[Chunk, ...], policy: Policy) -> None:
    present = sorted({c.value for ch in chunks for c in ch.source_categories},
                     key=[c.value for c in Category].index)
    cat_col, page_col = st.columns([3, 1])
    categories = cat_col.multiselect("Categories (chunks holding any of them)", present,
                                     key=f"rli:chunks:cats:{doc.doc_id}")
    page_options = ["all"] + list(range(1, doc.page_count + 1))
    page = page_col.selectbox("Page", page_options, key=f"rli:chunks:page:{doc.doc_id}")
    shown = filtered(chunks, categories, None if page == "all" else int(page))
    st.caption(f"{len(shown)} of {len(chunks)} chunks")
    if not shown:
        st.info("No chunk matches these filters.")
        return
    list_col, detail_col = st.columns([5, 5], gap="medium")
    with list_col:
        chunk_list(doc, shown, policy)
    with detail_col:
        chunk = selected_chunk(doc, shown)
        if chunk is not None:
            chunk_details(doc, chunk)


# ---- comparison with the naive baseline -----------------------------------------------------------
def size_histogram(named: dict[str, tuple[Chunk, ...]]) -> pd.DataFrame:
    labels = [f"{lo}–{hi}" if hi < 10**9 else f"{lo}+" for lo, hi in zip(SIZE_BINS, SIZE_BINS[1:])]
    rows = {}
    for name, chunks in named.items():
        counts = [0] * len(labels)
        for c in chunks:
            counts[next(i for i, hi in enumerate(SIZE_BINS[1:]) if len(c.text) < hi)] += 1
        rows[name] = counts
    return pd.DataFrame(rows, index=pd.Index(labels, name="characters"))


def size_chart(histogram: pd.DataFrame):
    """Grouped bars in bin order (a plain bar chart would sort "1200–1600" before "200–400")."""
    import altair as alt

    long = histogram.reset_index().melt("characters", var_name="policy", value_name="chunks")
    order = list(histogram.index)
    return alt.Chart(long).mark_bar().encode(
        x=alt.X("characters:N", sort=order, title="characters per chunk"),
        xOffset=alt.XOffset("policy:N"),
        y=alt.Y("chunks:Q", title="chunks"),
        color=alt.Color("policy:N", title="policy"),
        tooltip=["policy", "characters", "chunks"],
    )


def compare_tab(doc: Document, chunks: tuple[Chunk, ...], naive: tuple[Chunk, ...], policy: Policy) -> None:
    named = {policy.name: chunks, "naive": naive}
    stats = pd.DataFrame({
        name: {"chunks": len(cs), "median chars": int(pd.Series([len(c.text) for c in cs] or [0]).median()),
               "max chars": max((len(c.text) for c in cs), default=0),
               "atomic": sum(c.atomic for c in cs),
               "boxes cited": sum(len(c.refs) for c in cs)}
        for name, cs in named.items()})
    st.table(stats)
    st.markdown("**Chunk sizes**")
    st.altair_chart(size_chart(size_histogram(named)), width="stretch")
    number = st.number_input("Chunks on page", min_value=1, max_value=doc.page_count, step=1,
                             value=state.current_page(doc), key=f"rli:chunks:compare_page:{doc.doc_id}")
    left, right = st.columns(2, gap="medium")
    for col, (name, cs) in zip((left, right), named.items()):
        on_page = [c for c in cs if c.start_page <= number <= c.end_page]
        col.markdown(f"**{md_escape(name)}** · {len(on_page)} chunks touch page {number}")
        for c in on_page:
            with col.container(border=True):
                st.caption(f"pages {c.start_page}–{c.end_page} · {len(c.text)} chars · "
                           f"{md_escape(' > '.join(c.section_path) or '-')}")
                st.text(shorten(c.text, 600))


# ---- what the corrections changed, and export -----------------------------------------------------
@st.cache_resource(max_entries=8, show_spinner=False)
def _machine_chunks(version: tuple, fingerprint: str, _policy: Policy) -> tuple[Chunk, ...]:
    ws = state.workspace()
    return build_chunks(ws.load_machine_document(version[1]), _policy)


def corrections_tab(doc: Document, chunks: tuple[Chunk, ...], policy: Policy) -> None:
    machine = _machine_chunks(state.view_version(doc.doc_id), policy.fingerprint, policy)
    before, after = {c.id: c for c in machine}, {c.id: c for c in chunks}
    gone = [c for i, c in before.items() if i not in after]
    new = [c for i, c in after.items() if i not in before]
    if not gone and not new:
        st.info("The reviewer's corrections change no chunk under this policy (or there are none yet).")
        return
    st.markdown(f"**{len(new)}** chunks differ from the machine output's (**{len(gone)}** replaced).")
    left, right = st.columns(2, gap="medium")
    for col, title, items in ((left, "Machine output", gone), (right, "With corrections", new)):
        col.markdown(f"**{title}**")
        for c in items:
            with col.container(border=True):
                st.caption(f"pages {c.start_page}–{c.end_page} · {len(c.text)} chars")
                st.text(shorten(c.text, 400))


def export_tab(doc: Document, chunks: tuple[Chunk, ...], policy: Policy) -> None:
    st.markdown(f"{len(chunks)} chunks of **{md_escape(doc.source)}** under policy **{md_escape(policy.name)}**. "
                "Redacted form values never appear in any export.")
    flat = st.toggle("Flat metadata", key="rli:chunks:flat_metadata",
                     help="Only strings, numbers and booleans (page/box citations as JSON strings), for vector "
                          "stores such as Chroma and LangChain's filter_complex_metadata; converts back to nested.")
    metadata = "flat" if flat else "nested"
    names = {fmt: file_name(doc.source, policy.name, fmt, metadata) for fmt in FORMATS}
    # file_name keeps only safe characters, so the names need no escaping
    st.caption(f"{'Flat' if flat else 'Nested'} metadata: " + ", ".join(f"`{n}`" for n in names.values()))
    cols = st.columns(len(FORMATS))
    descriptions = {"jsonl": "chunk/v1 JSONL", "langchain": "LangChain Documents", "llamaindex": "LlamaIndex TextNodes"}
    for col, fmt in zip(cols, FORMATS):
        col.download_button(descriptions[fmt], data=export(chunks, fmt, metadata).encode("utf-8"),
                            file_name=names[fmt], mime="application/jsonl",
                            key=f"rli:chunks:download:{fmt}", width="stretch")
    crops_section(doc)  # figure/table crops named by image_ref, to view and download (ui/crops_view.py)


def policy_tab(policy: Policy) -> None:
    st.caption(f"{md_escape(policy.name)} · fingerprint {policy.fingerprint} · max {policy.max_chars} chars · "
               f"mode {policy.mode}")
    st.dataframe(pd.DataFrame(describe(policy)), hide_index=True, width="stretch")


def evidence_metrics(doc: Document, policy: Policy) -> None:
    if policy.mode == "naive":
        return
    summary = summarise(evidence_for(state.workspace(), doc.doc_id, policy))
    cols = st.columns(4)
    cols[0].metric("Captions attached", summary.captions_attached,
                   help=f"{summary.captions_unattached} stayed in the text (no figure or table on their page)")
    cols[1].metric("Footnotes attached", summary.footnotes_attached + summary.footnotes_to_previous_chunk,
                   help=f"{summary.footnotes_to_previous_chunk} joined the chunk before their page")
    cols[2].metric("Header/footer lines → metadata", summary.furniture_to_metadata,
                   help=f"{summary.furniture_to_text} page-specific lines stayed in the text")
    cols[3].metric("Excluded (decorative)", summary.excluded)


# ---- the page ------------------------------------------------------------------------------------
def chunks_page(doc: Document) -> None:
    st.title("Chunks")
    st.caption(f"{md_escape(doc.source)} · {doc.page_count} pages · {doc.engine} engine")
    policy = policy_picker()
    if policy is None:
        return
    ws = state.workspace()
    with st.spinner("Building chunks…"):
        try:
            chunks = chunks_for(ws, doc.doc_id, policy)
            naive = chunks_for(ws, doc.doc_id, "naive")
        except InspectorError as err:
            st.error(str(err))
            return
    evidence_metrics(doc, policy)
    tabs = st.tabs(["Chunks", "Compare with naive", "Corrections", "Export", "Policy"])
    with tabs[0]:
        chunks_tab(doc, chunks, policy)
    with tabs[1]:
        compare_tab(doc, chunks, naive, policy)
    with tabs[2]:
        corrections_tab(doc, chunks, policy)
    with tabs[3]:
        export_tab(doc, chunks, policy)
    with tabs[4]:
        policy_tab(policy)


document = state.corrected_doc()
if document is None:
    st.title("Chunks")
    st.info("No document yet. Add a PDF on the Documents page.")
    st.page_link("pages/documents.py", label="Go to Documents", icon=":material/folder_open:")
else:
    chunks_page(document)
