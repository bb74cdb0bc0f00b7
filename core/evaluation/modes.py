"""Seed 003's retrieval modes, beside plain retrieval over one index:

- routed: one index per document; the question goes to the document it names (its file name, or
  its title, written in the question), else to its best document: the one whose chunks gather the
  most score in a corpus-wide ranking. The gold set's own doc_id is never used to route: that is
  the answer, not something a user asking the question knows.
- page expansion: when the first hit is a small chunk, hand the whole page it is on (and
  `neighbours` pages either side) in reading order, then the other hits; seed 003's "once a page is
  hit, give the LLM the page". The budget then cuts that context where a prompt would.
- hybrid fusion is the `fusion` retriever (retrieval.py: weighted reciprocal-rank fusion of BM25
  and character-n-gram TF-IDF).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Mapping, Sequence

from core.categories import Category
from core.evaluation.retrieval import ChunkSearch, RetrievedChunk, RetrieverOptions
from core.model import Chunk

MIN_NAME_CHARS = 3  # a shorter "name" (一, 序) is inside too many questions
# How many corpus-wide hits vote for the best document. Measured on the gold set's tuning half
# (57 questions, 5 documents): the top hit's document is right for 51, the top 3 for 49, the
# summed top 10 for 38 (long documents win sums).
ROUTE_DEPTH = 1


@dataclass(frozen=True)
class PageExpansion:
    small_below: int = 400  # expand only when the first hit is shorter than this (characters)
    neighbours: int = 0  # pages either side handed up after the hit page
    hits: int = 1  # how many of the top hits are expanded

    def __post_init__(self) -> None:
        if self.small_below < 1 or self.neighbours < 0 or self.hits < 1:
            raise ValueError(f"page expansion needs small_below >= 1, neighbours >= 0, hits >= 1, got {self}")


def document_names(chunks: Sequence[Chunk]) -> dict[str, tuple[str, ...]]:
    """Per document, the strings a question would use to name it: file stem words and title text."""
    names: dict[str, set[str]] = {}
    for c in chunks:
        own = names.setdefault(c.doc_id, set())
        stem = PurePath(c.source).stem
        own.update(w for w in re.split(r"[_\-\s.]+", stem) if len(w) >= MIN_NAME_CHARS and not w.isdigit())
        if Category.TITLE in c.source_categories and c.start_page <= 2:
            first = c.text.strip().splitlines()[0] if c.text.strip() else ""
            own.update(w for w in re.split(r"[\s「」『』（）()]+", first) if len(w) >= MIN_NAME_CHARS)
    shared = {n for n in set().union(*names.values()) if sum(n in v for v in names.values()) > 1} if names else set()
    return {d: tuple(sorted(v - shared)) for d, v in names.items()}  # a name two documents share names neither


class DocumentRouter:
    """Picks the one document a question is about, without looking at the gold answer."""

    def __init__(self, chunks: Sequence[Chunk], kind: str, options: RetrieverOptions | None = None):
        self._names = document_names(chunks)
        self._corpus = ChunkSearch(chunks, kind, "corpus", options)

    def route(self, question: str) -> str | None:
        named = [d for d, names in self._names.items() if any(n.lower() in question.lower() for n in names)]
        if len(named) == 1:
            return named[0]
        votes: dict[str, float] = {}
        for hit in self._corpus.search(question, ROUTE_DEPTH):
            if not named or hit.chunk.doc_id in named:
                votes[hit.chunk.doc_id] = votes.get(hit.chunk.doc_id, 0.0) + hit.score
        if votes:
            return max(votes, key=lambda d: (votes[d], d))
        return named[0] if named else None


def expand_pages(retrieved: Sequence[RetrievedChunk], doc_chunks: Mapping[str, Sequence[Chunk]],
                 expansion: PageExpansion) -> list[RetrievedChunk]:
    """The ranking with the top hits' pages handed up whole, in reading order, each chunk once."""
    order: list[Chunk] = []
    seen: set[str] = set()

    def give(chunk: Chunk) -> None:
        if chunk.id not in seen:
            seen.add(chunk.id)
            order.append(chunk)

    for i, hit in enumerate(retrieved):
        if i < expansion.hits and len(hit.chunk.text) < expansion.small_below:
            for chunk in page_context(hit.chunk, doc_chunks.get(hit.chunk.doc_id, ()), expansion.neighbours):
                give(chunk)
        give(hit.chunk)
    scores = {r.chunk.id: r.score for r in retrieved}
    return [RetrievedChunk(c, scores.get(c.id, 0.0), rank) for rank, c in enumerate(order, start=1)]


def page_context(hit: Chunk, in_reading_order: Sequence[Chunk], neighbours: int) -> list[Chunk]:
    """The chunks on the hit's pages (then the neighbouring pages), in the document's order."""
    pages = range(hit.start_page, hit.end_page + 1)
    near = [p for d in range(1, neighbours + 1) for p in (hit.start_page - d, hit.end_page + d)]
    out = [c for c in in_reading_order if any(c.start_page <= p <= c.end_page for p in pages)]
    for p in near:
        out += [c for c in in_reading_order if c.start_page <= p <= c.end_page and c not in out]
    return out
