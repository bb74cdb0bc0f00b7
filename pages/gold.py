"""Gold set: questions with their evidence on the page.

Write a question, click the elements that answer it on the page (several, across pages; click again
to drop one) or take a whole chunk, add the answer and tags, save. Below: every item, filtered by
document and tag, with its evidence drawn on the page; edit or delete it. Import and export gold/v1
JSONL, or export the LlamaIndex retrieval-eval and ragas shapes built from a policy's chunks.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import streamlit as st

from core.categories import Category
from core.errors import InspectorError
from core.evaluation.gold import (ANCHORED, Evidence, GoldItem, all_tags, delete_item, evidence_from_chunk,
                                  import_gold, load_items, new_gold_item,
                                  parse_gold_jsonl, save_item, toggle_evidence)
from core.evaluation.gold_export import export_gold
from core.model import Document
from core.render import Box
from core.store.opening import reopen
from core.store.workspace import Workspace
from ui import state
from ui.column_width import measure_column
from ui.page_view import page_view, take_clicks
from ui.tables import pickable_table
from ui.text import md_escape, shorten
from ui.trace import trace

EVIDENCE_COLOUR = "#ffbf00"  # amber: not a category colour, so evidence stands out from the overlays
SAMPLE_GOLD = Path(__file__).resolve().parents[1] / "sample_docs" / "gold_ja.jsonl"
ALL_DOCS = "(all documents)"
ANY_TAG = "(any tag)"
OPEN_KEY = "rli:gold:open"
# decorative rules and logos are never evidence; hiding them unclutters the page and the click targets
CLICKABLE = frozenset(c for c in Category if c is not Category.DECORATIVE)


# ---- the draft being written (one per document) ---------------------------------------------------
def _draft_key(doc_id: str) -> str:
    return f"rli:gold:draft:{doc_id}"


def draft(doc: Document) -> dict:
    key = _draft_key(doc.doc_id)
    if key not in st.session_state:
        st.session_state[key] = {"id": None, "evidence": (), "generation": 0, "created_by": "", "created_at": ""}
    return st.session_state[key]


def field_key(doc: Document, name: str) -> str:
    # the generation changes when a draft is reset or loaded, giving the text widgets fresh values
    return f"rli:gold:{name}:{doc.doc_id}:{draft(doc)['generation']}"


def reset_draft(doc: Document, item: GoldItem | None = None) -> None:
    generation = draft(doc)["generation"] + 1
    st.session_state[_draft_key(doc.doc_id)] = {
        "id": item.id if item else None, "evidence": item.evidence if item else (), "generation": generation,
        "created_by": item.created_by if item else "", "created_at": item.created_at if item else "",
    }
    values = {"question": item.question if item else "", "answer": item.answer if item else "",
              "tags": ", ".join(item.tags) if item else ""}
    for name, value in values.items():
        st.session_state[field_key(doc, name)] = value


def set_draft_evidence(doc: Document, evidence: tuple[Evidence, ...]) -> None:
    draft(doc)["evidence"] = tuple(evidence)


def evidence_boxes(evidence: tuple[Evidence, ...], page: int) -> list[Box]:
    return [Box(e.bbox, EVIDENCE_COLOUR, f"E{i + 1}", fill_alpha=90, width=4)
            for i, e in enumerate(evidence) if e.page == page and e.bbox]


# ---- editor ----------------------------------------------------------------------------------------
def page_navigation(doc: Document, number: int) -> None:
    prev_col, jump_col, next_col, zoom_col = st.columns([1, 1.2, 1, 1.6], vertical_alignment="bottom")
    prev_col.button("◀ Previous", key="rli:gold:prev", disabled=number <= 1, width="stretch",
                    on_click=state.set_page, args=(number - 1, doc))
    jump_key = f"rli:gold:jump:{doc.doc_id}"
    if st.session_state.get(jump_key) != number:
        st.session_state[jump_key] = number
    jump_col.number_input("Page", min_value=1, max_value=doc.page_count, step=1, key=jump_key,
                          on_change=lambda: state.set_page(int(st.session_state[jump_key]), doc))
    next_col.button("Next ▶", key="rli:gold:next", disabled=number >= doc.page_count, width="stretch",
                    on_click=state.set_page, args=(number + 1, doc))
    # "fit width" (the default) draws the page as wide as its column, so the right edge stays clickable
    zoom_key = "rli:gold:zoom"
    if st.session_state.get(zoom_key) != state.zoom_setting():
        st.session_state[zoom_key] = state.zoom_setting()
    zoom_col.select_slider("Zoom", options=state.ZOOM_CHOICES, key=zoom_key, format_func=state.zoom_label,
                           on_change=lambda: state.set_zoom(st.session_state[zoom_key]))


def evidence_list(doc: Document) -> None:
    evidence = draft(doc)["evidence"]
    if not evidence:
        st.caption("No evidence yet: click the elements that answer the question on the page.")
        return
    index = doc.element_index()
    for i, ev in enumerate(evidence):
        element = index.get(ev.record_id or "")
        label = element.category.value if element else ("page only" if ev.level != "unanchored" else "not anchored")
        # The quote takes the column's whole width and the buttons sit on their own row, sized to
        # their words: side by side in a 1400-px window they were squeezed to "S.".
        key = f"rli:gold:quote:{doc.doc_id}:{draft(doc)['generation']}:{i}:{ev.record_id}"
        quote = st.text_input(f"E{i + 1} · p{ev.page} · {label} · quote", value=ev.quote, key=key,
                              help="Narrow it to the words that answer the question.")
        with st.container(horizontal=True, gap="small", key=f"rli-gold-evidence-{i}"):
            st.button(f"Show p{ev.page}" if ev.page else "Show", key=f"rli:gold:show:{doc.doc_id}:{i}",
                      on_click=state.set_page, args=(ev.page or 1, doc), disabled=not ev.page, width="content")
            st.button("Remove", key=f"rli:gold:drop:{doc.doc_id}:{i}", help="remove this evidence",
                      icon=":material/close:", on_click=set_draft_evidence,
                      args=(doc, evidence[:i] + evidence[i + 1:]), width="content")
        if quote != ev.quote:
            changed = list(evidence)
            changed[i] = Evidence(ev.record_id, ev.page, ev.bbox, quote, ev.anchored)
            set_draft_evidence(doc, tuple(changed))
            evidence = tuple(changed)


def take_chunk(doc: Document, number: int) -> None:
    from core.chunks.pipeline import chunks_for

    with st.expander("Take a whole chunk as evidence"):
        policy = st.selectbox("Policy", ["default", "naive"], key="rli:gold:chunk_policy")
        chunks = [c for c in chunks_for(state.workspace(), doc.doc_id, policy)
                  if c.start_page <= number <= c.end_page]
        if not chunks:
            st.caption("No chunk covers this page.")
            return
        labels = {c.id: f"p{c.start_page}–{c.end_page} · {shorten(c.text, 70)}" for c in chunks}
        chosen = st.selectbox("Chunk on this page", list(labels), format_func=labels.__getitem__,
                              key=f"rli:gold:chunk:{doc.doc_id}:{number}:{policy}")
        if st.button("Add its elements", key="rli:gold:take_chunk"):
            chunk = next(c for c in chunks if c.id == chosen)
            current = draft(doc)["evidence"]
            have = {e.record_id for e in current}
            set_draft_evidence(doc, current + tuple(e for e in evidence_from_chunk(chunk, doc)
                                                    if e.record_id not in have))
            st.rerun()


def save_draft(doc: Document) -> None:
    d = draft(doc)
    question = st.session_state.get(field_key(doc, "question"), "").strip()
    trace("gold save", question_chars=len(question), evidence=len(d["evidence"]))
    if not question:
        st.session_state["rli:gold:message"] = ("error", "Write the question first.")
        return
    if not d["evidence"]:
        st.session_state["rli:gold:message"] = ("error", "Click at least one element that answers the question.")
        return
    tags = st.session_state.get(field_key(doc, "tags"), "").split(",")
    item = new_gold_item(question, st.session_state.get(field_key(doc, "answer"), ""), doc, d["evidence"], tags,
                         created_by=d["created_by"] or state.reviewer(), item_id=d["id"])
    if d["id"] and d["created_at"]:
        item = replace(item, created_at=d["created_at"])  # an edit keeps when the question was first written
    try:
        save_item(state.workspace(), item)
    except InspectorError as err:
        trace("gold save", outcome=type(err).__name__)
        st.session_state["rli:gold:message"] = ("error", str(err))
        return
    trace("gold save", outcome="stored", item=item.id)
    reset_draft(doc)
    # Kept (not popped) until the next save or "New question": a rerun right after the click (the
    # question box committing its text) must not wipe the only sign that the save happened.
    saved = f"Saved 「{shorten(question, 40)}」 ({item.id}) with {len(item.evidence)} evidence."
    st.session_state["rli:gold:message"] = ("success", saved)
    st.session_state["rli:gold:toast"] = saved


def editor(doc: Document) -> None:
    number = state.current_page(doc)
    d = draft(doc)
    # Clicks are applied the moment they are taken, before the page is drawn: their evidence boxes
    # show in this run, and a run stopped for a newer one cannot lose a click it had already taken.
    for click in take_clicks(doc, number, key="gold", visible=CLICKABLE):
        if click.element_id:
            set_draft_evidence(doc, toggle_evidence(d["evidence"], doc.element(click.element_id)))
    page_col, form_col = st.columns([3, 2], gap="medium")
    with page_col:
        st.markdown(f"**{md_escape(doc.source)}** · page {number} of {doc.page_count} · "
                    "click an element to add it as evidence, click it again to remove it")
        page_navigation(doc, number)
        measure_column("gold")
        page_view(doc, number, zoom=state.zoom(doc.page(number), view="gold"), key="gold", visible=CLICKABLE,
                  boxes=evidence_boxes(d["evidence"], number))
    with form_col:
        st.markdown("**Editing " + (d["id"] + "**" if d["id"] else "a new question**"))
        st.text_area("Question", key=field_key(doc, "question"), height=80,
                     placeholder="例: タクシーを深夜以外に利用できるのはどんな場合か")
        st.markdown(f"**Evidence** ({len(d['evidence'])})")
        evidence_list(doc)
        take_chunk(doc, number)
        st.text_area("Answer", key=field_key(doc, "answer"), height=68)
        st.text_input("Tags (comma-separated)", key=field_key(doc, "tags"), placeholder="footnote, table")
        save_col, new_col = st.columns(2)
        save_col.button("Save item", type="primary", key="rli:gold:save", on_click=save_draft, args=(doc,),
                        width="stretch")
        new_col.button("New question", key="rli:gold:new", on_click=new_question, args=(doc,), width="stretch")
        message = st.session_state.get("rli:gold:message")
        if message and message[0] == "error":
            st.session_state.pop("rli:gold:message")
        if message:
            (st.error if message[0] == "error" else st.success)(message[1])
        toast = st.session_state.pop("rli:gold:toast", None)
        if toast:
            st.toast(toast, icon=":material/check_circle:")


def new_question(doc: Document) -> None:
    st.session_state.pop("rli:gold:message", None)
    reset_draft(doc)


# ---- the list -------------------------------------------------------------------------------------
def items_table(items: list[GoldItem], sources: dict[str, str]) -> GoldItem | None:
    frame = pd.DataFrame({
        "id": [i.id for i in items],
        "question": [shorten(i.question, 70) for i in items],
        "document": [sources.get(i.doc_id, i.doc_id) for i in items],
        "pages": [", ".join(str(p) for p in sorted({e.page for e in i.evidence if e.page})) for i in items],
        "evidence": [len(i.evidence) for i in items],
        "not anchored": [sum(e.level != ANCHORED for e in i.evidence) for i in items],
        "tags": [", ".join(i.tags) for i in items],
    })
    questions = {i.id: i for i in items}
    chosen = pickable_table(frame, [i.id for i in items], table_key="rli:gold:table", open_key=OPEN_KEY,
                            label="Open a question (or click its row)",
                            describe=lambda i: shorten(questions[i].question, 60))
    return questions.get(chosen) if chosen else None


def edit_item(item: GoldItem) -> None:
    state.select_document(item.doc_id)
    doc = state.corrected_doc(item.doc_id)
    if doc is None:
        return
    st.session_state.pop("rli:gold:message", None)
    reset_draft(doc, item)
    first_page = next((e.page for e in item.evidence if e.page), 1)
    state.set_page(first_page, doc)


def remove_item(item_id: str) -> None:
    delete_item(state.workspace(), item_id)
    st.session_state["rli:gold:list_message"] = f"Deleted {item_id}."
    st.session_state["rli:gold:toast"] = f"Deleted {item_id}."


def item_details(item: GoldItem) -> None:
    ws = state.workspace()
    if ws.find_document(item.doc_id) is None:
        st.warning(f"Document {item.doc_id} is no longer in the workspace.")
        return
    doc = state.corrected_doc(item.doc_id)
    st.markdown(f"**Q:** {md_escape(item.question)}")
    st.markdown(f"**A:** {md_escape(item.answer) or '—'}")
    for i, ev in enumerate(item.evidence):
        status = "" if ev.level == ANCHORED else f" · ⚠ {ev.level}"
        st.caption(f"E{i + 1} · p{ev.page or '?'}{status} · {shorten(ev.quote or '(no text)', 90)}")
    edit_col, delete_col = st.columns(2)
    edit_col.button("Edit", key="rli:gold:edit", on_click=edit_item, args=(item,), width="stretch")
    with delete_col.popover("Delete", width="stretch"):
        st.write("Delete this question for good?")
        st.button("Yes, delete", key="rli:gold:delete", on_click=remove_item, args=(item.id,), type="primary")
    pages = sorted({e.page for e in item.evidence if e.page})
    for column, number in zip(st.columns(min(len(pages), 3) or 1), pages[:3]):
        with column:
            st.caption(f"page {number}")
            page_view(doc, number, zoom=0.75, key=f"gold-item-{number}", elements=[],
                      boxes=evidence_boxes(item.evidence, number), clickable=False)
    if len(pages) > 3:
        st.caption(f"…and evidence on {len(pages) - 3} more page(s): {', '.join(map(str, pages[3:]))}")


def item_list(ws: Workspace) -> None:
    st.subheader("Questions")
    records = {r.doc_id: r.source for r in ws.documents()}
    everything = load_items(ws)
    doc_col, tag_col = st.columns(2)
    doc_choice = doc_col.selectbox("Document", [ALL_DOCS, *records], key="rli:gold:filter_doc",
                                   format_func=lambda d: records.get(d, d))
    tag_choice = tag_col.selectbox("Tag", [ANY_TAG, *all_tags(everything)], key="rli:gold:filter_tag")
    items = [i for i in everything if (doc_choice == ALL_DOCS or i.doc_id == doc_choice)
             and (tag_choice == ANY_TAG or tag_choice in i.tags)]
    message = st.session_state.pop("rli:gold:list_message", None)
    if message:
        st.success(message)
    if not items:
        st.caption("No questions match." if everything else "No questions yet: write one above, or import a file.")
        return
    st.caption(f"{len(items)} of {len(everything)} question(s)")
    chosen = items_table(items, records)
    if chosen is not None:
        item_details(chosen)
    export_section(ws, items)


# ---- files ----------------------------------------------------------------------------------------
def show_import_report(report) -> None:
    rows = [r.to_dict() for r in report.items]
    bad = [r for r in rows if r["problems"]]
    st.success(f"Imported {len(rows)} question(s); {len(bad)} with evidence not anchored to an element.")
    for item_id, old, new in report.remapped:
        st.info(f"{item_id}: document {old} is not here; matched by file name to {new}.")
    for r in bad:
        for p in r["problems"]:
            st.warning(f"{r['id']} · evidence E{p['evidence'] + 1} ({p['level']}): {p['reason']}")


def import_section(ws: Workspace) -> None:
    with st.expander("Import a gold set"):
        upload = st.file_uploader("gold/v1 JSONL", type=["jsonl", "json", "txt"], key="rli:gold:upload")
        cols = st.columns(2)
        if cols[0].button("Import file", disabled=upload is None, key="rli:gold:import"):
            import_text(ws, upload.getvalue().decode("utf-8", errors="replace"), upload.name)
        if SAMPLE_GOLD.exists() and cols[1].button("Import the sample gold set", key="rli:gold:import_sample",
                                                    help="sample_docs/gold_ja.jsonl, over the bundled documents"):
            import_text(ws, SAMPLE_GOLD.read_text(encoding="utf-8"), SAMPLE_GOLD.name)


def import_text(ws: Workspace, text: str, name: str) -> None:
    try:
        show_import_report(import_gold(ws, parse_gold_jsonl(text, origin=name)))
    except InspectorError as err:
        st.error(str(err))


def export_section(ws: Workspace, items: list[GoldItem]) -> None:
    with st.expander(f"Export these {len(items)} question(s)"):
        fmt = st.radio("Shape", ["gold", "llamaindex", "ragas"], horizontal=True, key="rli:gold:export_fmt",
                       format_func={"gold": "gold/v1 JSONL", "llamaindex": "LlamaIndex retrieval eval (JSON)",
                                    "ragas": "ragas rows (JSONL)"}.__getitem__)
        policy = "default"
        if fmt != "gold":
            policy = st.selectbox("Chunks from policy", ["default", "naive"], key="rli:gold:export_policy")
        if fmt == "llamaindex":  # RetrieverEvaluator cannot take a question without a chunk: say which are left out
            for left in export_gold(ws, items, fmt, policy).left_out:
                st.caption(md_escape(left.line()))

        def build() -> str:
            # runs on Streamlit's download thread: open our own connection
            return export_gold(reopen(ws), items, fmt, policy).text

        suffix = "json" if fmt == "llamaindex" else "jsonl"
        st.download_button("Download", data=build, file_name=f"gold_{fmt}.{suffix}", mime="application/json",
                           key="rli:gold:download", on_click="ignore")


# ---- the page ---------------------------------------------------------------------------------------
st.title("Gold set")
doc = state.corrected_doc()
ws = state.workspace()
if doc is None:
    st.info("No document yet. Add a PDF on the Documents page, then write questions about it here.")
    st.page_link("pages/documents.py", label="Go to Documents", icon=":material/folder_open:")
else:
    editor(doc)
st.divider()
import_section(ws)
item_list(ws)
