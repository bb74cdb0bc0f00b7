"""The decoded-pixel cap: a page whose image is larger than the cap is never decoded.

A 500 MB scan decoded once costs gigabytes; decoded twice (the text pass keeps images, the model
renders the page) it took 2.2 GB. The pixel size of each image is in its PDF dictionary, so it is
checked before anything decodes: over the cap, the page's text is read without keeping images,
the image boxes come from where the page paints them, and the model (which would render the page)
is skipped for the fast engine's reading, with a notice.
"""
from __future__ import annotations

from typing import Iterator

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


def oversized_mask(page: pymupdf.Page) -> bool:
    """True when a soft mask of one of the page's images is over the cap. MuPDF's text extraction
    decodes a kept image with its mask at full size for every painting, while a render subsamples
    it: a 2×2 picture with a 151-megapixel mask, painted 40 times, took 35 s to extract and 0.2 s to
    render. So such a page is read without keeping images, and the model still sees it."""
    return any(_images_with_oversized_masks(page))


def drop_oversized_masks(page: pymupdf.Page) -> None:
    """Remove the soft masks over the cap from the images of `page`, in this process's copy of the
    document only. The layout model reads the page's text with images kept (see oversized_mask);
    in its process the mask only makes a speck transparent, which does not change the layout."""
    for xref in _images_with_oversized_masks(page):
        page.parent.xref_set_key(xref, "SMask", "null")


def _images_with_oversized_masks(page: pymupdf.Page) -> Iterator[int]:
    """The xrefs of the page's images whose soft mask is over the cap."""
    cap = pixel_cap() * 1e6
    for info in page.get_images(full=True):
        if _mask_pixels(page.parent, int(info[1])) > cap:
            yield int(info[0])


def _mask_pixels(doc: pymupdf.Document, xref: int) -> int:
    """Pixel count of the soft mask at `xref` (0: none), from its dictionary; 0 when unreadable."""
    if xref <= 0:
        return 0
    try:
        width, height = (doc.xref_get_key(xref, key)[1] for key in ("Width", "Height"))
        return int(float(width)) * int(float(height))
    except (ValueError, RuntimeError):
        return 0


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
