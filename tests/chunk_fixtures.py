"""Small Documents built in code for the evidence/chunking tests (no PDF, no ingest)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from core.categories import Category
from core.model import Document, Element, Page, element_id, freeze_attrs

DOC_ID = "0123456789abcdef"
ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_docs"


def el(page: int, seq: int, category: str, bbox, text: str = "", **kw) -> Element:
    return Element(element_id(DOC_ID, page, tuple(bbox), text, str(seq)), page, seq, Category(category),
                   tuple(bbox), text, "test", **kw)


def doc(pages: Iterable[Iterable[Element]], labels: Iterable[str | None] = ()) -> Document:
    pages = [list(p) for p in pages]
    labels = list(labels) or [None] * len(pages)
    return Document(DOC_ID, "test.pdf", "0" * 64, "test", tuple(
        Page(n, 595, 842, label=labels[n - 1], elements=tuple(els)) for n, els in enumerate(pages, start=1)))


def truth_document(name: str, sides: bool = False) -> Document:
    """A sample document built from its truth/v1 ground truth (the chunker's input without any
    parser error), so chunk tests do not move when ingest changes. `sides` marks each element
    left/right of the page's middle, as the spread importer does."""
    truth = json.loads((SAMPLES / f"{name}.truth.json").read_text(encoding="utf-8"))
    doc_id = truth_doc_id(name)
    pages = []
    for info in truth["pages"]:
        number = info["page"]
        elements = []
        for i, e in enumerate(x for x in truth["elements"] if x.get("page") == number):
            attrs = {}
            if e.get("rows"):
                attrs["rows"] = e["rows"]
            if sides:
                attrs["side"] = "left" if (e["bbox"][0] + e["bbox"][2]) / 2 < info["width"] / 2 else "right"
            elements.append(Element(
                element_id(doc_id, number, tuple(e["bbox"]), e["text"], str(i)), number, i,
                Category(e["category"]), tuple(e["bbox"]), e["text"], "truth", attrs=freeze_attrs(attrs)))
        pages.append(Page(number, info["width"], info["height"], label=info.get("label"), elements=tuple(elements)))
    return Document(doc_id, truth["file"], "0" * 64, "truth", tuple(pages))


def truth_doc_id(name: str) -> str:
    import hashlib
    return hashlib.sha256(name.encode()).hexdigest()[:16]


def squash(text: str) -> str:
    return "".join(text.split())
