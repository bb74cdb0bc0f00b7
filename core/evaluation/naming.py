"""The document a question names by its title ("概要資料で、…" of the deck titled "…（第1.0版）概要"),
so corpus-wide retrieval can favour it (RetrieverOptions.named_document_weight).

A title's head is the last word of each of its segments (split at spaces and brackets), as SudachiPy
(split mode A) cuts it: "AI事業者ガイドライン案（第1.0版）概要" gives 案, 版 and 概要. Only heads of two
Japanese characters or more count (案 and 版 say nothing), and a head two documents share names neither:
a 本編 and its 概要 both end in ガイドライン案. Latin heads are left out: "AI" heads one title of a corpus
whose every page says AI.
"""
from __future__ import annotations

import re
from typing import Mapping, Sequence

from core.categories import Category
from core.model import Chunk

HEAD_MIN_CHARS = 2
TITLE_PAGES = 2  # a document's title is on its first pages; a later TITLE element is a part's heading
_JAPANESE_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+")
_SEGMENT_BREAK = re.compile(r"[\s「」『』（）()【】\[\]・:：]+")


def title_heads(chunks: Sequence[Chunk]) -> dict[str, frozenset[str]]:
    """Per document, the heads of its title (the first line of a chunk holding a TITLE element on its
    first pages) that no other document's title has."""
    heads: dict[str, set[str]] = {}
    for c in chunks:
        own = heads.setdefault(c.doc_id, set())
        if Category.TITLE in c.source_categories and c.start_page <= TITLE_PAGES and c.text.strip():
            own.update(_segment_heads(_title_line(c.text)))
    shared = {h for own in heads.values() for h in own if sum(h in other for other in heads.values()) > 1}
    return {d: frozenset(own - shared) for d, own in heads.items()}


def named_document(question: str, heads: Mapping[str, frozenset[str]]) -> str | None:
    """The one document whose title head the question writes, else None (none, or several)."""
    named = [d for d, own in heads.items() if any(h in question for h in own)]
    return named[0] if len(named) == 1 else None


def _title_line(text: str) -> str:
    # a chunk's text may open with its section path ("AI 事業者ガイドライン案 > 目次"): the title is the
    # first line after it
    lines = [line for line in text.strip().splitlines() if line.strip()]
    first = lines[0]
    return lines[1] if " > " in first and len(lines) > 1 else first


def _segment_heads(line: str) -> set[str]:
    from core.evaluation.tokenize import sudachi_available, _sudachi_tokenizer

    if not sudachi_available():
        return set()
    out = set()
    for segment in _SEGMENT_BREAK.split(line):
        if not segment:
            continue
        words = [m.surface() for m in _sudachi_tokenizer("A").tokenize(segment)]
        head = words[-1] if words else ""
        if len(head) >= HEAD_MIN_CHARS and _JAPANESE_WORD.fullmatch(head):
            out.add(head)
    return out
