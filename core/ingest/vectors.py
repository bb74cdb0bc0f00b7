"""A page's vector drawings: rulings, check-box squares and radio rings, figure shapes; and what
they make: ruled tables with their cell texts, vector figures, separator rules (the fast engine's;
rules and squares serve both engines)."""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import pymupdf
from scipy import ndimage

from core.geometry import area, contains, overlap_area, uncovered, union
from core.ingest.display import Display, centre_on_page
from core.ingest.lines import Line
from core.model import BBox
from core.text import join_lines


@dataclass
class Vectors:
    hsegs: list[tuple[float, float, float, int]] = field(default_factory=list)  # y, x0, x1, path index
    vsegs: list[tuple[float, float, float, int]] = field(default_factory=list)  # x, y0, y1, path index
    squares: list[tuple[BBox, bool]] = field(default_factory=list)  # small squares: check-box candidates
    shapes: list[tuple[BBox, int]] = field(default_factory=list)  # curves, quads, filled areas
    single_rects: set[int] = field(default_factory=set)  # paths that are one rectangle (frames)
    fills: list[BBox] = field(default_factory=list)  # areas filled in a colour or dark (bars, swatches)


def read_vectors(page: pymupdf.Page, show: Display, rect: pymupdf.Rect) -> Vectors:
    vec = Vectors()
    page_area = rect.width * rect.height
    rounds: list[tuple[BBox, bool, bool, int]] = []
    bevels: dict[tuple[int, int, int, int], list[BBox]] = {}
    painted: list[tuple[BBox, tuple]] = []  # rectangles filled in a colour, with it (chart bars)
    panes: list[tuple[int, BBox, bool]] = []  # rectangles filled, not stroked (white or not), in paint order
    for index, path in enumerate(page.get_cdrawings()):
        fill = path.get("fill")
        stroked = "s" in path.get("type", "")
        box = show(path["rect"])
        panes += _pane(index, path, box, stroked)
        if not stroked and (fill is None or min(fill) > 0.97):
            continue  # white or no fill, no stroke: invisible background
        w, h = box[2] - box[0], box[3] - box[1]
        if w * h > 0.8 * page_area:
            continue  # page background or frame
        if not centre_on_page(box, rect):
            continue  # printer's crop and registration marks outside the trim box
        items = path["items"]
        filled = fill is not None and min(fill) < 0.6
        if fill is not None and min(fill) < 0.75 and w > 3 and h > 3:
            vec.fills.append(box)  # light grey shading is a form's; a colour or dark fill a chart's
        rectangle = len(items) == 1 and items[0][0] == "re" or _four_sided(items)
        box_sized = 4 <= w <= 22 and 4 <= h <= 22 and abs(w - h) <= 0.25 * max(w, h)  # a check box's size
        if fill is not None and min(fill) <= 0.97 and rectangle:
            painted.append((box, tuple(fill)))
        if rectangle and box_sized:
            # a check box is outlined; a filled square without an outline is a legend swatch or bullet
            if stroked and not any(abs(box[0] - b[0]) < 1 and abs(box[1] - b[1]) < 1 for b, _ in vec.squares):
                vec.squares.append((box, filled))
            continue
        if not stroked and box_sized and _bevel_half(items):
            bevels.setdefault(tuple(round(v) for v in box), []).append(box)  # drawn on as rulings too
        if items and all(it[0] == "c" for it in items) and 2 <= w <= 22 and 2 <= h <= 22 and abs(w - h) <= 0.25 * max(w, h):
            rounds.append((box, filled, stroked, index))  # a radio button's ring, or the dot inside it
            continue
        if w <= 3 and h >= 6:
            vec.vsegs.append(((box[0] + box[2]) / 2, box[1], box[3], index))
            continue
        if h <= 3 and w >= 6:
            vec.hsegs.append(((box[1] + box[3]) / 2, box[0], box[2], index))
            continue
        straight = True
        for item in items:
            kind = item[0]
            if kind == "l":
                (x0, y0), (x1, y1) = show((*item[1], *item[1]))[:2], show((*item[2], *item[2]))[:2]
                if abs(y1 - y0) <= 1.5:
                    vec.hsegs.append((y0, min(x0, x1), max(x0, x1), index))
                elif abs(x1 - x0) <= 1.5:
                    vec.vsegs.append((x0, min(y0, y1), max(y0, y1), index))
                else:
                    straight = False
            elif kind == "re":
                # a rectangle drawn with a negative width or height (from its right or bottom edge)
                # is the same box: unordered, it read as a thin rule at its middle
                x0, y0, x1, y1 = _ordered(show(item[1]))
                if y1 - y0 <= 3:
                    vec.hsegs.append(((y0 + y1) / 2, x0, x1, index))
                elif x1 - x0 <= 3:
                    vec.vsegs.append(((x0 + x1) / 2, y0, y1, index))
                else:
                    vec.hsegs.extend(((y0, x0, x1, index), (y1, x0, x1, index)))
                    vec.vsegs.extend(((x0, y0, y1, index), (x1, y0, y1, index)))
            else:
                straight = False
        if not straight:
            vec.shapes.append((box, index))
        elif len(items) == 1 and items[0][0] == "re":
            vec.single_rects.add(index)
    vec.hsegs = _seen_edges(vec.hsegs, panes, 0) + _white_on_tint(panes, 0)
    vec.vsegs = _seen_edges(vec.vsegs, panes, 1) + _white_on_tint(panes, 1)
    vec.squares = [sq for sq in vec.squares if not _shortest_bar(sq[0], painted)]
    vec.squares.extend(_bevelled_boxes(bevels, vec.squares))
    if len(rounds) <= 40:
        vec.squares.extend(_radio_rings(rounds))
    else:  # dozens of small circles: a chart's markers, part of a figure
        vec.shapes.extend((r[0], r[3]) for r in rounds)
    return vec


UNDERSCORE_RUN = 3  # underscores in a row that print a blank to write on, not a word's "_"


def underscores_behind_actual_text(trace: list[dict] | None, show: Display, shown: Sequence[BBox]) -> list[tuple[float, float, float, int]]:
    """The blanks a page prints as underscores inside marked content whose /ActualText stands for them (Word
    exports "Name:________" so): the text page reads the ActualText, never the underscores, yet the paper
    shows a rule to write on. Each run of UNDERSCORE_RUN or more is an underline at its baseline, as the
    rules drawn as lines are, unless a text line read already holds it (`shown`: lines with "_"). `trace`: the
    page's get_texttrace(), None where no ActualText can be (may_hold_actual_text)."""
    out: list[tuple[float, float, float, int]] = []
    for span in trace or ():
        run: list[tuple] = []
        for ch in [*span["chars"], None]:
            if ch is not None and ch[0] == 0x5F:
                run.append(ch)
                continue
            if len(run) >= UNDERSCORE_RUN:
                baseline = run[0][2][1]
                box = show((run[0][3][0], baseline, run[-1][3][2], baseline))
                if not any(contains(s, box, tolerance=2.0) for s in shown):
                    out.append(((box[1] + box[3]) / 2, box[0], box[2], -1 - len(out)))
            run = []
    return out


def may_hold_actual_text(page: pymupdf.Page) -> bool:
    """ActualText sits in a tagged PDF's structure tree (Word's export) or in the page's marked content;
    a page with neither is read as it is printed, and its glyphs need no second reading."""
    doc = page.parent
    if doc.is_pdf and doc.xref_get_key(doc.pdf_catalog(), "StructTreeRoot")[0] != "null":
        return True
    return b"/ActualText" in page.read_contents()


def _pane(index: int, path: dict, box: BBox, stroked: bool) -> list[tuple[int, BBox, bool]]:
    """A rectangle filled and not stroked (`box`: its rect as shown), and whether it is white
    (_seen_edges, _white_on_tint); a thinner fill is a rule drawn as a bar, a line of its own."""
    fill, items = path.get("fill"), path["items"]
    if stroked or fill is None or len(items) != 1 or items[0][0] != "re":
        return []
    pane = _ordered(box)
    return [(index, pane, min(fill) > 0.97)] if min(pane[2] - pane[0], pane[3] - pane[1]) > 3 else []


def _seen_edges(segs: list[tuple[float, float, float, int]], panes: Sequence[tuple[int, BBox, bool]],
                axis: int) -> list[tuple[float, float, float, int]]:
    """A filled, unstroked rectangle has no line of its own: its edge is seen only where the fill
    meets other paper. Where a fill painted after it covers the edge (a form's white boxes set on a
    tinted panel, the IRS 1040's green), the edge is hidden, and no box wall runs through the boxes.
    `axis` 0: horizontal segments (y, x0, x1), 1: vertical (x, y0, y1)."""
    edged = {i for i, _, white in panes if not white}
    out: list[tuple[float, float, float, int]] = []
    for pos, a, b, index in segs:
        if index not in edged:
            out.append((pos, a, b, index))
            continue
        hidden = sorted((p[1 - axis], p[3 - axis]) for i, p, _ in panes
                        if i > index and p[axis] + 1 < pos < p[axis + 2] - 1 and p[1 - axis] < b and p[3 - axis] > a)
        out += [(pos, x0, x1, index) for x0, x1 in uncovered(a, b, hidden) if x1 - x0 >= 4]
    return out


def _white_on_tint(panes: Sequence[tuple[int, BBox, bool]], axis: int) -> list[tuple[float, float, float, int]]:
    """The edges of white boxes set on a tinted panel (the other half of _seen_edges): a white fill
    is no line on white paper, but its edge is the box's wall where the paper just outside it is the
    tint (not another white box beside it: a column of white cells stacked edge to edge is one box)."""
    tints = [(i, p) for i, p, white in panes if not white]
    whites = [(i, p) for i, p, white in panes if white] if tints else []
    out: list[tuple[float, float, float, int]] = []
    for index, box in whites:
        for pos, outside in ((box[1 - axis], box[1 - axis] - 0.5), (box[3 - axis], box[3 - axis] + 0.5)):
            a, b = box[axis], box[axis + 2]
            tinted = _merged([(max(a, p[axis]), min(b, p[axis + 2])) for i, p in tints
                              if i < index and p[1 - axis] < outside < p[3 - axis] and p[axis] < b and p[axis + 2] > a])
            white = sorted((p[axis], p[axis + 2]) for i, p in whites
                           if i != index and p[1 - axis] <= outside <= p[3 - axis] and p[axis] < b and p[axis + 2] > a)
            out += [(pos, x0, x1, index) for t0, t1 in tinted for x0, x1 in uncovered(t0, t1, white) if x1 - x0 >= 4]
    return out


def _merged(spans: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _ordered(box: BBox) -> BBox:
    return (min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3]))


def _four_sided(items: Sequence[tuple]) -> bool:
    """A closed outline drawn as four straight strokes, each along a side (some writers draw a
    check box's frame as four lines, not one rectangle): the same box as a rectangle."""
    if len(items) != 4 or any(it[0] != "l" for it in items):
        return False
    return all(abs(it[1][0] - it[2][0]) <= 0.5 or abs(it[1][1] - it[2][1]) <= 0.5 for it in items) \
        and _closed(items)


def _shortest_bar(square: BBox, painted: Sequence[tuple[BBox, tuple]]) -> bool:
    """A square painted in the colour of a longer rectangle that shares its base and its thickness:
    a short bar of a bar chart (the white paper's "130" beside "1,750"), which an outlined bar drawn
    square looks like to a check-box test. A column of check boxes has no longer sibling."""
    colours = [c for b, c in painted if all(abs(b[i] - square[i]) < 0.5 for i in range(4))]
    if not colours:
        return False
    w, h = square[2] - square[0], square[3] - square[1]
    for b, c in painted:
        if not any(max(abs(x - y) for x, y in zip(c, mine)) < 0.02 for mine in colours):
            continue
        bw, bh = b[2] - b[0], b[3] - b[1]
        level = abs(bh - h) < 0.5 and bw > 1.5 * w and (abs(b[0] - square[0]) < 0.5 or abs(b[2] - square[2]) < 0.5)
        upright = abs(bw - w) < 0.5 and bh > 1.5 * h and (abs(b[3] - square[3]) < 0.5 or abs(b[1] - square[1]) < 0.5)
        if level or upright:
            return True
    return False


def _bevel_half(items: Sequence[tuple]) -> bool:
    """An L of six straight edges, closed, each along an axis but the two short mitres where the
    bevel turns: one half of a bevelled (inset or raised) frame, the light or the dark two sides a
    form's check box is drawn with."""
    if len(items) != 6 or any(it[0] != "l" for it in items):
        return False
    xs = [p[0] for it in items for p in (it[1], it[2])]
    ys = [p[1] for it in items for p in (it[1], it[2])]
    mitre = 0.25 * min(max(xs) - min(xs), max(ys) - min(ys))
    slanted = [it for it in items if abs(it[1][0] - it[2][0]) > 0.5 and abs(it[1][1] - it[2][1]) > 0.5]
    return len(slanted) <= 2 and all(abs(it[1][0] - it[2][0]) <= mitre and abs(it[1][1] - it[2][1]) <= mitre
                                     for it in slanted) and _closed(items)


def _bevelled_boxes(bevels: dict[tuple[int, int, int, int], list[BBox]],
                    squares: Sequence[tuple[BBox, bool]]) -> list[tuple[BBox, bool]]:
    """Check boxes drawn bevelled: two filled L's or more on one small square are its outline (its
    inside is left empty; a tick there is text or a shape of its own)."""
    out: list[tuple[BBox, bool]] = []
    for halves in sorted(bevels.values(), key=lambda hs: -area(hs[0])):
        box = halves[0]
        # the outer bevel and the inner one (a second, lighter pair just inside it) are one box
        if len(halves) >= 2 and not any(overlap_area(box, b) > 0.5 * area(box) for b, _ in (*squares, *out)):
            out.append((box, False))
    return out


def _closed(items: Sequence[tuple]) -> bool:
    ends = [(round(p[0], 1), round(p[1], 1)) for it in items for p in (it[1], it[2])]
    return all(ends.count(e) % 2 == 0 for e in ends)


def _radio_rings(rounds: list[tuple[BBox, bool, bool, int]]) -> list[tuple[BBox, bool]]:
    """Round check-box candidates (radio buttons drawn with curves): one per ring, filled when a
    dark dot sits inside it. A lone filled disc is a bullet, not a button, and is left out."""
    rings = sorted((r for r in rounds if r[2] and r[0][2] - r[0][0] >= 5), key=lambda r: -area(r[0]))
    out: list[tuple[BBox, bool]] = []
    for box, filled, _, _ in rings:
        if any(overlap_area(box, o) > 0.5 * area(box) for o, _ in out):
            continue  # the same button drawn in several strokes (shadow, highlight, outline)
        dot = any(f and area(b) < 0.6 * area(box) and contains(box, b, tolerance=0.5) for b, f, _, _ in rounds)
        out.append((box, filled or dot))
    return out + _ringless_dots(rounds, [b for b, _ in out])


def _ringless_dots(rounds: list[tuple[BBox, bool, bool, int]], rings: Sequence[BBox]) -> list[tuple[BBox, bool]]:
    """Selected radio options whose "on" look is the dot alone (pdf.js' opt_demo, some designers' kids):
    a filled disc in no ring, centred on the column or row of the group's rings and smaller than them.
    It gets the box of those rings, centred on it. A bullet is not in line with radio rings."""
    out: list[tuple[BBox, bool]] = []
    for box, filled, stroked, _ in rounds:
        if not filled or stroked or any(overlap_area(box, r) > 0 for r in rings):
            continue
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        for r in rings:
            rw, rh = r[2] - r[0], r[3] - r[1]
            in_line = abs((r[0] + r[2]) / 2 - cx) <= 1.0 or abs((r[1] + r[3]) / 2 - cy) <= 1.0
            if in_line and box[2] - box[0] < rw:
                out.append(((cx - rw / 2, cy - rh / 2, cx + rw / 2, cy + rh / 2), True))
                break
    return out


class _UnionFind:
    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def cluster_boxes(boxes: Sequence[BBox], tolerance: float = 2.0, cell: float = 24.0) -> list[list[int]]:
    """Groups of boxes that touch (within `tolerance`).

    Many boxes (a financial table drawn cell by cell): painted onto a coarse raster and labelled
    as connected regions in C (scipy), instead of comparing boxes pairwise in Python."""
    if len(boxes) > 60:
        return _cluster_on_raster(boxes, tolerance)
    uf = _UnionFind(len(boxes))
    grid: dict[tuple[int, int], list[int]] = {}
    for i, b in enumerate(boxes):
        x0, y0 = int((b[0] - tolerance) // cell), int((b[1] - tolerance) // cell)
        x1, y1 = int((b[2] + tolerance) // cell), int((b[3] + tolerance) // cell)
        for gx in range(x0, x1 + 1):
            for gy in range(y0, y1 + 1):
                bucket = grid.setdefault((gx, gy), [])
                for j in bucket:
                    o = boxes[j]
                    if (b[0] - tolerance <= o[2] and o[0] - tolerance <= b[2]
                            and b[1] - tolerance <= o[3] and o[1] - tolerance <= b[3]):
                        uf.join(i, j)
                bucket.append(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        groups.setdefault(uf.find(i), []).append(i)
    return list(groups.values())


def _cluster_on_raster(boxes: Sequence[BBox], tolerance: float, res: float = 2.0) -> list[list[int]]:
    arr = np.asarray(boxes, dtype=np.float64)
    x0 = arr[:, 0].min() - 2 * tolerance
    y0 = arr[:, 1].min() - 2 * tolerance
    cells = np.empty((len(boxes), 4), dtype=np.int64)
    cells[:, 0] = np.floor((arr[:, 0] - tolerance - x0) / res)
    cells[:, 1] = np.floor((arr[:, 1] - tolerance - y0) / res)
    cells[:, 2] = np.floor((arr[:, 2] + tolerance - x0) / res) + 1
    cells[:, 3] = np.floor((arr[:, 3] + tolerance - y0) / res) + 1
    raster = np.zeros((int(cells[:, 3].max()) + 1, int(cells[:, 2].max()) + 1), dtype=bool)
    for cx0, cy0, cx1, cy1 in cells.tolist():
        raster[cy0:cy1, cx0:cx1] = True
    labels, _ = ndimage.label(raster)
    groups: dict[int, list[int]] = {}
    for i, (cx0, cy0, _, _) in enumerate(cells.tolist()):
        groups.setdefault(int(labels[cy0, cx0]), []).append(i)
    return list(groups.values())


def _positions(segs: Iterable[tuple[float, float, float]], tol: float = 1.5) -> list[tuple[float, float]]:
    """Distinct positions of parallel segments with the length they cover: [(pos, covered)]."""
    ordered = sorted(segs)
    out: list[tuple[float, list[tuple[float, float]]]] = []
    for pos, a, b in ordered:
        if out and pos - out[-1][0] <= tol:
            out[-1][1].append((a, b))
        else:
            out.append((pos, [(a, b)]))
    result = []
    for pos, spans in out:
        spans.sort()
        covered, cur_a, cur_b = 0.0, spans[0][0], spans[0][1]
        for a, b in spans[1:]:
            if a <= cur_b + 1.0:
                cur_b = max(cur_b, b)
            else:
                covered += cur_b - cur_a
                cur_a, cur_b = a, b
        covered += cur_b - cur_a
        result.append((pos, covered))
    return result


@dataclass
class RuledRegion:
    bbox: BBox
    rows: list[float]  # y boundaries
    cols: list[float]  # x boundaries


def analyse_vectors(vec: Vectors, width: float, height: float) -> tuple[list[RuledRegion], list[BBox], list[BBox]]:
    """(ruled tables, vector figures, separator rules) from a page's drawings."""
    # Cluster units, not segments: a rectangle's four edges (or a one-line path) are one unit, so a
    # grid of cell rectangles costs a quarter of the comparisons. Paths with many items stay split
    # into their segments (one path may hold every underline of the page).
    by_path: dict[int, list[tuple[str, tuple[float, float, float]]]] = {}
    for y, x0, x1, idx in vec.hsegs:
        by_path.setdefault(idx, []).append(("h", (y, x0, x1)))
    for x, y0, y1, idx in vec.vsegs:
        by_path.setdefault(idx, []).append(("v", (x, y0, y1)))
    units: list[tuple[BBox, list[tuple[str, tuple[float, float, float]]], int, bool]] = []
    for idx, segs in by_path.items():
        boxes = [_seg_box(kind, seg) for kind, seg in segs]
        if len(segs) <= 4:
            units.append((union(boxes), segs, idx, False))
        else:
            units.extend((box, [seg], idx, False) for box, seg in zip(boxes, segs))
    units.extend((box, [], idx, True) for box, idx in vec.shapes)
    tables: list[RuledRegion] = []
    figures: list[BBox] = []
    rules: list[BBox] = []
    for group in cluster_boxes([u[0] for u in units]):
        members = [units[i] for i in group]
        gbox = union(u[0] for u in members)
        gw, gh = gbox[2] - gbox[0], gbox[3] - gbox[1]
        segs = [seg for u in members for seg in u[1]]
        has_shapes = any(u[3] for u in members)
        paths = {u[2] for u in members}
        if gw >= 40 and gh >= 20 and not has_shapes:
            hpos = _positions(seg for kind, seg in segs if kind == "h")
            vpos = _positions(seg for kind, seg in segs if kind == "v")
            h_full = sum(1 for _, c in hpos if c >= 0.85 * gw)
            v_full = sum(1 for _, c in vpos if c >= 0.85 * gh)
            if h_full >= 3 and v_full >= 2:
                tables.append(RuledRegion(gbox, [p for p, _ in hpos], [p for p, _ in vpos]))
                continue
        if len(segs) == 1 and not has_shapes:
            if max(gw, gh) >= 0.15 * width:
                rules.append(gbox)
            continue
        if len(paths) == 1 and next(iter(paths)) in vec.single_rects:
            continue  # one rectangle: a frame around text or a blank box, not a figure
        if gw >= 30 and gh >= 30 and gw * gh >= 2000:
            figures.append(gbox)
    return tables, figures, rules


def is_ruled_area(vec: Vectors, box: BBox) -> bool:
    """Only straight strokes there (rulings, frames, light shading): no curve, no coloured or dark
    fill. Text such an area holds is a form's or a table's, not a figure's labels."""
    def inside(b: BBox) -> bool:
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]
    return not any(inside(b) for b, _ in vec.shapes) and not any(inside(b) for b in vec.fills)


def _seg_box(kind: str, seg: tuple[float, float, float]) -> BBox:
    pos, a, b = seg
    return (a, pos - 0.5, b, pos + 0.5) if kind == "h" else (pos - 0.5, a, pos + 0.5, b)


def table_rows(region: RuledRegion, lines: Sequence[Line],
               hsegs: Sequence[tuple[float, float, float, int]] = ()) -> tuple[tuple[str, ...], ...]:
    """Cell texts by the ruling grid: each span goes to the cell holding its centre. With the
    page's horizontal strokes, a cell whose top boundary is not ruled across its column is part of
    the cell above (a group label spanning rows, its lines falling in different rows)."""
    ys, xs = sorted(region.rows), sorted(region.cols)
    if len(ys) < 2 or len(xs) < 2:
        return ()
    cells: dict[tuple[int, int], list[str]] = {}
    hsegs = [h for h in hsegs if ys[0] - 2 <= h[0] <= ys[-1] + 2 and h[2] >= xs[0] and h[1] <= xs[-1]]
    for ln in lines:
        for s in ln.spans:
            if not s.text.strip():
                continue
            cx, cy = (s.bbox[0] + s.bbox[2]) / 2, (s.bbox[1] + s.bbox[3]) / 2
            r = min(max(bisect.bisect_right(ys, cy) - 1, 0), len(ys) - 2)
            c = min(max(bisect.bisect_right(xs, cx) - 1, 0), len(xs) - 2)
            while hsegs and r > 0 and not _ruled_across(hsegs, ys[r], xs[c], xs[c + 1]):
                r -= 1
            cells.setdefault((r, c), []).append(s.text.strip())
    return grid_to_rows(cells)


def _ruled_across(hsegs: Sequence[tuple[float, float, float, int]], y: float, x0: float, x1: float) -> bool:
    """A horizontal stroke at height y that runs across most of [x0, x1]."""
    need = 0.6 * (x1 - x0)
    return any(abs(sy - y) <= 1.5 and min(b, x1) - max(a, x0) >= need for sy, a, b, _ in hsegs)


def grid_to_rows(cells: dict[tuple[int, int], list[str]]) -> tuple[tuple[str, ...], ...]:
    if not cells:
        return ()
    used_rows = sorted({r for r, _ in cells})
    used_cols = sorted({c for _, c in cells})
    return tuple(tuple(join_lines(cells.get((r, c), [])) for c in used_cols) for r in used_rows)
