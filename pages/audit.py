"""Audit: every correction of the current document — who changed what, when, and whether it is
still in effect — filterable by page, kind and reviewer. Events that lost their element after a
re-ingest are listed separately so the reviewer can redo them."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.forms.masking import masked_log_jsonl
from core.review.corrections import corrected_view
from core.forms.audit_lines import readable_audit
from ui import state
from ui.edit_panel import conflict_banner, flash_message, remember_view, save
from ui.text import md_escape, shorten


def filters(rows) -> tuple[set, set, set, bool]:
    page_col, kind_col, actor_col, undone_col = st.columns([2, 2, 2, 1.2], vertical_alignment="bottom")
    pages = sorted({r.page for r in rows if r.page is not None})
    kinds = sorted({r.kind for r in rows})
    actors = sorted({r.actor for r in rows})
    chosen_pages = page_col.multiselect("Page", pages, placeholder="all pages", key="rli:audit:pages")
    chosen_kinds = kind_col.multiselect("Kind", kinds, placeholder="all kinds", key="rli:audit:kinds")
    chosen_actors = actor_col.multiselect("Reviewer", actors, placeholder="everyone", key="rli:audit:actors")
    show_undone = undone_col.toggle("Show undone", value=True, key="rli:audit:undone")
    return set(chosen_pages), set(chosen_kinds), set(chosen_actors), show_undone


def log_table(doc_id: str, lines) -> None:
    rows = [line.row for line in lines]
    frame = pd.DataFrame({
        "event": [int(r.event_id) for r in rows],
        "what": [line.text for line in lines],
        "reviewer": [r.actor for r in rows],
        "when (UTC)": [r.at.replace("T", " ").rstrip("Z") for r in rows],
        "page": [r.page for r in rows],
        "kind": [r.kind for r in rows],
        "status": [r.status + (f" (by event {r.undone_by})" if r.undone_by else "") for r in rows],
    })
    key = f"rli:audit:table:{doc_id}:{len(rows)}"
    st.dataframe(frame, key=key, on_select="rerun", selection_mode="single-row", hide_index=True, width="stretch",
                 column_config={"event": st.column_config.NumberColumn(width="small"),
                                "what": st.column_config.TextColumn(width="large")})
    picked = st.session_state.get(key)
    chosen = lines[picked.selection.rows[0]] if picked and picked.selection.rows else None
    if chosen is None:
        st.caption("Select a row for the event's details (its ids, as stored) and to undo it.")
        return
    event_details(doc_id, chosen)


def event_details(doc_id: str, line) -> None:
    """The one place ids show: the event as stored, for reviewers who check the log by hand."""
    row = line.row
    with st.container(border=True, key="rli-audit-details"):
        st.markdown(f"**Event {row.event_id}** · {md_escape(line.text)}")
        st.caption(f"{row.kind} · by {md_escape(row.actor)} · {row.at} · {row.status}")
        st.json(line.payload, expanded=True)
        if row.kind != "undo" and row.status != "undone":
            st.button(f"Undo event {row.event_id}", key="rli:audit:undo_one",
                      on_click=save, args=(doc_id, [{"kind": "undo", "event": row.event_id}],
                                           f"Undid event {row.event_id}: {shorten(line.text, 80)}"))


def unanchored_list(doc_id: str) -> None:
    lost = corrected_view(state.workspace(), doc_id).unanchored
    if not lost:
        return
    st.subheader(f"Lost after a re-ingest ({len(lost)})")
    st.caption("These corrections name elements the current parse no longer has, and no element on the same "
               "page overlaps the old box with similar text. They are kept in the log; redo them on the Inspect "
               "or Links page if they still matter.")
    st.dataframe(pd.DataFrame([{"event": u.event_id, "kind": u.kind, "field": u.key, "page": u.page,
                                "old text": shorten(u.text, 60), "why": u.reason} for u in lost]),
                 hide_index=True, width="stretch")


def audit_page(doc_id: str) -> None:
    st.title("Audit")
    record = state.workspace().document(doc_id)
    st.markdown(f"**{md_escape(record.source)}** · {record.engine} engine")
    in_conflict = conflict_banner(doc_id)
    flash_message(doc_id)
    lines = readable_audit(state.workspace(), doc_id)
    rows = [line.row for line in lines]
    if not rows:
        st.info("No corrections yet for this document.")
        return
    pages, kinds, actors, show_undone = filters(rows)
    shown = [line for line in lines if (not pages or line.row.page in pages) and (not kinds or line.row.kind in kinds)
             and (not actors or line.row.actor in actors) and (show_undone or line.row.status != "undone")]
    st.caption(f"{len(shown)} of {len(rows)} events · newest last")
    log_table(doc_id, shown)
    st.download_button("Download the log (JSONL, the format `python -m core correct` reads; personal values masked)",
                       masked_log_jsonl(state.workspace(), doc_id),
                       file_name=f"{doc_id}.events.jsonl", mime="application/jsonl")
    unanchored_list(doc_id)
    if not in_conflict:
        remember_view(doc_id)


doc_id = state.current_doc_id()
if doc_id is None:
    st.title("Audit")
    st.info("No document yet. Add a PDF on the Documents page.")
else:
    audit_page(doc_id)
