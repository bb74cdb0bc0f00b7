"""Frozen value types: Document ▸ Page ▸ Element.

Everything downstream (refine, corrections, policy, chunking, export) takes these and returns new
ones; nothing mutates them. Invariants are checked at construction so a bad box fails where it is
made, not three modules later.
"""
from __future__ import annotations

import hashlib
import math
import json
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Mapping

from core.categories import Category

BBox = tuple[float, float, float, float]
SELECTION_STATES = ("selected", "unselected", "unknown")


def make_bbox(values: Iterable[float]) -> BBox:
    x0, y0, x1, y1 = (round(float(v), 2) for v in values)
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):  # NaN passes every comparison below
        raise ValueError(f"bbox must be finite numbers, got {(x0, y0, x1, y1)}")
    if x1 < x0 or y1 < y0:
        raise ValueError(f"bbox must have x0<=x1 and y0<=y1, got {(x0, y0, x1, y1)}")
    return (x0, y0, x1, y1)


def element_id(doc_id: str, page: int, bbox: BBox, text: str, salt: str = "") -> str:
    """Deterministic: the same file, engine, page, box and text give the same id on every run."""
    key = f"{page}|{bbox[0]:.0f},{bbox[1]:.0f},{bbox[2]:.0f},{bbox[3]:.0f}|{text[:64]}|{salt}"
    return f"{doc_id[:8]}-p{page}-{hashlib.sha1(key.encode('utf-8')).hexdigest()[:8]}"


@dataclass(frozen=True)
class Element:
    id: str
    page: int  # 1-based physical page
    seq: int  # reading order on the page, 0-based
    category: Category
    bbox: BBox
    text: str
    source: str  # who made it: layout | fast | widget | docling | azure | textract | reviewer
    rules: tuple[str, ...] = ()  # names of the refine rules (or "reviewer:<event>") that touched it
    state: str | None = None  # selection state, only for selection marks and check-box widgets
    links: tuple[str, ...] = ()  # ids this caption/footnote attaches to
    attrs: tuple[tuple[str, Any], ...] = ()  # source extras (font, field_name, rows, value, side...)

    def __post_init__(self) -> None:
        if not isinstance(self.category, Category):
            object.__setattr__(self, "category", Category(self.category))
        if self.page < 1:
            raise ValueError(f"page is 1-based, got {self.page}")
        object.__setattr__(self, "bbox", make_bbox(self.bbox))
        if self.state is not None and self.state not in SELECTION_STATES:
            raise ValueError(f"state must be one of {SELECTION_STATES}, got {self.state!r}")

    def attr(self, name: str, default: Any = None) -> Any:
        for key, value in self.attrs:
            if key == name:
                return value
        return default

    def with_attrs(self, **updates: Any) -> "Element":
        merged = dict(self.attrs)
        merged.update(updates)
        return replace(self, attrs=freeze_attrs(merged))

    def touched_by(self, rule: str) -> "Element":
        return self if rule in self.rules else replace(self, rules=self.rules + (rule,))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "page": self.page, "seq": self.seq, "category": self.category.value,
            "bbox": list(self.bbox), "text": self.text, "source": self.source, "rules": list(self.rules),
        }
        if self.state is not None:
            out["state"] = self.state
        if self.links:
            out["links"] = list(self.links)
        if self.attrs:
            out["attrs"] = thaw(dict(self.attrs))
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Element":
        return cls(
            id=d["id"], page=int(d["page"]), seq=int(d["seq"]), category=Category(d["category"]),
            bbox=tuple(d["bbox"]), text=d.get("text", ""), source=d.get("source", ""),
            rules=tuple(d.get("rules", ())), state=d.get("state"), links=tuple(d.get("links", ())),
            attrs=freeze_attrs(d.get("attrs", {})),
        )


class FrozenMap(tuple):
    """A mapping frozen by `freeze_attrs`: its sorted (key, value) pairs. `thaw` turns it back into
    a dict, and only it: a plain tuple of pairs (a two-column table's rows, a list box's
    (export, label) options) stays a list, so its order and repeated first cells survive JSON."""
    __slots__ = ()


def freeze_attrs(values: Mapping[str, Any]) -> FrozenMap:
    return FrozenMap(sorted((k, _freeze(v)) for k, v in values.items()))


def _freeze(value: Any) -> Any:
    if isinstance(value, FrozenMap):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, Mapping):
        return freeze_attrs(value)
    return value


def thaw(value: Any) -> Any:
    """Frozen attrs back to JSON-able lists/dicts (FrozenMaps become dicts, other tuples lists)."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, FrozenMap):
        return {k: thaw(v) for k, v in value}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class Page:
    number: int  # 1-based
    width: float
    height: float
    rotation: int = 0
    label: str | None = None  # the number printed on the page, when known
    elements: tuple[Element, ...] = ()
    notice: str | None = None  # e.g. "no PDF given: blank page of the right size"

    def __post_init__(self) -> None:
        for e in self.elements:
            if e.page != self.number:
                raise ValueError(f"element {e.id} says page {e.page} but sits on page {self.number}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number, "width": self.width, "height": self.height,
            "rotation": self.rotation, "label": self.label, "notice": self.notice,
            "elements": [e.to_dict() for e in self.elements],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Page":
        return cls(
            number=int(d["number"]), width=float(d["width"]), height=float(d["height"]),
            rotation=int(d.get("rotation", 0)), label=d.get("label"), notice=d.get("notice"),
            elements=tuple(Element.from_dict(e) for e in d.get("elements", ())),
        )


@dataclass(frozen=True)
class Document:
    doc_id: str
    source: str  # original file name, for people; never used as a path
    sha256: str
    engine: str  # layout | fast | docling | azure | textract
    pages: tuple[Page, ...]
    engine_version: str = ""
    meta: tuple[tuple[str, Any], ...] = field(default=())

    def __post_init__(self) -> None:
        numbers = [p.number for p in self.pages]
        if numbers != list(range(1, len(numbers) + 1)):
            raise ValueError(f"pages must be numbered 1..n in order, got {numbers[:10]}")

    @property
    def page_count(self) -> int:
        return len(self.pages)

    def page(self, number: int) -> Page:
        if not 1 <= number <= len(self.pages):
            raise IndexError(f"page {number} is outside 1..{len(self.pages)}")
        return self.pages[number - 1]

    def elements(self) -> Iterator[Element]:
        for p in self.pages:
            yield from p.elements

    def element(self, element_id: str) -> Element:
        for e in self.elements():
            if e.id == element_id:
                return e
        raise KeyError(f"no element {element_id!r} in document {self.doc_id}")

    def element_index(self) -> dict[str, Element]:
        return {e.id: e for e in self.elements()}

    def meta_value(self, name: str, default: Any = None) -> Any:
        return dict(self.meta).get(name, default)

    def with_pages(self, pages: Iterable[Page]) -> "Document":
        return replace(self, pages=tuple(pages))

    def to_dict(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id, "source": self.source, "sha256": self.sha256, "engine": self.engine,
            "engine_version": self.engine_version, "meta": thaw(dict(self.meta)),
            "pages": [p.to_dict() for p in self.pages],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Document":
        return cls(
            doc_id=d["doc_id"], source=d["source"], sha256=d["sha256"], engine=d["engine"],
            engine_version=d.get("engine_version", ""), meta=freeze_attrs(d.get("meta", {})),
            pages=tuple(Page.from_dict(p) for p in d["pages"]),
        )

    @classmethod
    def from_json(cls, text: str) -> "Document":
        return cls.from_dict(json.loads(text))


def renumber(elements: Iterable[Element]) -> tuple[Element, ...]:
    """Give elements consecutive seq numbers in the order given (that order is the reading order)."""
    return tuple(e if e.seq == i else replace(e, seq=i) for i, e in enumerate(elements))


@dataclass(frozen=True)
class SourceRef:
    """One contributing element of a chunk, with what a citation needs to highlight it."""
    record_id: str
    page: int
    bbox: BBox
    category: Category

    def to_dict(self) -> dict[str, Any]:
        return {"record_id": self.record_id, "page": self.page, "bbox": list(self.bbox),
                "category": self.category.value}


@dataclass(frozen=True)
class Chunk:
    """A derived, citable unit of retrieval text (chunk/v1 in DESIGN.md). Never edited in place."""
    id: str
    text: str
    doc_id: str
    source: str
    start_page: int
    end_page: int
    section_path: tuple[str, ...]
    source_categories: tuple[Category, ...]
    atomic: bool
    refs: tuple[SourceRef, ...]
    policy: str
    extra: tuple[tuple[str, Any], ...] = ()  # form_fields, page_headers, page_footers, side, image_ref...

    def __post_init__(self) -> None:
        if not 1 <= self.start_page <= self.end_page:
            raise ValueError(f"chunk {self.id}: pages must satisfy 1 <= start <= end, got "
                             f"{self.start_page}..{self.end_page}")

    def extra_value(self, name: str, default: Any = None) -> Any:
        return dict(self.extra).get(name, default)

    def to_record(self) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "schema": "chunk/v1", "doc_id": self.doc_id, "source": self.source,
            "start_page": self.start_page, "end_page": self.end_page,
            "section_path": list(self.section_path),
            "source_categories": sorted({c.value for c in self.source_categories}),
            "atomic": self.atomic, "source_record_refs": [r.to_dict() for r in self.refs],
            "policy": self.policy,
        }
        metadata.update(thaw(dict(self.extra)))
        return {"id": self.id, "text": self.text, "metadata": metadata}
