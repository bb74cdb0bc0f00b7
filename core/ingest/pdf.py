"""PDF bytes → machine `Document`, with the `layout` (PyMuPDF's layout model) or `fast` (rules only) engine.

The only module that imports pymupdf for parsing. Per page it reads the text lines once
(`get_text("dict")`), the vector drawings once (`get_cdrawings`), the image boxes (only when the
page has images) and the AcroForm widgets; both engines build their elements from those facts.

Coordinates are PDF points, origin top-left, in the page as displayed: on a rotated page every box
is turned with the page's rotation so it lands where a person (and a rendered pixmap) sees it.
"""
from __future__ import annotations

import atexit
import bisect
import contextlib
import functools
import importlib.metadata
import os
import pickle
import re
import select
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pymupdf
from scipy import ndimage

from core.categories import Category, category_from_label
from core.errors import CorruptPdf, EmptyFile, NotAPdf, PasswordRequired, WrongPassword
from core.geometry import area, contains, overlap_area, union
from core.model import BBox, Document, Element, FrozenMap, Page, element_id, freeze_attrs, make_bbox
from core.text import ARTICLE_HEADING, SELECTION_GLYPHS, join_lines

ENGINES = ("layout", "fast")
INGEST_VERSION = "1"  # bump when the elements an engine emits change, so stored outputs can be told apart

# The default dict flags, images included: one extraction gives text lines and image boxes (a second
# pass for images, e.g. get_image_info, costs a whole extra text-page build).
TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT
_LATIN = re.compile(r"[!-~]")
# a body's reference to a note set as a raised number: "1", "12", "1,2" (not "2023", not "1.5")
_SUP_NUMBER = re.compile(r"\d{1,3}(?:[,，]\s*\d{1,3})*")
SUPERSCRIPT, ITALIC, SERIF, MONO, BOLD = 1, 2, 4, 8, 16


# Monospace Latin fonts (code); CJK "monospace" fonts such as MS Gothic/Mincho set body text, not code.
_MONO_NAME = re.compile(r"courier|cour\b|mono|consol|menlo|inconsolata|source ?code|lucida ?console|fixed", re.I)
_CJK_FONT_NAME = re.compile(r"gothic|mincho|ming|song|hei|kai|明朝|ゴシック|meiryo|yu ?goth|hiragino|noto ?sans ?cjk|noto ?serif ?cjk", re.I)

ProgressFn = Callable[[int, int], None]


# ---------------------------------------------------------------------------------------------
# Opening: every bad-input case becomes one domain error that says what to do.
# ---------------------------------------------------------------------------------------------
@dataclass
class OpenedPdf:
    doc: pymupdf.Document
    pdf_bytes: bytes  # what the workspace stores: the original, or the decrypted copy
    encrypted: bool


def open_pdf(data: bytes, filename: str, password: str | None = None) -> OpenedPdf:
    name = filename or "the file"
    if not data:
        raise EmptyFile(f"{name} is empty (0 bytes); choose the PDF itself, not an empty or unfinished download")
    has_magic = b"%PDF-" in data[:1024]
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as err:  # pymupdf raises FileDataError/RuntimeError variants
        if not has_magic:
            raise NotAPdf(f"{name} is not a PDF (no %PDF- header); export or save it as PDF and try again") from err
        raise CorruptPdf(f"{name} is a damaged PDF that cannot be opened ({err}); "
                         "get a fresh copy from its source or re-save it from a PDF viewer") from err
    if not has_magic and not doc.is_pdf:
        raise NotAPdf(f"{name} is not a PDF (no %PDF- header); export or save it as PDF and try again")
    encrypted = bool(doc.needs_pass)
    pdf_bytes = data
    if encrypted:
        if not password:
            raise PasswordRequired(f"{name} is encrypted; give its password (--password / the password box)")
        if not doc.authenticate(password):
            raise WrongPassword(f"the password for {name} is wrong; check it (passwords are case-sensitive) and try again")
        # Store a decrypted copy so rendering and re-reading never need the password again.
        pdf_bytes = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_NONE, garbage=0)
        doc = pymupdf.open(stream=pdf_bytes, filetype="pdf")
    if doc.page_count == 0:
        raise CorruptPdf(f"{name} has no pages; it is damaged or not a finished PDF — get a fresh copy")
    if doc.is_repaired and b"%%EOF" not in data[-2048:]:
        raise CorruptPdf(f"{name} looks truncated (its end is missing, pages may be lost); "
                         "download or copy it again and retry")
    return OpenedPdf(doc, pdf_bytes, encrypted)


# ---------------------------------------------------------------------------------------------
# Page facts: what both engines read from a page, gathered once.
# ---------------------------------------------------------------------------------------------
class Span:
    __slots__ = ("bbox", "text", "size", "font", "flags")

    def __init__(self, bbox: BBox, text: str, size: float, font: str, flags: int):
        self.bbox, self.text, self.size, self.font, self.flags = bbox, text, size, font, flags


@functools.lru_cache(maxsize=512)
def _font_traits(font: str) -> tuple[bool, bool, bool]:
    """(bold by name, monospace Latin by name, CJK font) — a page has a handful of fonts, many spans."""
    return "bold" in font.lower(), bool(_MONO_NAME.search(font)), bool(_CJK_FONT_NAME.search(font))


class Line:
    __slots__ = ("bbox", "text", "size", "bold", "fonts", "mono", "latin", "chars", "sup_start", "sup_marks", "block",
                 "vertical", "spans", "glyphs")

    def __init__(self, bbox: BBox, spans: list[Span], block: int):
        self.bbox = bbox
        self.spans = spans
        self.block = block
        self.text = "".join(s.text for s in spans)
        weights: dict[float, int] = {}
        bold = mono = latin = chars = 0
        fonts: list[str] = []
        for s in spans:
            n = len(s.text) - s.text.count(" ") - s.text.count("\u3000")
            if n <= 0:
                continue
            chars += n
            key = round(s.size * 2) / 2
            weights[key] = weights.get(key, 0) + n
            named_bold, named_mono, cjk_font = _font_traits(s.font)
            if s.flags & BOLD or named_bold:
                bold += n
            if s.font not in fonts:
                fonts.append(s.font)
            n_latin = n if s.text.isascii() else len(_LATIN.findall(s.text))
            latin += n_latin
            if (s.flags & MONO or named_mono) and not cjk_font:
                mono += n_latin
        self.size = max(weights, key=weights.get) if weights else (spans[0].size if spans else 0.0)
        self.bold = chars > 0 and bold * 2 >= chars
        self.fonts = tuple(fonts)
        self.mono, self.latin, self.chars = mono, latin, chars
        first = next((s for s in spans if s.text.strip()), None)
        self.sup_start = bool(first is not None and first is not spans[-1] and len(first.text.strip()) <= 3
                              and (first.flags & SUPERSCRIPT or first.size < self.size * 0.8))
        self.sup_marks = self._sup_marks(first) if len(spans) > 1 else ()
        self.glyphs: tuple[tuple[str, BBox], ...] = ()
        self.vertical = False

    def _sup_marks(self, first: Span | None) -> tuple[str, ...]:
        """Numbers set as superscript inside the line: the body's references to its footnotes. A
        span counts when flagged superscript, or smaller and raised (a subscript sits low). The
        line's own leading mark (a footnote's "¹ …", see `sup_start`) is not a reference."""
        marks: list[str] = []
        bottom = self.bbox[3] - 0.1 * self.size
        for s in self.spans:
            if s.size >= self.size or (s is first and self.sup_start):
                continue
            if not (s.flags & SUPERSCRIPT or (s.size < self.size * 0.8 and s.bbox[3] < bottom)):
                continue
            text = s.text.strip()
            if text and _SUP_NUMBER.fullmatch(text):
                marks.extend(re.findall(r"\d+", text))
        return tuple(marks)


@dataclass
class Vectors:
    hsegs: list[tuple[float, float, float, int]] = field(default_factory=list)  # y, x0, x1, path index
    vsegs: list[tuple[float, float, float, int]] = field(default_factory=list)  # x, y0, y1, path index
    squares: list[tuple[BBox, bool]] = field(default_factory=list)  # small squares: check-box candidates
    shapes: list[tuple[BBox, int]] = field(default_factory=list)  # curves, quads, filled areas
    single_rects: set[int] = field(default_factory=set)  # paths that are one rectangle (frames)


@dataclass
class Widget:
    bbox: BBox
    kind: str  # Text, CheckBox, RadioButton, ComboBox, ListBox, Button, Signature
    name: str
    label: str
    value: Any
    on_state: str | None
    options: tuple
    flags: int


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


def _decode_pdf_name(name: str | None) -> str | None:
    """PDF names escape bytes as #xx ("Male#20Only"); widget values come back unescaped. Bytes that
    are not UTF-8 (MuPDF hands them over as lone surrogates) are read as Latin-1, as PyMuPDF does."""
    if not name:
        return name
    name = re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), name)
    if any("\udc80" <= ch <= "\udcff" for ch in name):
        raw = name.encode("utf-8", "surrogateescape")
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            name = raw.decode("latin-1")
    return name


class _Display:
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


def read_page(page: pymupdf.Page, *, vectors: bool = True, labels: bool = True, widgets: bool = True) -> PageFacts:
    """`labels` / `widgets` False skip lookups the document is known not to need (no page-label
    rules, no AcroForm): both walk document structures on every call."""
    show = _Display(page)
    rect = page.rect
    label = (page.get_label() or None) if labels else None
    data = page.get_text("dict", flags=TEXT_FLAGS)
    lines: list[Line] = []
    glyph_spans = False
    images: list[tuple[BBox, str]] = []
    for bi, block in enumerate(data["blocks"]):
        if block.get("type") == 1:
            box = show(block["bbox"])
            if not _centre_on_page(box, rect):
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
            spans = [Span(show(s["bbox"]), s["text"], float(s["size"]), s["font"], int(s["flags"]))
                     for s in raw["spans"] if s["text"]]
            if not spans or not any(s.text.strip() for s in spans):
                continue
            line = Line(show(raw["bbox"]), spans, bi)
            line.vertical = abs(raw.get("dir", (1, 0))[1]) > 0.9  # tategaki: the line runs downwards
            if any(ch in SELECTION_GLYPHS for ch in line.text):
                glyph_spans = True
            lines.append(line)
    if glyph_spans:
        _locate_glyphs(page, lines, show)
    vec = _read_vectors(page, show, rect) if vectors else Vectors()
    found_widgets = _read_widgets(page, show) if widgets else []
    return PageFacts(page.number + 1, float(rect.width), float(rect.height), page.rotation % 360, label,
                     lines, images, vec, found_widgets)


def _locate_glyphs(page: pymupdf.Page, lines: list[Line], show: _Display) -> None:
    """Boxes of check-box glyphs, so refine can split "☑ 会議費" into a mark and its label."""
    hits: dict[str, list[BBox]] = {}
    for line in lines:
        found: list[tuple[str, BBox]] = []
        for s in line.spans:
            stripped = s.text.strip()
            for ch in dict.fromkeys(c for c in stripped if c in SELECTION_GLYPHS):
                if stripped == ch:
                    found.append((ch, s.bbox))
                    continue
                if ch not in hits:
                    hits[ch] = [show(r) for r in page.search_for(ch)]
                found.extend((ch, b) for b in hits[ch] if contains(s.bbox, b, tolerance=1.0))
        line.glyphs = tuple(sorted(found, key=lambda g: (g[1][0], g[1][1])))


def _read_vectors(page: pymupdf.Page, show: _Display, rect: pymupdf.Rect) -> Vectors:
    vec = Vectors()
    page_area = rect.width * rect.height
    rounds: list[tuple[BBox, bool, bool, int]] = []
    for index, path in enumerate(page.get_cdrawings()):
        fill = path.get("fill")
        stroked = "s" in path.get("type", "")
        if not stroked and (fill is None or min(fill) > 0.97):
            continue  # white or no fill, no stroke: invisible background
        box = show(path["rect"])
        w, h = box[2] - box[0], box[3] - box[1]
        if w * h > 0.8 * page_area:
            continue  # page background or frame
        if not _centre_on_page(box, rect):
            continue  # printer's crop and registration marks outside the trim box
        items = path["items"]
        filled = fill is not None and min(fill) < 0.6
        if len(items) == 1 and items[0][0] == "re" and 4 <= w <= 22 and 4 <= h <= 22 and abs(w - h) <= 0.25 * max(w, h):
            # a check box is outlined; a filled square without an outline is a legend swatch or bullet
            if stroked and not any(abs(box[0] - b[0]) < 1 and abs(box[1] - b[1]) < 1 for b, _ in vec.squares):
                vec.squares.append((box, filled))
            continue
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
                x0, y0, x1, y1 = show(item[1])
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
    if len(rounds) <= 40:
        vec.squares.extend(_radio_rings(rounds))
    else:  # dozens of small circles: a chart's markers, part of a figure
        vec.shapes.extend((r[0], r[3]) for r in rounds)
    return vec


def _centre_on_page(box: BBox, rect: pymupdf.Rect) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return 0 <= cx <= rect.width and 0 <= cy <= rect.height


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
    return out


def _read_widgets(page: pymupdf.Page, show: _Display) -> list[Widget]:
    try:
        return _read_widgets_lean(page, show)
    except Exception:  # an unusual field structure: PyMuPDF's complete (slower) reader
        return _read_widgets_full(page, show)


def _read_widgets_lean(page: pymupdf.Page, show: _Display) -> list[Widget]:
    """The few field properties we keep, read through MuPDF directly.

    `page.widgets()` reads some forty properties per field (colours, fonts, scripts…) and costs
    about half a millisecond per widget; this reads eight. Same values (checked against
    `page.widgets()` in the tests)."""
    mu = pymupdf.mupdf
    name = pymupdf.PDF_NAME
    pdf_page = page._pdf_page(required=False)
    if pdf_page is None or not pdf_page.m_internal:
        return []
    derotate = page.derotation_matrix
    out = []
    widget = mu.pdf_first_widget(pdf_page)
    while widget.m_internal:
        obj = mu.pdf_annot_obj(widget)
        field_type = mu.pdf_widget_type(widget)
        kind = _WIDGET_KINDS.get(field_type, "Unknown")
        label = _inheritable_text(mu, obj, name("TU"))
        value: Any = None
        if field_type == pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON:
            state = mu.pdf_dict_get(obj, name("AS"))
            if state.m_internal:
                value = _decode_pdf_name(mu.pdf_to_name(state))
        if not value:
            value = mu.pdf_field_value(obj)
        on_state = None
        options: tuple = ()
        if field_type in (pymupdf.PDF_WIDGET_TYPE_CHECKBOX, pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON):
            appearances = mu.pdf_dict_getl(obj, name("AP"), name("N"))
            if mu.pdf_is_dict(appearances):
                states = [mu.pdf_to_name(mu.pdf_dict_get_key(appearances, i))
                          for i in range(mu.pdf_dict_len(appearances))]
                on_state = next((st for st in states if st != "Off"), None)
        elif field_type in (pymupdf.PDF_WIDGET_TYPE_COMBOBOX, pymupdf.PDF_WIDGET_TYPE_LISTBOX):
            opt = mu.pdf_dict_get_inheritable(obj, name("Opt"))
            items = []
            for i in range(mu.pdf_array_len(opt)):
                item = mu.pdf_array_get(opt, i)
                if mu.pdf_array_len(item) == 2:
                    items.append((mu.pdf_to_text_string(mu.pdf_array_get(item, 0)),
                                  mu.pdf_to_text_string(mu.pdf_array_get(item, 1))))
                else:
                    items.append(mu.pdf_to_text_string(item))
            options = tuple(items)
        rect = pymupdf.Rect(mu.pdf_bound_annot(widget)) * derotate
        out.append(Widget(show(rect), kind, mu.pdf_load_field_name(obj) or "", (label or "").strip(),
                          value, _decode_pdf_name(on_state), options, int(mu.pdf_field_flags(obj))))
        widget = mu.pdf_next_widget(widget)
    return out


_WIDGET_KINDS = {
    pymupdf.PDF_WIDGET_TYPE_BUTTON: "Button", pymupdf.PDF_WIDGET_TYPE_CHECKBOX: "CheckBox",
    pymupdf.PDF_WIDGET_TYPE_COMBOBOX: "ComboBox", pymupdf.PDF_WIDGET_TYPE_LISTBOX: "ListBox",
    pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON: "RadioButton", pymupdf.PDF_WIDGET_TYPE_SIGNATURE: "Signature",
    pymupdf.PDF_WIDGET_TYPE_TEXT: "Text",
}


def _inheritable_text(mu, node, key) -> str | None:
    """A field's /TU, looked up through its parents (the first non-empty one), as PyMuPDF does."""
    for _ in range(32):  # a parent chain longer than this is a cycle
        if not node.m_internal:
            return None
        value = mu.pdf_dict_get(node, key)
        if value.m_internal:
            text = mu.pdf_to_text_string(value)
            if text:
                return text
        node = mu.pdf_dict_get(node, pymupdf.PDF_NAME("Parent"))
    return None


def _read_widgets_full(page: pymupdf.Page, show: _Display) -> list[Widget]:
    out = []
    for w in page.widgets():
        kind = w.field_type_string or "Unknown"
        on_state = None
        if w.field_type in (pymupdf.PDF_WIDGET_TYPE_CHECKBOX, pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON):
            on_state = _decode_pdf_name(str(w.on_state()))
        options = tuple(o if isinstance(o, str) else tuple(o) for o in (w.choice_values or ()))
        out.append(Widget(show(w.rect), kind, w.field_name or "", (w.field_label or "").strip(),
                          w.field_value, on_state, options, int(w.field_flags or 0)))
    return out


# ---------------------------------------------------------------------------------------------
# Drafts: elements before ids and reading order are settled.
# ---------------------------------------------------------------------------------------------
@dataclass
class Draft:
    category: Category
    bbox: BBox
    lines: list[Line] = field(default_factory=list)
    source: str = "fast"
    text: str | None = None  # explicit text (widgets, tables); else joined from lines
    state: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)

    def final_text(self) -> str:
        if self.text is not None:
            return self.text
        return join_lines([ln.text for ln in ordered_lines(self.lines)])


def is_vertical(lines: Sequence[Line]) -> bool:
    return bool(lines) and sum(1 for ln in lines if ln.vertical) * 2 > len(lines)


def ordered_lines(lines: Sequence[Line]) -> list[Line]:
    """Reading order of a block's lines: top to bottom, or right to left for vertical writing."""
    if is_vertical(lines):
        return sorted(lines, key=lambda ln: (-round(ln.bbox[2] / 3), ln.bbox[1]))
    return sorted(lines, key=_line_order)


def _line_order(line: Line) -> tuple[float, float]:
    return (round(line.bbox[1] / 3), line.bbox[0])


def text_attrs(lines: Sequence[Line], keep_lines: bool = False) -> dict[str, Any]:
    """Font facts refine needs: dominant size, fonts, bold, monospace share, and the line boxes
    `(x0, y0, x1, y1, text, size, block)` when there is more than one line (or `keep_lines`)."""
    if not lines:
        return {}
    weights: dict[float, int] = {}
    fonts: list[str] = []
    bold = chars = mono = latin = 0
    for ln in lines:
        weights[ln.size] = weights.get(ln.size, 0) + max(ln.chars, 1)
        chars += ln.chars
        bold += ln.chars if ln.bold else 0
        mono += ln.mono
        latin += ln.latin
        for f in ln.fonts:
            if f not in fonts:
                fonts.append(f)
    attrs: dict[str, Any] = {
        "size": max(weights, key=weights.get),
        "fonts": tuple(fonts[:4]),
        "bold": chars > 0 and bold * 2 >= chars,
    }
    if latin:
        attrs["mono"] = round(mono / latin, 2)
        attrs["latin"] = round(latin / max(chars, 1), 2)
    ordered = ordered_lines(lines)
    if is_vertical(ordered):
        attrs["vertical"] = True
    if ordered[0].sup_start:
        attrs["sup_start"] = True
    marks = [m for ln in ordered for m in ln.sup_marks]
    if marks:
        attrs["sup_marks"] = tuple(dict.fromkeys(marks))
    glyphs = [(ch, *map(_r1, b)) for ln in ordered for ch, b in ln.glyphs]
    if glyphs:
        attrs["glyphs"] = tuple(glyphs)
    if len(ordered) > 1 or glyphs or keep_lines:
        attrs["lines"] = tuple((*map(_r1, ln.bbox), ln.text, ln.size, ln.block) for ln in ordered)
    return attrs


def _r1(v: float) -> float:
    return round(float(v), 1)


def assign_lines(lines: Sequence[Line], boxes: Sequence[BBox]) -> tuple[list[list[Line]], list[Line]]:
    """Each line goes to the box it overlaps most; lines overlapping none are returned apart."""
    assigned: list[list[Line]] = [[] for _ in boxes]
    loose: list[Line] = []
    for ln in lines:
        best, best_share = -1, 0.0
        line_area = max(area(ln.bbox), 1e-6)
        for i, box in enumerate(boxes):
            if ln.bbox[2] < box[0] or ln.bbox[0] > box[2] or ln.bbox[3] < box[1] or ln.bbox[1] > box[3]:
                continue
            share = overlap_area(ln.bbox, box) / line_area
            if share > best_share:
                best, best_share = i, share
        if best >= 0 and best_share >= 0.3:
            assigned[best].append(ln)
        else:
            loose.append(ln)
    return assigned, loose


def loose_line_drafts(lines: Sequence[Line], source: str) -> list[Draft]:
    """Lines outside every model box become text elements, one per PyMuPDF block, so no text is lost."""
    by_block: dict[int, list[Line]] = {}
    for ln in lines:
        by_block.setdefault(ln.block, []).append(ln)
    return [Draft(Category.TEXT, union(ln.bbox for ln in group), list(group), source)
            for group in by_block.values()]


def widget_drafts(widgets: Iterable[Widget]) -> list[Draft]:
    out = []
    for w in widgets:
        attrs: dict[str, Any] = {"field_name": w.name, "field_type": w.kind, "field_label": w.label}
        if w.kind in ("CheckBox", "RadioButton"):
            value = w.value
            selected = value is True or (isinstance(value, str) and value not in ("", "Off", "False")
                                         and (w.on_state is None or value == w.on_state
                                              or _decode_pdf_name(value) == w.on_state))
            attrs.update(value=value if isinstance(value, str) else ("Yes" if value else "Off"),
                         on_state=w.on_state)
            out.append(Draft(Category.SELECTION_MARK, w.bbox, source="widget", text="",
                             state="selected" if selected else "unselected", attrs=attrs))
        elif w.kind in ("Text", "ComboBox", "ListBox", "Signature"):  # an unsigned signature is an empty value
            value = w.value
            if isinstance(value, (list, tuple)):
                value = ", ".join(str(v) for v in value)
            value = "" if value is None else str(value)
            attrs.update(value=value, options=w.options)
            out.append(Draft(Category.FORM_FIELD, w.bbox, source="widget", text=value, attrs=attrs))
        # push buttons carry no value a reader would search for
    return out


# ---------------------------------------------------------------------------------------------
# Vector analysis: ruled tables, vector figures, separator rules (fast engine; rules/squares for both)
# ---------------------------------------------------------------------------------------------
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


def _seg_box(kind: str, seg: tuple[float, float, float]) -> BBox:
    pos, a, b = seg
    return (a, pos - 0.5, b, pos + 0.5) if kind == "h" else (pos - 0.5, a, pos + 0.5, b)


def table_rows(region: RuledRegion, lines: Sequence[Line]) -> tuple[tuple[str, ...], ...]:
    """Cell texts by the ruling grid: each span goes to the cell holding its centre."""
    ys, xs = sorted(region.rows), sorted(region.cols)
    if len(ys) < 2 or len(xs) < 2:
        return ()
    cells: dict[tuple[int, int], list[str]] = {}
    for ln in lines:
        for s in ln.spans:
            if not s.text.strip():
                continue
            cx, cy = (s.bbox[0] + s.bbox[2]) / 2, (s.bbox[1] + s.bbox[3]) / 2
            r = min(max(bisect.bisect_right(ys, cy) - 1, 0), len(ys) - 2)
            c = min(max(bisect.bisect_right(xs, cx) - 1, 0), len(xs) - 2)
            cells.setdefault((r, c), []).append(s.text.strip())
    return grid_to_rows(cells)


def grid_to_rows(cells: dict[tuple[int, int], list[str]]) -> tuple[tuple[str, ...], ...]:
    if not cells:
        return ()
    used_rows = sorted({r for r, _ in cells})
    used_cols = sorted({c for _, c in cells})
    return tuple(tuple(join_lines(cells.get((r, c), [])) for c in used_cols) for r in used_rows)


# ---------------------------------------------------------------------------------------------
# The fast engine: blocks, fonts and drawings with heuristics.
# ---------------------------------------------------------------------------------------------
LIST_MARKER = re.compile(
    r"^\s*(?:[・•●○◦▪‣∙\-–—*＊]\s*|[\[［]\s*[0-9０-９]{1,3}\s*[\]］]|[①-⑳㉑-㉟]|[(（]?[0-9０-９]{1,2}[.．)）](?![0-9０-９])|"
    r"[(（][0-9０-９一二三四五六七八九十a-zａ-ｚア-ン]{1,3}[)）]|[一二三四五六七八九十]{1,3}[、．.]|"
    r"[a-zａ-ｚ][.)）]\s|[ア-ン][.．)）])"
)


def body_size(pages: Sequence[PageFacts]) -> float:
    """The font size most characters of the document are set in."""
    weights: dict[float, int] = {}
    for facts in pages:
        for ln in facts.lines:
            weights[ln.size] = weights.get(ln.size, 0) + ln.chars
    return max(weights, key=weights.get) if weights else 10.0


def _x_clusters(lines: list[Line]) -> list[list[Line]]:
    """Lines of one block that share no horizontal extent (side-by-side paragraphs PyMuPDF put in
    one block because their baselines align) are separated."""
    clusters: list[tuple[float, float, list[Line]]] = []
    for ln in sorted(lines, key=lambda ln: ln.bbox[0]):
        # fragments of one line (a note mark "＊1" set in its own span) touch; columns leave a gap
        gap = 0.8 * (ln.bbox[3] - ln.bbox[1])
        if clusters and ln.bbox[0] < clusters[-1][1] + gap:
            x0, x1, members = clusters[-1]
            clusters[-1] = (x0, max(x1, ln.bbox[2]), members + [ln])
        else:
            clusters.append((ln.bbox[0], ln.bbox[2], [ln]))
    return [members for _, _, members in clusters]


def _segments(lines: list[Line]) -> list[list[Line]]:
    """Split a PyMuPDF block where a list item starts, the font changes, or a gap opens."""
    if is_vertical(lines):
        return [ordered_lines(lines)]  # vertical writing: the block's columns read right to left
    clusters = _x_clusters(lines)
    if len(clusters) > 1:
        return [seg for cluster in clusters for seg in _segments_of_column(cluster)]
    return _segments_of_column(lines)


def _segments_of_column(lines: list[Line]) -> list[list[Line]]:
    ordered = sorted(lines, key=_line_order)
    out: list[list[Line]] = []
    for ln in ordered:
        if out:
            prev = out[-1][-1]
            gap = ln.bbox[1] - prev.bbox[3]
            height = max(prev.bbox[3] - prev.bbox[1], 1.0)
            same_row = ln.bbox[1] < prev.bbox[3] - 0.3 * height
            new = (not same_row and (
                bool(LIST_MARKER.match(ln.text))
                or abs(ln.size - prev.size) > 0.6
                or ln.bold != prev.bold
                or gap > max(3.0, 0.5 * height)))
            if not new:
                out[-1].append(ln)
                continue
        out.append([ln])
    return out


def fast_drafts(facts: PageFacts, body: float, largest: float) -> list[Draft]:
    tables, figures, rules = analyse_vectors(facts.vectors, facts.width, facts.height)
    drafts: list[Draft] = []
    taken: set[int] = set()
    regions: list[tuple[BBox, str, RuledRegion | None]] = [(t.bbox, "table", t) for t in tables]
    regions += [(b, "figure", None) for b in figures]
    regions += [(b, "image", None) for b, _ in facts.images if area(b) >= 0.25 * 72 * 72]
    keep_regions = []
    for box, kind, region in regions:
        if kind == "image":
            # text over an image is set on it (a slide's title band, a label on a photo): it stays text
            keep_regions.append((box, kind, region, []))
            continue
        inside = [i for i, ln in enumerate(facts.lines) if i not in taken and _centre_in(ln.bbox, box)]
        if kind == "figure":
            text_area = sum(area(facts.lines[i].bbox) for i in inside)
            if text_area > 0.35 * area(box):
                continue  # a panel of text on a coloured background, not a figure
        taken.update(inside)
        keep_regions.append((box, kind, region, [facts.lines[i] for i in inside]))
    for box, kind, region, inside in keep_regions:
        if kind == "table":
            rows = table_rows(region, inside)
            text = "\n".join(" | ".join(r) for r in rows)
            attrs = {**text_attrs(inside), "rows": rows, "n_rows": len(rows),
                     "n_cols": max((len(r) for r in rows), default=0), "ruled": True}
            # "lines" kept: a form's ruled key|value grid is read from them (core.forms.geometry)
            drafts.append(Draft(Category.TABLE, box, inside, text=text, attrs=attrs))
        else:
            attrs = {**text_attrs(inside, keep_lines=True), "kind": "vector" if kind == "figure" else "image"}
            drafts.append(Draft(Category.PICTURE, box, inside, attrs=attrs))
    for box, ident in facts.images:
        if area(box) < 0.25 * 72 * 72:  # small images (logos, icons, bullets): refine decides
            drafts.append(Draft(Category.PICTURE, box, attrs={"kind": "image", "image": ident}))
    for d in drafts:
        if d.attrs.get("kind") == "image" and "image" not in d.attrs:
            d.attrs["image"] = next((ident for b, ident in facts.images if b == d.bbox), "")
    by_block: dict[int, list[Line]] = {}
    for i, ln in enumerate(facts.lines):
        if i not in taken:
            by_block.setdefault(ln.block, []).append(ln)
    segments = [seg for block_lines in by_block.values() for seg in _segments(block_lines)]
    for seg in _merge_line_fragments(segments):
        drafts.append(_classify_text(seg, body, largest, facts))
    drafts.extend(_vector_extras(facts, rules, [d.bbox for d in drafts if d.category is Category.TABLE],
                                 [d.bbox for d in drafts if d.category is Category.PICTURE]
                                 + [b for b, _ in facts.images]))
    return drafts


def _merge_line_fragments(segments: list[list[Line]]) -> list[list[Line]]:
    """A few characters PyMuPDF put in a block of their own ("＊2等が" after a note reference set
    in a smaller font) rejoin the line they continue: same row, starting where that line ends."""
    kept: list[list[Line]] = []
    fragments: list[list[Line]] = []
    for seg in segments:
        is_fragment = len(seg) == 1 and len(seg[0].text.strip()) <= 12
        (fragments if is_fragment else kept).append(seg)
    for frag in fragments:
        ln = frag[0]
        host = None
        for seg in kept:
            for other in seg:
                height = min(other.bbox[3] - other.bbox[1], ln.bbox[3] - ln.bbox[1])
                same_row = min(other.bbox[3], ln.bbox[3]) - max(other.bbox[1], ln.bbox[1]) >= 0.5 * height
                if same_row and -2.0 <= ln.bbox[0] - other.bbox[2] <= 2.0:
                    host = seg
                    break
            if host is not None:
                break
        if host is not None:
            host.append(ln)
        else:
            kept.append(frag)
    return kept


def _classify_text(seg: list[Line], body: float, largest: float, facts: PageFacts) -> Draft:
    box = union(ln.bbox for ln in seg)
    attrs = text_attrs(seg)
    size = attrs["size"]
    text = join_lines([ln.text for ln in seg])
    short = len(text) <= 80 and len(seg) <= 2 and not text.rstrip().endswith(("。", "."))
    category = Category.TEXT
    marker = LIST_MARKER.match(seg[0].text)
    if marker:
        category = Category.LIST_ITEM
        if not any(ch.isdigit() for ch in marker.group()) or len(seg) > 1:
            return Draft(category, box, list(seg), attrs=attrs)  # a bulleted item is never a heading
    if short and size >= 1.6 * body and size >= largest - 0.5 and box[1] < 0.5 * facts.height:
        category = Category.TITLE
    elif short and (size >= 1.15 * body or (attrs["bold"] and size >= body - 0.5 and len(seg) == 1)
                    or (len(seg) == 1 and ARTICLE_HEADING.match(text.strip()))):
        category = Category.SECTION_HEADER
    return Draft(category, box, list(seg), attrs=attrs)


def _keep_one_title(page_drafts: list[list[Draft]]) -> None:
    """A title is unique: the one candidate on the first page that has any; when that page has
    several same-size candidates (a spread's two headlines), none of them is the title."""
    first = next((drafts for drafts in page_drafts if any(d.category is Category.TITLE for d in drafts)), None)
    keep = None
    if first is not None:
        candidates = [d for d in first if d.category is Category.TITLE]
        keep = candidates[0] if len(candidates) == 1 else None
    for drafts in page_drafts:
        for d in drafts:
            if d.category is Category.TITLE and d is not keep:
                d.category = Category.SECTION_HEADER


def _centre_in(box: BBox, region: BBox) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= cx <= region[2] and region[1] <= cy <= region[3]


def _vector_extras(facts: PageFacts, rules: Iterable[BBox], occupied: Sequence[BBox],
                   figures: Sequence[BBox] = ()) -> list[Draft]:
    """Small squares (check-box candidates) and separator rules; refine decides what they are.
    Squares inside a figure are part of the figure (legend keys, icons)."""
    out = []
    for box, filled in facts.vectors.squares:
        if any(w.bbox and overlap_area(box, w.bbox) > 0.5 * area(box) for w in facts.widgets):
            continue  # the widget already reports this box exactly
        if any(contains(f, box, tolerance=1.0) for f in figures):
            continue
        out.append(Draft(Category.PICTURE, box, text="", attrs={"kind": "square", "filled": filled}))
    for box in rules:
        if any(contains(o, box, tolerance=2.0) for o in occupied):
            continue
        out.append(Draft(Category.PICTURE, box, text="", attrs={"kind": "rule"}))
    return out


# ---------------------------------------------------------------------------------------------
# The layout engine: the model's boxes, each filled with the text lines it covers.
# ---------------------------------------------------------------------------------------------
def load_layout_model() -> None:
    """`import pymupdf.layout` activates the ONNX model inside PyMuPDF (offline, loaded once).

    core/__init__.py declines that import in every other process; lift the block here first."""
    if sys.modules.get("pymupdf.layout", ...) is None:
        del sys.modules["pymupdf.layout"]
    import pymupdf.layout  # noqa: F401


# ---------------------------------------------------------------------------------------------
# The layout worker: the model runs in a child process
# ---------------------------------------------------------------------------------------------
class LayoutCrashed(Exception):
    """The model's process died (or hung) on a page; that page falls back to the fast engine."""


class LayoutWorker:
    """A long-lived child process that runs the layout model, one page per request.

    MuPDF segfaults inside the model's text extraction on some real PDFs (page 22 of the AI事業者
    ガイドライン本編, for one); in-process that would kill the Streamlit server or the CLI. The child
    loads the model once and keeps the current PDF open; the parent reads the page's text and
    drawings while the child runs the model on it, so the two overlap on two cores. When the child
    dies, the page is reported as crashed and a fresh child continues with the next page.
    """

    PAGE_TIMEOUT = 300.0  # seconds; a page the model has not finished by then counts as crashed

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        self._doc_key: str | None = None
        self.lock = threading.Lock()  # one document at a time per worker

    def _start(self) -> subprocess.Popen:
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        proc = subprocess.Popen(
            [sys.executable, "-c", "from core.ingest.pdf import serve_layout; serve_layout()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=root)
        self._proc, self._doc_key = proc, None
        atexit.register(self.close)
        return proc

    def reset(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            try:
                proc.stdin.close()
                proc.wait(timeout=5)
            except Exception:
                proc.kill()

    def open(self, key: str, pdf_bytes: bytes) -> None:
        """Make `pdf_bytes` the child's current document (skipped when it already is)."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        if self._doc_key != key:
            _send(self._proc.stdin, ("open", pdf_bytes))
            self._doc_key = key

    def request(self, index: int) -> None:
        _send(self._proc.stdin, ("page", index))

    def result(self) -> list[ModelBox]:
        """The answer to the last request; LayoutCrashed (and a fresh child) when it died."""
        proc = self._proc
        try:
            ready, _, _ = select.select([proc.stdout], [], [], self.PAGE_TIMEOUT)
            if not ready:
                raise TimeoutError("the layout model took too long on this page")
            status, payload = _recv(proc.stdout)
        except (EOFError, OSError, TimeoutError, pickle.UnpicklingError) as err:
            self.reset()
            raise LayoutCrashed(str(err) or type(err).__name__) from None
        if status != "ok":
            raise LayoutCrashed(payload)
        return payload


def _send(stream, message) -> None:
    blob = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(blob)) + blob)
    stream.flush()


def _recv(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the layout process crashed")
    (size,) = struct.unpack("<Q", head)
    blob = stream.read(size)
    if len(blob) < size:
        raise EOFError("the layout process ended mid-answer")
    return pickle.loads(blob)


def serve_layout() -> None:
    """The child's loop: ("open", pdf bytes) → keep it; ("page", i) → ("ok", boxes) | ("error", msg)."""
    out = os.fdopen(os.dup(1), "wb")  # the protocol channel; stray prints go to stderr instead
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    load_layout_model()
    doc = None
    while True:
        try:
            kind, payload = _recv(inp)
        except EOFError:
            return  # the parent is gone
        if kind == "open":
            doc = pymupdf.open(stream=payload, filetype="pdf")
            continue
        try:
            _send(out, ("ok", model_boxes(doc.load_page(payload))))
        except Exception as err:  # a Python-level failure of the model: report, keep serving
            _send(out, ("error", f"{type(err).__name__}: {err}"))


_WORKER = LayoutWorker()


def start_layout_worker() -> None:
    """Start the layout process now (it loads the model at once), so the first upload does not wait
    for it. Optional: the first layout ingest starts it anyway."""
    with _WORKER.lock:
        if _WORKER._proc is None or _WORKER._proc.poll() is not None:
            _WORKER._start()


def layout_worker_pid() -> int | None:
    """The layout process's pid (for benchmarks that count its CPU time), None when not running."""
    proc = _WORKER._proc
    return proc.pid if proc is not None and proc.poll() is None else None


ModelBox = tuple[float, float, float, float, str, tuple]  # x0, y0, x1, y1, class, ((row, col, text), ...)


def model_boxes(page: pymupdf.Page) -> list[ModelBox]:
    """The layout model's boxes for one page, in its reading order, with its table cells.

    Runs inside the layout worker process (see LayoutWorker): MuPDF can crash on a page while the
    model builds its text page, and a crash must not take the app down with it."""
    page.get_layout(return_raw=True)  # raw groups also carry the model's table cells
    out: list[ModelBox] = []
    for g in page.layout_information or []:
        if isinstance(g, dict):
            cells = tuple((int(c.row_start), int(c.col_start), str(getattr(c, "text", "") or ""))
                          for c in (g.get("table_cells") or ()))
            out.append((*map(float, g["group_bbox"][:4]), str(g["class_name"]), cells))
        else:  # plain form [x0, y0, x1, y1, class]
            out.append((*map(float, g[:4]), str(g[4]), ()))
    return out


def layout_drafts(page: pymupdf.Page, facts: PageFacts, groups: Sequence[ModelBox]) -> tuple[list[Draft], list[Draft]]:
    """(the model's boxes in the model's reading order, everything else to be placed among them)."""
    show = _Display(page)
    boxes: list[BBox] = [show(g[:4]) for g in groups]
    labels: list[str] = [g[4] for g in groups]
    cells: list[tuple] = [g[5] for g in groups]
    assigned, loose = assign_lines(facts.lines, boxes)
    drafts: list[Draft] = []
    for box, label, lines, table_cells in zip(boxes, labels, assigned, cells):
        category = category_from_label("pymupdf_layout", label)
        if not lines and category not in (Category.PICTURE, Category.TABLE, Category.FORMULA):
            continue
        attrs = text_attrs(lines, keep_lines=category in (Category.TABLE, Category.PICTURE))
        text = None
        if category is Category.TABLE:
            rows = _model_table_rows(table_cells)
            if rows:
                attrs.update(rows=rows, n_rows=len(rows), n_cols=max(len(r) for r in rows))
                text = "\n".join(" | ".join(r) for r in rows)
            # "lines" kept: a form's ruled key|value grid is read from them (core.forms.geometry)
        elif category is Category.PICTURE:
            hit = next((ident for b, ident in facts.images if overlap_area(b, box) > 0.5 * area(b)), None)
            attrs["kind"] = "image" if hit else "vector"
            if hit:
                attrs["image"] = hit
        drafts.append(Draft(category, box, lines, "layout", text=text, attrs=attrs))
    extras = loose_line_drafts(loose, "layout")
    occupied = [d.bbox for d in drafts]
    for box, ident in facts.images:
        if not any(overlap_area(box, o) > 0.5 * area(box) for o in occupied):
            extras.append(Draft(Category.PICTURE, box, source="layout", text="",
                                attrs={"kind": "image", "image": ident}))
    _, _, rules = analyse_vectors(Vectors(hsegs=facts.vectors.hsegs, vsegs=facts.vectors.vsegs),
                                  facts.width, facts.height)
    graphics = [d.bbox for d in drafts if d.category is Category.PICTURE] + [b for b, _ in facts.images]
    for d in _vector_extras(facts, rules, occupied, graphics):
        # squares are kept even inside a model box (a check box inside a "table" form region)
        if d.attrs.get("kind") == "square" or not any(
                overlap_area(d.bbox, o) > 0.5 * max(area(d.bbox), 1.0) for o in occupied):
            d.source = "layout"
            extras.append(d)
    return drafts, extras + widget_drafts(facts.widgets)


def _model_table_rows(table_cells: Iterable[tuple[int, int, str]]) -> tuple[tuple[str, ...], ...]:
    cells: dict[tuple[int, int], list[str]] = {}
    for row, col, text in table_cells:
        if text.strip():
            cells.setdefault((row, col), []).append(text.strip())
    return grid_to_rows(cells)


# ---------------------------------------------------------------------------------------------
# Reading order and assembly
# ---------------------------------------------------------------------------------------------
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


def build_page(doc_id: str, engine: str, facts: PageFacts, drafts: list[Draft]) -> Page:
    used: set[str] = set()
    elements = []
    for seq, d in enumerate(drafts):
        bbox = make_bbox(d.bbox)
        text = d.final_text()
        attrs = dict(d.attrs)
        salt, n = engine, 0
        eid = element_id(doc_id, facts.number, bbox, text, salt)
        while eid in used:
            n += 1
            eid = element_id(doc_id, facts.number, bbox, text, f"{salt}#{n}")
        used.add(eid)
        # every attr value ingest makes is already immutable (tuples, str, numbers): no deep freeze
        elements.append(Element(eid, facts.number, seq, d.category, bbox, text, d.source,
                                state=d.state, attrs=FrozenMap(sorted(attrs.items()))))
    return Page(facts.number, round(facts.width, 2), round(facts.height, 2), facts.rotation, facts.label,
                tuple(elements))


@dataclass(frozen=True)
class Parsed:
    document: Document
    pdf_bytes: bytes


def engine_version(engine: str) -> str:
    version = f"{engine}/{INGEST_VERSION} pymupdf-{pymupdf.VersionBind}"
    if engine == "layout":
        # The model ships inside the pymupdf wheel: its version is the wheel's, and asking the
        # metadata keeps the model out of this process (it runs in the layout worker).
        version += f" layout-{importlib.metadata.version('pymupdf')}"
    return version


def parse_pdf(
    data: bytes,
    *,
    doc_id: str,
    sha256: str,
    filename: str,
    engine: str = "layout",
    password: str | None = None,
    progress: ProgressFn | None = None,
) -> Parsed:
    """Parse every page with the chosen engine. Raises a BadInput subclass for unusable files."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    opened = open_pdf(data, filename, password)
    doc = opened.doc
    total = doc.page_count
    has_labels = bool(doc.get_page_labels())
    has_form = bool(doc.is_form_pdf)
    facts_list: list[PageFacts] = []
    layout_pages: list[tuple[list[Draft], list[Draft]] | None] = []  # None: the model crashed there
    crashed: dict[int, str] = {}
    started = time.perf_counter()
    worker = _WORKER if engine == "layout" else None
    with worker.lock if worker else contextlib.nullcontext():
        try:
            for index in range(total):
                requested = False
                if worker:
                    try:
                        worker.open(sha256, opened.pdf_bytes)
                        worker.request(index)  # the model runs while this process reads the page
                        requested = True
                    except OSError:  # the child died between pages: the next page gets a new one
                        worker.reset()
                page = doc.load_page(index)
                facts = read_page(page, labels=has_labels, widgets=has_form)
                facts_list.append(facts)
                if worker:
                    try:
                        if not requested:
                            raise LayoutCrashed("the layout process could not be reached")
                        layout_pages.append(layout_drafts(page, facts, worker.result()))
                    except LayoutCrashed as err:
                        crashed[index + 1] = str(err)
                        layout_pages.append(None)
                if progress:
                    progress(index + 1, total)
        except (RuntimeError, ValueError, pymupdf.FileDataError) as err:
            raise CorruptPdf(f"{filename}: page {len(facts_list) + 1} cannot be read ({err}); "
                             "the file is damaged — get a fresh copy or re-save it from a PDF viewer") from err
    pages = []
    body = body_size(facts_list)
    largest = max((ln.size for f in facts_list for ln in f.lines), default=body)
    fast_pages = [fast_drafts(facts, body, largest) if engine == "fast" or layout_pages[i] is None else None
                  for i, facts in enumerate(facts_list)]
    if engine == "fast":
        _keep_one_title(fast_pages)
    for i, facts in enumerate(facts_list):
        notice = None
        if fast_pages[i] is not None:
            drafts = fast_pages[i]
            if is_vertical(facts.lines):  # a tategaki page reads right to left, top to bottom
                order = sorted(range(len(drafts)), key=lambda j: (-round(drafts[j].bbox[2] / 6), drafts[j].bbox[1]))
            else:
                order = xy_cut_order([d.bbox for d in drafts], facts.width)
            ordered = insert_in_order([drafts[j] for j in order], widget_drafts(facts.widgets))
            if engine == "layout":
                notice = ("the layout model failed on this page (" + crashed[facts.number][:120] +
                          "); its elements come from the fast engine")
                for d in ordered:
                    d.category = Category.SECTION_HEADER if d.category is Category.TITLE else d.category
        else:
            model, extras = layout_pages[i]
            ordered = insert_in_order(model, extras)
        page_obj = build_page(doc_id, engine, facts, ordered)
        pages.append(replace(page_obj, notice=notice) if notice else page_obj)
    meta = {
        "body_size": body,
        "fallback_pages": tuple(sorted(crashed)),
        "encrypted": opened.encrypted,
        "pdf_title": (doc.metadata or {}).get("title") or "",
        "parse_seconds": round(time.perf_counter() - started, 3),
        # horizontal (y, x0, x1) and vertical (x, y0, y1) strokes per page: boxes, cells and
        # underlines that locate a flattened form's values, empty ones included (core.forms.geometry)
        "rulings": {str(f.number): {"h": tuple((round(y, 1), round(a, 1), round(b, 1)) for y, a, b, _ in f.vectors.hsegs[:4000]),
                                    "v": tuple((round(x, 1), round(a, 1), round(b, 1)) for x, a, b, _ in f.vectors.vsegs[:4000])}
                    for f in facts_list if f.vectors.hsegs or f.vectors.vsegs},
    }
    # frozen by hand: the values are tuples already, and freeze_attrs' generic walk over thousands
    # of ruling segments costs more than reading them
    meta["rulings"] = FrozenMap(sorted((page, FrozenMap(sorted(hv.items()))) for page, hv in meta["rulings"].items()))
    document = Document(doc_id, filename, sha256, engine, tuple(pages), engine_version(engine),
                        FrozenMap(sorted(meta.items())))
    return Parsed(document, opened.pdf_bytes)
