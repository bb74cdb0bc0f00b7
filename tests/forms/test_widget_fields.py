"""Widget fields: AcroForm values, states, labels, radio groups and stable ids, on a form built
in code and on real AcroForms."""
from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from core.forms.fields import extract_fields
from core.forms.form_chunks import field_text
from core.forms.redaction import REDACTED
from core.ingest.pipeline import ingest_bytes, ingest_path
from core.review.corrections import corrected_document
from form_fixtures import by_key
from tests.conftest import REALDATA

ROOT = Path(__file__).resolve().parents[2]
FORMS_DIR = REALDATA / "pdfs" / "forms"


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
    from core.store.opening import open_workspace

    ws, doc_id = acro
    first = {f.key: f.id for f in extract_fields(corrected_document(ws, doc_id))}
    again = {f.key: f.id for f in extract_fields(corrected_document(ws, doc_id))}
    other = open_workspace(tmp_path / "other")
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


def _widget_truth(path: Path):
    import re

    from widget_truth import chosen_options

    out = []
    pdf = pymupdf.open(path)
    for page in pdf:
        for w in page.widgets():
            kind = w.field_type_string
            if kind in ("CheckBox", "RadioButton"):
                on = re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), str(w.on_state()))
                selected = w.field_value not in (None, "", "Off", False) and (
                    w.field_value is True or str(w.field_value) == on)
                out.append((page.number + 1, tuple(w.rect), "", "selected" if selected else "unselected"))
            elif kind in ("Text", "ComboBox", "ListBox", "Signature"):
                several = chosen_options(pdf, w.xref) if kind == "ListBox" else None
                value = w.field_value if several is None else several
                # a field lists several chosen options joined with 、 (core.forms.widget_fields)
                value = "、".join(value) if isinstance(value, (list, tuple)) else ("" if value is None else str(value))
                out.append((page.number + 1, tuple(w.rect), value.strip(), "unknown"))
    return out


@pytest.mark.parametrize("name", ["cms1490s_filled.pdf", "irs_f7004_fillable.pdf",
                                  "pdf_form_example_all_widget_types.pdf"])
def test_the_widget_path_is_exact_on_real_acroforms(name, tmp_path):
    from core.geometry import iou
    from core.store.opening import open_workspace

    path = FORMS_DIR / name
    if not path.exists():
        pytest.skip(f"{path} is absent: the real third-party forms are not part of the repository")
    ws = open_workspace(tmp_path / "ws")
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


def test_a_widgets_own_value_printed_past_its_rectangle_is_not_its_label(tmp_path):
    """Failed before: a filled widget's value printed on the page (its appearance, larger than the
    rectangle, as pypdf's libreoffice-form prints its address box) covers too little of the rectangle
    to count as its print, and was taken for the widget's visible label: the key was the value."""
    from core.store.opening import open_workspace

    pdf = pymupdf.open()
    page = pdf.new_page(width=612, height=400)
    page.insert_text((72, 60), "Example for a Form", fontsize=20)
    page.insert_text((79, 346), "221B Baker Street, London", fontsize=12)  # taller than the box below
    w = pymupdf.Widget()
    w.field_type, w.field_name, w.field_label = pymupdf.PDF_WIDGET_TYPE_TEXT, "First Name_2", "Second address"
    w.rect, w.text_fontsize = pymupdf.Rect(77, 342, 231, 351), 6
    w.field_value = "221B Baker Street, London"
    page.add_widget(w)
    ws = open_workspace(tmp_path / "ws")
    doc_id = ingest_bytes(ws, pdf.tobytes(), "own_print.pdf", engine="fast").record.doc_id
    fields = extract_fields(corrected_document(ws, doc_id))
    ws.close()
    field = next(f for f in fields if f.field_name == "First Name_2")
    assert field.value == "221B Baker Street, London" and field.key == "Second address"
