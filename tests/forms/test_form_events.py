"""Reviewer form events (pair, unpair, set_value, redact, unredact) replayed over the fields, undo
and restart included."""
from __future__ import annotations

from core.forms.fields import extract_fields
from core.forms.form_events import apply_form_events
from core.forms.redaction import REDACTED
from core.ingest.pipeline import ingest_bytes
from core.model import Document, Page
from core.review.corrections import corrected_document, record_events
from core.review.undo import undo_last
from form_fixtures import acroform_pdf, by_key


_BYTES: list[bytes] = []


def _fresh(tmp_path):
    from core.store.opening import open_workspace

    if not _BYTES:
        _BYTES.append(acroform_pdf())
    ws = open_workspace(tmp_path / "ws")
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
    from core.store.opening import open_workspace

    ws, doc_id = _fresh(tmp_path)
    dest = by_key(extract_fields(corrected_document(ws, doc_id)), "出張先")
    name = by_key(extract_fields(corrected_document(ws, doc_id)), "氏名")
    record_events(ws, doc_id, [{"kind": "set_value", "field": dest.id, "value": "名古屋支店"},
                               {"kind": "redact", "field": dest.id},
                               {"kind": "unredact", "field": name.id}], "rev")
    ws.close()
    clear_cache()
    ws = open_workspace(tmp_path / "ws")
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
