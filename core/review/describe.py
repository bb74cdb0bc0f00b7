"""How an event reads to people (the Audit page, the Inspect page's undo buttons, messages):
one line of text, and the page the event is about.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from core.model import Document, Element
from core.review.reanchor import ELEMENT_REFS, is_reviewer_element_id


NAME_CHARS = 24
TEXTLESS = {"picture": "the picture", "table": "the table", "selection_mark": "a check box",
            "form_field": "a form field", "formula": "the formula", "decorative": "a decoration"}


def quoted(text: str) -> str:
    flat = " ".join(str(text).split())
    return f"「{flat[:NAME_CHARS]}{'…' if len(flat) > NAME_CHARS else ''}」" if flat else ""


def element_id_of(ref: str | None) -> str | None:
    """The element part of a unit id: `<element id>:<n>` (one of its lines) gives `<element id>`."""
    return ref.split(":")[0] if ref else None


class ElementNames:
    """Readable names for the element ids events carry, over several views (the corrected one
    first: an event may name an element a later correction deleted), then over what the reviewer
    saw (the events' anchors) for elements no parse has any more. `labels` names the elements that
    have no text of their own (a check box: the label the forms stage found for it)."""

    def __init__(self, docs: Sequence[Document], events: Sequence[Any] = (), labels: Mapping[str, str] | None = None):
        self.elements: dict[str, Element] = {}
        for doc in reversed(docs):
            self.elements.update(doc.element_index())
        self.labels = dict(labels or {})
        self.anchors: dict[str, str] = {}
        for e in events:
            for key, anchor in (e.payload.get("anchor") or {}).items():
                if isinstance(anchor, dict) and isinstance(e.payload.get(key), str):
                    self.anchors.setdefault(e.payload[key], str(anchor.get("text", "")))

    def __call__(self, ref: Any) -> str:
        element_id = element_id_of(ref) if isinstance(ref, str) else None
        if not element_id:
            return "an element"
        e = self.elements.get(element_id)
        if e is None:
            return quoted(self.anchors.get(element_id, "")) or "an element that is gone"
        label = self.labels.get(element_id)
        if label and not e.text.strip():
            return quoted(label)
        return quoted(e.text) or TEXTLESS.get(e.category.value, f"the {e.category.value}")


def element_phrase(payload: Mapping[str, Any], name: Callable[[Any], str]) -> str | None:
    """What an element correction did, in words (without the page); None for other kinds."""
    kind, target = payload.get("kind"), payload.get("target")
    phrases = {
        "relabel": lambda: f"{name(target)} → relabelled {payload.get('category')}",
        "delete_element": lambda: f"{name(target)} → deleted",
        "add_element": lambda: f"new {payload.get('category')} box drawn",
        "move_bbox": lambda: f"{name(target)} → box moved",
        "link": lambda: f"{name(payload.get('source'))} → linked to {name(target)}",
        "unlink": lambda: f"{name(payload.get('source'))} → unlinked" + (f" from {name(target)}" if target else ""),
        "set_selection": lambda: f"{name(target)} → {payload.get('state')}",
        "set_text": lambda: f"{name(target)} → text set to “{str(payload.get('text', ''))[:60]}”",
        "reorder": lambda: (f"{name(target)} → moved after {name(payload['after'])}" if payload.get("after")
                            else f"{name(target)} → moved before {name(payload.get('before'))}"),
        "split_element": lambda: f"{name(target)} → split after line {payload.get('at_line')}",
        "chunk_break": lambda: f"{name(payload.get('before'))} → starts a new chunk",
        "join_chunks": lambda: f"{name(payload.get('before'))} → kept in the chunk before it",
    }
    make = phrases.get(kind)
    return make() if make else None


def describe(payload: Mapping[str, Any], name: Callable[[Any], str] | None = None) -> str:
    """One line for people; `name` turns an element id into something readable (its text)."""
    phrase = element_phrase(payload, name or str)
    if phrase is not None:
        return phrase
    kind = payload.get("kind")
    if kind == "mark_reviewed":
        return f"page {payload.get('page')} marked {payload.get('status')}"
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
