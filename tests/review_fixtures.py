"""A small Japanese PDF built in code and a machine Document of it, stored in a real Workspace.

The Document is built from the PDF's own text positions (not from an ingest engine), so the
correction tests do not depend on how an engine segments the page.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pymupdf

from core.categories import Category
from core.model import Document, Element, Page, element_id
from core.store.records import doc_id_for, sha256_of
from core.store.workspace import Workspace
from core.store.opening import open_workspace

# (category, text, (x, baseline y), font size); one element per line
LINES = [
    (Category.TITLE, "経費精算規程", (72, 80), 18),
    (Category.SECTION_HEADER, "第1条 目的", (72, 120), 12),
    (Category.TEXT, "本規程は出張旅費の精算手続を定める。", (72, 145), 10.5),
    (Category.PICTURE, "", None, 0),  # a drawn rectangle, see PICTURE_BOX
    (Category.TEXT, "図1 精算の流れ", (72, 330), 10),  # a caption the machine read as text
    (Category.FOOTNOTE, "※1 領収書の原本を添付する。", (72, 700), 8),
    (Category.TEXT, "1 / 2", (280, 780), 9),  # a page footer read as text
]
PICTURE_BOX = (72.0, 170.0, 300.0, 315.0)
LOOSE_TEXT = ("承認者 山田太郎", (350, 250), 10)  # text on the page that no element covers
PAGE_SIZE = (595.0, 842.0)


@lru_cache(maxsize=1)  # one file, one sha256: re-ingests must see the same bytes
def build_pdf() -> bytes:
    pdf = pymupdf.open()
    for n in range(2):
        page = pdf.new_page(width=PAGE_SIZE[0], height=PAGE_SIZE[1])
        for _category, text, origin, size in LINES:
            if text:
                page.insert_text(origin, text if n == 0 else f"{text}（{n + 1}）", fontname="japan", fontsize=size)
        page.draw_rect(pymupdf.Rect(PICTURE_BOX), color=(0, 0, 0), width=1)
        text, origin, size = LOOSE_TEXT
        page.insert_text(origin, text, fontname="japan", fontsize=size)
    return pdf.tobytes()


def machine_document(data: bytes, engine: str = "fast", shift: float = 0.0, drop: int | None = None) -> Document:
    """One element per line of LINES, boxes from the PDF's words; `shift` moves every box (as
    another engine's slightly different boxes would), `drop` leaves one element out."""
    sha = sha256_of(data)
    doc_id = doc_id_for(sha)
    pdf = pymupdf.open(stream=data, filetype="pdf")
    pages = []
    for number, page in enumerate(pdf, start=1):
        elements = []
        for i, (category, _text, origin, _size) in enumerate(LINES):
            if i == drop:
                continue
            if category is Category.PICTURE:
                bbox, text = PICTURE_BOX, ""
            else:
                line = [w for w in page.get_text("words") if abs(w[3] - origin[1]) < 4 and w[0] >= origin[0] - 1
                        and w[0] < origin[0] + 300]
                bbox = (min(w[0] for w in line), min(w[1] for w in line), max(w[2] for w in line), max(w[3] for w in line))
                text = " ".join(w[4] for w in line)
            bbox = (bbox[0] + shift, bbox[1] + shift, bbox[2] + shift, bbox[3] + shift)
            elements.append(Element(
                element_id(doc_id, number, bbox, text, salt=engine), number, len(elements), category,
                bbox, text, engine))
        pages.append(Page(number, page.rect.width, page.rect.height, elements=tuple(elements)))
    return Document(doc_id, "keihi_test.pdf", sha, engine, tuple(pages), engine_version="test")


def stored_document(root: Path, engine: str = "fast", ws=None) -> tuple[Workspace, Document]:
    """The two-page document stored in the SQLite workspace at `root`, or in `ws` when given."""
    ws = ws if ws is not None else open_workspace(root)
    data = build_pdf()
    doc = machine_document(data, engine)
    ws.store_pdf(doc.sha256, data)
    ws.save_machine_document(doc, len(data))
    return ws, doc


def by_text(doc: Document, text: str, page: int = 1) -> Element:
    return next(e for e in doc.page(page).elements if e.text.startswith(text))


def picture(doc: Document, page: int = 1) -> Element:
    return next(e for e in doc.page(page).elements if e.category is Category.PICTURE)
