"""Bounding-box algebra on (x0, y0, x1, y1) tuples in PDF points, origin top-left."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

from core.model import BBox


def area(b: BBox) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def intersection(a: BBox, b: BBox) -> BBox | None:
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


def overlap_area(a: BBox, b: BBox) -> float:
    inter = intersection(a, b)
    return area(inter) if inter else 0.0


def iou(a: BBox, b: BBox) -> float:
    inter = overlap_area(a, b)
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


def coverage(inner: BBox, outer: BBox) -> float:
    """Share of `inner`'s area that lies inside `outer` (1.0 = wholly inside)."""
    a = area(inner)
    if a == 0:
        return 1.0 if contains(outer, inner) else 0.0
    return overlap_area(inner, outer) / a


def contains(outer: BBox, inner: BBox, tolerance: float = 0.0) -> bool:
    return (inner[0] >= outer[0] - tolerance and inner[1] >= outer[1] - tolerance
            and inner[2] <= outer[2] + tolerance and inner[3] <= outer[3] + tolerance)


def union(boxes: Iterable[BBox]) -> BBox:
    boxes = list(boxes)
    if not boxes:
        raise ValueError("union of no boxes")
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def center(b: BBox) -> tuple[float, float]:
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def connector(a: BBox, b: BBox, min_length: float = 0.0) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The stretch of the line between two boxes' centres that lies outside both, from a's edge to b's.

    A link drawn centre to centre runs through the text of both boxes, and across a one-line label
    it reads as struck out. None when the boxes overlap or touch, or the gap is under `min_length`
    (an arrow head would cover a gap that short)."""
    if intersection(a, b):
        return None
    (ax, ay), (bx, by) = center(a), center(b)
    dx, dy = bx - ax, by - ay
    leave, enter = _share_inside(a, dx, dy), 1.0 - _share_inside(b, dx, dy)
    if leave >= enter or math.hypot(dx, dy) * (enter - leave) < min_length:
        return None
    return (ax + dx * leave, ay + dy * leave), (ax + dx * enter, ay + dy * enter)


def _share_inside(box: BBox, dx: float, dy: float) -> float:
    """How much of a segment (dx, dy) long, drawn from the box's centre, stays inside the box."""
    shares = [(box[2] - box[0]) / 2 / abs(dx) if dx else math.inf,
              (box[3] - box[1]) / 2 / abs(dy) if dy else math.inf]
    return min(shares)


def distance(a: BBox, b: BBox) -> float:
    """Shortest gap between two boxes (0 when they touch or overlap)."""
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return (dx * dx + dy * dy) ** 0.5


def vertical_overlap(a: BBox, b: BBox) -> float:
    """Share of the shorter box's height that the two boxes share (same-row test)."""
    shared = min(a[3], b[3]) - max(a[1], b[1])
    shorter = min(a[3] - a[1], b[3] - b[1])
    return max(0.0, shared) / shorter if shorter > 0 else 0.0


def horizontal_overlap(a: BBox, b: BBox) -> float:
    shared = min(a[2], b[2]) - max(a[0], b[0])
    narrower = min(a[2] - a[0], b[2] - b[0])
    return max(0.0, shared) / narrower if narrower > 0 else 0.0


def scale(b: BBox, factor: float) -> BBox:
    return (b[0] * factor, b[1] * factor, b[2] * factor, b[3] * factor)


def uncovered(lo: float, hi: float, spans: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The parts of [lo, hi] that no span covers, left to right."""
    free, cursor = [], lo
    for start, end in sorted(spans):
        if start > cursor:
            free.append((cursor, min(start, hi)))
        cursor = max(cursor, end)
        if cursor >= hi:
            break
    if cursor < hi:
        free.append((cursor, hi))
    return [(a, b) for a, b in free if b > a]
