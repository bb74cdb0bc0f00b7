"""The Forms page's helpers: radio toggles, the field under a click, table edits as events."""
from __future__ import annotations

from core.forms.field_edits import edit_events, field_at, field_status, toggle_events
from core.forms.fields import extract_fields
from core.forms.redaction import REDACTED
from core.review.corrections import corrected_document
from form_fixtures import by_key


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
