"""The Forms page (pages/forms.py) through the real app with AppTest."""
from apptest_helpers import doc_id_of, open_page, sample_workspace, texts  # noqa: F401
from core.forms.fields import extract_fields
from core.review.corrections import corrected_document
from core.store.opening import open_workspace

DOC = "shinseisho_form.pdf"


def forms_with(root, reviewer="hanako", key=None, value=None):
    doc_id = doc_id_of(root, DOC)
    at = open_page("pages/forms.py", root, doc=DOC)
    at.session_state["rli:reviewer"] = reviewer
    at.session_state[f"rli:forms:key:{doc_id}"] = key
    at.session_state[f"rli:forms:value:{doc_id}"] = value
    return at.run(), doc_id


def fields_of(root, doc_id):
    ws = open_workspace(root)
    try:
        return extract_fields(corrected_document(ws, doc_id)), ws.events(doc_id)
    finally:
        ws.close()


def edit_table(at, root, doc_id, page, edits):
    """Edit rows of the field table the way the data editor reports it, then rerun."""
    ws = open_workspace(root)
    head = ws.head(doc_id)
    ws.close()
    key = f"rli:forms:table:{page}:{head}:{doc_id}"
    at.session_state[key] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    return at.run()


def test_forms_page_lists_the_fields_with_legend_and_exported_chunks(sample_workspace):
    at, doc_id = forms_with(sample_workspace)
    assert not at.exception, [e.value for e in at.exception]
    fields, _ = fields_of(sample_workspace, doc_id)
    page_one = [f for f in fields if f.page == 1]
    assert any(f"Fields on page 1 ({len(page_one)})" in s.value for s in at.subheader)
    shown = texts(at)
    assert "selected" in shown and "redacted" in shown
    assert "山田 太郎" not in shown  # the table and the chunk preview show [REDACTED]
    assert any("項目: 氏名" in c.value and "[REDACTED]" in c.value for c in at.code)


def test_pairing_a_key_with_a_value_records_a_pair_event_and_changes_the_field(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    fields, _ = fields_of(sample_workspace, doc_id)
    dest = next(f for f in fields if f.key == "出張先")
    remarks_label = next(f for f in fields if f.key == "備考")
    at, _ = forms_with(sample_workspace, key=remarks_label.key_ref, value=dest.value_ref)
    at.button(key="rli:forms:pair").click().run()
    assert not at.exception, [e.value for e in at.exception]
    fields, events = fields_of(sample_workspace, doc_id)
    assert [e.kind for e in events] == ["pair"]
    assert next(f for f in fields if f.value_ref == dest.value_ref).key == "備考"
    at.button(key="rli:forms:undo").click().run()
    fields, events = fields_of(sample_workspace, doc_id)
    assert events[-1].kind == "undo"
    assert next(f for f in fields if f.value_ref == dest.value_ref).key == "出張先"


def test_table_edits_become_correction_events(sample_workspace):
    at, doc_id = forms_with(sample_workspace)
    fields, _ = fields_of(sample_workspace, doc_id)
    page_one = [f for f in fields if f.page == 1]
    box = next(i for i, f in enumerate(page_one) if f.key == "会議費" and f.is_selection)
    dept = next(i for i, f in enumerate(page_one) if f.key == "所属部署")
    at = edit_table(at, sample_workspace, doc_id, 1, {box: {"state": "selected"}, dept: {"redacted": True}})
    assert not at.exception, [e.value for e in at.exception]
    fields, events = fields_of(sample_workspace, doc_id)
    assert sorted(e.kind for e in events) == ["redact", "set_selection"]
    after = {f.id: f for f in fields}
    assert after[page_one[box].id].selection_state == "selected"
    assert after[page_one[dept].id].redacted


def test_a_save_against_an_outdated_view_is_refused_with_a_reload_button(sample_workspace):
    at, doc_id = forms_with(sample_workspace)
    fields, _ = fields_of(sample_workspace, doc_id)
    page_one = [f for f in fields if f.page == 1]
    ws = open_workspace(sample_workspace)
    ws.append_events(doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "in_progress"}], actor="taro")
    ws.close()
    dept = next(i for i, f in enumerate(page_one) if f.key == "所属部署")
    key = f"rli:forms:table:1:0:{doc_id}"
    at.session_state[key] = {"edited_rows": {dept: {"redacted": True}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Not saved" in e.value for e in at.error)
    _, events = fields_of(sample_workspace, doc_id)
    assert [e.kind for e in events] == ["mark_reviewed"]
    reload_buttons = [b for b in at.button if b.label == "Reload"]
    assert reload_buttons
