"""Two-page spreads and multi-column landscape pages: gutter, reading order per half and column,
`side` and `page_label` attrs, and what chunks record."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from core.categories import Category
from core.model import Document, Element, Page, element_id
from core.refine.spread import analyse_page, find_gutter, order_page, spreads
from core.store.opening import open_workspace
from tests.importer_support import REALDATA

SAMPLE = Path(__file__).resolve().parents[2] / "sample_docs"
A3 = (1190.0, 842.0)
C = Category


def element(n: int, category: Category, box, text: str) -> Element:
    return Element(element_id("s" * 16, 1, box, text, str(n)), 1, n, category, box, text, "test")


def page_of(rows, size=A3) -> Page:
    return Page(1, size[0], size[1], elements=tuple(element(i, c, b, t) for i, (c, b, t) in enumerate(rows)))


# A spread read row by row across the sheet, as a naive parser reads it: every column interleaved.
INTERLEAVED = [
    (C.TEXT, (48, 100, 280, 112), "左1-1"), (C.TEXT, (313, 100, 550, 112), "左2-1"),
    (C.TEXT, (637, 100, 870, 112), "右1-1"), (C.TEXT, (902, 100, 1140, 112), "右2-1"),
    (C.TEXT, (48, 116, 280, 128), "左1-2"), (C.TEXT, (313, 116, 550, 128), "左2-2"),
    (C.TEXT, (637, 116, 870, 128), "右1-2"), (C.TEXT, (902, 116, 1140, 128), "右2-2"),
    (C.SECTION_HEADER, (48, 60, 400, 80), "左見出し"), (C.SECTION_HEADER, (637, 60, 1000, 80), "右見出し"),
    (C.PAGE_FOOTER, (48, 800, 60, 812), "12"), (C.PAGE_FOOTER, (1130, 800, 1142, 812), "- 13 -"),
]


def test_a_spread_reads_half_by_half_and_column_by_column():
    page = order_page(page_of(INTERLEAVED))
    assert [e.text for e in page.elements] == [
        "左見出し", "左1-1", "左1-2", "左2-1", "左2-2", "12", "右見出し", "右1-1", "右1-2", "右2-1", "右2-2", "- 13 -"]
    assert [e.seq for e in page.elements] == list(range(12))
    assert all("spread" in e.rules for e in page.elements if e.text != "左見出し")


def test_each_half_records_its_side_and_its_printed_page_number():
    page = order_page(page_of(INTERLEAVED))
    left = [e for e in page.elements if e.text.startswith("左") or e.text == "12"]
    right = [e for e in page.elements if e not in left]
    assert {(e.attr("side"), e.attr("page_label")) for e in left} == {("left", "12")}
    assert {(e.attr("side"), e.attr("page_label")) for e in right} == {("right", "13")}
    assert page.label == "12-13"


def test_the_gutter_is_the_whitespace_column_near_the_middle():
    gutter = find_gutter(page_of(INTERLEAVED))
    assert gutter == (550, 637)
    layout = analyse_page(page_of(INTERLEAVED))
    assert (layout.left_label, layout.right_label, layout.columns) == ("12", "13", 2)


def test_an_element_across_the_middle_means_no_gutter_but_columns_still_read_in_order():
    rows = [(C.TITLE, (48, 30, 1140, 50), "全幅のタイトル")] + [r for r in INTERLEAVED if r[0] is C.TEXT]
    page = order_page(page_of(rows))
    assert find_gutter(page_of(rows)) is None
    assert [e.text for e in page.elements][:4] == ["全幅のタイトル", "左1-1", "左1-2", "左2-1"]
    assert all(e.attr("side") is None for e in page.elements)


def test_portrait_pages_and_vertical_writing_are_left_alone():
    portrait = page_of([(C.TEXT, (48, 100, 280, 112), "b"), (C.TEXT, (48, 80, 280, 92), "a")], size=(595, 842))
    assert order_page(portrait) is portrait
    tategaki = page_of([(C.TEXT, (900 - 20 * i, 60, 910 - 20 * i, 400), f"縦書きの行{i}") for i in range(6)] +
                       [(C.TEXT, (200 - 20 * i, 60, 210 - 20 * i, 400), f"縦書きの列{i}") for i in range(6)])
    assert order_page(tategaki) is tategaki


def test_spreads_leaves_a_document_without_landscape_pages_unchanged():
    doc = Document("s" * 16, "a.pdf", "s" * 64, "fast", (page_of(INTERLEAVED[:2], size=(595, 842)),))
    assert spreads(doc) is doc


# ---- the generated A3 spread -------------------------------------------------------------------
@pytest.fixture(scope="module")
def a3():
    pdf = SAMPLE / "spread_a3.pdf"
    if not pdf.exists():
        pytest.skip("sample_docs/spread_a3.pdf is not generated (python sample_docs/generate.py)")
    from core.ingest.pipeline import ingest_path

    ws = open_workspace(tempfile.mkdtemp())
    result = ingest_path(ws, pdf, engine="fast")
    truth = json.loads((SAMPLE / "spread_a3.truth.json").read_text(encoding="utf-8"))
    return ws, ws.load_machine_document(result.record.doc_id, "fast"), truth


def test_ingest_finds_the_generated_spreads_gutter_and_half_labels(a3):
    _, doc, truth = a3
    layout = analyse_page(doc.page(1))
    assert layout.gutter[0] <= truth["spread"]["gutter_x"] <= layout.gutter[1]
    labels = {h["side"]: h["label"] for h in truth["spread"]["halves"]}
    assert (layout.left_label, layout.right_label) == (labels["left"], labels["right"])
    assert doc.page(1).label == f"{labels['left']}-{labels['right']}"


def test_every_element_of_the_generated_spread_is_on_its_truth_side_and_reads_in_truth_order(a3):
    _, doc, truth = a3
    gutter = truth["spread"]["gutter_x"]
    elements = doc.page(1).elements
    assert all(e.attr("side") == ("left" if (e.bbox[0] + e.bbox[2]) / 2 < gutter else "right") for e in elements)
    assert "spread" in {r for e in elements for r in e.rules}
    # each truth paragraph starts with one of our lines; those lines must come in the truth's order
    positions = []
    for t in truth["elements"]:
        if t["category"] in ("text", "section_header") and t["text"]:
            head = t["text"].replace("\n", "")[:12]
            positions.append(next(e.seq for e in elements if e.text.replace("\n", "").startswith(head)))
    assert len(positions) >= 18 and positions == sorted(positions)


def test_chunks_of_the_spread_record_their_side_and_page_label(a3):
    ws, doc, truth = a3
    from core.chunks.chunking import build_chunks

    chunks = [c.to_record()["metadata"] for c in build_chunks(doc, "default")]
    sided = [m for m in chunks if "side" in m]
    assert sided and all(m["side"] in ("left", "right") for m in sided)
    labels = {h["side"]: h["label"] for h in truth["spread"]["halves"]}
    assert all(m["page_labels"] == [labels[m["side"]]] for m in sided)


# ---- the real spread -----------------------------------------------------------------------------
def test_real_annual_report_spread_splits_at_its_gutter_with_both_page_numbers():
    pdf = REALDATA / "pdfs" / "spreads_landscape" / "mitsubishi_electric_ar2021_p62-63_spread.pdf"
    if not pdf.exists():
        pytest.skip(f"real spread PDF absent ({REALDATA} is not here in a fresh clone)")
    from core.ingest.pipeline import ingest_path

    ws = open_workspace(tempfile.mkdtemp())
    doc = ws.load_machine_document(ingest_path(ws, pdf, engine="fast").record.doc_id, "fast")
    page = doc.page(1)
    layout = analyse_page(page)
    assert layout.gutter is not None and 476 <= layout.gutter_x <= 645  # the blank band between the pages
    assert (layout.left_label, layout.right_label) == ("62", "63")
    sides = [e.attr("side") for e in page.elements]
    assert sides == sorted(sides) and set(sides) == {"left", "right"}  # every left element reads first
    assert not any(e.bbox[0] < layout.gutter_x < e.bbox[2] for e in page.elements)
