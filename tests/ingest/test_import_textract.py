"""AWS Textract import: LAYOUT, TABLE/CELL/MERGED_CELL, KEY_VALUE_SET, SELECTION_ELEMENT; fixture and real responses."""
from __future__ import annotations

import copy
import json
import tempfile
from collections import Counter

import pytest

from core.categories import LABEL_MAPS, Category
from core.errors import BadInput, MalformedImport
from core.ingest.importers import import_file, page_source, parse_import
from core.store.opening import open_workspace
from tests.importer_support import FIXTURES, box_text_match, category_counts, need_peer, pdf_with_texts

FIXTURE = FIXTURES / "textract_small.json"


def fixture_doc(pages=None):
    return parse_import(FIXTURE.read_bytes(), "textract", FIXTURE.name, pages)


def by_text(doc, text):
    return next(e for e in doc.elements() if e.text == text)


def by_source(doc, block_id):
    return next(e for e in doc.elements() if e.attr("source_ref") == block_id)


def test_layout_table_key_value_and_selection_blocks_become_their_categories():
    assert category_counts(fixture_doc()) == {
        "page_header": 1, "title": 1, "text": 1, "list_item": 2, "picture": 1, "caption": 1, "table": 1,
        "footnote": 1, "selection_mark": 2, "form_field": 7, "page_footer": 2,
    }


def test_ratios_scale_by_the_pdf_page_size_and_default_to_a4_without_one():
    doc = fixture_doc()
    assert doc.page(1).notice.startswith("no source PDF: blank page") and doc.page(1).width == 595.28
    sized = fixture_doc(page_source(pdf_with_texts((600, 800), [])))
    assert by_text(sized, "Travel Report").bbox == (60, 48, 300, 80)
    assert sized.page(1).notice is None


def test_boxes_land_on_the_lines_of_a_pdf_drawn_at_the_same_ratios():
    payload = json.loads(FIXTURE.read_text())
    placements = []
    for b in payload["Blocks"]:
        if b["BlockType"] == "LINE":
            g = b["Geometry"]["BoundingBox"]
            placements.append((1, b["Text"], (g["Left"] * 600, g["Top"] * 800, (g["Left"] + g["Width"]) * 600,
                                              (g["Top"] + g["Height"]) * 800)))
    pdf = pdf_with_texts((600, 800), placements)
    doc = fixture_doc(page_source(pdf))
    matched, total, misses = box_text_match(doc, pdf, skip=("table", "picture", "form_field"))
    assert total >= 9 and matched == total, misses


def test_a_layout_table_over_a_table_is_one_table_with_merged_cells():
    doc = fixture_doc()
    table = next(e for e in doc.elements() if e.category is Category.TABLE)
    assert table.attr("layout_id") == "layout-table" and table.attr("textract_type") == "TABLE"
    cells = [dict(c) for c in table.attr("cells")]
    merged = next(c for c in cells if c["row"] == 1 and c["col"] == 1)
    assert (merged["row_span"], merged["text"]) == (2, "100 ☐")
    assert len(cells) == 5 and next(c for c in cells if c["text"] == "Item")["column_header"] is True
    assert table.text.splitlines()[0] == "Item | Cost"


def test_table_title_and_footer_are_a_caption_and_a_footnote_linked_to_their_table():
    doc = fixture_doc()
    table = next(e for e in doc.elements() if e.category is Category.TABLE)
    assert by_text(doc, "Table 1 Costs").category is Category.CAPTION
    assert by_text(doc, "Table 1 Costs").links == (table.id,)
    assert by_text(doc, "* incl. tax").category is Category.FOOTNOTE and by_text(doc, "* incl. tax").links == (table.id,)


def test_key_finds_its_value_through_the_value_relationship_and_its_words_through_child():
    doc = fixture_doc()
    key, value = by_text(doc, "Name:"), by_text(doc, "Taro Yamada")
    assert key.attr("kv_value_id") == value.id and key.attr("kv_pair") == value.attr("kv_pair") == "key-name"
    assert key.attr("kv_confidence") == 0.95


def test_a_value_without_child_is_an_empty_value():
    from core.forms.fields import extract_fields

    doc = fixture_doc()
    key, value = by_text(doc, "Department:"), by_source(doc, "value-dept")
    assert value.text == "" and value.attr("kv_empty") is True and key.attr("kv_value_id") == value.id
    assert {f.key: f for f in extract_fields(doc)}["Department"].value_type == "empty_value"


def test_a_selection_element_under_a_value_gives_the_fields_state():
    from core.forms.fields import extract_fields

    doc = fixture_doc()
    key, mark = by_text(doc, "Day trip"), by_source(doc, "sel-day")
    assert mark.category is Category.SELECTION_MARK and mark.state == "selected"
    assert key.attr("kv_value_id") == mark.id and by_source(doc, "value-day").attr("selection_state") == "selected"
    field = {f.key: f for f in extract_fields(doc)}["Day trip"]
    assert (field.value_type, field.selection_state) == ("selection_mark", "selected")
    in_cell = by_source(doc, "sel-cell")
    assert in_cell.state == "unselected" and in_cell.attr("parent") == by_source(doc, "table-1").id


def test_layout_list_children_are_list_items_and_reading_order_follows_the_page():
    doc = fixture_doc()
    texts = [e.text for e in doc.page(1).elements]
    assert [by_text(doc, t).category for t in ("- Train fares", "- Hotel")] == [Category.LIST_ITEM] * 2
    assert texts.index("CONFIDENTIAL") < texts.index("Travel Report") < texts.index("- Hotel") \
        < texts.index("Table 1 Costs") < texts.index("Name:") < texts.index("Sample Corp.")
    assert by_text(doc, "1").category is Category.PAGE_FOOTER and by_text(doc, "1").attr("textract_type") == \
        "LAYOUT_PAGE_NUMBER"


def test_without_layout_lines_are_the_text_and_page_fields_place_blocks_on_their_pages():
    def line(i, page, text, top):
        return {"BlockType": "LINE", "Id": f"l{i}", "Page": page, "Text": text, "Confidence": 99.0,
                "Geometry": {"BoundingBox": {"Left": 0.1, "Top": top, "Width": 0.5, "Height": 0.02}}}
    geometry = {"BoundingBox": {"Left": 0, "Top": 0, "Width": 1, "Height": 1}}
    payload = {"DocumentMetadata": {"Pages": 2}, "Blocks": [
        {"BlockType": "PAGE", "Id": "p1", "Page": 1, "Geometry": geometry, "Relationships": [{"Type": "CHILD", "Ids": ["l1"]}]},
        line(1, 1, "first page", 0.1),
        {"BlockType": "PAGE", "Id": "p2", "Page": 2, "Geometry": geometry, "Relationships": [{"Type": "CHILD", "Ids": ["l2"]}]},
        line(2, 2, "second page", 0.2)]}
    doc = parse_import(json.dumps(payload).encode(), "textract", "async.json")
    assert [(e.page, e.category, e.text) for e in doc.elements()] == [
        (1, Category.TEXT, "first page"), (2, Category.TEXT, "second page")]


@pytest.mark.parametrize("mutate, message", [
    (lambda p: p.pop("Blocks"), "not AWS Textract output"),
    (lambda p: p.update(Blocks=[b for b in p["Blocks"] if b["BlockType"] != "PAGE"]), "no PAGE block"),
    (lambda p: p["Blocks"][3]["Geometry"]["BoundingBox"].update(Top="0.1"), "Top should be a number"),
    (lambda p: next(b for b in p["Blocks"] if b["Id"] == "key-name")["Relationships"][0].update(Ids=["ghost"]),
     "ghost"),
    (lambda p: next(b for b in p["Blocks"] if b["Id"] == "sel-day").update(SelectionStatus="MAYBE"), "'MAYBE'"),
    (lambda p: next(b for b in p["Blocks"] if b["Id"] == "cell-11").pop("RowIndex"), "'RowIndex'"),
], ids=["no-blocks", "no-page", "string-coordinate", "dangling-relationship", "bad-selection",
        "cell-without-row"])
def test_schema_faults_name_what_is_wrong_and_leave_the_workspace_unchanged(tmp_path, mutate, message):
    payload = json.loads(FIXTURE.read_text())
    mutate(payload)
    ws = open_workspace(tmp_path)
    with pytest.raises(BadInput) as err:
        import_file(ws, json.dumps(payload).encode(), "textract", name="bad.json")
    assert message in str(err.value)
    assert ws.documents() == [] and list(ws.pdf_dir.iterdir()) == []


# ---- real Textract responses ---------------------------------------------------------------------
REAL = {"form": ("textract/form/form.textract_analyze.json", "textract/form/form.png"),
        "invoice": ("textract/sample-invoice/sample-invoice.textract_analyze.json",
                    "textract/sample-invoice/sample-invoice.pdf")}


def source_counts(blocks) -> Counter:
    """The response's own count: each LAYOUT block by its type (a LAYOUT_TABLE is the TABLE it frames),
    each TABLE, TABLE_TITLE, TABLE_FOOTER, KEY_VALUE_SET and SELECTION_ELEMENT."""
    kinds = Counter(b["BlockType"] for b in blocks)
    counts: Counter = Counter()
    for kind, n in kinds.items():
        if kind.startswith("LAYOUT_") and kind != "LAYOUT_TABLE" or kind in (
                "TABLE_TITLE", "TABLE_FOOTER", "KEY_VALUE_SET", "SELECTION_ELEMENT"):
            counts[LABEL_MAPS["textract"][kind].value] += n
    counts["table"] += max(kinds["TABLE"], kinds["LAYOUT_TABLE"])
    return +counts


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_textract_response_imports_with_the_sources_own_counts(name):
    path, page = (need_peer(p) for p in REAL[name])
    blocks = json.loads(path.read_text())["Blocks"]
    doc = import_file(open_workspace(tempfile.mkdtemp()), path, "textract", pdf=page).document
    assert category_counts(doc) == dict(source_counts(blocks))


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_textract_keys_point_at_their_values_and_titles_at_their_tables(name):
    path = need_peer(REAL[name][0])
    blocks = {b["Id"]: b for b in json.loads(path.read_text())["Blocks"]}
    doc = parse_import(path.read_bytes(), "textract", path.name)
    by_ref = {e.attr("source_ref"): e for e in doc.elements()}
    keys = [b for b in blocks.values() if b["BlockType"] == "KEY_VALUE_SET" and "KEY" in b["EntityTypes"]]
    assert keys
    for key in keys:
        value_id = next(r["Ids"][0] for r in key["Relationships"] if r["Type"] == "VALUE")
        marks = [i for r in blocks[value_id].get("Relationships", []) if r["Type"] == "CHILD" for i in r["Ids"]
                 if blocks[i]["BlockType"] == "SELECTION_ELEMENT"]
        assert by_ref[key["Id"]].attr("kv_value_id") == by_ref[marks[0] if marks else value_id].id
    for table in (b for b in blocks.values() if b["BlockType"] == "TABLE"):
        for rel in table.get("Relationships", []):
            if rel["Type"] in ("TABLE_TITLE", "TABLE_FOOTER"):
                assert all(by_ref[table["Id"]].id in by_ref[i].links for i in rel["Ids"])


def test_real_invoice_boxes_land_on_the_pdf_text():
    path, pdf = (need_peer(p) for p in REAL["invoice"])
    doc = import_file(open_workspace(tempfile.mkdtemp()), path, "textract", pdf=pdf).document
    matched, total, misses = box_text_match(doc, pdf)
    print(f"textract invoice: {matched}/{total} imported boxes hold their text in the PDF; misses: {misses}")
    assert matched / total >= 0.95, misses


def test_real_form_image_becomes_the_page_and_selection_states_are_kept():
    path, png = (need_peer(p) for p in REAL["form"])
    ws = open_workspace(tempfile.mkdtemp())
    result = import_file(ws, path, "textract", pdf=png)
    page = result.document.page(1)
    assert page.notice is None and ws.document_pdf(result.record.doc_id) is not None
    blocks = json.loads(path.read_text())["Blocks"]
    want = Counter({"SELECTED": "selected", "NOT_SELECTED": "unselected"}[b["SelectionStatus"]]
                   for b in blocks if b["BlockType"] == "SELECTION_ELEMENT")
    assert Counter(e.state for e in result.document.elements() if e.category is Category.SELECTION_MARK) == want


# ---- Queries, and blocks without Geometry --------------------------------------------------------
def test_a_block_without_geometry_is_left_out_and_noted_never_refused():
    """Failed before: "Blocks[3] has no 'Geometry' key" refused the whole file."""
    payload = json.loads(FIXTURE.read_text())
    whole = parse_import(json.dumps(payload).encode(), "textract", "t.json")
    lost = next(b for b in payload["Blocks"] if b["BlockType"] == "LAYOUT_TITLE")
    lost.pop("Geometry")
    doc = parse_import(json.dumps(payload).encode(), "textract", "t.json")
    assert dict(doc.meta_value("not_held"))[f"{lost['BlockType']} without Geometry"] == 1
    assert lost["Id"] not in {e.attr("source_ref") for e in doc.elements()}
    assert sum(1 for _ in doc.elements()) == sum(1 for _ in whole.elements()) - 1


def query_payload(answer: bool) -> dict:
    payload = json.loads(FIXTURE.read_text())
    query = {"BlockType": "QUERY", "Id": "q1", "Query": {"Text": "出張者の氏名は？", "Alias": "traveller"}}
    payload["Blocks"].append(query)
    if answer:
        query["Relationships"] = [{"Type": "ANSWER", "Ids": ["r1"]}]
        payload["Blocks"].append({"BlockType": "QUERY_RESULT", "Id": "r1", "Confidence": 91.0, "Text": "山田 太郎",
                                  "Geometry": {"BoundingBox": {"Left": 0.5, "Top": 0.2, "Width": 0.2, "Height": 0.02}}})
    return payload


def test_a_query_and_its_answer_become_a_field_with_the_answers_box():
    from core.forms.fields import extract_fields

    doc = parse_import(json.dumps(query_payload(True)).encode(), "textract", "q.json",
                       page_source(pdf_with_texts((600, 800), [])))
    (field,) = [f for f in extract_fields(doc) if f.key == "出張者の氏名は？"]
    assert field.value == "山田 太郎" and field.source == "import" and field.confidence == 0.91
    assert field.value_bbox == (300, 160, 420, 176)
    assert "not_held" not in dict(doc.meta) or "QUERY" not in dict(doc.meta_value("not_held"))


def test_a_query_without_an_answer_is_noted():
    doc = parse_import(json.dumps(query_payload(False)).encode(), "textract", "q.json")
    assert dict(doc.meta_value("not_held"))["QUERY without an answer"] == 1


def test_the_real_paystub_with_queries_imports_with_its_answers_as_fields():
    from core.forms.fields import extract_fields

    path = need_peer("textract/paystub/paystub.textract_analyze.json")
    image = need_peer("textract/paystub/paystub.jpg")
    blocks = {b["Id"]: b for b in json.loads(path.read_text())["Blocks"]}
    want = {b["Query"]["Text"]: blocks[r["Ids"][0]]["Text"] for b in blocks.values() if b["BlockType"] == "QUERY"
            for r in b["Relationships"] if r["Type"] == "ANSWER"}
    assert len(want) == 3
    result = import_file(open_workspace(tempfile.mkdtemp()), path, "textract", pdf=image)
    fields = {f.key: f for f in extract_fields(result.document)}
    assert {k: fields[k].value for k in want} == want
    assert all(fields[k].value_bbox for k in want)
    assert dict(result.document.meta_value("not_held")) == {"SIGNATURE": 1}
