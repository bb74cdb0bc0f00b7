"""Documents for the refine rule tests: a tiny PDF parsed by the fast engine without refine (what the
rules see), the same running head and feet on n pages, a Document built directly in the layout
model's output shape, and a finder by text."""
from __future__ import annotations

from core.ingest.pdf import parse_pdf
from core.model import Document, Element, Page, freeze_attrs
from core.store.records import doc_id_for, sha256_of
from pdf_builders import build_pdf, paragraph, text


def raw(*pages, size=(595, 842)) -> Document:
    """The fast engine's output before any refine rule ran."""
    data = build_pdf(*pages, size=size)
    sha = sha256_of(data)
    return parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="t.pdf", engine="fast").document


def find(doc: Document, needle: str) -> Element:
    hits = [e for e in doc.elements() if needle in e.text]
    assert len(hits) == 1, [(e.category.value, e.text) for e in doc.elements()]
    return hits[0]


def body(p, y=120, lines=3):
    paragraph(p, 72, y, ["経費の精算は、所定の申請書に領収書を添えて経理部に提出することにより行う。"] * lines)


def furnished(n_pages: int):
    def make(i):
        def page(p):
            text(p, 64, 40, "経費精算規程　社内限", 8.5)
            body(p)
            text(p, 290, 810, f"- {i} -", 9)
            text(p, 400, 810, "© 2026 サンプル株式会社", 8)
        return page
    return raw(*[make(i + 1) for i in range(n_pages)])


def layout_doc(*elements: Element, meta=None) -> Document:
    return Document("d" * 16, "t.pdf", "0" * 64, "layout", (Page(1, 595, 842, 0, None, tuple(elements)),),
                    meta=freeze_attrs(meta or {"body_size": 10.0}))
