"""Page images with boxes drawn on them: the picture half of every page in the app.

Coordinates: elements live in PDF points (origin top-left, as PyMuPDF gives them); an image rendered
at `zoom` has `zoom` pixels per point, so a point `p` sits at pixel `p * zoom`. The two conversion
functions below are the only place that knows this, so canvas clicks and drawn boxes round-trip.

Speed: rendering the page (`get_pixmap`) is the only expensive step. The base image of each
(PDF, page, zoom) is kept in a byte-bounded LRU; overlays are drawn on a copy, with label chips
pre-rendered once, so drawing ~100 boxes costs a few milliseconds. Composed views are kept in a
second LRU keyed by everything that changes the picture, so an unchanged view costs a dict lookup.

No streamlit here: pages add `st.cache_data` at the edge if they want a per-session cache too.
"""
from __future__ import annotations

import functools
import io
import math
import queue
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Sequence

from PIL import Image, ImageDraw, ImageFont

from core.categories import Category
from core.model import BBox, Element, Page
from core.settings import usable_cores

MIN_ZOOM, MAX_ZOOM = 0.1, 8.0
POINT_DECIMALS = 2  # stored bboxes are rounded to 0.01 pt (core.model.make_bbox); conversions honour it
FILL_ALPHA = 48  # translucent fill: the text under the box must stay readable
SELECTED_FILL_ALPHA = 96
OUTLINE_WIDTH = 2
SELECTED_OUTLINE_WIDTH = 4
LABEL_FONT_SIZE = 11
JPEG_QUALITY = 90
BLANK_NOTICE = "No PDF stored for this document: blank page of the right size"


# ---- points <-> pixels ------------------------------------------------------------------------
def _check_zoom(zoom: float) -> float:
    zoom = float(zoom)
    if not MIN_ZOOM <= zoom <= MAX_ZOOM:
        raise ValueError(f"zoom must be between {MIN_ZOOM} and {MAX_ZOOM}, got {zoom!r}")
    return zoom


def points_to_pixels(value: float, zoom: float) -> float:
    """A length or coordinate in PDF points → image pixels at `zoom` (unrounded, sub-pixel)."""
    return float(value) * _check_zoom(zoom)


def pixels_to_points(value: float, zoom: float) -> float:
    """Image/canvas pixels at `zoom` → PDF points, rounded to the 0.01 pt the model stores.

    Rounding here is what makes `pixels_to_points(points_to_pixels(p, z), z) == p` exact for every
    stored coordinate: the float error of `p * z / z` is far below 0.005 pt.
    """
    return round(float(value) / _check_zoom(zoom), POINT_DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0


def bbox_to_pixels(bbox: Sequence[float], zoom: float) -> tuple[float, float, float, float]:
    return tuple(points_to_pixels(v, zoom) for v in bbox)  # type: ignore[return-value]


def pixels_to_bbox(rect: Sequence[float], zoom: float) -> BBox:
    """(x0, y0, x1, y1) in pixels → bbox in points; accepts corners in any order (a drag can go left)."""
    x0, y0, x1, y1 = (pixels_to_points(v, zoom) for v in rect)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def image_size(width_pt: float, height_pt: float, zoom: float) -> tuple[int, int]:
    """Pixel size of a page rendered at `zoom` (what `get_pixmap` makes for a page at the origin)."""
    zoom = _check_zoom(zoom)
    # PyMuPDF rounds the transformed rect to whole pixels with a small tolerance; match it closely
    # enough that a blank stand-in page has the same size as the real render.
    return max(1, math.ceil(width_pt * zoom - 1e-3)), max(1, math.ceil(height_pt * zoom - 1e-3))


# ---- what to draw -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Box:
    """A rectangle to draw, in PDF points. Pages other than Inspect build these directly."""
    bbox: BBox
    colour: str  # "#rrggbb"
    label: str = ""  # small chip at the top-left corner; "" for none
    fill_alpha: int = FILL_ALPHA  # 0 = outline only
    width: int = OUTLINE_WIDTH  # outline width in pixels (not scaled with zoom)
    dashed: bool = False  # e.g. a proposed or reviewer-drawn box


MIN_LINK_PT = 8.0  # a link across a shorter gap would be all arrow head at the page's usual zoom


@dataclass(frozen=True)
class Line:
    """A straight connector between two points in PDF points (caption → figure, key → value)."""
    start: tuple[float, float]
    end: tuple[float, float]
    colour: str
    width: int = 2
    arrow: bool = True  # arrow head at `end`


def as_box(value: Box | Sequence[Any]) -> Box:
    """Accept a Box or a plain `(bbox, colour, label)` tuple, so callers can stay terse."""
    if isinstance(value, Box):
        return value
    bbox, colour, *rest = value
    return Box(tuple(float(v) for v in bbox), colour, str(rest[0]) if rest else "")  # type: ignore[arg-type]


def as_line(value: Line | Sequence[Any]) -> Line:
    if isinstance(value, Line):
        return value
    start, end, colour, *_ = value
    return Line(tuple(start), tuple(end), colour)  # type: ignore[arg-type]


def element_box(element: Element, *, selected: bool = False, show_order: bool = False, label: bool = True) -> Box:
    text = (f"{element.seq + 1} {element.category.value}" if show_order else element.category.value) if label else ""
    if selected:
        return Box(element.bbox, element.category.colour, text, SELECTED_FILL_ALPHA, SELECTED_OUTLINE_WIDTH)
    return Box(element.bbox, element.category.colour, text)


def overlay_boxes(
    elements: Iterable[Element],
    *,
    visible: set[Category] | frozenset[Category] | None = None,
    selected: str | None = None,
    show_order: bool = False,
    labels: bool = True,
) -> list[Box]:
    """Boxes for the given elements; the selected one is drawn last so nothing covers it.

    `labels=False` labels only the selected element (and, with `show_order`, every box keeps its
    reading-order number): the page stays readable, category names show on demand."""
    boxes, chosen = [], []
    for e in elements:
        if e.id == selected:
            chosen.append(element_box(e, selected=True, show_order=show_order))
        elif visible is None or e.category in visible:
            boxes.append(element_box(e, show_order=show_order, label=labels or show_order))
    return boxes + chosen


# ---- where label chips go ---------------------------------------------------------------------
PxRect = tuple[float, float, float, float]


def _overlaps(a: PxRect, b: PxRect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _chip_candidates(box: PxRect, w: float, h: float, size: tuple[int, int] | None) -> list[PxRect]:
    """Places outside the box's edge, best first: above it (left, then right end), below it, in the
    left and right margins beside its first line, then in a stack above it, below it, to its right."""
    return list(_chip_spots(box, w, h, size))


def _chip_spots(box: PxRect, w: float, h: float, size: tuple[int, int] | None) -> Iterable[PxRect]:
    # lazy: most chips take the first free spot, and making all 21 was most of a label's cost
    x0, y0, x1, y1 = box
    for x, y in _spot_origins(x0, y0, x1, y1, w, h):
        spot = _spot_on_page(x, y, w, h, size)
        if spot is not None:
            yield spot


def _spot_on_page(x: float, y: float, w: float, h: float, size: tuple[int, int] | None) -> PxRect | None:
    """A chip at (x, y), slid sideways onto the page; None when it would stick out at the top or bottom."""
    if size is not None:
        x = min(max(x, 0.0), size[0] - w)
        if y < 0 or y + h > size[1]:
            return None
    return (x, y, x + w, y + h)


def _spot_origins(x0: float, y0: float, x1: float, y1: float, w: float, h: float) -> Iterable[tuple[float, float]]:
    yield from ((x0, y0 - h), (x1 - w, y0 - h), (x0, y1), (x0 - w, y0), (x1, y0))
    for k in range(2, 8):
        yield x0, y0 - h * k
    for k in range(1, 8):  # at the page's top edge: a stack below instead
        yield x0, y1 + h * k
    for k in range(1, 4):
        yield x1 + w * k, y0


def place_labels(boxes: Sequence[PxRect], sizes: Sequence[tuple[float, float]],
                 size: tuple[int, int] | None = None) -> list[tuple[float, float]]:
    """Top-left pixel of each label chip: never on its own box (so it hides none of the box's text)
    and never on another chip. Boxes earlier in the list get the better places; put the one that
    matters most (the selected element) first. When nothing is free, the chip goes above its box."""
    placed = _ChipGrid()
    out: list[tuple[float, float]] = []
    for box, (w, h) in zip(boxes, sizes):
        chosen = _first_spot_if_free(box, w, h, size, placed)  # most chips: no generator needed
        if chosen is None:
            for spot in _chip_spots(box, w, h, size):
                if not _overlaps(spot, box) and not placed.hits(spot):
                    chosen = spot
                    break
        if chosen is None:  # nothing free outside the box: the first place outside it, else anywhere free
            candidates = _chip_candidates(box, w, h, size)
            outside = [c for c in candidates if not _overlaps(c, box)] or candidates
            free = outside is candidates and next((c for c in candidates if not placed.hits(c)), None)
            chosen = free or (outside or [(box[0], box[1], box[0] + w, box[1] + h)])[0]
        placed.add(chosen)
        out.append((chosen[0], chosen[1]))
    return out


def _first_spot_if_free(box: PxRect, w: float, h: float, size: tuple[int, int] | None,
                        placed: _ChipGrid) -> PxRect | None:
    """`_chip_spots`' first spot (above the box, at its left end) when it is usable and free."""
    spot = _spot_on_page(box[0], box[1] - h, w, h, size)
    return None if spot is None or _overlaps(spot, box) or placed.hits(spot) else spot


class _ChipGrid:
    """The chips placed so far, bucketed by 64-px cells: a page of a few hundred boxes asked every
    candidate against every chip (O(n²)), most of a view's cost on a form page."""
    CELL = 64.0

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[PxRect]] = {}

    # Cell ranges are inclusive: two rects that share an interior point share that point's cell.
    # Written out in both methods (no helper call): they run a few times per label.
    def hits(self, rect: PxRect) -> bool:
        x0, y0, x1, y1 = rect
        cells, cell = self._cells, self.CELL
        for cx in range(int(x0 // cell), int(x1 // cell) + 1):
            for cy in range(int(y0 // cell), int(y1 // cell) + 1):
                for p in cells.get((cx, cy), ()):
                    if x0 < p[2] and p[0] < x1 and y0 < p[3] and p[1] < y1:  # _overlaps
                        return True
        return False

    def add(self, rect: PxRect) -> None:
        cells, cell = self._cells, self.CELL
        for cx in range(int(rect[0] // cell), int(rect[2] // cell) + 1):
            for cy in range(int(rect[1] // cell), int(rect[3] // cell) + 1):
                bucket = cells.get((cx, cy))
                if bucket is None:
                    cells[(cx, cy)] = [rect]
                else:
                    bucket.append(rect)


# ---- drawing ----------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)  # a page's few colours, asked once per box
def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    if len(c) != 6:
        raise ValueError(f"colour must be '#rrggbb', got {colour!r}")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def _text_colour_on(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return (0, 0, 0) if luminance > 150 else (255, 255, 255)


_font_lock = threading.Lock()
_font: ImageFont.ImageFont | ImageFont.FreeTypeFont | None = None
_chips: dict[tuple[str, str], Image.Image] = {}


def _label_font() -> Any:
    global _font
    with _font_lock:
        if _font is None:
            _font = ImageFont.load_default(size=LABEL_FONT_SIZE)
        return _font


def _label_chip(text: str, colour: str) -> Image.Image:
    """A pre-rendered label: text rendering is the slow part of drawing, so each chip is made once."""
    key = (text, colour)
    chip = _chips.get(key)
    if chip is None:
        font = _label_font()
        left, top, right, bottom = font.getbbox(text)
        rgb = _rgb(colour)
        chip = Image.new("RGB", (right - left + 6, bottom - min(top, 0) + 3), rgb)
        ImageDraw.Draw(chip).text((3 - left, 1), text, fill=_text_colour_on(rgb), font=font)
        if len(_chips) > 4096:  # labels are few (categories × order numbers); this is a safety valve
            _chips.clear()
        _chips[key] = chip
    return chip


def _dashed_rectangle(draw: ImageDraw.ImageDraw, xy: tuple[int, int, int, int], colour, width: int) -> None:
    x0, y0, x1, y1 = xy
    dash = 6
    for x in range(x0, x1, dash * 2):
        draw.line((x, y0, min(x + dash, x1), y0), fill=colour, width=width)
        draw.line((x, y1, min(x + dash, x1), y1), fill=colour, width=width)
    for y in range(y0, y1, dash * 2):
        draw.line((x0, y, x0, min(y + dash, y1)), fill=colour, width=width)
        draw.line((x1, y, x1, min(y + dash, y1)), fill=colour, width=width)


def _pixel_rect(bbox: Sequence[float], zoom: float, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    x0, y0, x1, y1 = bbox_to_pixels(bbox, zoom)
    w, h = size
    ix0, iy0 = max(0, math.floor(x0)), max(0, math.floor(y0))
    ix1, iy1 = min(w - 1, math.ceil(x1)), min(h - 1, math.ceil(y1))
    if ix1 < ix0 or iy1 < iy0:
        return None  # wholly off the page
    return ix0, iy0, ix1, iy1


def _arrow_head(start: tuple[float, float], end: tuple[float, float], length: float) -> list[tuple[float, float]]:
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    spread = math.radians(25)
    return [end,
            (end[0] - length * math.cos(angle - spread), end[1] - length * math.sin(angle - spread)),
            (end[0] - length * math.cos(angle + spread), end[1] - length * math.sin(angle + spread))]


def draw_boxes(
    image: Image.Image,
    boxes: Iterable[Box | Sequence[Any]] = (),
    lines: Iterable[Line | Sequence[Any]] = (),
    *,
    zoom: float,
) -> Image.Image:
    """Draw boxes (translucent fill, outline, label chip) and connector lines on a copy of `image`.

    `image` is a page rendered at `zoom` (from `render_page_image`); boxes and line ends are in PDF
    points. Boxes are drawn in the order given, so put the one that matters most last. The input
    image is never changed (it is usually a cached base render).
    """
    zoom = _check_zoom(zoom)
    out = image.convert("RGB") if image.mode != "RGB" else image.copy()
    draw = ImageDraw.Draw(out, "RGBA")  # "RGBA" makes fills blend instead of overwrite
    labelled: list[tuple[Image.Image, PxRect]] = []
    for raw in boxes:
        box = as_box(raw)
        rect = _pixel_rect(box.bbox, zoom, out.size)
        if rect is None:
            continue
        rgb = _rgb(box.colour)
        if box.fill_alpha > 0:
            draw.rectangle(rect, fill=rgb + (box.fill_alpha,))
        if box.dashed:
            _dashed_rectangle(draw, rect, rgb + (255,), box.width)
        else:
            draw.rectangle(rect, outline=rgb + (255,), width=box.width)
        if box.label:
            labelled.append((_label_chip(box.label, box.colour), rect))
    labelled.reverse()  # the last box drawn (the one that matters most) picks its label's place first
    positions = place_labels([r for _, r in labelled], [c.size for c, _ in labelled], out.size)
    chips = [(chip, (round(x), round(y))) for (chip, _), (x, y) in zip(labelled, positions)]
    for raw in lines:
        line = as_line(raw)
        start = (points_to_pixels(line.start[0], zoom), points_to_pixels(line.start[1], zoom))
        end = (points_to_pixels(line.end[0], zoom), points_to_pixels(line.end[1], zoom))
        rgb = _rgb(line.colour) + (255,)
        draw.line((start, end), fill=rgb, width=line.width)
        if line.arrow and start != end:
            draw.polygon(_arrow_head(start, end, 6 + 2 * line.width), fill=rgb)
    for chip, position in chips:  # labels last, so no fill dims them
        out.paste(chip, position)
    return out


def draw_overlays(
    image: Image.Image,
    elements: Iterable[Element],
    zoom: float,
    *,
    visible: set[Category] | frozenset[Category] | None = None,
    selected: str | None = None,
    show_order: bool = False,
    extra_boxes: Iterable[Box | Sequence[Any]] = (),
    lines: Iterable[Line | Sequence[Any]] = (),
) -> Image.Image:
    """Elements in their category colours (only `visible` categories; None = all), the `selected`
    element emphasised and always shown, then `extra_boxes` and `lines` on top."""
    boxes = overlay_boxes(elements, visible=visible, selected=selected, show_order=show_order)
    return draw_boxes(image, [*boxes, *extra_boxes], lines, zoom=zoom)


# ---- hit testing ------------------------------------------------------------------------------
def element_at(
    elements: Iterable[Element],
    x: float,
    y: float,
    *,
    visible: set[Category] | frozenset[Category] | None = None,
    tolerance: float = 0.0,
) -> Element | None:
    """The element under a point (PDF points). Nested boxes: the smallest wins (a caption inside a
    figure, a check box inside a form row), because that is the one a click most likely meant."""
    best: tuple[float, int, Element] | None = None
    for e in elements:
        if visible is not None and e.category not in visible:
            continue
        x0, y0, x1, y1 = e.bbox
        if x0 - tolerance <= x <= x1 + tolerance and y0 - tolerance <= y <= y1 + tolerance:
            key = ((x1 - x0) * (y1 - y0), -e.seq, e)
            if best is None or key[:2] < best[:2]:
                best = key
    return best[2] if best else None


# ---- rendering --------------------------------------------------------------------------------
class _ByteLRU:
    """LRU bounded by an approximate size in bytes; thread-safe (Streamlit serves sessions in threads)."""

    def __init__(self, max_bytes: int, sizeof: Callable[[Any], int]):
        self.max_bytes = max_bytes
        self._sizeof = sizeof
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        size = self._sizeof(value)
        with self._lock:
            if key in self._items:
                self._bytes -= self._sizeof(self._items.pop(key))
            self._items[key] = value
            self._bytes += size
            while self._bytes > self.max_bytes and len(self._items) > 1:
                _, old = self._items.popitem(last=False)
                self._bytes -= self._sizeof(old)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def __len__(self) -> int:
        return len(self._items)


def _image_bytes(image: Image.Image) -> int:
    return image.width * image.height * len(image.getbands())


# ~20 A4 pages at zoom 1.5 (3.4 MB each): enough for paging back and forth, small next to the
# 500 MB budget for a 300-page document.
_base_images = _ByteLRU(64 * 1024 * 1024, _image_bytes)
_views = _ByteLRU(32 * 1024 * 1024, len)
_pdf_lock = threading.Lock()  # one MuPDF document must not be used from two threads at once
_open_pdfs: OrderedDict[str, Any] = OrderedDict()
_MAX_OPEN_PDFS = 4


def _open_pdf(path: Path) -> Any:
    """Open (or reuse) a stored PDF as MuPDF's own document. Call with `_pdf_lock` held. Stored PDFs
    are content-addressed and already decrypted by ingest, so the path alone identifies the bytes.

    MuPDF's document, not PyMuPDF's `Document`: rendering needs none of what `pymupdf.open` adds
    (it reads the metadata and builds page bookkeeping in Python). With the direct draw below,
    the render of a first view went from 1.0x to 0.88x of a plain get_pixmap (bench/render.py)."""
    from pymupdf import mupdf  # local: importing core.render must not pay for MuPDF when only drawing

    key = str(path)
    doc = _open_pdfs.get(key)
    if doc is None:
        doc = mupdf.fz_open_document(key)
        _open_pdfs[key] = doc
        while len(_open_pdfs) > _MAX_OPEN_PDFS:
            _open_pdfs.popitem(last=False)  # MuPDF frees a document when its last reference goes
    else:
        _open_pdfs.move_to_end(key)
    return doc


def _render_pdf_pixmap(path: Path, page_number: int, zoom: float) -> Any:
    """The page as an RGB pixmap (no alpha) at `zoom`, the size and pixels of PyMuPDF's
    `page.get_pixmap(matrix=Matrix(zoom, zoom), alpha=False)`, annotations and widgets included.

    MuPDF draws the page straight into the pixmap: `get_pixmap` first records a display list and
    then replays it, which a single render does not need. The pixels are the same but for a few
    anti-aliased edges: of the sample documents and the first 5 pages of each realdata/wild PDF,
    371 of 374 pages are identical, 3 differ by at most 9/255 in under 0.04% of their samples."""
    import pymupdf

    mupdf = pymupdf.mupdf
    with _pdf_lock:
        doc = _open_pdf(path)
        count = mupdf.fz_count_pages(doc)
        if not 1 <= page_number <= count:
            raise IndexError(f"page {page_number} is outside 1..{count} of {path.name}")
        page = mupdf.fz_load_page(doc, page_number - 1)
        pix = mupdf.fz_new_pixmap_from_page(page, mupdf.fz_scale(zoom, zoom), mupdf.fz_device_rgb(), 0)
    return pymupdf.Pixmap("raw", pix)


def _render_pdf_page(path: Path, page_number: int, zoom: float) -> Image.Image:
    pix = _render_pdf_pixmap(path, page_number, zoom)
    return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)


def blank_page_image(width_pt: float, height_pt: float, zoom: float, notice: str = BLANK_NOTICE) -> Image.Image:
    """A white page of the right size with a notice, for imported documents that have no PDF."""
    image = Image.new("RGB", image_size(width_pt, height_pt, zoom), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, image.width - 1, image.height - 1), outline=(200, 200, 200), width=1)
    draw.text((12, 12), notice, fill=(120, 120, 120), font=_label_font())
    return image


def render_page_image(pdf_path: str | Path | None, page: Page | int, zoom: float) -> Image.Image:
    """The page as a PIL image at `zoom` (cached; treat the result as read-only).

    `pdf_path` None (an import without its PDF) needs a `Page` to know the size, and gives a blank
    page with a notice, so overlays still show where the parser put things.
    """
    zoom = _check_zoom(zoom)
    # Duck-typed rather than isinstance: a dev server that reloads core.model after an edit would
    # otherwise refuse Pages made by the previous class object.
    is_page = hasattr(page, "number") and hasattr(page, "width")
    number = page.number if is_page else int(page)
    if pdf_path is None:
        if not is_page:
            raise ValueError("a document without a PDF needs its Page (for the size) to draw a blank page")
        key: tuple = ("blank", page.width, page.height, zoom)
    else:
        key = (str(pdf_path), number, zoom)
    image = _base_images.get(key)
    if image is None:
        if pdf_path is None:
            image = blank_page_image(page.width, page.height, zoom)  # type: ignore[union-attr]
        else:
            image = _render_pdf_page(Path(pdf_path), number, zoom)
        _base_images.put(key, image)
    return image


def encode_image(image: Image.Image, fmt: str = "PNG") -> bytes:
    """PNG (lossless, compress level 1), JPEG (quality 90, no chroma subsampling: for images with
    2-pixel coloured outlines drawn in) or PAGE_JPEG (quality 90, 4:2:0 chroma subsampling: for
    the bare page, which is black text and pictures; about twice as fast again).

    Views use JPEG: on a text page it encodes 5-10× faster than PNG at a similar size."""
    kind = fmt.upper()
    if kind in ("JPEG", "JPG", "PAGE_JPEG"):
        import numpy as np

        return _jpeg(np.asarray(image if image.mode == "RGB" else image.convert("RGB")), kind)
    if kind != "PNG":
        raise ValueError(f"image format must be PNG, JPEG or PAGE_JPEG, got {fmt!r}")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def _jpeg(rgb: Any, kind: str) -> bytes:
    """JPEG quality 90 of an H×W×3 uint8 array, by libjpeg-turbo through simplejpeg: it reads the
    pixmap's own buffer, where Pillow first unpacks it into an image of its own (with Pillow the
    encode was a third of a page view's cost, bench/render.py). One encode on one thread: splitting
    it over two threads and splicing the halves gained nothing measurable (1.48x vs 1.47x)."""
    import simplejpeg

    subsampling = "420" if kind == "PAGE_JPEG" else "444"
    return simplejpeg.encode_jpeg(rgb, quality=JPEG_QUALITY, colorspace="RGB", colorsubsampling=subsampling)


def _pixmap_jpeg(pix: Any, kind: str, while_encoding: Callable[[], None] | None = None) -> bytes:
    import numpy as np

    rows = np.frombuffer(pix.samples_mv, dtype=np.uint8).reshape(pix.height, pix.stride)
    rgb = np.ascontiguousarray(rows[:, :pix.width * 3]).reshape(pix.height, pix.width, 3)
    if while_encoding is not None:
        while_encoding()
    return _jpeg(rgb, kind)


def render_page_png(pdf_path: str | Path, page_number: int, zoom: float) -> bytes:
    """The plain page (no overlays) as PNG bytes."""
    return encode_image(render_page_image(pdf_path, page_number, zoom))


_in_flight: dict[tuple, threading.Event] = {}  # page images being made now, so nobody makes one twice
_in_flight_lock = threading.Lock()


def page_image_bytes(pdf_path: str | Path | None, page: Page, zoom: float, fmt: str = "PAGE_JPEG",
                     *, while_waiting: Callable[[], None] | None = None) -> bytes:
    """The bare page, encoded once per (PDF, page, zoom, format) and cached: the background of an
    interactive view, whose boxes are drawn by the browser (`fabric_drawing`). A page that
    `prefetch_pages` is making right now is waited for, not made a second time.

    `while_waiting` is called once, just before this thread lets go of the GIL for a while (the
    JPEG encode of a page not made yet, or the wait for a prefetch making it), so other Python
    work can run meanwhile; a cached page calls it never."""
    zoom = _check_zoom(zoom)
    key = _page_key(pdf_path, page, zoom, fmt)
    while True:
        data = _views.get(key)
        if data is not None:
            return data
        with _in_flight_lock:
            running = _in_flight.get(key)
            if running is None:
                _in_flight[key] = threading.Event()
                break
        if while_waiting is not None:
            while_waiting()
            while_waiting = None
        running.wait(timeout=60)
    try:
        data = _bare_page_bytes(pdf_path, page, zoom, fmt, while_waiting)
        _views.put(key, data)
        return data
    finally:
        with _in_flight_lock:
            _in_flight.pop(key).set()


def _page_key(pdf_path: str | Path | None, page: Page, zoom: float, fmt: str = "PAGE_JPEG") -> tuple:
    return ("page", str(pdf_path) if pdf_path else ("blank", page.width, page.height), page.number, zoom, fmt.upper())


def interactive_view(
    pdf_path: str | Path | None, page: Page, zoom: float,
    boxes: Iterable[Box | Sequence[Any]] = (), lines: Iterable[Line | Sequence[Any]] = (),
    *, size: tuple[int, int] | None = None,
) -> tuple[bytes, dict[str, Any]]:
    """What a clickable page view sends: the bare page image (`page_image_bytes`) and its boxes as
    canvas JSON (`fabric_drawing`).

    The JSON is made on a helper thread while this one encodes the JPEG (the encoder lets go of the
    GIL, the JSON is pure Python), so a first view costs the render, then the longer of the two, on
    a machine with a core to spare: bench/render.py view 1.38x -> 1.33x at load 0.2-1.1 on 2 cores,
    but 0.01-0.03x dearer when other processes keep both cores busy. A cached page image has no
    encode to wait in: the JSON is then made here, as it is whenever the helper has not picked it up
    by the time it is needed, and always when this process may use one core only."""
    zoom = _check_zoom(zoom)
    boxes, lines = tuple(boxes), tuple(lines)  # read on the helper thread: the caller's lists must not change under it
    drawing = _Beside(lambda: fabric_drawing(boxes, lines, zoom=zoom, size=size))
    # With one core (RLI_CORES=1) the helper could only take turns with the encode: a loss
    hand_over = drawing.start if usable_cores() > 1 else None
    return page_image_bytes(pdf_path, page, zoom, while_waiting=hand_over), drawing.result()


class _Beside:
    """One call made by a helper thread while the caller waits in C code that lets go of the GIL, or
    by the caller itself when that wait never came or the helper was busy: whoever gets to it first.
    Streamlit serves sessions on threads of their own, so two views may meet here; neither waits
    for the other's JSON."""

    def __init__(self, call: Callable[[], Any]):
        self._call = call
        self._taken = threading.Lock()  # held by whichever thread makes the call
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    def start(self) -> None:
        """Hand the call to the helper (from a thread about to wait with the GIL let go)."""
        _helper_queue().put(self)

    def run(self) -> None:
        if not self._taken.acquire(blocking=False):
            return  # the caller made it already
        try:
            self._value = self._call()
        except BaseException as error:  # given to the caller in result()
            self._error = error
        finally:
            self._done.set()

    def result(self) -> Any:
        self.run()  # made here unless the helper has it
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


_helper_lock = threading.Lock()
_helper: list[queue.SimpleQueue] = []  # the one helper thread's work queue, once started


def _helper_queue() -> queue.SimpleQueue:
    with _helper_lock:
        if not _helper:
            jobs: queue.SimpleQueue = queue.SimpleQueue()
            threading.Thread(target=_helper_loop, args=(jobs,), name="rli-view-helper", daemon=True).start()
            _helper.append(jobs)
        return _helper[0]


def _helper_loop(jobs: queue.SimpleQueue) -> None:
    while True:
        jobs.get().run()


def _bare_page_bytes(pdf_path: str | Path | None, page: Page, zoom: float, fmt: str,
                     while_encoding: Callable[[], None] | None = None) -> bytes:
    """A JPEG of a page not yet rendered comes straight from MuPDF's pixmap, with no PIL image
    between (the interactive view never draws on it)."""
    cached = _base_images.get((str(pdf_path), page.number, zoom)) if pdf_path is not None else None
    if pdf_path is None or cached is not None or fmt.upper() not in ("JPEG", "JPG", "PAGE_JPEG"):
        return encode_image(cached or render_page_image(pdf_path, page, zoom), fmt)
    return _pixmap_jpeg(_render_pdf_pixmap(Path(pdf_path), page.number, zoom), fmt.upper(), while_encoding)


_prefetch_lock = threading.Lock()
_prefetch_queue: list[tuple[Any, Page, float]] = []
_prefetch_asked_at = [0.0]  # time.monotonic() of the latest prefetch_pages call
# MuPDF holds the GIL while it renders: a prefetch started at once would stall the rest of the
# turn that asked for it (the server's run and its sending of the new page image) by a whole render.
PREFETCH_DELAY_S = 0.35


def prefetch_pages(pdf_path: str | Path | None, pages: Iterable[Page], zoom: float) -> None:
    """Make the page images of `pages` in a background thread (the pages a reviewer turns to next),
    so the turn finds them cached. Only the latest request is kept: paging fast never queues up
    work for pages already passed."""
    global _prefetch_queue
    wanted = [(pdf_path, p, zoom) for p in pages]
    with _prefetch_lock:
        idle = not _prefetch_queue
        _prefetch_queue = wanted
        _prefetch_asked_at[0] = time.monotonic()
    if idle and wanted:
        threading.Thread(target=_prefetch_worker, name="rli-prefetch", daemon=True).start()


def _prefetch_worker() -> None:
    while True:
        with _prefetch_lock:
            if not _prefetch_queue:
                return
            pdf_path, page, zoom = _prefetch_queue[0]
            wait = _prefetch_asked_at[0] + PREFETCH_DELAY_S - time.monotonic()
        if wait > 0:  # the turn that asked is still being served: let it finish first
            time.sleep(wait)
            continue
        try:
            page_image_bytes(pdf_path, page, zoom)
        except Exception:  # a prefetch is a guess: a failure shows when the page is really asked for
            pass
        with _prefetch_lock:
            if _prefetch_queue and _prefetch_queue[0][1] is page:
                _prefetch_queue.pop(0)


# ---- the same boxes, drawn by the browser ------------------------------------------------------
LABEL_HEIGHT_PX = 14  # a chip of LABEL_FONT_SIZE text with its padding
LABEL_CHAR_PX = 6.5  # width of one label character (labels are ASCII category names and numbers)


@functools.lru_cache(maxsize=1024)
def _rgba(colour: str, alpha: int) -> str:
    r, g, b = _rgb(colour)
    return f"rgba({r},{g},{b},{alpha / 255:.3f})"


# Overlays are pictures, not things to edit: never selectable, never the target of a click, and
# anchored at their top-left corner (Fabric's default origin is the centre).
_INERT = {"originX": "left", "originY": "top", "selectable": False, "evented": False,
          "hasControls": False, "objectCaching": False}


def _inert(obj: dict[str, Any]) -> dict[str, Any]:
    return {**obj, **_INERT}


@functools.lru_cache(maxsize=1024)
def _label_text_colour(colour: str) -> str:
    return "#000000" if _text_colour_on(_rgb(colour)) == (0, 0, 0) else "#ffffff"


def fabric_drawing(
    boxes: Iterable[Box | Sequence[Any]] = (),
    lines: Iterable[Line | Sequence[Any]] = (),
    *,
    zoom: float,
    size: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Boxes and lines as Fabric.js objects in canvas pixels at `zoom` (an `initial_drawing` for
    streamlit-drawable-canvas), looking like `draw_boxes` draws them. With the canvas `size`, label
    chips of boxes at (or past) the page edge are pulled inside so they stay readable.

    Drawing in the browser keeps a page view's server cost to the bare page image, encoded once:
    selecting an element or toggling a category only changes this small JSON.
    """
    zoom = _check_zoom(zoom)
    shapes: list[dict[str, Any]] = []
    labelled: list[tuple[Box, PxRect]] = []
    for raw in boxes:
        box = raw if type(raw) is Box else as_box(raw)
        bx0, by0, bx1, by1 = box.bbox
        x0, y0, x1, y1 = bx0 * zoom, by0 * zoom, bx1 * zoom, by1 * zoom  # points_to_pixels, zoom checked once
        rect = {"type": "Rect", "left": x0, "top": y0, "width": max(x1 - x0, 1.0), "height": max(y1 - y0, 1.0),
                "fill": _rgba(box.colour, box.fill_alpha) if box.fill_alpha > 0 else "rgba(0,0,0,0)",
                "stroke": box.colour, "strokeWidth": box.width, "strokeUniform": True}
        if box.dashed:
            rect["strokeDashArray"] = [6, 6]
        rect.update(_INERT)
        shapes.append(rect)
        if box.label:
            labelled.append((box, (x0, y0, x1, y1)))
    labelled.reverse()  # the last box (the selected one) picks its label's place first
    sizes = [(LABEL_CHAR_PX * (len(b.label) + 2), LABEL_HEIGHT_PX) for b, _ in labelled]
    labels = [label_object(b, x, y) for (b, _), (x, y) in zip(labelled, place_labels([r for _, r in labelled], sizes, size))]
    labels.reverse()  # drawn in the boxes' order, the selected one's last (on top)
    for raw in lines:
        line = as_line(raw)
        sx, sy = points_to_pixels(line.start[0], zoom), points_to_pixels(line.start[1], zoom)
        ex, ey = points_to_pixels(line.end[0], zoom), points_to_pixels(line.end[1], zoom)
        shapes.append(_inert({"type": "Line", "x1": sx, "y1": sy, "x2": ex, "y2": ey,
                              "left": min(sx, ex), "top": min(sy, ey),
                              "stroke": line.colour, "strokeWidth": line.width}))
        if line.arrow and (sx, sy) != (ex, ey):
            head = _arrow_head((sx, sy), (ex, ey), 6 + 2 * line.width)
            shapes.append(_inert({"type": "Polygon", "points": [{"x": x, "y": y} for x, y in head],
                                  "left": min(x for x, _ in head), "top": min(y for _, y in head),
                                  "fill": line.colour, "stroke": line.colour, "strokeWidth": 0}))
    return {"objects": shapes + labels}  # labels last, so no fill dims them


def with_page_image(drawing: dict[str, Any], src: str, size: tuple[int, int]) -> dict[str, Any]:
    """`drawing` with the page image as its Fabric.js background image, stretched to the canvas
    `size` (width, height in pixels) as streamlit-drawable-canvas's `background_image` was.

    The canvas loads a drawing with `loadFromJSON`, which waits for every image in it before it
    clears the canvas and draws the new picture; a separate `background_image` goes to another
    canvas layer and loads on its own, so a page turn drew the new boxes over the old page until
    the new image came. In the drawing, the image and its boxes change in the same frame. A
    background image is never one of the canvas's objects: it cannot be selected, moved or hit.
    `src` is a URL (or a data: URL) of a JPEG/PNG `size` pixels large."""
    width, height = size
    image = {"type": "Image", "src": src, "left": 0, "top": 0, "width": width, "height": height,
             "scaleX": 1, "scaleY": 1, "crossOrigin": None}
    return {**drawing, "backgroundImage": _inert(image)}


def hover_label_boxes(elements: Iterable[Element], zoom: float, size: tuple[int, int],
                      visible: set[Category] | frozenset[Category] | None = None) -> list[list[Any]]:
    """For the browser's hover label: per element its box in canvas pixels, its label, colours and
    where the chip goes (the first place outside the box, as `place_labels` would pick alone)."""
    zoom = _check_zoom(zoom)
    out = []
    for e in elements:
        if visible is not None and e.category not in visible:
            continue
        rect = bbox_to_pixels(e.bbox, zoom)
        label = e.category.value
        w, h = LABEL_CHAR_PX * (len(label) + 2), LABEL_HEIGHT_PX
        (x, y), = place_labels([rect], [(w, h)], size)
        text = "#000000" if _text_colour_on(_rgb(e.category.colour)) == (0, 0, 0) else "#ffffff"
        out.append([round(v, 1) for v in rect] + [label, e.category.colour, text, round(x, 1), round(y, 1)])
    return out


def label_object(box: Box, left: float, top: float) -> dict[str, Any]:
    return {"type": "Text", "left": left, "top": top, "text": f" {box.label} ", "fontSize": LABEL_FONT_SIZE,
            "fontFamily": "sans-serif", "fill": _label_text_colour(box.colour), "backgroundColor": box.colour,
            **_INERT}


def _freeze_boxes(items: Iterable[Any]) -> tuple:
    return tuple(as_box(b) for b in items)


def _freeze_lines(items: Iterable[Any]) -> tuple:
    return tuple(as_line(line) for line in items)


def page_view_image(
    pdf_path: str | Path | None,
    page: Page,
    zoom: float,
    *,
    elements: Iterable[Element] | None = None,
    visible: set[Category] | frozenset[Category] | None = None,
    selected: str | None = None,
    show_order: bool = False,
    extra_boxes: Iterable[Box | Sequence[Any]] = (),
    lines: Iterable[Line | Sequence[Any]] = (),
    fmt: str = "JPEG",
    labels: bool = True,
) -> bytes:
    """The page with overlays, encoded (JPEG by default, see `encode_image`); cached by everything
    that changes the picture.

    `elements` defaults to the page's own elements. This is the one call a page view needs.
    """
    elements = tuple(page.elements if elements is None else elements)
    boxes = tuple(overlay_boxes(elements, visible=visible, selected=selected, show_order=show_order, labels=labels))
    extra, connectors = _freeze_boxes(extra_boxes), _freeze_lines(lines)
    key = (str(pdf_path) if pdf_path else ("blank", page.width, page.height), page.number,
           _check_zoom(zoom), boxes, extra, connectors, fmt.upper())
    data = _views.get(key)
    if data is None:
        base = render_page_image(pdf_path, page, zoom)
        data = encode_image(draw_boxes(base, [*boxes, *extra], connectors, zoom=zoom), fmt)
        _views.put(key, data)
    return data


def clear_caches(*, close_pdfs: bool = True) -> None:
    """Forget rendered pages and views (tests and benchmarks use this to measure cold renders)."""
    _base_images.clear()
    _views.clear()
    if not close_pdfs:
        return
    with _pdf_lock:
        _open_pdfs.clear()  # MuPDF frees each document with its last reference
