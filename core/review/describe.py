"""How an event reads to people (the Audit page, the Inspect page's undo buttons, messages):
one line of text, and the page the event is about.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from core.model import Document
from core.review.reanchor import ELEMENT_REFS, is_reviewer_element_id


def describe(payload: Mapping[str, Any], name: Callable[[str], str] | None = None) -> str:
    """One line for people; `name` turns an element id into something readable (its text)."""
    n = name or (lambda element_id: str(element_id))
    kind = payload.get("kind")
    if kind == "relabel":
        return f"relabel {n(payload.get('target'))} → {payload.get('category')}"
    if kind == "delete_element":
        return f"delete {n(payload.get('target'))}"
    if kind == "add_element":
        return f"add {payload.get('category')} on page {payload.get('page')} at {payload.get('bbox')}"
    if kind == "move_bbox":
        return f"move {n(payload.get('target'))} to {payload.get('bbox')}"
    if kind == "link":
        return f"link {n(payload.get('source'))} → {n(payload.get('target'))}"
    if kind == "unlink":
        return f"unlink {n(payload.get('source'))}" + (f" from {n(payload['target'])}" if payload.get("target") else "")
    if kind == "set_selection":
        return f"set {n(payload.get('target'))} {payload.get('state')}"
    if kind == "set_text":
        return f"set the text of {n(payload.get('target'))} to “{str(payload.get('text', ''))[:60]}”"
    if kind == "reorder":
        where = "after" if payload.get("after") is not None else "before"
        return f"move {n(payload.get('target'))} {where} {n(payload.get(where))} in reading order"
    if kind == "split_element":
        return f"split {n(payload.get('target'))} after line {payload.get('at_line')}"
    if kind == "chunk_break":
        return f"start a new chunk at {n(payload.get('before'))}"
    if kind == "join_chunks":
        return f"keep {n(payload.get('before'))} in the chunk before it"
    if kind == "mark_reviewed":
        return f"page {payload.get('page')} {payload.get('status')}"
    if kind == "undo":
        return f"undo event {payload.get('event')}"
    return f"{kind} " + ", ".join(f"{k}={v}" for k, v in payload.items() if k not in ("kind", "anchor"))


def element_pages(docs: Sequence[Document]) -> dict[str, int]:
    """Element id -> page over several views (the first that has an id wins)."""
    pages: dict[str, int] = {}
    for doc in reversed(docs):
        pages.update((e.id, e.page) for e in doc.elements())
    return pages


def event_page(payload: Mapping[str, Any], where: Mapping[str, int] | Sequence[Document]) -> int | None:
    """The page an event is about: its `page`, else its element's page (`where`: element id -> page,
    or the documents to look in), else its stored anchor's, else a reviewer id's page."""
    if isinstance(payload.get("page"), int):
        return payload["page"]
    if not isinstance(where, Mapping):
        where = element_pages(where)
    for key in ELEMENT_REFS.get(payload.get("kind", ""), ()) + ("field",):
        ref = payload.get(key)
        if not isinstance(ref, str):
            continue
        if ref in where:
            return where[ref]
        anchor = (payload.get("anchor") or {}).get(key)
        if isinstance(anchor, Mapping) and isinstance(anchor.get("page"), int):
            return anchor["page"]
        if is_reviewer_element_id(ref):
            try:
                return int(ref.rsplit("-p", 1)[1].split("-", 1)[0])
            except (IndexError, ValueError):
                pass
    return None
