"""Chunks that carry their context (seed 000 and seed 003's lessons), applied to the assembled
chunks as policy knobs, each off in a bare policy and set in the default by measurement
(bench/retrieval_quality.py on the gold set's tuning half):

- `context_prefix`: "heading" starts a chunk's text with its nearest heading, "path" with its
  section path ("第1節 > 1 生成AIが抱える課題"), "section" with the path below the document's
  title, cut to `context_prefix_chars`; a chunk that already
  starts with those words is left alone. Tables and figures get theirs too, so a table chunk knows
  the heading printed above it.
- `join_under_chars`: a chunk shorter than this, or one of headings only, joins the next chunk of
  its section (or a subsection) when that one starts on the same or the next page, so tiny chunks
  do not crowd rank 1. Atomic chunks (table, figure, formula) are never joined, either way.
- `footnote_sentence`: a chunk holding a footnote (＊1, ※1, 注1) whose mark sits in another chunk's
  body also holds the sentence with the mark, so the question's words and the note meet.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from typing import Sequence

from core.categories import Category
from core.memo import Same, page_memo
from core.model import Chunk

PREFIX_MODES = ("off", "heading", "path", "section")
HEADING_CATEGORIES = (Category.TITLE, Category.SECTION_HEADER)
SENTENCE_CHARS = 160  # a marked sentence longer than this is cut around the mark
_NOTE_MARK = re.compile(r"^\s*([＊*※]|注)\s*(\d+)")


def with_context(chunks: Sequence[Chunk], prefix: str, prefix_chars: int, join_under: int,
                 footnote_sentence: bool, forced_breaks: frozenset[str] = frozenset()) -> list[Chunk]:
    """`forced_breaks`: ids of elements a reviewer starts a chunk at (chunk_break); no join crosses them."""
    out = list(chunks)
    if join_under:
        out = join_small(out, join_under, forced_breaks)
    if footnote_sentence:
        out = [add_marked_sentence(c, out) if _has_note_marks(c) else c for c in out]
    if prefix != "off":
        # memoised by chunk object (core.memo): after a correction most chunks are the same objects
        out = [_PREFIXED.get(c, (prefix, prefix_chars), lambda c=c: add_prefix(c, prefix, prefix_chars)) for c in out]
    return out


_PREFIXED, _MARKED, _JOINED = page_memo(50000), page_memo(50000), page_memo(50000)


def _has_note_marks(chunk: Chunk) -> bool:
    """Whether `add_marked_sentence` has anything to look for (a chunk without note lines is
    returned as it is), memoised by chunk object."""
    return _MARKED.get(chunk, None, lambda: any(_note_mark(line) for line in chunk.text.splitlines()))


def _heading_only(chunk: Chunk) -> bool:
    return bool(chunk.refs) and all(r.category in HEADING_CATEGORIES for r in chunk.refs)


def join_small(chunks: Sequence[Chunk], under: int, forced_breaks: frozenset[str] = frozenset()) -> list[Chunk]:
    out: list[Chunk] = []
    carry: Chunk | None = None
    for chunk in chunks:
        if carry is not None:
            if _joins(carry, chunk) and not (chunk.refs and chunk.refs[0].record_id in forced_breaks):
                chunk = _JOINED.get(carry, Same(chunk), lambda carry=carry, chunk=chunk: _joined(carry, chunk))
            else:
                out.append(carry)
            carry = None
        small = len(chunk.text) < under or _heading_only(chunk)
        if small and not chunk.atomic:
            carry = chunk
        else:
            out.append(chunk)
    if carry is not None:
        out.append(carry)
    return out


def _joins(small: Chunk, nxt: Chunk) -> bool:
    """The next chunk is in the small one's section (or a subsection of it), nearby, and not atomic:
    a table or formula keeps exactly its own elements."""
    same_section = nxt.section_path[:len(small.section_path)] == small.section_path
    return (small.doc_id == nxt.doc_id and same_section and not nxt.atomic
            and nxt.start_page - small.end_page <= 1)


def _joined(first: Chunk, second: Chunk) -> Chunk:
    refs = tuple(dict.fromkeys(first.refs + second.refs))
    return replace(second, id=second.id if second.id != first.id else second.id + "+",
                   text=f"{first.text}\n{second.text}".strip(), start_page=min(first.start_page, second.start_page),
                   end_page=max(first.end_page, second.end_page),
                   source_categories=tuple(dict.fromkeys(first.source_categories + second.source_categories)),
                   refs=refs)


def add_prefix(chunk: Chunk, mode: str, limit: int) -> Chunk:
    path = [p.replace("\n", " ").strip() for p in chunk.section_path if p.strip()]
    first_line = chunk.text.split("\n", 1)[0]
    if path and _squash(" > ".join(path)) in _squash(first_line):
        return chunk  # formula and code chunks name their section already ("関連見出し: …")
    if mode == "section" and len(path) > 1:
        path = path[1:]  # the document's title is on every chunk of it: no help in telling them apart
    path = _not_yet_written(path[-1:] if mode == "heading" else path, _squash(chunk.text))
    if not path:
        return chunk
    words = _nearest_headings(path, limit) if mode == "path" else " > ".join(path)[:limit]
    return replace(chunk, text=f"{words}\n{chunk.text}")


def _nearest_headings(path: list[str], limit: int) -> str:
    """The path's last headings, whole, that fit in `limit` characters: a heading cut at its start
    ("4章 デジタル…" for "第4章 デジタル…") loses its number, the part that names it. A nearest
    heading longer than the limit keeps its start and ends in "…"."""
    for cut in range(len(path)):
        words = " > ".join(path[cut:])
        if len(words) <= limit:
            return words
    return path[-1][: max(limit - 1, 1)] + "…"


def _not_yet_written(path: list[str], text: str) -> list[str]:
    """The leading headings of `path` the text does not already start with (a chunk that opens
    with "第1章 総則 / 第1条" needs only the document title in front)."""
    for cut in range(len(path)):
        if text.startswith(_squash("".join(path[cut:]))):
            return path[:cut]
    return path


def add_marked_sentence(chunk: Chunk, chunks: Sequence[Chunk]) -> Chunk:
    marks = {m for m in (_note_mark(line) for line in chunk.text.splitlines()) if m}
    added = []
    for symbol, number in sorted(marks):
        pattern = _mark_pattern(symbol, number)
        if _marked_outside_notes(chunk.text, pattern):
            continue  # the sentence is in this chunk already
        sentence = next((s for c in chunks if c.doc_id == chunk.doc_id and c is not chunk
                         and abs(c.start_page - chunk.start_page) <= 1
                         for s in [_marked_sentence(c.text, pattern)] if s), None)
        if sentence:
            added.append(sentence)
    if not added:
        return chunk
    return replace(chunk, text=chunk.text + "\n" + "\n".join(f"（本文: {s}）" for s in added))


def _note_mark(line: str) -> tuple[str, str] | None:
    found = _NOTE_MARK.match(unicodedata.normalize("NFKC", line))
    return (found.group(1), found.group(2)) if found else None


def _mark_pattern(symbol: str, number: str) -> re.Pattern:
    symbols = "[＊*]" if symbol in "*＊" else ("※" if symbol == "※" else "注")
    return re.compile(rf"{symbols}\s*{number}(?!\d)")


def _marked_outside_notes(text: str, pattern: re.Pattern) -> bool:
    return any(pattern.search(line) and not _note_mark(line) for line in text.splitlines())


def _marked_sentence(text: str, pattern: re.Pattern) -> str:
    for found in pattern.finditer(text):
        line_start = text.rfind("\n", 0, found.start()) + 1
        if _note_mark(text[line_start:found.start() + 1] + text[found.start():found.end()]) and \
                not text[line_start:found.start()].strip():
            continue  # the note itself, not its mark in the body
        start = max(text.rfind("。", 0, found.start()) + 1, found.start() - SENTENCE_CHARS)
        end_at = text.find("。", found.end())
        end = end_at + 1 if 0 <= end_at < found.end() + SENTENCE_CHARS else min(len(text), found.end() + 40)
        return text[start:end].replace("\n", "").strip()
    return ""


def _squash(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())
