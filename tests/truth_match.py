"""Score a Document against a sample's `*.truth.json`: recall per category.

A truth element is found when an element of the same category on the same page has IoU ≥ 0.5 with
it, or either box's centre lies inside the other.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from core.geometry import center, iou
from core.model import BBox, Document


def _inside(point: tuple[float, float], box: BBox) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def boxes_match(a: BBox, b: BBox) -> bool:
    return iou(a, b) >= 0.5 or _inside(center(a), b) or _inside(center(b), a)


def load_truth(pdf: Path) -> dict:
    return json.loads(pdf.with_suffix(".truth.json").read_text(encoding="utf-8"))


def recall_by_category(doc: Document, truth: dict) -> dict[str, tuple[int, int]]:
    """{category: (found, total)} over the truth's elements."""
    found, total = Counter(), Counter()
    for t in truth["elements"]:
        category = t["category"]
        total[category] += 1
        page = doc.page(t["page"])
        box = tuple(t["bbox"])
        if any(e.category.value == category and boxes_match(box, e.bbox) for e in page.elements):
            found[category] += 1
    return {c: (found[c], total[c]) for c in total}


def format_table(rows: dict[str, dict[str, tuple[int, int]]]) -> str:
    """Per-document, per-category recall as a small text table (printed with `pytest -s`)."""
    lines = []
    for name, scores in rows.items():
        lines.append(name)
        for category, (hit, n) in sorted(scores.items()):
            lines.append(f"  {category:15s} {hit:3d}/{n:<3d} {hit / n:6.0%}")
    return "\n".join(lines)
