"""The values page evidence is made of: `Piece`s and `Block`s the chunker packs, `Attachment`s and
`Furniture` recording where captions, footnotes and headers/footers went, the `PageContext` a page
needs from the rest of the document, and the `PageEvidence` built from them (core/chunks/evidence.py).
Also the category groups and block kinds the evidence modules and the chunker share.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.categories import Category
from core.chunks.policy import Action
from core.model import Element

C = Category
HEADINGS = (C.TITLE, C.SECTION_HEADER)
FURNITURE = (C.PAGE_HEADER, C.PAGE_FOOTER)
FORM_CATEGORIES = (C.FORM_FIELD, C.SELECTION_MARK)
TEXT_PRODUCING = (Action.CHUNK, Action.ATOMIC_CHUNK)

# block kinds the chunker knows
HEADING, FLOW, GROUP, ATOMIC, TABLE, REFONLY, NOTE = (
    "heading", "flow", "group", "atomic", "table", "refonly", "note")

METADATA_KEYS = {C.PAGE_HEADER: "page_headers", C.PAGE_FOOTER: "page_footers",
                 C.REFERENCE: "references", C.DOCUMENT_INDEX: "document_index"}


def metadata_key(category: Category) -> str:
    return METADATA_KEYS.get(category, f"{category.value}_metadata")


@dataclass(frozen=True)
class Piece:
    """The smallest run of text the chunker never splits, with the elements it came from."""
    text: str
    elements: tuple[Element, ...]
    joins_previous: bool = False  # True: continues the previous piece's element (no separator)


@dataclass(frozen=True)
class Block:
    kind: str  # heading | flow | group | atomic | table | refonly | note
    page: int
    seq: int  # reading position of its first element on the page
    pieces: tuple[Piece, ...] = ()
    level: tuple[str, int] | None = None  # headings: numbering style (heading_style; None: unnumbered)
    heading: str = ""  # headings: the title used in section paths
    heading_size: float | None = None  # headings: the font size, which nests unnumbered headings
    head: tuple[Piece, ...] = ()  # tables: caption + header row, repeated in every part
    tail: tuple[Piece, ...] = ()  # tables: footnotes, repeated in every part
    label_section: bool = False  # atomic formula/code: text starts with its section path
    side: str | None = None  # spreads: "left" / "right" half of the physical page
    extras: tuple[tuple[str, Any], ...] = ()

    @property
    def elements(self) -> tuple[Element, ...]:
        seen: dict[str, Element] = {}
        for piece in self.head + self.pieces + self.tail:
            for e in piece.elements:
                seen.setdefault(e.id, e)
        return tuple(seen.values())

    @property
    def size(self) -> int:
        return sum(len(p.text) + 1 for p in self.pieces)


@dataclass(frozen=True)
class Attachment:
    source: str  # the caption / footnote element id
    category: Category
    target: str | None  # the element it joined; None when it stayed in the flow or joined a chunk
    how: str  # link | marker | sup_marker | reading_order | preceding | following | previous_chunk | unattached | unlinked


@dataclass(frozen=True)
class Furniture:
    element_id: str
    page: int
    category: Category
    text: str
    kind: str  # repeated | page_number | copyright | unique
    placed: str  # metadata | text | excluded


@dataclass(frozen=True)
class PageContext:
    """What a page's evidence needs from the rest of the document (part of its cache key)."""
    repeated: frozenset[str] = frozenset()  # furniture texts (furniture_key) of this page found on ≥N pages
    incoming: tuple[Element, ...] = ()  # captions/footnotes elsewhere whose links point into this page
    linked_away: frozenset[str] = frozenset()  # ids here whose links point to another page
    skip: frozenset[str] = frozenset()  # ids chunked elsewhere (form fields, by core.forms.fields)


@dataclass(frozen=True)
class PageEvidence:
    page: int
    blocks: tuple[Block, ...]
    metadata: tuple[tuple[str, tuple[str, ...]], ...] = ()  # page_headers, page_footers, references…
    attachments: tuple[Attachment, ...] = ()
    furniture: tuple[Furniture, ...] = ()
    excluded: tuple[str, ...] = ()

    def metadata_value(self, key: str) -> tuple[str, ...]:
        return dict(self.metadata).get(key, ())
