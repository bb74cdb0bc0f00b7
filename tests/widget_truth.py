"""What page.widgets() cannot say about a widget, read through PyMuPDF's xref API instead."""
from __future__ import annotations

import re

import pymupdf


def chosen_options(doc: pymupdf.Document, xref: int) -> tuple[str, ...] | None:
    """A list box's /V array, up the /Parent chain: `field_value` is empty when several options
    are chosen (MuPDF returns no text for an array). None when /V is not an array."""
    for _ in range(32):
        kind, value = doc.xref_get_key(xref, "V")
        if kind == "array":
            return tuple(re.findall(r"\(((?:[^()\\]|\\.)*)\)", value))
        if kind != "null":
            return None
        kind, parent = doc.xref_get_key(xref, "Parent")
        if kind != "xref":
            return None
        xref = int(parent.split()[0])
    return None
