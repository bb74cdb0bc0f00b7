"""Footnote references set as plain superscript digits (NIST reports, 経産省 guidelines): ingest keeps
them as `sup_marks`, and evidence attaches the footnote "1 …" to the paragraph holding the raised 1."""
from __future__ import annotations

import pymupdf
import pytest

from core.categories import Category
from core.chunks.attachment import footnote_number
from core.chunks.chunking import build_chunks, document_evidence
from core.chunks.policy import DEFAULT
from core.ingest.pdf import parse_pdf
from core.refine.rules import refine
from pdf_builders import build_pdf

LINE = "Workloads share the cluster, so every job must be isolated from the others and the host."


def superscript_after(page: pymupdf.Page, x: float, y: float, before: str, mark: str, after: str,
                      size: float = 10.5) -> None:
    """`before` + a raised, smaller `mark` + `after` on one baseline, as a typesetter sets a note reference."""
    page.insert_text((x, y), before, fontname="helv", fontsize=size)
    x += pymupdf.get_text_length(before, "helv", size)
    page.insert_text((x + 0.5, y - size * 0.35), mark, fontname="helv", fontsize=size * 0.65)
    x += pymupdf.get_text_length(mark, "helv", size * 0.65) + 1
    page.insert_text((x, y), after, fontname="helv", fontsize=size)


def two_paragraphs_and_a_note(page: pymupdf.Page) -> None:
    y = 100.0
    for i in range(6):  # first paragraph: the reference "1" ends its third line
        if i == 2:
            superscript_after(page, 72, y, "Containers must not run as root", "1", " on shared nodes.")
        else:
            page.insert_text((72, y), LINE, fontname="helv", fontsize=10.5)
        y += 15
    y += 30
    for _ in range(6):  # second paragraph: no reference
        page.insert_text((72, y), "Schedulers keep a queue per partition and report usage to the accounting system.",
                         fontname="helv", fontsize=10.5)
        y += 15
    page.insert_text((72, 779), "1", fontname="helv", fontsize=5)
    page.insert_text((76, 782), " SP 800-190, Application Container Security Guide.", fontname="helv", fontsize=8)


def ingest(data: bytes, engine: str = "fast"):
    return refine(parse_pdf(data, doc_id="d", sha256="s", filename="t.pdf", engine=engine).document)


@pytest.fixture(scope="module")
def note_document():
    return ingest(build_pdf(two_paragraphs_and_a_note))


def test_ingest_records_the_superscript_reference_number_of_the_paragraph_that_holds_it(note_document):
    elements = note_document.pages[0].elements
    marked = [e for e in elements if e.attr("sup_marks")]
    assert len(marked) == 1 and marked[0].attr("sup_marks") == ("1",)
    assert "Containers must not run as root" in marked[0].text


def test_a_footnotes_own_leading_superscript_is_not_a_reference(note_document):
    note = next(e for e in note_document.pages[0].elements if e.category is Category.FOOTNOTE)
    assert note.text.lstrip().startswith("1") and not note.attr("sup_marks")


def test_a_footnote_numbered_by_a_plain_digit_joins_the_paragraph_with_that_superscript(note_document):
    note = next(e for e in note_document.pages[0].elements if e.category is Category.FOOTNOTE)
    attachment = next(a for ev in document_evidence(note_document, DEFAULT) for a in ev.attachments
                      if a.source == note.id)
    assert attachment.how == "sup_marker"
    chunks = build_chunks(note_document, DEFAULT)
    assert len(chunks) >= 2
    holding = [c for c in chunks if "Application Container Security Guide" in c.text]
    assert len(holding) == 1
    assert "Containers must not run as root" in holding[0].text
    assert "Schedulers keep a queue" not in holding[0].text


def test_a_lowered_small_digit_is_a_subscript_not_a_reference():
    def page(p):
        p.insert_text((72, 100), "Water is H", fontname="helv", fontsize=10.5)
        x = 72 + pymupdf.get_text_length("Water is H", "helv", 10.5)
        p.insert_text((x, 103), "2", fontname="helv", fontsize=7)
        p.insert_text((x + 5, 100), "O and nothing else here.", fontname="helv", fontsize=10.5)
    assert not any(e.attr("sup_marks") for e in ingest(build_pdf(page)).pages[0].elements)


def test_html_sup_in_japanese_text_is_read_as_a_reference():
    def page(p):
        p.insert_htmlbox(pymupdf.Rect(72, 100, 520, 140), "上限額は別に定める<sup>12</sup>とおりとする。",
                         css="* {font-size: 10.5pt;}")
    marked = [e.attr("sup_marks") for e in ingest(build_pdf(page)).pages[0].elements if e.attr("sup_marks")]
    assert marked == [("12",)]


@pytest.mark.parametrize("text, number", [
    ("1 SP 800-190, Application Container Security Guide", "1"), ("13インターネット上の偽情報", "13"),
    ("¹² superscript", "12"), ("※5 ただし書き", "5"), ("注５ 補足", "5"), ("*3 注記", "3"),
    ("注: 番号のない注記", None), ("2023年11月に発表", None),
])
def test_a_footnotes_leading_number(text, number):
    assert footnote_number(text) == number
