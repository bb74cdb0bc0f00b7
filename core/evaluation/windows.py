"""Passage windows: hand up the part of each retrieved chunk that answers first, not its head.

A chunk of 600-700 characters that ranks first spends the whole of a 500-character budget on its
opening, even when the question's words sit in its last lines. In window mode every retrieved chunk
longer than `max_chars` starts with its best window: the run of consecutive passages (lines, and
sentences of long lines, in the chunk's order) of at most `max_chars` characters whose distinct
question tokens weigh the most (IDF over the chunks being searched), ties to the earlier window,
without the passages before its first one that holds a question token.

What happens to the rest of the chunk is `rest`: "follow" (the default) hands it up right after the
window, so the chunk keeps all its text and all its citations; "drop" hands up the window alone,
and then citations stay honest by construction: the window cites only the elements whose text it
keeps (its refs, bboxes and pages are those elements'), so a window that dropped the evidence
element is no hit at element or page level. A passage of no element (the section-path prefix)
cites none. Measured on the gold set's tuning half (57 questions, default policy, BM25): plain
0.754 / 0.842 / 0.895 budget recall at 500 / 1000 / 2000; follow 0.789 / 0.860 / 0.895 for every
max_chars from 60 to 300 (350: 0.754 at 500); drop 0.72 / 0.74-0.75 / 0.74-0.79 (windows cut
quotes that run past them).

With "follow", the hits right after the first (`lead_windows` of them) hand up their windows before
any of their rests: the first hit comes whole (window, then its rest), then the windows of hits 2..
1 + lead_windows, then their rests in the same order, then every later hit as before. A rest then
no longer sits in front of the next hit's best passage: the second hit's answer is 200 characters
in, not 600. A hit cut that way cites in each part only the elements whose text that part keeps,
as "drop" does. On the whole gold set (409 questions, default policy, BM25; stop 34) 0 -> 4 gave
br@500 / br@1000 0.836 / 0.909 -> 0.841 / 0.919, no set lower at either budget; 2 gave 0.841 /
0.917; every hit's window first (no rest before the 100th) 0.802 / 0.839, three hits' windows
first, the first's too, 0.812 / 0.919 (a first hit's rest is where its answer often is).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Mapping, Sequence

from core.evaluation.gold import match_text
from core.evaluation.retrieval import RetrievedChunk
from core.evaluation.tokenize import query_tokens
from core.model import Chunk, Document, SourceRef

Tokenizer = Callable[[str], list[str]]
SENTENCE_END = re.compile(r"(?<=[。．！？!?])")
RESTS = ("follow", "drop")
MIN_OWNED_CHARS = 4  # a shorter passage (a bullet, "1") is inside too many elements to say whose it is


@dataclass(frozen=True)
class PassageWindow:
    max_chars: int = 200  # window length; chunks no longer than this are handed up whole
    # The chunk's other passages: follow = after its window (those after it, then those before),
    # citing every element as before; drop = gone, the window citing only the elements it keeps.
    rest: str = "follow"
    lead_windows: int = 4  # follow: hits after the first whose windows come before their rests

    def __post_init__(self) -> None:
        if self.rest not in RESTS:
            raise ValueError(f"window rest must be one of {', '.join(RESTS)}, got {self.rest!r}")
        if self.lead_windows < 0:
            raise ValueError(f"lead_windows must be >= 0, got {self.lead_windows}")
        if self.max_chars < 50:
            raise ValueError(f"a passage window needs max_chars >= 50, got {self.max_chars}")


def passages(text: str) -> list[str]:
    """The chunk's lines, long lines split after each sentence end; joined by "\\n" they give back
    the chunk's text except that a split line gains line breaks."""
    out: list[str] = []
    for line in text.split("\n"):
        out.extend([p for p in SENTENCE_END.split(line) if p] or [line])
    return out


class PassageScorer:
    """Weighs a passage by the IDF of the distinct question tokens it holds."""

    def __init__(self, texts: Sequence[str], tokenize: Tokenizer, drop_interrogatives: bool = False):
        self._tokenize = tokenize
        self._drop_interrogatives = drop_interrogatives
        df: dict[str, int] = {}
        for text in texts:
            for token in set(tokenize(text)):
                df[token] = df.get(token, 0) + 1
        n = max(len(texts), 1)
        self._idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self._unseen = math.log(1 + (n + 0.5) / 0.5)

    def query_weights(self, question: str) -> dict[str, float]:
        return {t: self._idf.get(t, self._unseen) for t in set(query_tokens(self._tokenize, question, self._drop_interrogatives))}

    def tokens(self, text: str) -> set[str]:
        return set(self._tokenize(text))


def best_window(parts: Sequence[str], part_tokens: Sequence[set[str]], weights: Mapping[str, float],
                max_chars: int) -> tuple[int, int]:
    """[start, end) of the best run of parts whose joined length fits max_chars (at least one part)."""
    best, best_score = (0, 1), -1.0
    for start in range(len(parts)):
        length, held, end = -1, set(), start
        while end < len(parts) and (end == start or length + 1 + len(parts[end]) <= max_chars):
            length += 1 + len(parts[end])
            held |= part_tokens[end] & weights.keys()
            end += 1
        # fsum is exact, so equal token sets score equal whatever order the set iterates in (a
        # plain sum differed in its last bits between runs, with the hash seed, and flipped ties)
        score = math.fsum(weights[t] for t in held)
        if score > best_score:
            best, best_score = (start, end), score
    start, end = best
    while start < end - 1 and not part_tokens[start] & weights.keys():
        start += 1  # the window opens on a passage the question asks about, not on filler before it
    return start, end


def window_chunk(chunk: Chunk, question_weights: Mapping[str, float], scorer: PassageScorer,
                 element_texts: Mapping[tuple[str, str], str], window: PassageWindow) -> Chunk:
    """The chunk cut to its best window, citing only the elements the window keeps."""
    if len(chunk.text) <= window.max_chars:
        return chunk
    parts = passages(chunk.text)
    start, end = best_window(parts, [scorer.tokens(p) for p in parts], question_weights, window.max_chars)
    if window.rest == "follow":
        text = "\n".join([*parts[start:end], *parts[end:], *parts[:start]])
        return replace(chunk, id=f"{chunk.id}#w{start}-{end}", text=text)
    return part_chunk(chunk, parts[start:end], f"#w{start}-{end}", element_texts)


def part_chunk(chunk: Chunk, kept: Sequence[str], tag: str, element_texts: Mapping[tuple[str, str], str]) -> Chunk:
    refs = kept_refs(chunk, kept, element_texts)
    pages = [r.page for r in refs] or [chunk.start_page, chunk.end_page]
    return replace(chunk, id=chunk.id + tag, text="\n".join(kept), refs=refs,
                   start_page=min(pages), end_page=max(pages))


def kept_refs(chunk: Chunk, kept: Sequence[str], element_texts: Mapping[tuple[str, str], str]) -> tuple[SourceRef, ...]:
    """The chunk's refs whose element text shares a passage with the window, in the chunk's order."""
    owned = [m for m in (match_text(p) for p in kept) if len(m) >= MIN_OWNED_CHARS]
    out = []
    for ref in chunk.refs:
        own = match_text(element_texts.get((chunk.doc_id, ref.record_id), ""))
        if own and any(m in own or own in m for m in owned):
            out.append(ref)
    return tuple(out)


def window_ranking(retrieved: Sequence[RetrievedChunk], question: str, scorer: PassageScorer,
                   element_texts: Mapping[tuple[str, str], str], window: PassageWindow) -> list[RetrievedChunk]:
    """Each retrieved chunk replaced by its best window, ranks and scores unchanged; with "follow"
    and `lead_windows`, hits 2..1 + lead_windows are cut in two, their windows before their rests
    (ranks renumbered along the new list, each part keeping its hit's score)."""
    weights = scorer.query_weights(question)
    lead = window.lead_windows if window.rest == "follow" else 0
    first, led, later = retrieved[:1], retrieved[1:1 + lead], retrieved[1 + lead:]
    if not led:
        windows = [window_chunk(r.chunk, weights, scorer, element_texts, window) for r in retrieved]
        return [RetrievedChunk(w, r.score, r.rank) for w, r in zip(windows, retrieved)]
    cut = [(r, window_and_rest(r.chunk, weights, scorer, element_texts, window)) for r in led]
    parts = ([(window_chunk(r.chunk, weights, scorer, element_texts, window), r.score) for r in first]
             + [(head, r.score) for r, (head, _) in cut]
             + [(rest, r.score) for r, (_, rest) in cut if rest is not None]
             + [(window_chunk(r.chunk, weights, scorer, element_texts, window), r.score) for r in later])
    return [RetrievedChunk(c, score, rank) for rank, (c, score) in enumerate(parts, start=1)]


def window_and_rest(chunk: Chunk, question_weights: Mapping[str, float], scorer: PassageScorer,
                    element_texts: Mapping[tuple[str, str], str], window: PassageWindow) -> tuple[Chunk, Chunk | None]:
    """The chunk's best window and the rest of it (after the window, then before it), each citing
    only the elements whose text it keeps; a chunk no longer than the window is its own window."""
    if len(chunk.text) <= window.max_chars:
        return chunk, None
    parts = passages(chunk.text)
    start, end = best_window(parts, [scorer.tokens(p) for p in parts], question_weights, window.max_chars)
    rest = [*parts[end:], *parts[:start]]
    head = part_chunk(chunk, parts[start:end], f"#w{start}-{end}", element_texts)
    return head, (part_chunk(chunk, rest, f"#r{start}-{end}", element_texts) if rest else None)

def element_texts_of(docs: Iterable[Document]) -> dict[tuple[str, str], str]:
    return {(d.doc_id, e.id): e.text for d in docs for e in d.elements()}
