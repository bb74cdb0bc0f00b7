"""The reviewer's fixes to text and structure: set_text, reorder, split_element, chunk_break and
join_chunks, each applied to one page of the corrected Document.

    {"kind": "set_text", "target": ID, "text": TEXT}
    {"kind": "reorder", "target": ID, "after": ID}            (or "before": ID; same page)
    {"kind": "split_element", "target": ID, "at_line": N}      first N lines stay, the rest is new
    {"kind": "chunk_break", "before": ID}                      a chunk always starts at ID
    {"kind": "join_chunks", "before": ID}                      ID stays in the chunk before it

The machine's text survives a `set_text` in the element's `machine_text` attribute, so the Audit
page and exports can show what was changed. Chunk wishes are an element attribute (`chunk_break`:
"break" | "join") that core/chunks/chunking.py reads; the latest event in effect wins.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from core.geometry import union
from core.model import BBox, Document, Element, Page, freeze_attrs, renumber
from core.text import join_lines

STRUCTURE_KINDS = ("set_text", "reorder", "split_element", "chunk_break", "join_chunks")
CHUNK_WISH = "chunk_break"  # element attribute; values below
BREAK, JOIN = "break", "join"
# attributes that describe the whole box's content and cannot be cut at a line
_WHOLE_BOX_ATTRS = ("rows", "cells", "n_rows", "n_cols", "glyphs", "sup_marks", "kv_pair", "kv_role")


def with_page(doc: Document, page: Page) -> Document:
    # untouched pages stay the same objects, so per-page caches downstream stay valid
    pages = list(doc.pages)
    pages[page.number - 1] = page
    return replace(doc, pages=tuple(pages))


def replace_element(doc: Document, new: Element) -> Document:
    page = doc.page(new.page)
    return with_page(doc, replace(page, elements=tuple(new if e.id == new.id else e for e in page.elements)))


# ---- lines of an element ------------------------------------------------------------------------
def element_lines(e: Element) -> list[tuple[BBox, str]]:
    """The element's lines with their boxes: as ingest stored them, else its text's lines with the
    box cut in equal bands (an import that gave no line geometry)."""
    stored = e.attr("lines")
    if stored:
        return [((ln[0], ln[1], ln[2], ln[3]), str(ln[4])) for ln in stored]
    texts = [t for t in e.text.split("\n") if t.strip()] or [e.text]
    x0, y0, x1, y1 = e.bbox
    step = (y1 - y0) / len(texts)
    return [((x0, y0 + i * step, x1, y0 + (i + 1) * step), t) for i, t in enumerate(texts)]


def split_line_count(e: Element) -> int:
    return len(element_lines(e))


# ---- applying ---------------------------------------------------------------------------------
def set_text(doc: Document, target: Element, event: Mapping[str, Any]) -> Document:
    machine = target.attr("machine_text", target.text)
    attrs = {k: v for k, v in target.attrs if k not in ("rows", "cells")}  # the text now speaks for the table
    attrs["machine_text"] = machine
    new = replace(target, text=str(event["text"]), attrs=freeze_attrs(attrs))
    return replace_element(doc, new.touched_by("reviewer:set_text"))


def reorder(doc: Document, target: Element, anchor: Element, after: bool) -> Document | None:
    if target.page != anchor.page or target.id == anchor.id:
        return None
    page = doc.page(target.page)
    rest = [e for e in page.elements if e.id != target.id]
    at = next(i for i, e in enumerate(rest) if e.id == anchor.id) + (1 if after else 0)
    rest.insert(at, target.touched_by("reviewer:reorder"))
    return with_page(doc, replace(page, elements=renumber(rest)))


def split_element(doc: Document, target: Element, at_line: int, new_id: str) -> Document | None:
    lines = element_lines(target)
    if not 1 <= at_line < len(lines):
        return None
    head, tail = lines[:at_line], lines[at_line:]
    first = _part(target, target.id, head, keep_lines=bool(target.attr("lines")))
    second = replace(_part(target, new_id, tail, keep_lines=bool(target.attr("lines"))),
                     source="reviewer", links=())
    page = doc.page(target.page)
    elements: list[Element] = []
    for e in page.elements:
        elements.extend((first, second) if e.id == target.id else (e,))
    return with_page(doc, replace(page, elements=renumber(elements)))


def _part(target: Element, part_id: str, lines: Sequence[tuple[BBox, str]], keep_lines: bool) -> Element:
    attrs = {k: v for k, v in target.attrs if k not in _WHOLE_BOX_ATTRS and k != "lines"}
    if keep_lines:
        stored = target.attr("lines")
        wanted = {(b, t) for b, t in lines}
        attrs["lines"] = tuple(ln for ln in stored if ((ln[0], ln[1], ln[2], ln[3]), str(ln[4])) in wanted)
    text = "\n".join(t for _, t in lines) if "\n" in target.text else join_lines([t for _, t in lines])
    return replace(target, id=part_id, bbox=union([b for b, _ in lines]), text=text,
                   attrs=freeze_attrs(attrs)).touched_by("reviewer:split_element")


def chunk_wish(doc: Document, target: Element, wish: str) -> Document:
    rule = "reviewer:chunk_break" if wish == BREAK else "reviewer:join_chunks"
    new = target.with_attrs(**{CHUNK_WISH: wish})
    new = replace(new, rules=tuple(r for r in new.rules if r not in ("reviewer:chunk_break", "reviewer:join_chunks")))
    return replace_element(doc, new.touched_by(rule))


def apply_structure(doc: Document, event: Mapping[str, Any], refs: Sequence[Element], new_id: str) -> Document | None:
    """One structure event over `doc`; `refs` are the elements its ELEMENT_REFS name, in order."""
    kind = event["kind"]
    target = refs[0]
    if kind == "set_text":
        return set_text(doc, target, event)
    if kind == "reorder":
        return reorder(doc, target, refs[1], after=event.get("after") is not None)
    if kind == "split_element":
        return split_element(doc, target, int(event["at_line"]), new_id)
    if kind == "chunk_break":
        return chunk_wish(doc, target, BREAK)
    if kind == "join_chunks":
        return chunk_wish(doc, target, JOIN)
    return doc
