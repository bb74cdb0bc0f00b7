"""Rulings and cells: the page's strokes and the rectangles they close.

*Rulings* are the horizontal and vertical strokes of the page (table rules, box edges,
underlines); a *cell* is a rectangle closed by them. The empty input boxes they close are units,
made in core.forms.unit_index (this module knows no units, so units can ask it for cells).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Iterable, Mapping

from core.categories import Category
from core.geometry import contains
from core.memo import page_memo
from core.model import BBox, Document, FrozenMap, Page, thaw

C = Category


@dataclass(frozen=True)
class Rulings:
    h: tuple[tuple[float, float, float], ...]  # (y, x0, x1)
    v: tuple[tuple[float, float, float], ...]  # (x, y0, y1)
    # both sorted by position, with the positions apart, and each queried position's strokes kept
    # sorted by start with their running furthest end: a lookup is two bisections, not a walk over
    # every stroke (a slide page holds 600 h × 600 v strokes, dashes among them)
    _h: tuple[tuple[float, ...], tuple[tuple[float, float, float], ...]] = field(init=False, repr=False, compare=False)
    _v: tuple[tuple[float, ...], tuple[tuple[float, float, float], ...]] = field(init=False, repr=False, compare=False)
    _windows: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, segs in (("_h", self.h), ("_v", self.v)):
            ordered = tuple(sorted(segs))
            object.__setattr__(self, name, (tuple(s[0] for s in ordered), ordered))
        object.__setattr__(self, "_windows", {})

    def covers_h(self, y: float, x0: float, x1: float, tol: float = 2.5) -> bool:
        return self._covers("h", y, x0, x1, tol)

    def covers_v(self, x: float, y0: float, y1: float, tol: float = 2.5) -> bool:
        return self._covers("v", x, y0, y1, tol)

    def h_between(self, y0: float, y1: float) -> tuple[tuple[float, float, float], ...]:
        """The horizontal strokes strictly between two heights."""
        ys, segs = self._h
        return segs[bisect_right(ys, y0):bisect_left(ys, y1)]

    def _covers(self, axis: str, pos: float, a0: float, a1: float, tol: float) -> bool:
        """A stroke within `tol` of `pos` that spans [a0, a1] (within `tol`)."""
        key = (axis, pos, tol)
        window = self._windows.get(key)
        if window is None:
            positions, segs = self._h if axis == "h" else self._v
            near = sorted(segs[i][1:] for i in range(bisect_left(positions, pos - tol), bisect_right(positions, pos + tol)))
            window = self._windows[key] = ([a for a, _ in near], list(accumulate((b for _, b in near), max)))
        starts, reach = window
        k = bisect_right(starts, a0 + tol)
        return k > 0 and reach[k - 1] >= a1 - tol


def _merge(segs: Iterable[tuple[float, float, float]], tol: float = 1.2) -> tuple[tuple[float, float, float], ...]:
    """Collinear pieces (a rule drawn in several strokes, box edges that meet) become one segment."""
    out: list[list[float]] = []
    for pos, a, b in sorted((round(p, 1), min(a, b), max(a, b)) for p, a, b in segs):
        for seg in reversed(out[-8:]):
            if abs(seg[0] - pos) <= tol and a <= seg[2] + 1.5 and b >= seg[1] - 1.5:
                seg[1], seg[2] = min(seg[1], a), max(seg[2], b)
                break
        else:
            out.append([pos, a, b])
    return tuple((p, a, b) for p, a, b in out if b - a >= 4)


# by the page object itself (core.memo holds it, so its id is never reused while the entry lives: a
# dict keyed by (doc_id, number, id(page)) served a freed page's rulings to a new page that got its id)
_RULINGS = page_memo(256)


def _stored_page_rulings(stored: Any, page_key: str) -> Any:
    """One page's entry of the meta `rulings`, thawed alone: thawing the whole document's strokes for
    each page cost ~3 ms a call on a 300-page document, paid again on every correction."""
    if isinstance(stored, FrozenMap):
        return next((thaw(v) for k, v in stored if k == page_key), None)
    return thaw(stored.get(page_key)) if isinstance(stored, Mapping) else None


def page_rulings(doc: Document, page: Page) -> Rulings:
    """The page's strokes: from the Document's meta `rulings` (ingest), plus rule-like elements."""
    return _RULINGS.get(page, doc.doc_id, lambda: _read_page_rulings(doc, page))


def _read_page_rulings(doc: Document, page: Page) -> Rulings:
    h: list[tuple[float, float, float]] = []
    v: list[tuple[float, float, float]] = []
    mine = _stored_page_rulings(doc.meta_value("rulings"), str(page.number))
    if isinstance(mine, Mapping):
        h += [tuple(map(float, s[:3])) for s in mine.get("h", ()) if len(s) >= 3]
        v += [tuple(map(float, s[:3])) for s in mine.get("v", ()) if len(s) >= 3]
    for e in page.elements:
        if e.attr("kind") == "rule" or (e.category is C.DECORATIVE and not e.text.strip()):
            x0, y0, x1, y1 = e.bbox
            if y1 - y0 <= 3 and x1 - x0 > 6:
                h.append(((y0 + y1) / 2, x0, x1))
            elif x1 - x0 <= 3 and y1 - y0 > 6:
                v.append(((x0 + x1) / 2, y0, y1))
        elif e.attr("kind") == "box" or (e.category is C.FORM_FIELD and e.source != "widget" and not e.text.strip()):
            x0, y0, x1, y1 = e.bbox
            h += [(y0, x0, x1), (y1, x0, x1)]
            v += [(x0, y0, y1), (x1, y0, y1)]
    return Rulings(_merge(h), _merge(v))


def cell_at(r: Rulings, x: float, y: float, max_w: float = 600, max_h: float = 260) -> BBox | None:
    """The smallest rectangle around (x, y) closed on all four sides by rulings."""
    tops = sorted((y - sy, sy) for sy, a, b in r.h if sy < y and a - 1 <= x <= b + 1 and y - sy <= max_h)[:4]
    bottoms = sorted((sy - y, sy) for sy, a, b in r.h if sy > y and a - 1 <= x <= b + 1 and sy - y <= max_h)[:4]
    lefts = sorted((x - sx, sx) for sx, a, b in r.v if sx < x and a - 1 <= y <= b + 1 and x - sx <= max_w)[:4]
    rights = sorted((sx - x, sx) for sx, a, b in r.v if sx > x and a - 1 <= y <= b + 1 and sx - x <= max_w)[:4]
    best: tuple[float, BBox] | None = None
    for _, t in tops:
        for _, b in bottoms:
            for _, l in lefts:
                for _, rr in rights:
                    if not (r.covers_h(t, l, rr) and r.covers_h(b, l, rr)
                            and r.covers_v(l, t, b) and r.covers_v(rr, t, b)):
                        continue
                    a = (rr - l) * (b - t)
                    if best is None or a < best[0]:
                        best = (a, (l, t, rr, b))
    return best[1] if best else None


def comb_run(r: Rulings, box: BBox | None) -> BBox | None:
    """A comb field: a run of equal narrow cells side by side on one pair of rules (one character
    per cell) is one box, from the first cell to the last; any other box is itself."""
    if box is None:
        return None
    width, height = box[2] - box[0], box[3] - box[1]
    if width > 2 * height:
        return box
    run = box
    for _ in range(64):  # a comb longer than this is a grid, not a field
        nxt = cell_at(r, run[2] + 1.5, (box[1] + box[3]) / 2)
        if nxt is None or abs(nxt[0] - run[2]) > 1.5 or abs(nxt[1] - box[1]) > 1.5 or abs(nxt[3] - box[3]) > 1.5 \
                or abs((nxt[2] - nxt[0]) - width) > 0.25 * width:
            break
        run = (box[0], box[1], nxt[2], box[3])
    return run if run[2] - run[0] >= 3 * width else box


COMB_CELLS = 3  # cells a run of text must lie across before its comb is its frame (a table's cell text does not cross walls)


def frame_of(r: Rulings, box: BBox) -> BBox | None:
    """The closed box a line of text sits in: the cell around its centre when the line lies inside
    it; else, for a value typed one character per cell into a comb (the line runs across the
    cells' walls), the comb from the cell of its first character to the comb's last cell."""
    cy = (box[1] + box[3]) / 2
    cell = cell_at(r, (box[0] + box[2]) / 2, cy)
    if cell is not None and contains(cell, box, 1.5):
        return cell
    first = cell_at(r, box[0] + 0.25 * (box[3] - box[1]), cy)
    comb = comb_run(r, first) if first is not None else None
    if comb is None or comb == first or not contains(comb, box, 1.5) or comb[3] - comb[1] > 3 * (box[3] - box[1]):
        return None
    return comb if (comb[2] - comb[0]) >= COMB_CELLS * (first[2] - first[0]) - 1.5 else None


def open_row_at(r: Rulings, x: float, y: float, max_h: float = 70) -> BBox | None:
    """A band between two horizontal rules around (x, y) with no side walls (a US form's row)."""
    tops = [(sy, a, b) for sy, a, b in r.h if sy < y and a - 1 <= x <= b + 1 and y - sy <= max_h]
    bottoms = [(sy, a, b) for sy, a, b in r.h if sy > y and a - 1 <= x <= b + 1 and sy - y <= max_h]
    if not tops or not bottoms:
        return None
    t = max(tops)
    b = min(bottoms)
    left = max(t[1], b[1])
    right = min(t[2], b[2])
    walls = [sx for sx, a, bb in r.v if a - 1 <= y <= bb + 1 and left < sx < right]
    lw = max([sx for sx in walls if sx < x], default=left)
    rw = min([sx for sx in walls if sx > x], default=right)
    return (lw, t[0], rw, b[0])


def wall_between(r: Rulings | None, x0: float, x1: float, y: float) -> bool:
    """A vertical rule between x0 and x1 at height y: the two sides are different cells."""
    return r is not None and any(x0 + 1 < x < x1 - 1 and a - 1 <= y <= b + 1 for x, a, b in r.v)
