"""Lines the page reader joined across a printed wall: PyMuPDF puts spans that share a baseline into one
line, whatever is drawn between them, so the values typed into a row of a flattened form's boxes ("7004-B"
| "K9" | "45") come out as one line "7004-B K9 45". A vertical rule standing in the blank between two
spans of a line, across both of them, is a cell's wall: the line is cut there, one line per cell."""
from __future__ import annotations

from typing import Sequence

from core.geometry import union
from core.ingest.lines import Line, Span

SPACE = 0.35  # a leading space's width over the font size, at most: a span's box starts with its spaces
SLACK = 1.5  # pt a wall may stand inside a glyph's side bearing
CELL = 2.0  # font sizes a cell must be wide, at least, to hold a value of its own (a comb's cell holds a character)


def split_at_walls(lines: list[Line], walls: Sequence[tuple[float, float, float, int]]) -> list[Line]:
    """Each line cut at the vertical rules (x, y0, y1, path) standing between two of its spans."""
    if not walls:
        return lines
    out: list[Line] = []
    for ln in lines:
        out += _cut(ln, walls) if len(ln.spans) > 1 and not ln.vertical else [ln]
    return out


def _cut(ln: Line, walls: Sequence[tuple[float, float, float, int]]) -> list[Line]:
    inked = [s for s in ln.spans if s.text.strip()]
    cuts = {id(right) for left, right in zip(inked, inked[1:]) if _wall_between(left, right, walls)}
    if not cuts:
        return [ln]
    parts: list[list[Span]] = [[]]
    for s in ln.spans:
        if id(s) in cuts:
            parts.append([])
        parts[-1].append(s)
    out = [_line_of(ln, _trimmed(p)) for p in parts if any(s.text.strip() for s in p)]
    # the counts of what was dropped, recovered or overprinted stay the line's, once
    out[0].dropped, out[0].recovered, out[0].overprinted = ln.dropped, ln.recovered, ln.overprinted
    return out


def _wall_between(left: Span, right: Span, walls: Sequence[tuple[float, float, float, int]]) -> bool:
    """A wall in the blank between the two spans, across both, with a cell wider than a comb's on each
    side: a comb's walls stand between the characters of one value (one character, or a few, per cell)."""
    lead = len(right.text) - len(right.text.lstrip())
    x0, x1 = left.bbox[2] - SLACK, right.bbox[0] + lead * SPACE * right.size + SLACK
    middles = ((left.bbox[1] + left.bbox[3]) / 2, (right.bbox[1] + right.bbox[3]) / 2)
    across = _distinct(sorted(x for x, y0, y1, _ in walls if all(y0 <= m <= y1 for m in middles)))
    cell = CELL * max(left.size, right.size)
    for k, x in enumerate(across):
        if not x0 <= x <= x1:
            continue
        before, after = across[k - 1] if k else -1e9, across[k + 1] if k + 1 < len(across) else 1e9
        if x - before > cell and after - x > cell:
            return True
    return False


def _distinct(xs: list[float]) -> list[float]:
    """One x per wall: two boxes side by side each draw the wall they share."""
    out: list[float] = []
    for x in xs:
        if not out or x - out[-1] > 1.0:
            out.append(x)
    return out


def _trimmed(spans: list[Span]) -> list[Span]:
    """The part without the blanks at its ends (the space the reader put before the next cell's text)."""
    inked = [k for k, s in enumerate(spans) if s.text.strip()]
    out = spans[inked[0]: inked[-1] + 1]
    first, last = out[0], out[-1]
    out[0] = Span(first.bbox, first.text.lstrip(), first.size, first.font, first.flags)
    if len(out) > 1:
        out[-1] = Span(last.bbox, last.text.rstrip(), last.size, last.font, last.flags)
    else:
        out[0].text = out[0].text.rstrip()
    return out


def _line_of(ln: Line, spans: list[Span]) -> Line:
    out = Line(union(s.bbox for s in spans), spans, ln.block)
    out.vertical = ln.vertical
    return out
