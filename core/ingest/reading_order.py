"""Reading order of a page's drafts: recursive XY-cut, and placing unordered extras among ordered ones."""
from __future__ import annotations

from typing import Sequence

from core.ingest.draft import Draft
from core.model import BBox


def xy_cut_order(boxes: Sequence[BBox], page_width: float) -> list[int]:
    """Recursive XY-cut: columns first (only real columns, ≥18% of the page wide), then rows."""
    min_col = 0.18 * page_width

    def gaps(idx: list[int], lo: int, hi: int, min_gap: float) -> list[list[int]]:
        order = sorted(idx, key=lambda i: boxes[i][lo])
        groups: list[list[int]] = [[order[0]]]
        reach = boxes[order[0]][hi]
        for i in order[1:]:
            if boxes[i][lo] - reach >= min_gap:
                groups.append([i])
            else:
                groups[-1].append(i)
            reach = max(reach, boxes[i][hi])
        return groups

    def cut(idx: list[int]) -> list[int]:
        if len(idx) <= 1:
            return idx
        cols = gaps(idx, 0, 2, 8.0)
        if len(cols) > 1 and all(max(boxes[i][2] for i in c) - min(boxes[i][0] for i in c) >= min_col for c in cols):
            return [i for c in cols for i in cut(c)]
        rows = gaps(idx, 1, 3, 0.5)
        if len(rows) > 1:
            return [i for r in rows for i in cut(r)]
        return sorted(idx, key=lambda i: (boxes[i][1], boxes[i][0]))

    return cut(list(range(len(boxes))))


def insert_in_order(ordered: list[Draft], extras: list[Draft]) -> list[Draft]:
    """Place elements the model did not order after the nearest ordered element above them in their column."""
    result = list(ordered)
    for extra in sorted(extras, key=lambda d: (d.bbox[1], d.bbox[0])):
        best = -1
        for i, d in enumerate(result):
            same_column = d.bbox[0] < extra.bbox[2] and extra.bbox[0] < d.bbox[2]
            if d.bbox[1] <= extra.bbox[1] and same_column:
                best = i
        if best < 0:
            best = max((i for i, d in enumerate(result) if d.bbox[1] <= extra.bbox[1]), default=-1)
        result.insert(best + 1, extra)
    return result
