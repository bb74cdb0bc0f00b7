"""Page space: PyMuPDF's extractors return unrotated page coordinates; every box the engines keep
is in the page as displayed (PDF points, origin top-left), so on a rotated page it lands where a
person (and a rendered pixmap) sees it."""
from __future__ import annotations

from typing import Sequence

import pymupdf

from core.model import BBox


class Display:
    """Maps unrotated page coordinates (what PyMuPDF's extractors return) to the displayed page."""

    def __init__(self, page: pymupdf.Page):
        self.rotation = page.rotation % 360
        self.matrix = page.rotation_matrix

    def __call__(self, box: Sequence[float]) -> BBox:
        if not self.rotation:
            return (float(box[0]), float(box[1]), float(box[2]), float(box[3]))
        r = pymupdf.Rect(box) * self.matrix
        r.normalize()
        return (r.x0, r.y0, r.x1, r.y1)


def centre_on_page(box: BBox, rect: pymupdf.Rect) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return 0 <= cx <= rect.width and 0 <= cy <= rect.height
