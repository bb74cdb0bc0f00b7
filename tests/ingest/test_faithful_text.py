"""Faithful text (issue 10): what the elements say is what is printed, on PDFs built here."""
from __future__ import annotations

import re

import pytest

from core.categories import Category
from core.chunks.chunking import build_chunks
from core.corpus_check import is_bad_char
from core.ingest.pdf import parse_pdf
from core.refine.rules import refine
from core.store.records import doc_id_for, sha256_of
from pdf_builders import build_pdf, control_char_pdf, line_numbered_page

C = Category
ENGINES = ("fast", "layout")


def ingest(data: bytes, engine: str = "fast"):
    sha = sha256_of(data)
    return refine(parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="t.pdf", engine=engine).document)


@pytest.mark.parametrize("engine", ENGINES)
def test_control_characters_are_dropped_and_recorded(engine):
    doc = ingest(control_char_pdf(), engine)
    texts = [e.text for e in doc.elements()]
    assert not any(is_bad_char(ch) for t in texts for ch in t)
    hit = next(e for e in doc.elements() if "rld" in e.text)
    assert hit.text.startswith("Hll w")  # the element is kept, only the broken characters go
    assert "dropped_unmappable_glyphs" in hit.rules and hit.attr("dropped_glyphs") == 3
    chunks = build_chunks(doc, "default")
    assert chunks and not any(is_bad_char(ch) for c in chunks for ch in c.text)


BODY = ["この指針は、事業者が生成AIを利用する際に留意すべき事項として、イノベーシ",
        "ョンの促進とリスクの緩和を両立する枠組みを示すものであり、各主体が自主的",
        "に取り組むことを期待する。データを判別し",
        "てラベリングする作業は、人間の判断を介在させることが望ましい。また、",
        "利用者への説明責任を果たすため、記録を残すことが重要である。さらに、",
        "関係者間で情報を共有し、継続的に見直すことが求められる。以上を踏まえ、",
        "本指針を定める。"]


@pytest.mark.parametrize("engine", ENGINES)
def test_margin_line_numbers_never_join_a_word(engine):
    doc = ingest(build_pdf(lambda p: line_numbered_page(p, BODY)), engine)
    body = "".join(e.text for e in doc.elements() if e.category is not C.DECORATIVE)
    assert "イノベーション" in body and "判別してラベリング" in body
    assert not re.search(r"[ぁ-んァ-ヶー一-龥][0-9]+[ぁ-んァ-ヶー一-龥]", body)
    numbers = [e for e in doc.elements() if e.attr("kind") == "line_numbers"]
    assert len(numbers) == 1 and numbers[0].text.split() == [str(i) for i in range(1, 8)]
    assert numbers[0].category is C.DECORATIVE and "line_numbers" in numbers[0].rules


def test_numbered_list_is_not_taken_for_line_numbers():
    def page(p):
        for i in range(6):  # items with a paragraph between them: list numbers, kept in their items
            p.insert_text((72, 100 + i * 60), f"{i + 1}", fontname="japan", fontsize=10.5)
            p.insert_text((100, 100 + i * 60), f"項目{i + 1}の説明文です。", fontname="japan", fontsize=10.5)
    doc = ingest(build_pdf(page))
    assert not [e for e in doc.elements() if e.attr("kind") == "line_numbers"]
