"""`correct` checks every event against the document before appending any: an unknown element or
field id, a box off the page, a category outside the enum are refused with the line number."""
from __future__ import annotations

import json

import pytest

from core.cli import main
from core.store.opening import open_workspace


@pytest.fixture(scope="module")
def flat(tmp_path_factory, sample_docs):
    root = tmp_path_factory.mktemp("events")
    assert main(["ingest", str(sample_docs / "shinseisho_flat.pdf"), "--engine", "fast", "--workspace", str(root)]) == 0
    ws = open_workspace(root)
    doc_id = ws.documents()[0].doc_id
    ws.close()
    return root, doc_id


def fields_and_elements(root, doc_id):
    from core.forms.fields import document_fields
    from core.review.corrections import corrected_document

    ws = open_workspace(root)
    try:
        return document_fields(ws, doc_id), list(corrected_document(ws, doc_id).elements())
    finally:
        ws.close()


def run_correct(root, doc_id, tmp_path, lines, capsys):
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    code = main(["correct", doc_id, "--events", str(path), "--workspace", str(root)])
    out, err = capsys.readouterr()
    return code, err


@pytest.mark.parametrize("bad, says", [
    ({"kind": "redact", "field": "no-such-field"}, "field 'no-such-field' is not a form field"),
    ({"kind": "set_value", "field": "no-such-field", "value": "x"}, "field 'no-such-field' is not a form field"),
    ({"kind": "unredact", "field": "no-such-field"}, "is not a form field"),
    ({"kind": "relabel", "target": "no-such-element", "category": "text"}, "is not an element"),
    ({"kind": "add_element", "page": 1, "bbox": [10, 10, 9000, 20], "category": "text"}, "outside page 1"),
    ({"kind": "add_element", "page": 1, "bbox": [10, 10, 20, 20], "category": "not_a_category"}, "not_a_category"),
])
def test_a_bad_event_on_line_2_is_refused_with_its_line_and_nothing_is_appended(flat, tmp_path, capsys, bad, says):
    root, doc_id = flat
    fields, elements = fields_and_elements(root, doc_id)
    good = {"kind": "redact", "field": fields[0].id}
    ws = open_workspace(root)
    head = ws.head(doc_id)
    ws.close()
    code, err = run_correct(root, doc_id, tmp_path, [good, bad], capsys)
    assert code == 2 and "line 2" in err and says in err and "nothing was appended" in err, err
    ws = open_workspace(root)
    assert ws.head(doc_id) == head
    ws.close()


def test_a_field_made_by_a_pair_earlier_in_the_file_can_be_named(flat, tmp_path, capsys):
    """The check reads the fields with the batch's earlier events applied."""
    from core.forms.fields import extract_fields
    from core.review.corrections import corrected_document

    root, doc_id = flat
    fields, elements = fields_and_elements(root, doc_id)
    used = {ref for f in fields for ref in (f.key_ref, f.value_ref) if ref}
    free = [e for e in elements if e.id not in used and e.text.strip() and e.category.value == "text"]
    key, value = free[0], free[1]
    pair = {"kind": "pair", "key": key.id, "value": value.id}
    ws = open_workspace(root)
    made = {f.id for f in extract_fields(corrected_document(ws, doc_id), [pair])} - {f.id for f in fields}
    ws.close()
    assert made, "the pair makes a field"
    code, err = run_correct(root, doc_id, tmp_path, [pair, {"kind": "redact", "field": sorted(made)[0]}], capsys)
    assert code == 0, err
