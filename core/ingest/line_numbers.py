"""Margin line numbers (Japanese government drafts, legal pleadings): a column of small ascending
integers beside the text, one per text line. Left among the text lines, each joins the line next to
it when a block's lines are joined ("イノベーシ" + "5" + "ョン"); taken out here, they become one
decorative element per column and never enter a word."""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.categories import Category
from core.geometry import union
from core.ingest.draft import Draft
from core.ingest.lines import Line, Span

LINE_NUMBERS_RULE = "line_numbers"
_NUMBER = re.compile(r"[0-9０-９]{1,3}")
_MIN_COLUMN = 5  # numbers in a column before it counts (a list "1 2 3" beside text is not one)
_ASCENDING_SHARE = 0.8


@dataclass
class _Candidate:
    value: int
    number: Line  # the number as a line of its own
    rest: Line | None  # what is left of its line when the number led a text line
    index: int  # the line it came from


def split_line_numbers(lines: list[Line]) -> tuple[list[Line], list[list[Line]]]:
    """(the text lines without margin line numbers, the line-number columns found)."""
    candidates = [c for i, ln in enumerate(lines) if (c := _candidate(i, ln)) is not None]
    if len(candidates) < _MIN_COLUMN:
        return lines, []
    columns = [col for col in _columns(candidates) if _is_line_number_column(col, lines)]
    if not columns:
        return lines, []
    replaced: dict[int, Line | None] = {c.index: c.rest for col in columns for c in col}
    kept = [replaced.get(i, ln) for i, ln in enumerate(lines) if i not in replaced or replaced[i] is not None]
    return kept, [[c.number for c in sorted(col, key=lambda c: c.number.bbox[1])] for col in columns]


def _candidate(index: int, ln: Line) -> _Candidate | None:
    if ln.vertical:
        return None
    spans = [s for s in ln.spans if s.text.strip()]
    if not spans or not _NUMBER.fullmatch(spans[0].text.strip()):
        return None
    value = int(spans[0].text.strip().translate(_FULL_WIDTH))
    if len(spans) == 1:
        return _Candidate(value, ln, None, index)
    first, second = spans[0], spans[1]
    if second.bbox[0] - first.bbox[2] < 0.8 * max(first.size, 1.0):
        return None  # "3年" or "1. 目的": the number is part of the text
    number = _line_of(ln, [first])
    rest = _line_of(ln, ln.spans[ln.spans.index(second):])
    return _Candidate(value, number, rest, index)


_FULL_WIDTH = str.maketrans("０１２３４５６７８９", "0123456789")


def _line_of(ln: Line, spans: list[Span]) -> Line:
    out = Line(union(s.bbox for s in spans), spans, ln.block)
    out.dropped, out.recovered, out.overprinted = ln.dropped, ln.recovered, ln.overprinted
    return out


def _columns(candidates: list[_Candidate]) -> list[list[_Candidate]]:
    """Candidates whose numbers end (right-aligned) or start at the same x, within 4 pt."""
    columns: list[list[_Candidate]] = []
    for c in sorted(candidates, key=lambda c: c.number.bbox[2]):
        last = columns[-1][-1].number.bbox if columns else None
        if last is not None and (abs(c.number.bbox[2] - last[2]) <= 4 or abs(c.number.bbox[0] - last[0]) <= 4):
            columns[-1].append(c)
        else:
            columns.append([c])
    return [col for col in columns if len(col) >= _MIN_COLUMN]


def _is_line_number_column(column: list[_Candidate], lines: list[Line]) -> bool:
    """Ascending down the page, each beside a text line, and all on one side of the text they number."""
    ordered = sorted(column, key=lambda c: c.number.bbox[1])
    rising = sum(1 for a, b in zip(ordered, ordered[1:]) if b.value > a.value)
    if rising < _ASCENDING_SHARE * (len(ordered) - 1):
        return False
    pitches = sorted(b.number.bbox[1] - a.number.bbox[1] for a, b in zip(ordered, ordered[1:]))
    height = max(ordered[0].number.bbox[3] - ordered[0].number.bbox[1], 1.0)
    if pitches[len(pitches) // 2] > 2.5 * height:
        return False  # numbered items with paragraphs between them: a list, not line numbers
    own = {c.index for c in column}
    x0 = min(c.number.bbox[0] for c in column)
    x1 = max(c.number.bbox[2] for c in column)
    beside = 0
    left = right = 0
    for c in column:
        row = [c.rest] if c.rest is not None else [
            ln for i, ln in enumerate(lines) if i not in own and _same_row(ln, c.number)]
        if not row:
            continue
        beside += 1
        left += all(ln.bbox[0] >= x1 for ln in row)
        right += all(ln.bbox[2] <= x0 for ln in row)
    if beside < 0.6 * len(column) or max(left, right) < 0.9 * beside:
        return False
    # in the margin: beyond every other text line of the page (a table's code column "01 02 03"
    # beside its rows stands among text, not outside it)
    others = [ln for i, ln in enumerate(lines) if i not in own] + [c.rest for c in column if c.rest is not None]
    if left >= right:
        return all(ln.bbox[0] >= x1 - 1 for ln in others)
    return all(ln.bbox[2] <= x0 + 1 for ln in others)


def _same_row(a: Line, b: Line) -> bool:
    height = min(a.bbox[3] - a.bbox[1], b.bbox[3] - b.bbox[1])
    return min(a.bbox[3], b.bbox[3]) - max(a.bbox[1], b.bbox[1]) >= 0.4 * max(height, 1.0)


def line_number_drafts(columns: list[list[Line]], source: str) -> list[Draft]:
    """One decorative element per column, its numbers one per line (kept, so no character is lost)."""
    return [Draft(Category.DECORATIVE, union(ln.bbox for ln in col), list(col), source,
                  text="\n".join(ln.text.strip() for ln in col),
                  attrs={"kind": LINE_NUMBERS_RULE}, rules=(LINE_NUMBERS_RULE,)) for col in columns]
