"""Azure Document Intelligence import: v3/v4 analyzeResult and v2.1 layout, fixtures and real outputs."""
from __future__ import annotations

import io
import json
import re
import tempfile
from collections import Counter

import pytest
from PIL import Image

from core.categories import LABEL_MAPS, Category
from core.errors import BadInput, MalformedImport
from core.ingest.importers import import_file, page_source, parse_import
from core.store.opening import open_workspace
from tests.importer_support import FIXTURES, box_text_match, category_counts, need_peer, pdf_with_texts

V4 = FIXTURES / "azure_v4_small.json"
V21 = FIXTURES / "azure_v21_small.json"


def v4_doc(pages=None):
    return parse_import(V4.read_bytes(), "azure", V4.name, pages)


def by_text(doc, text):
    return next(e for e in doc.elements() if e.text == text)


def test_v4_roles_tables_figures_marks_and_pairs_become_their_categories():
    assert category_counts(v4_doc()) == {
        "page_header": 1, "title": 1, "section_header": 1, "text": 3, "caption": 2, "table": 1, "footnote": 3,
        "picture": 1, "formula": 1, "selection_mark": 1, "form_field": 3, "page_footer": 1,
    }
    doc = v4_doc()
    assert by_text(doc, "E = mc^2").category is Category.FORMULA
    assert by_text(doc, "- 1 -").category is Category.PAGE_FOOTER and by_text(doc, "- 1 -").attr("azure_role") == "pageNumber"
    assert by_text(doc, "注1 詳細は別表による。").category is Category.FOOTNOTE


def test_v4_polygons_in_inches_become_points_by_min_max():
    doc = v4_doc()
    assert (doc.page(1).width, doc.page(1).height) == (612, 792)
    assert by_text(doc, "経費精算の手引き").bbox == (72, 72, 288, 100.8)


def test_v4_boxes_land_on_the_text_of_a_pdf_drawn_from_the_same_coordinates():
    payload = json.loads(V4.read_text(encoding="utf-8"))
    placements = [(1, p["content"], tuple(v * 72 for v in (p["boundingRegions"][0]["polygon"][0],
                                                         p["boundingRegions"][0]["polygon"][1],
                                                         p["boundingRegions"][0]["polygon"][4],
                                                         p["boundingRegions"][0]["polygon"][5])))
                  for p in payload["analyzeResult"]["paragraphs"]]
    pdf = pdf_with_texts((612, 792), placements)
    doc = v4_doc(page_source(pdf))
    matched, total, misses = box_text_match(doc, pdf, skip=("table", "picture", "form_field"))
    assert total >= 12 and matched == total, misses


def test_v4_table_cells_use_rowspan_and_columnspan_and_are_not_repeated_as_paragraphs():
    doc = v4_doc()
    table = next(e for e in doc.elements() if e.category is Category.TABLE)
    cells = [dict(c) for c in table.attr("cells")]
    assert next(c for c in cells if c["text"] == "1,000円")["row_span"] == 2
    assert next(c for c in cells if c["text"] == "区分")["column_header"] is True
    assert not any(e.text == "交通費" for e in doc.elements() if e.category is not Category.TABLE)
    assert table.bbox == (72, 208.8, 360, 273.6)  # the cells' extent, not the caption's region too

    payload = json.loads(V4.read_text(encoding="utf-8"))
    payload["analyzeResult"]["tables"][0]["cells"][0].update(columnSpan=2, colSpan=5)
    wide = parse_import(json.dumps(payload).encode(), "azure", "x.json")
    first = dict(next(e for e in wide.elements() if e.category is Category.TABLE).attr("cells")[0])
    assert first["col_span"] == 2  # `columnSpan` is Azure's key; a stray `colSpan` is not read


def test_v4_figure_box_leaves_out_its_caption_and_caption_and_footnotes_are_linked():
    doc = v4_doc()
    picture = next(e for e in doc.elements() if e.category is Category.PICTURE)
    table = next(e for e in doc.elements() if e.category is Category.TABLE)
    assert picture.bbox == (72, 345.6, 288, 468)
    assert by_text(doc, "図1 申請の流れ").links == (picture.id,)
    assert by_text(doc, "※2 図は概略").links == (picture.id,)
    assert by_text(doc, "表1 精算区分").links == (table.id,) and by_text(doc, "※1 税込").links == (table.id,)
    assert by_text(doc, "申請").attr("parent") == picture.id


def test_v4_key_value_pairs_pair_up_and_a_missing_value_is_an_empty_value():
    from core.forms.fields import extract_fields

    doc = v4_doc()
    key, value, lonely = by_text(doc, "所属:"), by_text(doc, "経理部"), by_text(doc, "氏名:")
    assert key.attr("kv_value_id") == value.id and key.attr("kv_confidence") == 0.91
    assert lonely.attr("kv_value_id") == "" and lonely.attr("kv_empty") is True
    fields = {f.key: f for f in extract_fields(doc)}
    assert fields["所属"].value == "経理部" and fields["氏名"].value_type == "empty_value"


def test_v4_selection_marks_keep_their_state():
    mark = next(e for e in v4_doc().elements() if e.category is Category.SELECTION_MARK)
    assert mark.state == "selected" and mark.attr("confidence") == 0.97


def test_markdown_results_read_clean_text_from_words_counting_offsets_in_utf16():
    # "𠮷" is one code point but two UTF-16 units: offsets after it are off by one if read as code points.
    content = '<!-- PageHeader="𠮷野家 社内報" -->\n\n# 1\\. 概要\n\n本文です。\n続きです。'
    def span(text):
        start = content.encode("utf-16-le").find(text.encode("utf-16-le")) // 2
        return {"offset": start, "length": len(text.encode("utf-16-le")) // 2}
    words = [{"content": w, "polygon": [1, 1, 2, 1, 2, 1.2, 1, 1.2], "span": span(w)}
             for w in ("𠮷野家", "社内報", "1.", "概要", "本文です。", "続きです。")]
    words[2]["span"] = span("1\\.")
    paragraph = lambda text, role=None: {"content": text, "spans": [span(text)], **({"role": role} if role else {}),
                                         "boundingRegions": [{"pageNumber": 1, "polygon": [1, 1, 2, 1, 2, 1.2, 1, 1.2]}]}
    result = {"apiVersion": "2024-11-30", "modelId": "prebuilt-layout", "contentFormat": "markdown",
              "content": content, "pages": [{"pageNumber": 1, "width": 8.5, "height": 11, "unit": "inch",
                                             "words": words}],
              "paragraphs": [paragraph('<!-- PageHeader="𠮷野家 社内報" -->', "pageHeader"),
                             paragraph("# 1\\. 概要", "sectionHeading"), paragraph("本文です。\n続きです。")]}
    doc = parse_import(json.dumps({"analyzeResult": result}).encode(), "azure", "md.json")
    assert [e.text for e in doc.elements()] == ["𠮷野家 社内報", "1. 概要", "本文です。\n続きです。"]


def test_markdown_paragraphs_without_words_fall_back_to_stripping_the_markup():
    from core.ingest.azure import clean_markdown

    assert clean_markdown('<!-- PageFooter="社外秘 1" -->') == "社外秘 1"
    assert clean_markdown("# 2\\. 対象\n") == "2. 対象"
    assert clean_markdown(":selected:\n承認") == "承認"


def test_v21_lines_tables_and_selection_marks_in_pixels():
    doc = parse_import(V21.read_bytes(), "azure", V21.name)
    assert category_counts(doc) == {"text": 4, "selection_mark": 2, "table": 1}
    assert (doc.page(1).width, doc.page(1).height) == (1000, 1400)  # no PDF: one pixel per point
    table = next(e for e in doc.elements() if e.category is Category.TABLE)
    assert next(dict(c) for c in table.attr("cells") if dict(c)["text"] == "1,000 円")["row_span"] == 2
    assert not any(e.text == "交通費" for e in doc.elements() if e.category is Category.TEXT)
    marks = [e for e in doc.elements() if e.category is Category.SELECTION_MARK]
    assert [m.state for m in marks] == ["selected", "unselected"]
    texts = [e.text or e.state for e in doc.page(1).elements]
    assert texts.index("selected") < texts.index("日帰り")  # a mark reads before the label beside it


def test_an_image_given_as_the_page_becomes_a_one_page_pdf_and_pixels_scale_to_it(tmp_path):
    buffer = io.BytesIO()
    Image.new("RGB", (1000, 1400), "white").save(buffer, format="PNG", dpi=(144, 144))
    ws = open_workspace(tmp_path)
    result = import_file(ws, V21, "azure", pdf=buffer.getvalue())
    page = result.document.page(1)
    assert page.notice is None and (page.width, page.height) == (500, 700)  # 1000 px at 144 dpi = 500 pt
    assert by_text(result.document, "出張申請書").bbox == (50, 50, 200, 75)
    assert ws.document_pdf(result.record.doc_id) is not None


@pytest.mark.parametrize("mutate, message", [
    (lambda r: r.pop("pages"), "neither 'pages'"),
    (lambda r: r["pages"][0].pop("unit"), "'unit'"),
    (lambda r: r["pages"][0].update(unit="cm"), "'cm'"),
    (lambda r: r["paragraphs"][1].update(role="marginalia"), "'marginalia'"),
    (lambda r: r["paragraphs"][1]["boundingRegions"][0].update(polygon=[1, 2, 3]), "polygon"),
    (lambda r: r["tables"][0]["cells"][0].pop("rowIndex"), "'rowIndex'"),
    (lambda r: r["pages"][0]["selectionMarks"][0].update(state="maybe"), "'maybe'"),
    (lambda r: r["keyValuePairs"][0].pop("key"), "'key'"),
], ids=["no-pages", "no-unit", "unknown-unit", "unknown-role", "odd-polygon", "cell-without-row", "bad-state",
        "pair-without-key"])
def test_v4_schema_faults_name_what_is_wrong_and_leave_the_workspace_unchanged(tmp_path, mutate, message):
    payload = json.loads(V4.read_text(encoding="utf-8"))
    mutate(payload["analyzeResult"])
    ws = open_workspace(tmp_path)
    with pytest.raises(BadInput) as err:
        import_file(ws, json.dumps(payload).encode(), "azure", name="bad.json")
    assert message in str(err.value)
    assert ws.documents() == []


def test_v21_schema_fault_is_named(tmp_path):
    payload = json.loads(V21.read_text(encoding="utf-8"))
    del payload["analyzeResult"]["readResults"][0]["lines"][0]["boundingBox"]
    with pytest.raises(MalformedImport, match="boundingBox"):
        import_file(open_workspace(tmp_path), json.dumps(payload).encode(), "azure")


def test_a_textract_file_given_as_azure_says_which_format_it_is():
    with pytest.raises(MalformedImport, match="--format textract"):
        parse_import((FIXTURES / "textract_small.json").read_bytes(), "azure", "x.json")


# ---- real Azure outputs --------------------------------------------------------------------------
V4_REAL = "azure/v4_layout_pageobject/layout-pageobject.azure_2024-02-29-preview_layout.json"
V21_REAL = "azure/v2.1_layout_form10q/sample-layout.azure_v2.1_layout.json"


def v4_source_counts(result) -> Counter:
    """The result's own count: paragraphs by role (a table's cell paragraphs are the table; a figure's or
    table's caption/footnote paragraphs are captions/footnotes), tables, figures, selection marks."""
    ref = lambda r: int(r.rsplit("/", 1)[1])
    cell_paragraphs = {ref(x) for t in result.get("tables", []) for c in t["cells"] for x in c.get("elements", [])}
    captions = {ref(x) for kind in ("tables", "figures") for item in result.get(kind, [])
                for x in (item.get("caption") or {}).get("elements", [])}
    footnotes = {ref(x) for kind in ("tables", "figures") for item in result.get(kind, [])
                 for f in item.get("footnotes", []) for x in f.get("elements", [])}
    counts: Counter = Counter()
    for i, p in enumerate(result["paragraphs"]):
        if i in cell_paragraphs:
            continue
        category = "caption" if i in captions else "footnote" if i in footnotes else \
            LABEL_MAPS["azure"][p.get("role", "paragraph")].value
        counts[category] += 1
    counts["table"] += len(result.get("tables", []))
    counts["picture"] += len(result.get("figures", []))
    counts["selection_mark"] += sum(len(p.get("selectionMarks", [])) for p in result["pages"])
    return +counts


def test_real_v4_result_imports_with_the_sources_own_counts_and_linked_captions():
    path = need_peer(V4_REAL)
    result = json.loads(path.read_text())["analyzeResult"]
    doc = parse_import(path.read_bytes(), "azure", path.name)
    assert category_counts(doc) == dict(v4_source_counts(result))
    by_ref = {e.attr("source_ref"): e for e in doc.elements()}
    for kind in ("tables", "figures"):
        for i, item in enumerate(result.get(kind, [])):
            for x in (item.get("caption") or {}).get("elements", []):
                assert by_ref[f"/{kind}/{i}"].id in by_ref[x].links
    assert all("<!--" not in e.text and ":selected:" not in e.text for e in doc.elements())
    assert by_text(doc, "This is the header of the document.").category is Category.PAGE_HEADER


def test_real_v21_result_imports_with_the_sources_own_counts_and_boxes_on_the_pdf_text():
    path, pdf = need_peer(V21_REAL), need_peer("azure/v2.1_layout_form10q/sample-layout.pdf")
    result = json.loads(path.read_text())["analyzeResult"]
    in_tables = {tuple(map(int, re.findall(r"\d+", x)[:2])) for pr in result["pageResults"] for t in pr["tables"]
                 for c in t["cells"] for x in c["elements"]}
    lines = sum(1 for r, rr in enumerate(result["readResults"]) for n, _ in enumerate(rr["lines"])
                if (r, n) not in in_tables)
    doc = import_file(open_workspace(tempfile.mkdtemp()), path, "azure", pdf=pdf).document
    assert category_counts(doc) == {
        "text": lines, "table": sum(len(pr["tables"]) for pr in result["pageResults"]),
        "selection_mark": sum(len(rr.get("selectionMarks", [])) for rr in result["readResults"])}
    matched, total, misses = box_text_match(doc, pdf)
    print(f"azure v2.1: {matched}/{total} imported boxes hold their text in the PDF")
    assert matched / total >= 0.95, misses
