"""Page facts: what both engines read from a page, gathered once (text lines, image boxes, vector
drawings, widgets, the printed page label)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

from core.geometry import area
from core.ingest.cell_walls import split_at_walls
from core.ingest.display import Display, centre_on_page
from core.ingest.line_numbers import split_line_numbers
from core.ingest.image_cap import painted_image_boxes
from core.ingest.lines import Line, Span, locate_glyphs
from core.ingest.recover_words import recover_blanked_lines, recover_missing_words
from core.ingest.vectors import Vectors, may_hold_actual_text, read_vectors, underscores_behind_actual_text
from core.ingest.widgets import Widget, read_widgets
from core.model import BBox
from core.text import SELECTION_GLYPHS, clean_text

# The default dict flags, images included: one extraction gives text lines and image boxes (a second
# pass for images, e.g. get_image_info, costs a whole extra text-page build).
TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT


@dataclass
class PageFacts:
    number: int
    width: float
    height: float
    rotation: int
    label: str | None
    lines: list[Line]
    images: list[tuple[BBox, str]]  # bbox, identity (xref, or size for inline images)
    vectors: Vectors
    widgets: list[Widget]
    widget_fallback: str | None = None  # why PyMuPDF's own widget reader read this page
    line_numbers: list[list[Line]] = field(default_factory=list)  # margin line-number columns (not text)


def read_page(page: pymupdf.Page, *, vectors: bool = True, labels: bool = True, images: bool = True) -> PageFacts:
    """`labels` False skips a lookup the document is known not to need (no page-label rules): it walks
    document structures on every call. Widgets are always read: a page's annotations hold them
    whatever the catalog's /AcroForm lists, and a page without any costs one dictionary lookup.
    `images` False (an image over the pixel cap, core.ingest.image_cap) reads the text without
    keeping images, and the image boxes from where the page paints them, so no image is decoded."""
    keep_images = images
    show = Display(page)
    rect = page.rect
    label = (page.get_label() or None) if labels else None
    textpage = page.get_textpage(flags=TEXT_FLAGS if keep_images else TEXT_FLAGS & ~pymupdf.TEXT_PRESERVE_IMAGES)
    # the words of the same text page are the reference for what the page says (recover_words)
    blocks = recover_missing_words(textpage.extractDICT()["blocks"], textpage.extractWORDS())
    # the glyphs as printed, read once, only where an ActualText may stand for some of them
    trace = page.get_texttrace() if may_hold_actual_text(page) else None
    blocks = recover_blanked_lines(page, blocks, TEXT_FLAGS, trace)
    lines: list[Line] = []
    glyph_spans = False
    images: list[tuple[BBox, str]] = []
    for bi, block in enumerate(blocks):
        if block.get("type") == 1:
            box = show(block["bbox"])
            if not centre_on_page(box, rect):
                continue
            ident = f"i{block.get('width')}x{block.get('height')}:{block.get('size')}"
            # identity for "the same image on every page": its pixel size and bytes; an image
            # painted twice at the same place (it happens) is one image
            if area(box) > 0 and (box, ident) not in images:
                images.append((box, ident))
            continue
        if block.get("type") != 0:
            continue
        for raw in block["lines"]:
            spans, dropped = _clean_spans(raw["spans"], show)
            if not spans or not any(s.text.strip() for s in spans):
                continue
            line = Line(show(raw["bbox"]), spans, bi)
            line.dropped = dropped
            line.recovered = raw.get("recovered", 0)
            line.vertical = abs(raw.get("dir", (1, 0))[1]) > 0.9  # tategaki: the line runs downwards
            if any(ch in SELECTION_GLYPHS for ch in line.text):
                glyph_spans = True
            lines.append(line)
    vec = read_vectors(page, show, rect) if vectors else Vectors()
    if vectors:
        vec.hsegs += underscores_behind_actual_text(trace, show, [ln.bbox for ln in lines if "_" in ln.text])
    lines, line_numbers = split_line_numbers(split_at_walls(_without_overprints(lines), vec.vsegs))
    if not keep_images:
        images = [(b, i) for b, i in painted_image_boxes(page, show) if centre_on_page(b, rect)]
    if glyph_spans:
        locate_glyphs(page, lines, show)
    found = read_widgets(page, show)
    return PageFacts(page.number + 1, float(rect.width), float(rect.height), page.rotation % 360, label,
                     lines, images, vec, found.widgets, found.fallback, line_numbers)


def _without_overprints(lines: list[Line]) -> list[Line]:
    """A line printed twice at the same place (a chart's labels in two text layers, fake bold) is
    read once; the kept line counts its copies (rule `overprinted_duplicates`, core.ingest.pdf)."""
    kept: dict[tuple, Line] = {}
    out = []
    for ln in lines:
        key = (ln.text.strip(), tuple(round(v) for v in ln.bbox))
        first = kept.get(key)
        if first is not None:
            first.overprinted += 1
            continue
        kept[key] = ln
        out.append(ln)
    return out


def _clean_spans(raw_spans: list[dict], show: Display) -> tuple[list[Span], int]:
    """The line's spans without U+FFFD and control characters, and how many characters went."""
    spans, dropped = [], 0
    for s in raw_spans:
        text, n = clean_text(s["text"])
        dropped += n
        if text:
            spans.append(Span(show(s["bbox"]), text, float(s["size"]), s["font"], int(s["flags"])))
    return spans, dropped
