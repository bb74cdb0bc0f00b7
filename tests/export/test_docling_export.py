"""Docling export: valid against docling-core's model, round-trips through our importer, carries
corrections, and never carries a redacted value."""
from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.categories import Category
from core.export.docling import docling_export_for, export_docling, file_name
from core.forms.fields import extract_fields
from core.ingest.importers import import_file, parse_import
from core.model import Document, Element, Page, element_id
from core.store.opening import open_workspace
from tests.importer_support import FIXTURES, need_peer

docling_doc = pytest.importorskip("docling_core.types.doc")


def validate(payload):
    """docling-core's own pydantic model; a clamping warning means a box fell off its page."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return docling_doc.DoclingDocument.model_validate(json.loads(json.dumps(payload)))


def imported(name, fmt):
    path = FIXTURES / name
    return parse_import(path.read_bytes(), fmt, path.name)


def comparable(doc):
    """Every element but the multi-page parts (compared separately) and key/value regions (the graph's box)."""
    return sorted((e.page, e.category.value, tuple(round(v, 1) for v in e.bbox), e.text)
                  for e in doc.elements() if not e.attr("parts") and e.attr("kv_role") != "region")


@pytest.mark.parametrize("name, fmt", [("docling_small.json", "docling"), ("azure_v4_small.json", "azure"),
                                       ("textract_small.json", "textract"), ("azure_v21_small.json", "azure")])
def test_export_of_every_imported_fixture_is_a_valid_docling_document(name, fmt):
    validate(export_docling(imported(name, fmt)))


def test_export_round_trips_through_the_docling_importer():
    doc = imported("docling_small.json", "docling")
    again = parse_import(json.dumps(export_docling(doc)).encode(), "docling", "again.json")
    assert comparable(again) == comparable(doc)
    assert {e.text for e in again.elements() if e.attr("parts")} == {"精算は月末までに行い、", "翌月に支払う。"}


def test_captions_footnotes_tables_and_furniture_keep_their_docling_shape():
    out = export_docling(imported("docling_small.json", "docling"))
    parsed = validate(out)
    table = next(t for t in parsed.tables if t.label == "table")
    assert [parsed.texts[int(r.cref.rsplit("/", 1)[1])].text for r in table.captions] == ["表1 精算区分"]
    assert [parsed.texts[int(r.cref.rsplit("/", 1)[1])].text for r in table.footnotes] == ["※1 税込金額"]
    assert [parsed.texts[int(r.cref.rsplit("/", 1)[1])].text for r in parsed.pictures[0].captions] == ["図1 申請の流れ"]
    spanning = next(c for c in table.data.table_cells if c.text == "1,000円")
    assert (spanning.col_span, spanning.start_col_offset_idx, spanning.end_col_offset_idx) == (2, 1, 3)
    header = next(t for t in parsed.texts if t.text == "経費精算規程")
    assert header.label == "page_header" and header.content_layer.value == "furniture"
    assert {t.label.value for t in parsed.texts} >= {"checkbox_selected", "checkbox_unselected", "code", "formula",
                                                     "reference", "list_item", "section_header", "title"}
    assert any(t.label == "document_index" for t in parsed.tables)
    split = [t for t in parsed.texts if len(t.prov) == 2]
    assert len(split) == 1 and split[0].text == "精算は月末までに行い、翌月に支払う。"


def test_form_fields_become_a_key_value_graph_with_empty_values_kept():
    parsed = validate(export_docling(imported("azure_v4_small.json", "azure")))
    graph = parsed.key_value_items[0].graph
    texts = {c.cell_id: c.text for c in graph.cells}
    pairs = {texts[l.source_cell_id]: texts[l.target_cell_id] for l in graph.links}
    assert pairs["所属"] == "経理部"
    assert "氏名" in texts.values() and "氏名" not in pairs  # no value cell: the value is empty
    assert any(c.label.value == "checkbox" and c.text == "selected" for c in graph.cells)


def test_corrections_flow_into_the_export(tmp_path):
    ws = open_workspace(tmp_path)
    doc = import_file(ws, FIXTURES / "docling_small.json", "docling").document
    body = next(e for e in doc.elements() if e.text == "本規程は経費精算の手続を定める。")
    reference = next(e for e in doc.elements() if e.category is Category.REFERENCE)
    ws.append_events(doc.doc_id, [{"kind": "relabel", "target": body.id, "category": "section_header"},
                                  {"kind": "delete_element", "target": reference.id}], actor="test")
    parsed = validate(docling_export_for(ws, doc.doc_id))
    assert next(t for t in parsed.texts if t.text == body.text).label == "section_header"
    assert not any(t.text == reference.text for t in parsed.texts)


def test_redacted_values_never_appear_in_the_export(tmp_path):
    # Textract fixture: "Name" is a sensitive key, redacted by default; its value also sits in the
    # LAYOUT_KEY_VALUE region's text, which must be scrubbed too.
    out = json.dumps(export_docling(imported("textract_small.json", "textract")), ensure_ascii=False)
    assert "Taro" not in out and "Yamada" not in out and "[REDACTED]" in out

    ws = open_workspace(tmp_path)
    doc = import_file(ws, FIXTURES / "docling_small.json", "docling").document
    assert "経理部" in json.dumps(docling_export_for(ws, doc.doc_id), ensure_ascii=False)
    field = next(f for f in extract_fields(doc) if f.key == "所属")
    ws.append_events(doc.doc_id, [{"kind": "redact", "field": field.id}], actor="test")
    after = json.dumps(docling_export_for(ws, doc.doc_id), ensure_ascii=False)
    assert "経理部" not in after and "所属" in after


def test_real_docling_output_survives_import_then_export():
    path = need_peer("docling/code_and_formula/code_and_formula.docling.json")
    doc = parse_import(path.read_bytes(), "docling", path.name)
    parsed = validate(export_docling(doc))
    original = docling_doc.DoclingDocument.model_validate(json.loads(path.read_text()))
    assert sorted(t.label.value for t in parsed.texts) == sorted(t.label.value for t in original.texts)
    assert [len(p.captions) for p in parsed.texts if p.label == "code"] == [1]


def test_download_name_is_safe():
    assert file_name("../経費 精算?.pdf") == "経費_精算_.docling.json"


# ---- property: any document of boxes on its pages exports valid and comes back the same ----------
EXPORTABLE = [c for c in Category if c not in (Category.FORM_FIELD,)]


@st.composite
def documents(draw):
    width, height = draw(st.sampled_from([(595.0, 842.0), (842.0, 595.0), (612.0, 792.0)]))
    elements = []
    for seq in range(draw(st.integers(1, 8))):
        x0 = draw(st.floats(0, width - 20, allow_nan=False))
        y0 = draw(st.floats(0, height - 20, allow_nan=False))
        box = (x0, y0, draw(st.floats(x0 + 1, width, allow_nan=False)), draw(st.floats(y0 + 1, height, allow_nan=False)))
        category = draw(st.sampled_from(EXPORTABLE))
        text = "" if category in (Category.PICTURE, Category.SELECTION_MARK) else \
            draw(st.text(alphabet="経費精算ABCabc123 。", min_size=1, max_size=12)).strip() or "x"
        state = draw(st.sampled_from(["selected", "unselected"])) if category is Category.SELECTION_MARK else None
        elements.append(Element(element_id("d" * 16, 1, box, text, str(seq)), 1, seq, category, box, text, "test",
                                state=state))
    return Document("d" * 16, "prop.pdf", "d" * 64, "layout", (Page(1, width, height, elements=tuple(elements)),))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_any_document_exports_valid_and_imports_back_with_the_same_boxes_and_categories(doc):
    out = export_docling(doc, fields=[])
    validate(out)
    again = parse_import(json.dumps(out).encode(), "docling", "prop.json")
    want = sorted((e.category.value if e.category is not Category.TABLE or e.text else "table",
                   tuple(round(v, 1) for v in e.bbox)) for e in doc.elements())
    got = sorted((e.category.value, tuple(round(v, 1) for v in e.bbox)) for e in again.elements())
    decorative_as_text = [(("decorative" if c == "decorative" else c), b) for c, b in got]
    assert decorative_as_text == want
    states = sorted(e.state for e in doc.elements() if e.state)
    assert sorted(e.state for e in again.elements() if e.state) == states
