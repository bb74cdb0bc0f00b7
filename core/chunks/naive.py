"""Seed 002's baseline: page texts joined, split at "。" (size 2048, overlap 300), pages computed.

It knows nothing of categories: running headers, page numbers and footnotes stay in the text, as
they would with pdfminer + RecursiveCharacterTextSplitter. It exists so every comparison has a
baseline. Each chunk's `source_record_refs` are the elements whose text overlaps the chunk's span
of the joined text, so the same gold set scores it.
"""
from __future__ import annotations

import hashlib
from bisect import bisect_right
from typing import Sequence

from core.model import Chunk, Document, Element, SourceRef


def joined_text(doc: Document) -> tuple[str, list[tuple[int, int, Element]], list[int]]:
    """The whole text, each element's (start, end) span in it, and each page's start offset."""
    text, spans, page_starts = "", [], []
    for page in doc.pages:
        page_starts.append(len(text))
        for e in sorted(page.elements, key=lambda e: e.seq):
            if not e.text:
                continue
            spans.append((len(text), len(text) + len(e.text), e))
            text += e.text + "\n"
        text += "\n"
    return text, spans, page_starts


def split_points(text: str, separator: str = "。") -> list[tuple[int, int]]:
    """Pieces ending just after each separator (the separator stays with its sentence)."""
    pieces, start = [], 0
    while True:
        at = text.find(separator, start)
        if at < 0:
            break
        pieces.append((start, at + len(separator)))
        start = at + len(separator)
    if start < len(text):
        pieces.append((start, len(text)))
    return pieces


def merge_spans(pieces: Sequence[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """LangChain's merge: add pieces until the next would pass `size`, emit, then drop pieces from
    the front until at most `overlap` characters remain to start the next chunk. A piece longer
    than `size` becomes a chunk of its own (one separator, nothing finer to split at)."""
    out: list[tuple[int, int]] = []
    current: list[tuple[int, int]] = []
    total = 0
    for start, end in pieces:
        length = end - start
        if current and total + length > size:
            out.append((current[0][0], current[-1][1]))
            while current and (total > overlap or total + length > size):
                total -= current[0][1] - current[0][0]
                current.pop(0)
        current.append((start, end))
        total += length
    if current:
        out.append((current[0][0], current[-1][1]))
    return out


def naive_chunks(doc: Document, size: int = 2048, overlap: int = 300, policy_name: str = "naive") -> tuple[Chunk, ...]:
    text, spans, page_starts = joined_text(doc)
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for start, end in merge_spans(split_points(text), size, overlap):
        body = text[start:end]
        lead = len(body) - len(body.lstrip())
        body = body.strip()
        if not body:
            continue
        first, last = start + lead, start + lead + len(body) - 1
        refs = tuple(SourceRef(e.id, e.page, e.bbox, e.category)
                     for s, t, e in spans if s <= last and t > first)
        key = "|".join([policy_name, str(first), body])
        chunk_id = f"{doc.doc_id[:8]}-n{hashlib.sha1(key.encode('utf-8')).hexdigest()[:12]}"
        if chunk_id in seen:
            continue
        seen.add(chunk_id)
        chunks.append(Chunk(
            id=chunk_id, text=body, doc_id=doc.doc_id, source=doc.source,
            start_page=bisect_right(page_starts, first), end_page=bisect_right(page_starts, last),
            section_path=(), source_categories=tuple(dict.fromkeys(r.category for r in refs)),
            atomic=False, refs=refs, policy=policy_name,
        ))
    return tuple(chunks)
