"""What the Docling, Azure and Textract importers share.

Each importer reads its own schema and hands this module drafts in the source's own terms (a
reference such as `#/texts/3`, a page, a box already in PDF points, a category, text, attrs, and
links by reference). `DocumentBuilder` turns the drafts into ordinary `Element`s with
deterministic ids and resolved links, so an imported document is indistinguishable downstream
from an ingested one.
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from core.categories import Category
from core.errors import MalformedImport
from core.model import BBox, Document, Element, Page, element_id, freeze_attrs, renumber
from core.text import DROPPED_GLYPHS_RULE, clean_text

BLANK_PAGE_NOTICE = "no source PDF: blank page"
A4_POINTS = (595.28, 841.89)


# ---- validation ------------------------------------------------------------------------------
def need(obj: Any, key: str, where: str, kind: type | tuple[type, ...] | None = None) -> Any:
    """`obj[key]`, or MalformedImport naming the missing or mistyped key and where it should be."""
    if not isinstance(obj, Mapping):
        raise MalformedImport(f"{where} should be a JSON object, found {type_name(obj)}")
    if key not in obj:
        raise MalformedImport(f"{where} has no {key!r} key")
    value = obj[key]
    if kind is not None and not isinstance(value, kind):
        raise MalformedImport(f"{where}.{key} should be {kind_name(kind)}, found {type_name(value)}")
    return value


def optional(obj: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...], default: Any) -> Any:
    value = obj.get(key, default)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise MalformedImport(f"{where}.{key} should be {kind_name(kind)}, found {type_name(value)}")
    return value


MAX_COORDINATE = 1e6  # points (or the source's units): far beyond any page, so larger is a fault


def number(value: Any, where: str) -> float:
    """A finite number no larger than MAX_COORDINATE: every coordinate and size an importer reads.
    (NaN and Infinity slip through comparisons and clamping, so they are stopped here.)"""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedImport(f"{where} should be a number, found {type_name(value)}")
    result = float(value)
    if not math.isfinite(result):
        raise MalformedImport(f"{where} is {value!r}; coordinates and sizes must be finite numbers")
    if abs(result) > MAX_COORDINATE:
        raise MalformedImport(f"{where} is {value!r}, beyond ±{MAX_COORDINATE:.0e}; not a coordinate on a page")
    return result


def ordered_box(box: tuple[float, float, float, float], where: str) -> tuple[float, float, float, float]:
    """The box itself when x0 <= x1 and y0 <= y1 (top-left origin); an inverted box is refused."""
    if box[0] > box[2] or box[1] > box[3]:
        raise MalformedImport(f"{where} is inverted ({', '.join(f'{v:g}' for v in box)}: "
                              "x0 > x1 or top below bottom); coordinates must give a box")
    return box


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number",
            bool: "true/false", type(None): "null"}.get(type(value), type(value).__name__)


def kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number",
             bool: "true/false"}
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in kinds))


# ---- text ------------------------------------------------------------------------------------
def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return (0x3000 <= code <= 0x30FF or 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF
            or 0xF900 <= code <= 0xFAFF or 0xFF00 <= code <= 0xFFEF)


def join_words(words: Iterable[str], sep: str = " ") -> str:
    """Join OCR words/lines: nothing between two CJK neighbours (Japanese has no spaces), `sep` elsewhere."""
    out = ""
    for word in words:
        word = word.strip()
        if not word:
            continue
        if out and not (_is_cjk(out[-1]) and _is_cjk(word[0])):
            out += sep
        out += word
    return out


def polygon_box(points: Sequence[float], where: str) -> tuple[float, float, float, float]:
    """Min/max over all points of a flat [x0, y0, x1, y1, ...] polygon (a rotated quad stays covered)."""
    if not isinstance(points, (list, tuple)) or len(points) < 4 or len(points) % 2:
        raise MalformedImport(f"{where} should be a flat list of x, y numbers, found {points!r:.80}")
    xs = [number(v, where) for v in points[0::2]]
    ys = [number(v, where) for v in points[1::2]]
    return (min(xs), min(ys), max(xs), max(ys))


# ---- pages -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PageFrame:
    """One page: its size in the source's units and in PDF points, and the map between them."""
    number: int
    width: float  # points
    height: float
    src_width: float  # the source's units (points, inches, pixels, or 1.0 for ratios)
    src_height: float
    notice: str | None = None

    def to_points(self, box: tuple[float, float, float, float]) -> BBox:
        """Scale a top-left-origin source box to points, normalised and clamped to the page."""
        sx, sy = self.width / self.src_width, self.height / self.src_height
        x0, x1 = sorted((box[0] * sx, box[2] * sx))
        y0, y1 = sorted((box[1] * sy, box[3] * sy))
        x0, x1 = min(max(x0, 0.0), self.width), min(max(x1, 0.0), self.width)
        y0, y1 = min(max(y0, 0.0), self.height), min(max(y1, 0.0), self.height)
        return (x0, y0, x1, y1)


@dataclass(frozen=True)
class ImportContext:
    """Who the document is and, when a PDF (or image turned PDF) was given, its page sizes."""
    doc_id: str
    source: str
    sha256: str
    engine: str  # docling | azure | textract
    pdf_sizes: tuple[tuple[float, float], ...] | None = None

    def frame(self, number: int, src_width: float, src_height: float, points_per_unit: float | None) -> PageFrame:
        """The page's frame: the PDF's page size when there is a PDF, else the source's size in points.

        `points_per_unit` is 72 for inches, 1 for points; None when the source has no absolute size
        (Textract ratios), in which case a page without a PDF is taken to be A4.
        """
        if src_width <= 0 or src_height <= 0:
            raise MalformedImport(f"page {number} has a size of {src_width} x {src_height}; both must be positive")
        if self.pdf_sizes is not None:
            if number > len(self.pdf_sizes):
                raise MalformedImport(
                    f"the {self.engine} output has a page {number} but the given PDF has only "
                    f"{len(self.pdf_sizes)} page(s); is it the PDF this output was made from?")
            width, height = self.pdf_sizes[number - 1]
            return PageFrame(number, width, height, src_width, src_height)
        if points_per_unit is None:
            return PageFrame(number, A4_POINTS[0], A4_POINTS[1], src_width, src_height,
                             f"{BLANK_PAGE_NOTICE} ({self.engine} gives no page size; A4 assumed)")
        return PageFrame(number, src_width * points_per_unit, src_height * points_per_unit,
                         src_width, src_height, BLANK_PAGE_NOTICE)


# ---- building the Document -------------------------------------------------------------------
@dataclass
class Draft:
    ref: str  # the source's own id for this item, unique within the import
    page: int
    bbox: BBox
    category: Category
    text: str
    order: tuple = ()  # reading-order key within the page; drafts without one keep insertion order
    state: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    link_refs: list[str] = field(default_factory=list)  # refs this caption/footnote attaches to


class DocumentBuilder:
    def __init__(self, ctx: ImportContext):
        self.ctx = ctx
        self.frames: dict[int, PageFrame] = {}
        self.drafts: list[Draft] = []
        self._by_ref: dict[str, Draft] = {}

    def add_frame(self, frame: PageFrame) -> None:
        self.frames[frame.number] = frame

    def frame(self, number: int) -> PageFrame:
        if number not in self.frames:
            known = ", ".join(str(n) for n in sorted(self.frames)) or "none"
            raise MalformedImport(f"an item refers to page {number}, which the {self.ctx.engine} output does "
                                  f"not describe (pages: {known})")
        return self.frames[number]

    def add(self, ref: str, page: int, box: tuple[float, float, float, float], category: Category, text: str,
            *, state: str | None = None, attrs: Mapping[str, Any] | None = None, order: tuple = (),
            in_points: bool = False) -> Draft:
        """Add one element; `box` is top-left-origin in the page's source units unless `in_points`."""
        frame = self.frame(page)
        bbox = box if in_points else frame.to_points(box)
        if ref in self._by_ref:
            raise MalformedImport(f"the {self.ctx.engine} output uses the id {ref!r} twice")
        clean = {k: v for k, v in (attrs or {}).items() if v is not None and v != [] and v != {}}
        draft = Draft(ref, page, bbox, category, text or "", order, state, clean)
        self.drafts.append(draft)
        self._by_ref[ref] = draft
        return draft

    def has(self, ref: str) -> bool:
        return ref in self._by_ref

    def get(self, ref: str) -> Draft | None:
        return self._by_ref.get(ref)

    def link(self, source_ref: str, target_ref: str) -> None:
        """Attach a caption/footnote to what it describes; both by the source's refs."""
        source = self._by_ref.get(source_ref)
        if source is not None and target_ref not in source.link_refs and target_ref != source_ref:
            source.link_refs.append(target_ref)

    def element_ids(self) -> dict[str, str]:
        return {d.ref: element_id(self.ctx.doc_id, d.page, d.bbox, d.text, salt=f"{self.ctx.engine}:{d.ref}")
                for d in self.drafts}

    def build(self, engine_version: str, meta: Mapping[str, Any] | None = None) -> Document:
        ids = self.element_ids()
        per_page: dict[int, list[tuple[tuple, int, Element]]] = {n: [] for n in self.frames}
        for index, d in enumerate(self.drafts):
            links = tuple(dict.fromkeys(ids[r] for r in d.link_refs if r in ids))
            attrs = {**_resolve_ref_attrs(d.attrs, ids), "source_ref": d.ref}
            text, dropped = clean_text(d.text)
            rules = (DROPPED_GLYPHS_RULE,) if dropped else ()
            if dropped:
                attrs["dropped_glyphs"] = dropped
            element = Element(id=ids[d.ref], page=d.page, seq=0, category=d.category, bbox=d.bbox, text=text,
                              source=self.ctx.engine, rules=rules, state=d.state, links=links,
                              attrs=freeze_attrs(attrs))
            per_page[d.page].append((d.order, index, element))
        pages = []
        for number in sorted(self.frames):
            frame = self.frames[number]
            ordered = [e for _, _, e in sorted(per_page[number], key=lambda t: (t[0], t[1]))]
            pages.append(Page(number=number, width=round(frame.width, 2), height=round(frame.height, 2),
                              elements=renumber(ordered), notice=frame.notice))
        if [p.number for p in pages] != list(range(1, len(pages) + 1)):
            raise MalformedImport(f"the {self.ctx.engine} output's pages are not numbered 1..n: "
                                  f"{[p.number for p in pages][:10]}")
        return Document(doc_id=self.ctx.doc_id, source=self.ctx.source, sha256=self.ctx.sha256,
                        engine=self.ctx.engine, pages=tuple(pages), engine_version=engine_version,
                        meta=freeze_attrs(dict(meta or {})))


def _resolve_ref_attrs(attrs: Mapping[str, Any], ids: Mapping[str, str]) -> dict[str, Any]:
    """Attrs named `<x>_ref` / `<x>_refs` hold source refs; they become `<x>` holding element ids.

    Refs to items that did not become elements are dropped, so an attr never points nowhere. This
    is how a key names its value for core.forms.fields: `kv_value_id_ref` becomes `kv_value_id`.
    """
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if key.endswith("_refs") and isinstance(value, (list, tuple)):
            resolved = [ids[r] for r in value if r in ids]
            if resolved:
                out[key[:-5]] = resolved
        elif key.endswith("_ref") and isinstance(value, str):
            if value in ids or value == "":  # "" is a deliberate "none" (a key whose value is empty)
                out[key[:-4]] = ids.get(value, "")
        else:
            out[key] = value
    return out


def fill_pdf_pages(builder: DocumentBuilder) -> None:
    """A PDF may have pages the parser skipped: give them an empty frame so page numbers stay physical."""
    if builder.ctx.pdf_sizes is None:
        return
    for number, (width, height) in enumerate(builder.ctx.pdf_sizes, start=1):
        if number not in builder.frames:
            builder.add_frame(PageFrame(number, width, height, width, height,
                                        f"the {builder.ctx.engine} output has nothing on this page"))


def table_text(rows: Sequence[Sequence[str]]) -> str:
    """A table's retrieval text: one line per row, cells separated by ' | ' (empty rows dropped)."""
    lines = [" | ".join(c.replace("\n", " ").strip() for c in row) for row in rows]
    return "\n".join(line for line in lines if line.replace("|", "").strip())


def grid_from_cells(cells: Sequence[Mapping[str, Any]], n_rows: int, n_cols: int) -> list[list[str]]:
    """Row-major grid of cell texts; a spanning cell's text sits in its top-left slot only."""
    n_rows = max([n_rows] + [c["row"] + 1 for c in cells])
    n_cols = max([n_cols] + [c["col"] + 1 for c in cells])
    grid = [["" for _ in range(n_cols)] for _ in range(n_rows)]
    for c in cells:
        grid[c["row"]][c["col"]] = c.get("text", "")
    return grid
