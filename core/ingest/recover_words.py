"""Every character of the page: MuPDF's dict output sometimes loses characters its own word output
keeps (e.g. Bhaiksuki vowel signs after a dotted circle, wild/pdfjs issue7426). Both come from the
same text page, so the words are the reference: a line that lacks characters its words hold takes
them back, and words no dict line holds become lines of their own. Either way the line records how
many characters came back (rule `recovered_words` on its element, core.ingest.pdf.build_page)."""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from core.geometry import intersection
from core.text import clean_text

RECOVERED_RULE = "recovered_words"

Word = tuple  # (x0, y0, x1, y1, text, block_n, line_n, word_n), as TextPage.extractWORDS gives it


def recover_missing_words(blocks: list[dict[str, Any]], words: Sequence[Word]) -> list[dict[str, Any]]:
    """The dict's blocks with every word's characters present; lines that changed (or were added)
    carry "recovered": the number of characters put back. Blocks are copied only where they change."""
    if not words or not _chars(w[4] for w in words) - _chars(s["text"] for b in blocks if b.get("type") == 0
                                                           for ln in b["lines"] for s in ln["spans"]):
        return blocks  # nothing is missing (almost every page): no matching needed
    text_blocks = [b for b in blocks if b.get("type") == 0]
    owner = _owners(text_blocks, words)
    by_line: dict[tuple[int, int], list[Word]] = {}
    leftover = []
    for w, key in zip(words, owner):
        (leftover if key is None else by_line.setdefault(key, [])).append(w)
    out = []
    for block in blocks:
        if block.get("type") != 0:
            out.append(block)
            continue
        k = _index_of(text_blocks, block)
        lines = [_with_missing(raw, by_line[(k, li)]) if (k, li) in by_line else raw
                 for li, raw in enumerate(block["lines"])]
        changed = any(a is not b for a, b in zip(lines, block["lines"]))
        out.append({**block, "lines": lines} if changed else block)
    groups: dict[tuple[int, int], list[Word]] = {}
    for w in leftover:
        if _chars([w[4]]):
            groups.setdefault((int(w[5]), int(w[6])), []).append(w)
    if groups:
        out.append({"type": 0, "number": -1, "bbox": _union(leftover),
                    "lines": [_word_line(groups[k]) for k in sorted(groups)]})
    return out


def _index_of(text_blocks: list[dict[str, Any]], block: dict[str, Any]) -> int:
    return next(i for i, b in enumerate(text_blocks) if b is block)


def _owners(text_blocks: list[dict[str, Any]], words: Sequence[Word]) -> list[tuple[int, int] | None]:
    """Each word's line as (text block index, line index): the word's own block/line numbers (they
    count text blocks only) when that line's box holds it, else the smallest line box that does."""
    boxes = [((k, li), raw["bbox"]) for k, b in enumerate(text_blocks) for li, raw in enumerate(b["lines"])]
    out: list[tuple[int, int] | None] = []
    for w in words:
        k, li = int(w[5]), int(w[6])
        if k < len(text_blocks) and li < len(text_blocks[k]["lines"]) and _holds(text_blocks[k]["lines"][li]["bbox"], w):
            out.append((k, li))
            continue
        holding = [(_area(b), key) for key, b in boxes if _holds(b, w)]
        out.append(min(holding)[1] if holding else None)
    return out


def _holds(bbox: Sequence[float], w: Word) -> bool:
    """The word's centre lies in the line's box (2 pt slack)."""
    x0, y0, x1, y1 = bbox
    return x0 - 2 <= (w[0] + w[2]) / 2 <= x1 + 2 and y0 - 2 <= (w[1] + w[3]) / 2 <= y1 + 2


def _area(b: Sequence[float]) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _chars(texts) -> Counter:
    """The non-space, printable characters of some texts, as a multiset."""
    out: Counter = Counter()
    for t in texts:
        out.update(ch for ch in clean_text(t)[0] if not ch.isspace())
    return out


def _with_missing(raw: dict[str, Any], words: Sequence[Word]) -> dict[str, Any]:
    """The line, or a copy whose spans hold the characters its words have and it lacks."""
    spans = raw["spans"]
    if not _chars(w[4] for w in words) - _chars(s["text"] for s in spans):
        return raw
    mine: list[list[Word]] = [[] for _ in spans]
    for w in words:
        mine[_best_span(w, spans)].append(w)
    new_spans, recovered = [], 0
    for span, own in zip(spans, mine):
        missing = _chars(w[4] for w in own) - _chars([span["text"]])
        if own and missing:
            recovered += sum(missing.values())
            span = {**span, "text": " ".join(clean_text(w[4])[0] for w in own)}
        new_spans.append(span)
    return {**raw, "spans": new_spans, "recovered": recovered} if recovered else raw


def _best_span(word: Word, spans: Sequence[dict[str, Any]]) -> int:
    """The span whose box overlaps the word's the most (the first when none does)."""
    def overlap(span: dict[str, Any]) -> float:
        b = span["bbox"]
        w = max(0.0, min(b[2], word[2]) - max(b[0], word[0]))
        h = max(0.0, min(b[3], word[3]) - max(b[1], word[1]))
        return w * h
    scores = [overlap(s) for s in spans]
    return max(range(len(spans)), key=scores.__getitem__) if spans else 0


def _word_line(words: Sequence[Word]) -> dict[str, Any]:
    """A line of words no dict line holds: one span, its size from the words' height."""
    text = " ".join(clean_text(w[4])[0] for w in sorted(words, key=lambda w: int(w[7])))
    bbox = _union(words)
    span = {"bbox": bbox, "text": text, "size": round((bbox[3] - bbox[1]) / 1.2, 1), "font": "", "flags": 0}
    return {"bbox": bbox, "spans": [span], "dir": (1.0, 0.0), "wmode": 0, "recovered": sum(_chars([text]).values())}


def _union(boxes) -> tuple[float, float, float, float]:
    """The box around some words or boxes (their first four numbers)."""
    ws = list(boxes)
    return (min(w[0] for w in ws), min(w[1] for w in ws), max(w[2] for w in ws), max(w[3] for w in ws))


BLANKED_CHARS = 8  # printed characters beyond what the text page read before its lines are read again
BLANKED_LINE = 3  # characters of a line read again that no line read holds before it is put back


def recover_blanked_lines(page: Any, blocks: list[dict[str, Any]], flags: int, trace: list[dict] | None) -> list[dict[str, Any]]:
    """Every printed line, also where an /ActualText blanks it: a tagged PDF's structure tree may give a
    run of print an ActualText of a space (docassemble's Word forms blank "Telephone Number(s):____ Text
    Message OK?" so), and MuPDF's text page then reads nothing where the paper shows a line. The glyphs are
    read again without ActualText; each line of that reading that overlaps no line read with text is put
    back whole when most of its characters are in no line read across it (a value typed over a blanked
    caption's line is read, the caption not), and counts those as recovered. ActualText that stands for
    its glyphs (a ligature spelled out, an overprint read once) leaves their characters read there, so it
    keeps its say. `trace`: the page's get_texttrace(), None where no ActualText can be."""
    if trace is None:
        return blocks
    read = [ln for b in blocks if b.get("type") == 0 for ln in b["lines"]
            if any(not s["text"].isspace() for s in ln["spans"])]
    printed = sum(1 for span in trace for ch in span["chars"] if not chr(ch[0]).isspace())
    if printed - sum(sum(_chars([s["text"]]).values()) for ln in read for s in ln["spans"]) < BLANKED_CHARS:
        return blocks  # the page reads (about) all it prints: no second reading
    import pymupdf

    again = page.get_textpage(flags=(flags | pymupdf.TEXT_IGNORE_ACTUALTEXT) & ~pymupdf.TEXT_PRESERVE_IMAGES)
    back = []
    for block in again.extractDICT()["blocks"]:
        lines = []
        for raw in block.get("lines", ()):
            # underscores are blanks, not words: core.ingest.vectors reads those the text page lacks as rules
            mine = _chars(s["text"].replace("_", " ") for s in raw["spans"])
            near = _chars(s["text"] for ln in read if intersection(raw["bbox"], ln["bbox"]) for s in ln["spans"])
            missing = sum((mine - near).values())
            if missing >= max(BLANKED_LINE, sum(mine.values()) / 2):
                lines.append(_trimmed({**raw, "recovered": missing}))
        if lines:  # grouped as the second reading grouped them: an address stays one block
            back.append({"type": 0, "number": -2, "bbox": _union(ln["bbox"] for ln in lines), "lines": lines})
    return blocks + back


def _trimmed(raw: dict[str, Any]) -> dict[str, Any]:
    """The line without the blank spans at its ends, its box theirs: trailing spaces would reach over the
    check box printed after a caption and hide it as a box framing text."""
    spans = list(raw["spans"])
    while spans and not spans[-1]["text"].strip():
        spans.pop()
    while spans and not spans[0]["text"].strip():
        spans.pop(0)
    return {**raw, "spans": spans, "bbox": _union(s["bbox"] for s in spans)}
