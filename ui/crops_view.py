"""Chunks page: figure and table crops (caption above, footnotes below) to view and download.

Each crop is what a multimodal RAG system gets for the chunk's `image_ref`: the element's page
region at 2× zoom with its caption and footnotes drawn from their own PDF regions.
"""
from __future__ import annotations

import io
import zipfile

import streamlit as st

from core.chunks.crops import crop_plan, crop_png, ensure_crops, policy_attachments
from core.errors import InspectorError
from core.model import Document
from ui import state
from ui.text import md_escape, shorten


def crops_section(doc: Document) -> None:
    # A toggle rather than an expander: an expander's body runs (and renders every crop) while closed.
    if not st.toggle("Show figure and table crops (image_ref)", key="rli:crops:show"):
        return
    with st.container(border=True):
        ws = state.workspace()
        if ws.document_pdf(doc.doc_id) is None:
            st.info("This document has no page images (imported without its PDF), so there is nothing to crop.")
            return
        try:
            with st.spinner("Rendering crops…"):
                attachments = policy_attachments(doc)
                refs = ensure_crops(ws, doc, attachments)
        except InspectorError as err:
            st.error(md_escape(str(err)))
            return
        if not refs:
            st.info("No pictures or tables in this document.")
            return
        plans = crop_plan(doc, attachments)
        st.caption(f"{len(refs)} crops. Chunk metadata names them as `image_ref`.")
        st.download_button("Download all crops (zip)", data=zip_of(ws, refs), file_name=f"{doc.doc_id}-crops.zip",
                           mime="application/zip", key="rli:crops:zip")
        for element_id, ref in refs.items():
            plan = plans[element_id]
            png = crop_png(ws, ref)
            if png is None:
                continue
            caption = " / ".join(shorten(c.text, 60) for c in plan.captions) or "(no caption)"
            with st.container(border=True):
                st.markdown(f"**{plan.element.category.value}** · page {plan.element.page} · {md_escape(caption)}")
                st.image(png, width="stretch")
                st.download_button("Download PNG", data=png, file_name=ref.rsplit("/", 1)[-1], mime="image/png",
                                   key=f"rli:crops:{element_id}")
                st.code(ref, language=None)


def zip_of(ws, refs: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for ref in refs.values():
            png = crop_png(ws, ref)
            if png is not None:
                archive.writestr(ref.rsplit("/", 1)[-1], png)
    return buffer.getvalue()
