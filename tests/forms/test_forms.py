"""Form evidence: widgets, imported pairs, geometry, reviewer events, chunks and the forms CLI."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest

from core.categories import Category
from core.cli import main as cli_main
from core.review.corrections import corrected_document, record_events, undo_last
from core.forms.field_edits import edit_events, field_at, field_status, toggle_events
from core.forms.fields import extract_fields
from core.forms.form_events import apply_form_events
from core.forms.form_chunks import field_text, form_chunks, query_phrasings
from core.forms.form_field import FormField, infer_value_type
from core.forms.labels import form_signal, label_candidates, mark_label
from core.forms.pair_fields import field_from_pair
from core.ingest.pipeline import ingest_bytes, ingest_path
from core.model import Document, Element, Page
from core.chunks.policy import DEFAULT
from core.forms.redaction import REDACTED
from core.forms.units import page_units

ROOT = Path(__file__).resolve().parents[2]
FORMS_DIR = ROOT.parent / "shared" / "realdata" / "pdfs" / "forms"


# ---- a small AcroForm built in code -----------------------------------------------------------
def acroform_pdf() -> bytes:
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    page.insert_text((60, 80), "出張申請書", fontname="japan", fontsize=16)

    def label(x: float, y: float, s: str) -> None:
        page.insert_text((x, y), s, fontname="japan", fontsize=10)

    def widget(kind: int, name: str, rect, value=None, label_text: str | None = None, on: str | None = None):
        w = pymupdf.Widget()
        w.field_type = kind
        w.field_name = name
        w.rect = pymupdf.Rect(rect)
        if label_text:
            w.field_label = label_text
        if on is not None:
            w.button_caption = on
        if value is not None:
            w.field_value = value
        page.add_widget(w)
        return w

    label(60, 130, "氏名")
    widget(pymupdf.PDF_WIDGET_TYPE_TEXT, "applicant", (150, 118, 400, 134), "山田 花子", "申請者の氏名")
    label(60, 160, "出張先")
    widget(pymupdf.PDF_WIDGET_TYPE_TEXT, "destination", (150, 148, 400, 164), "大阪支店")
    label(60, 190, "承認日")
    widget(pymupdf.PDF_WIDGET_TYPE_TEXT, "approved_on", (150, 178, 400, 194), "")
    widget(pymupdf.PDF_WIDGET_TYPE_TEXT, "no_label_here", (450, 300, 560, 316), "", "備考欄")
    label(78, 230, "交通費")
    widget(pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "kind_transport", (60, 220, 72, 232), True)
    label(158, 230, "宿泊費")
    widget(pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "kind_lodging", (140, 220, 152, 232), False)
    data = pdf.tobytes()
    # radio buttons: PyMuPDF sets them more reliably on a reopened document
    pdf = pymupdf.open(stream=data, filetype="pdf")
    page = pdf[0]
    page.insert_text((60, 270), "支払方法", fontname="japan", fontsize=10)
    page.insert_text((148, 270), "振込", fontname="japan", fontsize=10)
    page.insert_text((218, 270), "現金", fontname="japan", fontsize=10)
    for i, (x, on) in enumerate(((130, True), (200, False))):
        w = pymupdf.Widget()
        w.field_type = pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON
        w.field_name = "payment"
        w.rect = pymupdf.Rect(x, 260, x + 12, 272)
        w.field_value = on
        page.add_widget(w)
    return pdf.tobytes()


@pytest.fixture(scope="module")
def acro_bytes() -> bytes:
    return acroform_pdf()


@pytest.fixture(scope="module")
def acro(tmp_path_factory, acro_bytes):
    from core.store.workspace import Workspace

    ws = Workspace(tmp_path_factory.mktemp("acro"))
    record = ingest_bytes(ws, acro_bytes, "shinsei.pdf", engine="fast").record
    yield ws, record.doc_id
    ws.close()


def by_key(fields, key: str, value_type: str | None = None) -> FormField:
    hits = [f for f in fields if f.key == key and (value_type is None or f.value_type == value_type)]
    assert hits, f"no field {key!r} in {[f.key for f in fields]}"
    return hits[0]


def test_every_widget_becomes_a_field_with_its_value_state_and_visible_label(acro):
    ws, doc_id = acro
    doc = corrected_document(ws, doc_id)
    fields = extract_fields(doc)
    widgets = [e for e in doc.elements() if e.source == "widget"]
    assert {e.id for e in widgets} <= {f.value_ref for f in fields}
    name = by_key(fields, "氏名")
    assert (name.value, name.source, name.value_type) == ("山田 花子", "widget", "text")
    assert by_key(fields, "出張先").value == "大阪支店"
    assert by_key(fields, "交通費").selection_state == "selected"
    assert by_key(fields, "宿泊費").selection_state == "unselected"
    # no visible label: the tooltip (TU) is the key
    assert by_key(fields, "備考欄").value_type == "empty_value"


def test_an_empty_widget_is_kept_as_an_empty_value(acro):
    ws, doc_id = acro
    f = by_key(extract_fields(corrected_document(ws, doc_id)), "承認日")
    assert (f.value, f.value_type) == ("", "empty_value")
    assert "値: 空欄" in field_text(f)


def test_a_radio_group_is_one_field_valued_by_the_chosen_label_and_each_option_is_a_mark(acro):
    ws, doc_id = acro
    fields = extract_fields(corrected_document(ws, doc_id))
    group = by_key(fields, "支払方法", "radio")
    assert group.value == "振込"
    options = [f for f in fields if f.field_name == "payment" and f.is_selection]
    assert sorted((f.key, f.selection_state) for f in options) == [("振込", "selected"), ("現金", "unselected")]
    assert all(f.group == "支払方法" for f in options)


def test_field_ids_are_stable_across_re_extraction_and_re_ingest(acro, acro_bytes, tmp_path):
    from core.store.workspace import Workspace

    ws, doc_id = acro
    first = {f.key: f.id for f in extract_fields(corrected_document(ws, doc_id))}
    again = {f.key: f.id for f in extract_fields(corrected_document(ws, doc_id))}
    other = Workspace(tmp_path / "other")
    rec = ingest_bytes(other, acro_bytes, "shinsei.pdf", engine="fast").record
    fresh = {f.key: f.id for f in extract_fields(corrected_document(other, rec.doc_id))}
    assert first == again == fresh
    assert len(set(first.values())) == len(first)


def test_sensitive_keys_are_redacted_in_every_export_row_but_key_and_boxes_stay(acro):
    ws, doc_id = acro
    name = by_key(extract_fields(corrected_document(ws, doc_id)), "氏名")
    assert name.redacted and name.value == "山田 花子"
    row = name.to_dict()
    assert row["value"] == REDACTED and row["key"] == "氏名" and row["value_bbox"] and row["key_bbox"]
    assert "山田" not in json.dumps(row, ensure_ascii=False)


# ---- reviewer events --------------------------------------------------------------------------
_BYTES: list[bytes] = []


def _fresh(tmp_path):
    from core.store.workspace import Workspace

    if not _BYTES:
        _BYTES.append(acroform_pdf())
    ws = Workspace(tmp_path / "ws")
    rec = ingest_bytes(ws, _BYTES[0], "shinsei.pdf", engine="fast").record
    return ws, rec.doc_id


def test_set_selection_toggles_a_box_and_undo_brings_it_back(tmp_path):
    ws, doc_id = _fresh(tmp_path)
    box = by_key(extract_fields(corrected_document(ws, doc_id)), "宿泊費")
    record_events(ws, doc_id, [{"kind": "set_selection", "target": box.value_ref, "state": "selected"}], "rev")
    assert by_key(extract_fields(corrected_document(ws, doc_id)), "宿泊費").selection_state == "selected"
    undo_last(ws, doc_id, "rev")
    assert by_key(extract_fields(corrected_document(ws, doc_id)), "宿泊費").selection_state == "unselected"


def test_pair_gives_a_value_a_new_key_with_the_same_stable_field_id(tmp_path):
    ws, doc_id = _fresh(tmp_path)
    doc = corrected_document(ws, doc_id)
    dest = by_key(extract_fields(doc), "出張先")
    label = next(e for e in doc.elements() if e.text == "承認日")
    record_events(ws, doc_id, [{"kind": "pair", "key": label.id, "value": dest.value_ref}], "rev")
    fields = extract_fields(corrected_document(ws, doc_id))
    moved = [f for f in fields if f.value_ref == dest.value_ref]
    assert len(moved) == 1 and moved[0].key == "承認日" and moved[0].value == "大阪支店"
    assert moved[0].id == dest.id  # a widget field keeps its id: later events still find it
    # the widget that lost its label falls back to its own name
    assert by_key(fields, "approved_on").value_type == "empty_value"


def test_set_value_redact_unredact_and_unpair_are_replayed_and_survive_a_restart(tmp_path):
    from core.review.corrections import clear_cache
    from core.store.workspace import Workspace

    ws, doc_id = _fresh(tmp_path)
    dest = by_key(extract_fields(corrected_document(ws, doc_id)), "出張先")
    name = by_key(extract_fields(corrected_document(ws, doc_id)), "氏名")
    record_events(ws, doc_id, [{"kind": "set_value", "field": dest.id, "value": "名古屋支店"},
                               {"kind": "redact", "field": dest.id},
                               {"kind": "unredact", "field": name.id}], "rev")
    ws.close()
    clear_cache()
    ws = Workspace(tmp_path / "ws")
    fields = {f.id: f for f in extract_fields(corrected_document(ws, doc_id))}
    assert fields[dest.id].value == "名古屋支店" and fields[dest.id].redacted
    assert fields[dest.id].to_dict()["value"] == REDACTED
    assert not fields[name.id].redacted and fields[name.id].to_dict()["value"] == "山田 花子"
    record_events(ws, doc_id, [{"kind": "unpair", "field": dest.id}], "rev")
    after = {f.id: f for f in extract_fields(corrected_document(ws, doc_id))}
    # a widget stays a field; only its label is gone
    assert after[dest.id].key_ref is None and after[dest.id].key != "出張先"


def test_events_for_a_field_that_is_gone_are_reported_not_silently_dropped():
    doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (Page(1, 595, 842),))
    fields, skipped = apply_form_events(doc, (), [{"kind": "redact", "field": "nope"}])
    assert fields == () and len(skipped) == 1 and "nope" in skipped[0].reason


def test_extract_fields_accepts_stored_events_without_applying_them_twice(tmp_path):
    ws, doc_id = _fresh(tmp_path)
    dest = by_key(extract_fields(corrected_document(ws, doc_id)), "出張先")
    record_events(ws, doc_id, [{"kind": "redact", "field": dest.id}], "rev")
    doc = corrected_document(ws, doc_id)
    both = extract_fields(doc, ws.events(doc_id))
    assert both == extract_fields(doc)
    machine = ws.load_machine_document(doc_id)
    assert by_key(extract_fields(machine, [e.to_dict() for e in ws.events(doc_id)]), "出張先").redacted


# ---- geometry on the sample flattened form ----------------------------------------------------
@pytest.fixture(scope="module")
def flat_fields(tmp_path_factory):
    from core.store.workspace import Workspace

    path = ROOT / "sample_docs" / "shinseisho_flat.pdf"
    if not path.exists():
        pytest.skip("sample_docs/shinseisho_flat.pdf missing: run python sample_docs/generate.py")
    ws = Workspace(tmp_path_factory.mktemp("flat"))
    record = ingest_path(ws, path, engine="fast").record
    doc = corrected_document(ws, record.doc_id)
    yield doc, extract_fields(doc), json.loads(path.with_suffix(".truth.json").read_text(encoding="utf-8"))
    ws.close()


def _n(s: str) -> str:
    import unicodedata

    return "".join(unicodedata.normalize("NFKC", s or "").split())


def test_geometry_pairs_the_flattened_sample_form_like_its_truth(flat_fields):
    _, fields, truth = flat_fields
    got = {(_n(f.key), _n(f.value), f.value_type, f.selection_state) for f in fields}
    want = {(_n(t["key"]), _n(t["value"]), t["value_type"], t["selection_state"] or "unknown")
            for t in truth["form_fields"]}
    assert want - got == set(), f"missed: {sorted(want - got)}"
    assert len(fields) == len(truth["form_fields"]), f"extra: {sorted(got - want)}"
    assert all(f.source == "geometry" for f in fields)


def test_geometry_keeps_empty_boxes_and_groups_check_boxes_under_their_row_label(flat_fields):
    _, fields, _ = flat_fields
    empty = {f.key for f in fields if f.value_type == "empty_value"}
    assert {"仮払金", "備考", "所属長承認日", "経理部受付日"} <= empty
    marks = [f for f in fields if f.is_selection and f.group == "経費区分"]
    assert len(marks) == 6 and {f.key for f in marks if f.selection_state == "selected"} == {"交通費", "宿泊費", "日当"}


def test_a_check_box_takes_the_label_on_its_left_when_none_is_on_its_right():

    doc_id = "0123456789abcdef"
    label = Element("l1", 1, 0, Category.TEXT, (100, 100, 300, 112), "check here", "fast")
    mark = Element("m1", 1, 1, Category.SELECTION_MARK, (320, 101, 330, 111), "☐", "fast", state="unselected")
    doc = Document(doc_id, "x.pdf", "0" * 64, "fast", (Page(1, 595, 842, elements=(label, mark)),))
    fields = extract_fields(doc)
    assert [(f.key, f.selection_state, f.source_element_ids) for f in fields] == \
        [("check here", "unselected", ("l1", "m1"))]
    units = page_units(doc, doc.page(1))
    assert mark_label(mark.bbox, label_candidates(units), set()).id == "l1"


def test_prose_pages_yield_no_fields():
    lines = [Element(f"t{i}", 1, i, Category.TEXT, (60, 100 + 14 * i, 300, 112 + 14 * i), f"本文の{i}行目です", "fast")
             for i in range(5)]
    lines.append(Element("t9", 1, 9, Category.TEXT, (320, 100, 540, 112), "右の段の文章", "fast"))
    doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (Page(1, 595, 842, elements=tuple(lines)),))
    assert extract_fields(doc) == ()


# ---- imported pairs ----------------------------------------------------------------------------
def test_imported_key_value_pairs_become_fields_including_empty_ones_and_marks():
    key = Element("k1", 1, 0, Category.FORM_FIELD, (50, 50, 100, 62), "氏名:", "azure",
                  attrs=(("kv_confidence", 0.9), ("kv_value_id", "v1"), ("kv_pair", "p1"), ("kv_role", "key")))
    value = Element("v1", 1, 1, Category.FORM_FIELD, (120, 50, 220, 62), "田中 一郎", "azure",
                    attrs=(("kv_pair", "p1"), ("kv_role", "value")))
    blank = Element("k2", 1, 2, Category.FORM_FIELD, (50, 80, 100, 92), "承認日", "azure",
                    attrs=(("kv_empty", True), ("kv_value_id", ""), ("kv_role", "key")))
    box_key = Element("k3", 1, 3, Category.FORM_FIELD, (50, 110, 100, 122), "同意する", "textract",
                      attrs=(("kv_value_id", "m1"), ("kv_role", "key")))
    mark = Element("m1", 1, 4, Category.SELECTION_MARK, (120, 110, 130, 120), "", "textract", state="selected")
    doc = Document("0123456789abcdef", "x.json", "0" * 64, "azure",
                   (Page(1, 595, 842, elements=(key, value, blank, box_key, mark)),))
    fields = {f.key: f for f in extract_fields(doc)}
    assert (fields["氏名"].value, fields["氏名"].source, fields["氏名"].confidence) == ("田中 一郎", "import", 0.9)
    assert fields["承認日"].value_type == "empty_value"
    assert (fields["同意する"].value_type, fields["同意する"].selection_state) == ("selection_mark", "selected")
    assert len(fields) == 3  # geometry does not pair the imported elements a second time


def test_field_from_pair_is_what_importers_and_reviewers_build():
    k = Element("k", 2, 0, Category.TEXT, (10, 10, 40, 20), "金額：", "docling")
    v = Element("v", 2, 1, Category.TEXT, (50, 10, 90, 20), "12,000円", "docling")
    f = field_from_pair("0123456789abcdef", k, v, confidence=0.7)
    assert (f.page, f.key, f.value, f.value_type, f.source_element_ids) == (2, "金額", "12,000円", "number", ("k", "v"))
    assert f.id == field_from_pair("0123456789abcdef", k, v).id


@pytest.mark.parametrize("value,kind", [("", "empty_value"), ("  ", "empty_value"), ("2026年4月15日", "date"),
                                        ("令和6年4月1日", "date"), ("04/15/2026", "date"), ("23,800", "number"),
                                        ("¥1,200", "number"), ("大阪支店", "text")])
def test_value_types_are_inferred_from_the_value(value, kind):
    assert infer_value_type(value) == kind


# ---- retrieval text and chunks ------------------------------------------------------------------
def _field(**kw) -> FormField:
    base = dict(id="f1", page=1, key="対象", value="", selection_state="selected", value_type="selection_mark",
                key_bbox=(10, 10, 40, 20), value_bbox=(0, 10, 8, 20), source_element_ids=("a", "b"))
    base.update(kw)
    return FormField(**base)


def test_retrieval_text_says_states_and_empty_values_in_words():
    assert "状態: 対象 は 選択されている" in field_text(_field())
    assert "状態: 対象 は 選択されていない" in field_text(_field(selection_state="unselected"))
    empty = _field(key="承認日", value_type="empty_value", selection_state="unknown")
    assert field_text(empty) == "項目: 承認日\n値: 空欄"
    assert query_phrasings(empty) == ("承認日 が空欄", "承認日 未入力")
    assert query_phrasings(_field()) == ("対象 を選択", "対象 がチェック済み")
    assert "対象 が未チェック" in query_phrasings(_field(selection_state="unselected"))


def test_form_chunks_carry_fields_and_refs_and_add_phrasings_only_when_the_policy_says_so(flat_fields):
    doc, fields, _ = flat_fields
    on = form_chunks(doc, fields, replace(DEFAULT, form_query_phrasings=True))
    off = form_chunks(doc, fields, replace(DEFAULT, form_query_phrasings=False))
    def fields_of(chunks):
        return [f["field_id"] for c in chunks for f in c.to_record()["metadata"]["form_fields"]]
    assert fields_of(on) == fields_of(off) == [f.id for f in fields]
    text_on = "\n".join(c.text for c in on)
    text_off = "\n".join(c.text for c in off)
    assert "交通費 がチェック済み" in text_on and "交通費 がチェック済み" not in text_off
    assert "会議費 が未チェック" in text_on
    for chunk in off:
        record = chunk.to_record()
        meta = record["metadata"]
        assert meta["form_fields"] and meta["source_record_refs"] and meta["atomic"]
        assert isinstance(meta["form_query_phrasings"], list)
        ids = {e.id for e in doc.elements()}
        assert all(r["record_id"] in ids for r in meta["source_record_refs"])
    section_paths = [c.section_path for c in off]
    assert any(p and p[-1].startswith("1.") for p in section_paths)
    dumped = json.dumps([c.to_record() for c in on], ensure_ascii=False)
    for secret in ("山田 太郎", "03-1234-5678", "taro.yamada@example.co.jp"):
        assert secret not in dumped
    assert REDACTED in dumped


def test_form_chunks_respect_the_size_limit_by_splitting_between_fields(flat_fields):
    doc, fields, _ = flat_fields
    small = form_chunks(doc, fields, replace(DEFAULT, max_chars=120))
    assert len(small) > len(form_chunks(doc, fields, DEFAULT))
    assert sum(len(c.extra_value("form_fields")) for c in small) == len(fields)


# ---- the CLI -------------------------------------------------------------------------------------
def test_forms_cli_prints_one_redacted_json_line_per_field(acro, capsys):
    ws, doc_id = acro
    assert cli_main(["forms", doc_id, "--workspace", str(ws.root)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == len(extract_fields(corrected_document(ws, doc_id)))
    required = {"id", "page", "key", "value", "selection_state", "value_type", "key_bbox", "value_bbox",
                "source", "redacted"}
    assert all(required <= set(r) for r in rows)
    assert "山田 花子" not in json.dumps(rows, ensure_ascii=False)


def test_forms_cli_names_an_unknown_document(tmp_path, capsys):
    assert cli_main(["forms", "nope", "--workspace", str(tmp_path)]) == 2
    assert "nope" in capsys.readouterr().err


# ---- real AcroForms -----------------------------------------------------------------------------
def _widget_truth(path: Path):
    import re

    out = []
    for page in pymupdf.open(path):
        for w in page.widgets():
            kind = w.field_type_string
            if kind in ("CheckBox", "RadioButton"):
                on = re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), str(w.on_state()))
                selected = w.field_value not in (None, "", "Off", False) and (
                    w.field_value is True or str(w.field_value) == on)
                out.append((page.number + 1, tuple(w.rect), "", "selected" if selected else "unselected"))
            elif kind in ("Text", "ComboBox", "ListBox", "Signature"):
                value = w.field_value
                value = ", ".join(value) if isinstance(value, (list, tuple)) else ("" if value is None else str(value))
                out.append((page.number + 1, tuple(w.rect), value.strip(), "unknown"))
    return out


@pytest.mark.parametrize("name", ["cms1490s_filled.pdf", "irs_f7004_fillable.pdf",
                                  "pdf_form_example_all_widget_types.pdf"])
def test_the_widget_path_is_exact_on_real_acroforms(name, tmp_path):
    from core.geometry import iou
    from core.store.workspace import Workspace

    path = FORMS_DIR / name
    if not path.exists():
        pytest.skip(f"{path} is absent: the real third-party forms are not part of the repository")
    ws = Workspace(tmp_path / "ws")
    record = ingest_path(ws, path, engine="fast").record
    every = extract_fields(corrected_document(ws, record.doc_id))
    truth = _widget_truth(path)
    widget_pages = {page for page, *_ in truth}
    assert all(f.source == "widget" for f in every if f.page in widget_pages)
    fields = [f for f in every if f.source == "widget" and f.value_type != "radio"]
    assert len(fields) == len(truth)
    for page, rect, value, state in truth:
        match = [f for f in fields if f.page == page and f.value_bbox and iou(f.value_bbox, rect) > 0.9]
        assert len(match) == 1, (page, rect)
        f = match[0]
        assert f.source == "widget"
        if state == "unknown":
            assert (f.value, f.is_selection) == (value, False), (f.key, f.value, value)
        else:
            assert (f.selection_state, f.is_selection) == (state, True), (f.key, f.selection_state, state)


# ---- review helpers used by the Forms page ------------------------------------------------------
def test_toggling_a_radio_option_selects_it_and_clears_the_chosen_one(acro):
    ws, doc_id = acro
    doc = corrected_document(ws, doc_id)
    fields = extract_fields(doc)
    cash = by_key(fields, "現金", "selection_mark")
    transfer = by_key(fields, "振込", "selection_mark")
    events = toggle_events(doc, fields, cash)
    assert events == [{"kind": "set_selection", "target": cash.value_ref, "state": "selected"},
                      {"kind": "set_selection", "target": transfer.value_ref, "state": "unselected"}]
    box = by_key(fields, "交通費")
    assert toggle_events(doc, fields, box) == [
        {"kind": "set_selection", "target": box.value_ref, "state": "unselected"}]


def test_a_click_finds_the_smallest_field_box_under_it(acro):
    ws, doc_id = acro
    fields = extract_fields(corrected_document(ws, doc_id))
    box = by_key(fields, "交通費")
    x = (box.value_bbox[0] + box.value_bbox[2]) / 2
    y = (box.value_bbox[1] + box.value_bbox[3]) / 2
    assert field_at(fields, 1, x, y).id == box.id
    assert field_at(fields, 1, 590, 830) is None


def test_table_edits_turn_into_only_the_events_that_changed(acro):
    ws, doc_id = acro
    doc = corrected_document(ws, doc_id)
    fields = extract_fields(doc)
    name = by_key(fields, "氏名")
    assert edit_events(doc, fields, name, value=REDACTED, redacted=True) == []
    assert edit_events(doc, fields, name, value="山田 次郎", redacted=False) == [
        {"kind": "set_value", "field": name.id, "value": "山田 次郎"}, {"kind": "unredact", "field": name.id}]
    label = next(e for e in doc.elements() if e.text == "出張先")
    assert edit_events(doc, fields, name, key_element=label.id) == [
        {"kind": "pair", "key": label.id, "value": name.value_ref}]
    assert field_status(name) == "redacted" and field_status(by_key(fields, "承認日")) == "empty"


@pytest.mark.parametrize("relative", ["pdfs/ja/kyokuyo_kessan_tanshin_H26_p15_twotables.pdf",
                                      "pdfs/spreads_landscape/mitsubishi_electric_ar2021_p62-63_spread.pdf"])
def test_ruled_financial_tables_are_not_read_as_form_fields(relative, tmp_path):
    from core.store.workspace import Workspace

    path = ROOT.parent / "shared" / "realdata" / relative
    if not path.exists():
        pytest.skip(f"{path} is absent: the real third-party files are not part of the repository")
    ws = Workspace(tmp_path / "ws")
    record = ingest_path(ws, path, engine="fast").record
    assert extract_fields(corrected_document(ws, record.doc_id)) == ()


def test_the_sample_regulation_has_no_form_fields(tmp_path):
    from core.store.workspace import Workspace

    path = ROOT / "sample_docs" / "keihi_seisan_kitei.pdf"
    if not path.exists():
        pytest.skip("sample_docs missing: run python sample_docs/generate.py")
    ws = Workspace(tmp_path / "ws")
    record = ingest_path(ws, path, engine="fast").record
    assert extract_fields(corrected_document(ws, record.doc_id)) == ()


def test_dates_with_colons_in_a_timeline_do_not_make_a_page_a_form():

    lines = [Element(f"t{i}", 1, i, Category.TEXT, (60, 100 + 20 * i, 140, 112 + 20 * i), f"20{17 + i}年{i + 1}月:",
                     "fast") for i in range(4)]
    page = Page(1, 595, 842, elements=tuple(lines))
    doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (page,))
    assert not form_signal(page, page_units(doc, page))
    labels = [replace(e, text=t) for e, t in zip(lines, ("氏名:", "住所:", "電話:", "備考:"))]
    page = Page(1, 595, 842, elements=tuple(labels))
    assert form_signal(page, page_units(replace(doc, pages=(page,)), page))


# ---- US-style ruled rows (tiny flattened PDFs drawn in code) ----------------------------------
def _drawn_form_fields(tmp_path, draw) -> tuple[FormField, ...]:
    from core.store.workspace import Workspace

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=792)
    draw(page)
    for i, label in enumerate(("Name:", "Phone:", "Email:")):  # the colon labels that show a form
        page.insert_text((36, 700 + 14 * i), label, fontsize=9)
    ws = Workspace(tmp_path / "ws")
    rec = ingest_bytes(ws, pdf.tobytes(), "drawn.pdf", engine="fast").record
    fields = extract_fields(corrected_document(ws, rec.doc_id))
    ws.close()
    return fields


def _line(page, a, b, width=0.5) -> None:
    page.draw_line(pymupdf.Point(*a), pymupdf.Point(*b), width=width)


def _amount_lines(page) -> None:
    """Two numbered lines: label, dot leaders, the line number in its own box, then dollars and cents."""
    for n, (label, top) in enumerate((("Tentative total tax", 300), ("Total payments and credits", 324)), start=6):
        page.insert_text((45, top + 9), str(n), fontsize=9)
        page.insert_text((65, top + 9), label, fontsize=9)
        x = 65 + pymupdf.get_text_length(label, fontsize=9) + 8
        while x < 452:
            page.insert_text((x, top + 9), ".", fontsize=9)
            x += 12
        page.insert_text((469, top + 9), str(n), fontsize=9)
        for wall in (461, 482, 554):
            _line(page, (wall, top), (wall, top + 12))
        _line(page, (461, top + 12), (576, top + 12))


def test_a_line_number_box_is_skipped_and_the_cents_box_continues_the_amount_field(tmp_path):
    fields = _drawn_form_fields(tmp_path, _amount_lines)
    pairs = {f.key: f for f in fields}
    assert set(pairs) == {"Tentative total tax", "Total payments and credits"}
    for f in pairs.values():
        assert f.value == "" and f.value_type == "empty_value"
        x0, _, x1, _ = f.value_bbox
        assert abs(x0 - 482) <= 2 and abs(x1 - 576) <= 2  # dollars and cents, not the "6"/"7" box


def test_a_comma_and_century_labels_the_year_blank_after_it(tmp_path):
    def draw(page):
        page.insert_text((65, 109), "Tax year beginning", fontsize=9)
        _line(page, (150, 110), (220, 110))
        page.insert_text((222, 109), ", 20", fontsize=9)
        _line(page, (240, 110), (256, 110))
        page.insert_text((260, 109), "and ending", fontsize=9)
        _line(page, (310, 110), (380, 110))
        page.insert_text((382, 109), ", 20", fontsize=9)
        _line(page, (400, 110), (416, 110))

    fields = _drawn_form_fields(tmp_path, draw)
    blanks = sorted(round(f.value_bbox[0]) for f in fields if f.value_type == "empty_value")
    assert blanks == [150, 240, 310, 400]
    assert all(f.key in ("Tax year beginning", "and ending", ", 20") for f in fields)


def test_a_lone_number_after_a_comma_is_not_a_label_where_nothing_is_ruled(tmp_path):
    def draw(page):
        page.insert_text((65, 109), "Name:", fontsize=9)
        page.insert_text((120, 109), "Jane Doe", fontsize=9)
        page.insert_text((65, 129), "Signed in Boston", fontsize=9)
        page.insert_text((150, 129), ", 20", fontsize=9)
        page.insert_text((180, 129), "March 3", fontsize=9)

    fields = _drawn_form_fields(tmp_path, draw)
    assert ", 20" not in {f.key for f in fields}


def test_a_vertical_heading_of_stacked_words_is_not_a_key(tmp_path):
    def draw(page):
        for i, word in enumerate(("Print", "or", "Type")):
            page.insert_text((36, 108 + 13 * i), word, fontsize=10)
        for top in (94, 118, 142):
            _line(page, (86, top), (576, top))
        _line(page, (86, 94), (86, 142))
        _line(page, (576, 94), (576, 142))
        page.insert_text((90, 103), "Name", fontsize=9)
        page.insert_text((90, 127), "Number, street, and room or suite no.", fontsize=9)

    keys = {f.key for f in _drawn_form_fields(tmp_path, draw)}
    assert not keys & {"Print", "or", "Type"}
    assert {"Name", "Number, street, and room or suite no."} <= keys


def test_the_header_row_of_a_printed_code_table_is_not_a_field(tmp_path):
    def draw(page):
        page.insert_text((36, 100), "Application", fontsize=9)
        page.insert_text((36, 111), "Is For:", fontsize=9)
        page.insert_text((240, 100), "Form", fontsize=9)
        page.insert_text((240, 111), "Code", fontsize=9)
        for i in range(6):
            page.insert_text((36, 124 + 12 * i), f"Form 10{i}{i}-X", fontsize=9)
            page.insert_text((247, 124 + 12 * i), f"0{i + 1}", fontsize=9)

    values = {f.value for f in _drawn_form_fields(tmp_path, draw)}
    assert "Code" not in values and not values & {f"0{i + 1}" for i in range(6)}


@pytest.mark.parametrize("tick,font,state", [("G", "ZapfDingbats", "selected"), ("✓", "Helvetica", "selected"),
                                              ("1", "Helvetica", "unknown")])
def test_a_dingbat_or_symbol_inside_an_unknown_square_checks_it_but_a_digit_does_not(tick, font, state):
    from core.model import freeze_attrs

    square = Element("s1", 1, 0, Category.DECORATIVE, (73, 503, 90, 520), "", "fast",
                     attrs=freeze_attrs({"kind": "square", "filled": False}))
    glyph = Element("g1", 1, 1, Category.TEXT, (77, 506, 86, 517), tick, "fast",
                    attrs=freeze_attrs({"fonts": (font,)}))
    label = Element("l1", 1, 2, Category.TEXT, (101, 506, 189, 518), "Bachelor's degree", "fast")
    doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (Page(1, 612, 792, elements=(square, glyph, label)),))
    marks = [u for u in page_units(doc, doc.page(1)) if u.kind == "mark"]
    assert [m.state for m in marks] == [state]
