"""Ingest: PDF bytes → stored machine Document (both engines), on tiny PDFs built here and on the samples."""
from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from core.categories import Category
from core.cli import main as cli_main
from core.ingest.pdf import parse_pdf
from core.ingest.pipeline import ingest_bytes, ingest_path
from core.store.records import doc_id_for, sha256_of
from core.store.workspace import Workspace
from core.store.opening import open_workspace
from store_backends import table_rows
from pdf_builders import build_pdf, html, paragraph, ruled_table, text
from truth_match import format_table, load_truth, recall_by_category

C = Category


def two_page_report(page_size=(595, 842)) -> bytes:
    def page1(p):
        text(p, 72, 90, "経費精算規程", 22)
        paragraph(p, 72, 140, ["この規程は、役員及び従業員が業務のために立て替えた経費の精算について定める。",
                               "精算は所定の申請書により、経費の発生した月の翌月10日までに行う。"])
        ruled_table(p, 72, 220, [["区分", "上限額"], ["交通費", "実費"], ["宿泊費", "12,000円"]])

    def page2(p):
        paragraph(p, 72, 90, ["第2条 本規程は全ての従業員に適用する。", "付則 この規程は2026年4月1日から施行する。"])

    return build_pdf(page1, page2)


def machine_rows(ws: Workspace) -> list[tuple]:
    return sorted((row[0], row[1], row[-1]) for row in table_rows(ws)["machine_docs"])


# ---- storing, identity, no repeated work --------------------------------------------------------
def test_ingest_stores_the_pdf_and_the_machine_document(workspace):
    data = two_page_report()
    result = ingest_bytes(workspace, data, "規程.pdf", engine="fast")
    record = result.record
    assert result.created
    assert record.doc_id == doc_id_for(sha256_of(data))
    assert (record.source, record.engine, record.page_count, record.size_bytes) == ("規程.pdf", "fast", 2, len(data))
    assert workspace.document_pdf(record.doc_id).read_bytes() == data
    doc = workspace.load_machine_document(record.doc_id)
    assert doc.page_count == 2 and doc.sha256 == sha256_of(data)
    assert "経費の精算について定める" in "".join(e.text for e in doc.elements())


def test_same_file_and_engine_again_returns_the_stored_record_without_parsing(workspace):
    data = two_page_report()
    first = ingest_bytes(workspace, data, "a.pdf", engine="fast")
    rows_before = machine_rows(workspace)
    calls = []
    again = ingest_bytes(workspace, data, "renamed.pdf", engine="fast", progress=lambda d, t: calls.append((d, t)))
    assert not again.created
    assert again.record == first.record
    assert machine_rows(workspace) == rows_before  # nothing rewritten: no parse happened
    assert calls == [(2, 2)]  # the progress bar still completes


def test_another_engine_stores_its_output_and_becomes_current(workspace):
    data = build_pdf(lambda p: paragraph(p, 72, 90, ["本文のテキストです。" * 3]))
    fast = ingest_bytes(workspace, data, "a.pdf", engine="fast").record
    layout = ingest_bytes(workspace, data, "a.pdf", engine="layout")
    assert layout.created and layout.record.engine == "layout"
    assert workspace.machine_engines(fast.doc_id) == ["fast", "layout"]
    back = ingest_bytes(workspace, data, "a.pdf", engine="fast")
    assert not back.created and back.record.engine == "fast"
    assert workspace.load_machine_document(fast.doc_id).engine == "fast"


def test_progress_is_reported_after_every_page(workspace):
    calls = []
    ingest_bytes(workspace, two_page_report(), "a.pdf", engine="fast", progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 2), (2, 2)]


def test_ingest_path_reads_the_file_and_keeps_only_its_name(workspace, tmp_path):
    path = tmp_path / "sub" / "report.pdf"
    path.parent.mkdir()
    path.write_bytes(two_page_report())
    record = ingest_path(workspace, path, engine="fast").record
    assert record.source == "report.pdf"


def test_element_ids_are_the_same_on_every_run():
    data = two_page_report()
    sha = sha256_of(data)
    runs = [parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="a.pdf", engine="fast").document
            for _ in range(2)]
    ids = [[e.id for e in doc.elements()] for doc in runs]
    assert ids[0] == ids[1]
    assert len(set(ids[0])) == len(ids[0])


# ---- what the fast engine reads ----------------------------------------------------------------
def fast(data: bytes, name="t.pdf"):
    sha = sha256_of(data)
    return parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename=name, engine="fast").document


def test_fast_engine_reads_title_text_and_a_ruled_table_with_its_rows():
    doc = fast(two_page_report())
    page = doc.page(1)
    by_cat = {e.category: e for e in page.elements}
    assert by_cat[C.TITLE].text == "経費精算規程"
    assert "立て替えた経費" in by_cat[C.TEXT].text
    table = by_cat[C.TABLE]
    assert table.attr("rows") == (("区分", "上限額"), ("交通費", "実費"), ("宿泊費", "12,000円"))
    assert all(e.attr("size") for e in page.elements if e.text)  # font facts refine relies on


def test_fast_engine_numbers_reading_order_column_by_column():
    def columns(p):
        body = "の本文が続きます。"  # columns about 200 pt wide, as on a two-column page
        paragraph(p, 60, 100, ["左の段の一行目" + body, "左の段の二行目" + body])
        paragraph(p, 320, 100, ["右の段の一行目" + body, "右の段の二行目" + body])
        paragraph(p, 60, 180, ["左の段の次の段落" + body])
        paragraph(p, 320, 180, ["右の段の次の段落" + body])
    page = fast(build_pdf(columns)).page(1)
    texts = [e.text[:3] for e in sorted(page.elements, key=lambda e: e.seq)]
    assert texts == ["左の段", "左の段", "右の段", "右の段"]
    left = [e for e in page.elements if e.bbox[0] < 300]
    right = [e for e in page.elements if e.bbox[0] >= 300]
    assert max(e.seq for e in left) < min(e.seq for e in right)


def test_fast_engine_marks_list_items_by_their_markers():
    def steps(p):
        paragraph(p, 72, 100, ["申請の手順は次のとおりとする。"])
        for i, line in enumerate(["1. 申請書を作成する。", "(2) 領収書を添付する。", "・ 所属長が承認する。", "① 経理部が確認する。"]):
            text(p, 72, 140 + 24 * i, line)
    page = fast(build_pdf(steps)).page(1)
    items = [e.text for e in page.elements if e.category is C.LIST_ITEM]
    assert items == ["1. 申請書を作成する。", "(2) 領収書を添付する。", "・ 所属長が承認する。", "① 経理部が確認する。"]


def test_page_size_rotation_and_printed_labels_are_recorded():
    def portrait(p):
        text(p, 72, 100, "縦向きのページ")
    doc_pdf = pymupdf.open(stream=build_pdf(portrait, portrait))
    doc_pdf[1].set_rotation(90)
    doc_pdf.set_page_labels([{"startpage": 0, "prefix": "A-", "style": "D", "firstpagenum": 1}])
    doc = fast(doc_pdf.tobytes())
    p1, p2 = doc.pages
    assert (p1.width, p1.height, p1.rotation, p1.label) == (595, 842, 0, "A-1")
    assert (p2.width, p2.height, p2.rotation, p2.label) == (842, 595, 90, "A-2")
    # boxes are in the page as displayed: the text of the rotated page lies in its landscape frame
    (e,) = p2.elements
    assert 0 <= e.bbox[0] < e.bbox[2] <= 842 and 0 <= e.bbox[1] < e.bbox[3] <= 595
    assert e.bbox[0] > 595 - 120  # on the unrotated page the text was near the top-left corner


def test_widgets_become_form_fields_and_selection_marks_with_values_and_states():
    def form(p):
        text(p, 72, 112, "氏名")
        for kind, name, value, rect, extra in [
            (pymupdf.PDF_WIDGET_TYPE_TEXT, "name", "山田 太郎", (120, 100, 300, 118), {"field_label": "申請者の氏名"}),
            (pymupdf.PDF_WIDGET_TYPE_TEXT, "note", "", (120, 130, 300, 148), {}),
            (pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "agree", True, (120, 160, 132, 172), {}),
            (pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "late", False, (160, 160, 172, 172), {}),
            (pymupdf.PDF_WIDGET_TYPE_COMBOBOX, "dept", "経理部", (120, 190, 300, 208), {"choice_values": ["営業部", "経理部"]}),
        ]:
            w = pymupdf.Widget()
            w.field_type, w.field_name, w.rect = kind, name, pymupdf.Rect(rect)
            for k, v in extra.items():
                setattr(w, k, v)
            w.field_value = value
            p.add_widget(w)
    page = fast(build_pdf(form)).page(1)
    fields = {e.attr("field_name"): e for e in page.elements if e.source == "widget"}
    assert fields["name"].category is C.FORM_FIELD and fields["name"].text == "山田 太郎"
    assert fields["name"].attr("field_label") == "申請者の氏名" and fields["name"].attr("field_type") == "Text"
    assert fields["note"].attr("value") == ""
    assert fields["agree"].category is C.SELECTION_MARK and fields["agree"].state == "selected"
    assert fields["agree"].attr("on_state") == "Yes"
    assert fields["late"].state == "unselected"
    assert fields["dept"].attr("options") == ("営業部", "経理部") and fields["dept"].attr("value") == "経理部"
    assert fields["name"].bbox == (120, 100, 300, 118)


def test_radio_groups_and_all_widget_types_of_a_real_form(realdata):
    path = realdata / "pdfs" / "forms" / "pdf_form_example_all_widget_types.pdf"
    doc = fast(path.read_bytes())
    marks = {(e.attr("field_name"), e.attr("on_state")): e.state for e in doc.elements()
             if e.category is C.SELECTION_MARK}
    assert marks[("educationLevel", "bachelorDegree")] == "selected"
    assert marks[("educationLevel", "highSchool")] == "unselected"
    assert marks[("typeScript", "Yes")] == "unselected" and marks[("javaScript", "Yes")] == "selected"
    fields = {e.attr("field_name"): e for e in doc.elements() if e.category is C.FORM_FIELD}
    assert fields["firstName"].text == "Lucía"
    assert fields["country"].attr("field_type") == "ComboBox" and "Spain" in fields["country"].attr("options")


# ---- encrypted PDFs ------------------------------------------------------------------------------
@pytest.fixture
def encrypted_pdf() -> bytes:
    plain = two_page_report()
    doc = pymupdf.open(stream=plain)
    return doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="himitsu", owner_pw="owner-pw")


def test_encrypted_pdf_opens_with_its_password_and_is_stored_decrypted(workspace, encrypted_pdf):
    record = ingest_bytes(workspace, encrypted_pdf, "secret.pdf", engine="fast", password="himitsu").record
    assert record.doc_id == doc_id_for(sha256_of(encrypted_pdf))  # identity is the file as given
    stored = pymupdf.open(workspace.document_pdf(record.doc_id))
    assert not stored.needs_pass  # rendering never needs the password again
    assert "経費精算規程" in stored[0].get_text()
    doc = workspace.load_machine_document(record.doc_id)
    assert doc.meta_value("encrypted") is True
    assert any("経費精算規程" in e.text for e in doc.elements())


def test_real_aes256_encrypted_pdf_opens_with_its_password(workspace, realdata):
    path = realdata / "pdfs" / "misc" / "crazyones_encrypted_aes256.pdf"
    record = ingest_path(workspace, path, engine="fast", password="password").record
    assert record.page_count >= 1
    text_all = " ".join(e.text for e in workspace.load_machine_document(record.doc_id).elements())
    assert "crazy" in text_all.lower()


# ---- the layout engine ---------------------------------------------------------------------------
def test_layout_engine_fills_model_boxes_with_the_page_text_and_loses_none():
    def page(p):
        text(p, 72, 90, "出張旅費の取扱い", 18)
        paragraph(p, 72, 130, ["出張の旅費は、この規程の定めるところにより支給する。" * 1,
                               "旅費の額は、別表に定める額とする。ただし、特別の事情がある場合はこの限りでない。"])
        text(p, 290, 800, "- 1 -", 9)
    data = build_pdf(page)
    sha = sha256_of(data)
    doc = parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="t.pdf", engine="layout").document
    elements = doc.page(1).elements
    assert {e.source for e in elements} == {"layout"}
    joined = "".join(e.text for e in elements)
    for line in pymupdf.open(stream=data)[0].get_text().splitlines():
        assert line.strip() in joined  # every text line lands in some element
    assert [e.seq for e in elements] == list(range(len(elements)))
    assert "layout" in doc.engine_version


def test_a_rectangle_drawn_with_a_negative_width_gives_the_four_rulings_of_its_box():
    # "416 698 -150 22 re": the box from its right edge; unordered it read as one thin vertical rule
    from core.model import thaw
    from pdf_builders import raw_page_pdf

    data = raw_page_pdf({}, b"0 0 0 RG 416 698 -150 22 re S")
    sha = sha256_of(data)
    doc = parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="t.pdf", engine="fast").document
    rulings = thaw(doc.meta_value("rulings"))["1"]
    assert sorted(round(y) for y, _, _ in rulings["h"]) == [122, 144]
    assert sorted(round(x) for x, _, _ in rulings["v"]) == [266, 416]


def _bare_form_page(p):
    """A form of bare boxes and no captions (a widget test file, flattened): a value box, a rotated
    one, two check boxes and a radio ring, with a colour fill and curves, so no ruled area."""
    p.draw_rect((300, 130, 450, 152), color=(0, 0, 0), fill=(0.8, 0.8, 0.8))
    p.insert_text((304, 146), "221B Baker Street", fontsize=11)
    p.draw_rect((200, 100, 220, 220), color=(0, 0, 0), fill=(0.8, 0.8, 0.8))
    p.insert_text((214, 215), "45", fontsize=11, rotate=90)
    for x in (210, 245):
        p.draw_rect((x, 256, x + 18, 274), color=(0, 0, 0))
    p.draw_circle((318, 265), 9, color=(0, 0, 0))
    p.draw_rect((370, 292, 468, 306), color=None, fill=(0.6, 0.75, 0.85))
    p.insert_text((372, 303), "E", fontsize=11)


def test_a_layout_picture_over_a_forms_empty_check_boxes_keeps_them_and_its_text():
    # the model may call a form of bare boxes a "picture"; its squares were dropped as a figure's
    # parts and its text held inside the picture, so the flattened form showed no field at all
    from core.ingest.layout_engine import layout_drafts
    from core.ingest.page_facts import read_page

    page = pymupdf.open(stream=build_pdf(_bare_form_page, size=(612, 792)))[0]
    facts = read_page(page)
    drafts, extras = layout_drafts(page, facts, [(195, 95, 475, 310, "picture", ())])
    squares = [d for d in extras if d.attrs.get("kind") == "square"]
    assert len(squares) == 3
    texts = " ".join(d.text or " ".join(ln.text for ln in d.lines) for d in drafts + extras
                     if d.category is not Category.PICTURE)
    assert "221B Baker Street" in texts and "45" in texts
    assert not any(d.lines for d in drafts if d.category is Category.PICTURE)


# ---- the sample documents: recall against their ground truth -------------------------------------
def _cli_lines(*argv) -> list[dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(list(argv))
    assert code == 0, out.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def layout_samples(sample_docs, tmp_path_factory):
    """The samples ingested once with the layout engine through the CLI, as a user would:
    (workspace root, sample paths, the JSON lines `ingest` printed)."""
    root = tmp_path_factory.mktemp("layout-ws")
    pdfs = sorted(str(p) for p in sample_docs.glob("*.pdf"))
    return root, pdfs, _cli_lines("ingest", *pdfs, "--workspace", str(root))


def test_cli_ingest_then_elements_shows_all_17_categories_across_the_samples(layout_samples):
    root, pdfs, lines = layout_samples
    assert [line["engine"] for line in lines] == ["layout"] * len(pdfs)
    assert all(line["created"] for line in lines)
    seen = Counter()
    for line in lines:
        for element in _cli_lines("elements", line["doc_id"], "--workspace", str(root)):
            seen[element["category"]] += 1
    missing = {c.value for c in Category} - set(seen)
    assert not missing, f"categories never produced: {sorted(missing)}"


SAMPLE_FLOORS = {
    # category: the recall the layout engine + refine must reach on every sample that has it
    "title": 1.0, "section_header": 0.75, "text": 0.45, "list_item": 0.9, "table": 1.0, "picture": 1.0,
    "caption": 1.0, "footnote": 1.0, "page_header": 1.0, "page_footer": 1.0, "formula": 1.0, "code": 1.0,
    "reference": 1.0, "document_index": 1.0, "form_field": 1.0, "selection_mark": 1.0, "decorative": 1.0,
}
FLAT_FORM_GAPS = {"form_field"}  # drawn value boxes of a flattened form are paired by core.forms.fields, not ingest


def test_layout_engine_finds_each_category_of_the_samples(layout_samples):
    root, pdfs, lines = layout_samples
    ws = open_workspace(root)
    table, failures = {}, []
    for line, pdf in zip(lines, pdfs):
        scores = recall_by_category(ws.load_machine_document(line["doc_id"]), load_truth(Path(pdf)))
        table[line["source"]] = scores
        for category, (hit, n) in scores.items():
            if "flat" in line["source"] and category in FLAT_FORM_GAPS:
                continue
            if hit / n < SAMPLE_FLOORS[category]:
                failures.append(f"{line['source']}: {category} {hit}/{n}")
    print("\nlayout engine recall\n" + format_table(table))
    assert not failures


def test_fast_engine_finds_each_category_of_the_samples(sample_docs, workspace):
    table, failures = {}, []
    for pdf in sorted(sample_docs.glob("*.pdf")):
        record = ingest_path(workspace, pdf, engine="fast").record
        scores = recall_by_category(workspace.load_machine_document(record.doc_id), load_truth(pdf))
        table[pdf.name] = scores
        for category, (hit, n) in scores.items():
            if "flat" in pdf.name and category in FLAT_FORM_GAPS | {"text"}:
                continue  # the flat form's key/value grid is read as a ruled table by the fast engine
            if hit / n < SAMPLE_FLOORS[category]:
                failures.append(f"{pdf.name}: {category} {hit}/{n}")
    print("\nfast engine recall\n" + format_table(table))
    assert not failures


def test_the_lean_widget_reader_agrees_with_pymupdfs_own(realdata, sample_docs):
    from core.ingest.display import Display
    from core.ingest.widgets import read_widgets_full, read_widgets_lean

    files = sorted((realdata / "pdfs" / "forms").glob("*.pdf")) + [sample_docs / "shinseisho_form.pdf"]
    compared = 0
    for path in files:
        for page in pymupdf.open(path):
            show = Display(page)
            lean, full = read_widgets_lean(page, show), read_widgets_full(page, show)
            assert lean == full, f"{path.name} page {page.number + 1}"
            compared += len(lean)
    assert compared > 100


def test_a_page_that_crashes_the_layout_model_falls_back_to_the_fast_engine(workspace, realdata):
    """MuPDF segfaults while the model reads page 22 of the AI事業者ガイドライン本編; the model runs
    in a child process, so ingest survives, and that page is read by the fast engine instead."""
    source = pymupdf.open(realdata / "pdfs" / "ja" / "ai_jigyosha_guideline_honpen_siryo1.pdf")
    source.select([20, 21])  # a page the model reads, then the crashing one
    data = source.tobytes(garbage=3, deflate=True)
    record = ingest_bytes(workspace, data, "honpen_p21-22.pdf", engine="layout").record
    doc = workspace.load_machine_document(record.doc_id)
    assert doc.meta_value("fallback_pages") == (2,)
    first, crashed = doc.pages
    assert first.notice is None and {e.source for e in first.elements} == {"layout"}
    assert "layout model failed" in crashed.notice
    assert crashed.elements and {e.source for e in crashed.elements} == {"fast"}
    text = "".join(e.text for e in crashed.elements)
    assert text and all(line.strip() in text for line in source[1].get_text().splitlines()[:5] if line.strip())


def test_vertical_writing_reads_right_to_left(realdata):
    doc = fast((realdata / "pdfs" / "ja" / "miyazawa_haru_to_shura_jo_dvipdfmx.pdf").read_bytes())
    texts = [e.text for e in sorted(doc.page(1).elements, key=lambda e: e.seq)]
    first, second = texts.index("わたくしといふ現象は"), texts.index("假定された有機交流電燈の")
    assert texts[0] == "序" and first < second


def test_lines_outside_every_model_box_keep_their_font_facts():
    """Failed before: the layout engine's loose lines became elements with no attrs, so a check
    glyph set in ZapfDingbats inside a box was not known for a tick (a flattened form's ticked
    boxes read "unknown" with the layout engine) and a typed value had no size."""
    from core.ingest.layout_engine import loose_line_drafts
    from core.ingest.page_facts import read_page

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    page.insert_text((102, 190), "4", fontname="zadb", fontsize=12)
    page.insert_text((300, 400), "Jordan A. Whitfield", fontname="helv", fontsize=7)
    drafts = loose_line_drafts(read_page(page).lines, "layout")
    facts = sorted((tuple(d.attrs.get("fonts", ())), d.attrs.get("size")) for d in drafts)
    assert facts == [(("Helvetica",), 7.0), (("ZapfDingbats",), 12.0)]
