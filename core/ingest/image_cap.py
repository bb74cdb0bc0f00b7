"""The decoded-pixel cap: a page whose image is larger than the cap is never decoded.

A 500 MB scan decoded once costs gigabytes; decoded twice (the text pass keeps images, the model
renders the page) it took 2.2 GB. The pixel size of each image is in its PDF dictionary, so it is
checked before anything decodes: over the cap, the page's text is read without keeping images,
the image boxes come from where the page paints them, and the model (which would render the page)
is skipped for the fast engine's reading, with a notice.
"""
from __future__ import annotations


import pymupdf

from core.geometry import area
from core.model import BBox
from core.settings import positive_number

PIXELS_ENV = "RLI_MAX_IMAGE_MEGAPIXELS"
DEFAULT_MEGAPIXELS = 64.0  # an A4 page scanned at 600 dpi is 35 MP; 64 leaves room for A3


def pixel_cap() -> float:
    """The largest image (megapixels) a page may have to be decoded: RLI_MAX_IMAGE_MEGAPIXELS, else the default."""
    return positive_number(PIXELS_ENV, DEFAULT_MEGAPIXELS, "megapixels")


def oversized_image(page: pymupdf.Page) -> str | None:
    """Why the page's images must not be decoded (the largest is over the cap), or None."""
    cap = pixel_cap()
    largest = max((int(info[2]) * int(info[3]) for info in page.get_images(full=True)), default=0)
    if largest <= cap * 1e6:
        return None
    return (f"a page image of {largest / 1e6:.0f} megapixels is over the {cap:g} MP cap and was not decoded; "
            f"raise it with {PIXELS_ENV}")


def painted_image_boxes(page: pymupdf.Page, show) -> list[tuple[BBox, str]]:
    """(box, identity) of every image the page paints, read from the page's drawing commands, not the pixels."""
    boxes: list[tuple[BBox, str]] = []
    for info in page.get_images(full=True):
        xref, width, height = info[0], info[2], info[3]
        for rect in page.get_image_rects(xref):
            box = show(tuple(rect))
            ident = f"x{xref}:{width}x{height}"
            if area(box) > 0 and (box, ident) not in boxes:
                boxes.append((box, ident))
    return boxes
