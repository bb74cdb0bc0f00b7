"""AppTest: the Gold set page (write, take a chunk as evidence, save, list, filter, open, edit, delete,
import). Clicking elements on the page image is a canvas component: the browser session covers it."""
from __future__ import annotations

import pytest

from apptest_helpers import doc_id_of, open_page, sample_workspace, texts  # noqa: F401
from core.evaluation.gold import load_items
from core.store.opening import open_workspace


def stored(root) -> list:
    ws = open_workspace(root)
    try:
        return load_items(ws)
    finally:
        ws.close()


def field(at, name: str, doc_id: str, kind: str = "text_area"):
    prefix = f"rli:gold:{name}:{doc_id}:"
    widgets = at.text_area if kind == "text_area" else at.text_input
    return next(w for w in widgets if w.key and w.key.startswith(prefix))


def import_samples(at):
    at.button(key="rli:gold:import_sample").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_gold_page_opens_on_the_current_document_with_an_empty_set(sample_workspace):
    at = open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf")
    assert not at.exception
    page_text = texts(at)
    assert "keihi\\_seisan\\_kitei\\.pdf" in page_text and "No questions yet" in page_text


def test_a_question_with_a_whole_chunk_as_evidence_is_saved_and_listed(sample_workspace):
    doc_id = doc_id_of(sample_workspace, "keihi_seisan_kitei.pdf")
    at = open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf")
    at.button(key="rli:gold:next").click().run()  # page 2: 表1 and the ※1 footnote
    field(at, "question", doc_id).input("タクシーの上限額はいくらか").run()
    at.button(key="rli:gold:take_chunk").click().run()
    assert "**Evidence** (0)" not in texts(at)
    field(at, "answer", doc_id).input("5,000円").run()
    field(at, "tags", doc_id, "text_input").input("table, cell").run()
    at.button(key="rli:gold:save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    items = stored(sample_workspace)
    assert len(items) == 1
    item = items[0]
    assert item.question == "タクシーの上限額はいくらか" and item.answer == "5,000円"
    assert item.tags == ("table", "cell") and item.doc_id == doc_id
    assert item.evidence and all(e.page == 2 and e.record_id for e in item.evidence)
    assert "Saved" in texts(at) and "1 of 1 question(s)" in texts(at)


def test_saving_without_evidence_says_what_is_missing_and_stores_nothing(sample_workspace):
    doc_id = doc_id_of(sample_workspace, "keihi_seisan_kitei.pdf")
    at = open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf")
    field(at, "question", doc_id).input("目的は何か").run()
    at.button(key="rli:gold:save").click().run()
    assert "Click at least one element" in texts(at)
    assert stored(sample_workspace) == []


def test_importing_the_sample_set_lists_it_and_filters_by_tag_and_document(sample_workspace):
    at = import_samples(open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf"))
    total = len(stored(sample_workspace))
    assert total >= 25 and "0 with evidence not anchored" in texts(at)
    at.selectbox(key="rli:gold:filter_tag").select("footnote").run()
    footnotes = sum("footnote" in i.tags for i in stored(sample_workspace))
    assert f"{footnotes} of {total} question(s)" in texts(at)
    at.selectbox(key="rli:gold:filter_tag").select("(any tag)").run()
    form_id = doc_id_of(sample_workspace, "shinseisho_form.pdf")
    at.selectbox(key="rli:gold:filter_doc").select(form_id).run()
    on_form = sum(i.doc_id == form_id for i in stored(sample_workspace))
    assert f"{on_form} of {total} question(s)" in texts(at)


def test_opening_an_item_shows_its_evidence_and_edit_keeps_its_id_and_creation_time(sample_workspace):
    at = import_samples(open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf"))
    first = stored(sample_workspace)[0]
    at.selectbox(key="rli:gold:open").select(first.id).run()
    assert "E1 · p" in texts(at)
    at.button(key="rli:gold:edit").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"Editing {first.id}" in texts(at)
    answer = field(at, "answer", first.doc_id)
    assert answer.value == first.answer
    answer.input("改めた答え").run()
    at.button(key="rli:gold:save").click().run()
    edited = next(i for i in stored(sample_workspace) if i.id == first.id)
    assert edited.answer == "改めた答え" and edited.created_at == first.created_at
    assert edited.evidence == first.evidence and len(stored(sample_workspace)) >= 25


def test_deleting_an_item_removes_it_from_the_workspace(sample_workspace):
    at = import_samples(open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf"))
    before = stored(sample_workspace)
    at.selectbox(key="rli:gold:open").select(before[0].id).run()
    at.button(key="rli:gold:delete").click().run()
    assert not at.exception
    after = stored(sample_workspace)
    assert len(after) == len(before) - 1 and before[0].id not in {i.id for i in after}
    assert f"Deleted {before[0].id}" in texts(at)


def test_importing_a_malformed_file_shows_the_line_and_changes_nothing(sample_workspace):
    at = open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf")
    at.file_uploader(key="rli:gold:upload").set_value([("bad.jsonl", b"{broken\n", "application/json")]).run()
    at.button(key="rli:gold:import").click().run()
    assert "line 1: not JSON" in texts(at)
    assert stored(sample_workspace) == []


def test_a_quote_narrowed_in_the_editor_is_what_gets_stored(sample_workspace):
    doc_id = doc_id_of(sample_workspace, "keihi_seisan_kitei.pdf")
    at = open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf")
    at.button(key="rli:gold:next").click().run()
    field(at, "question", doc_id).input("タクシーの上限額は").run()
    at.button(key="rli:gold:take_chunk").click().run()
    quote = next(w for w in at.text_input if w.key and w.key.startswith(f"rli:gold:quote:{doc_id}:"))
    quote.input("タクシー").run()
    at.button(key="rli:gold:save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert stored(sample_workspace)[0].evidence[0].quote == "タクシー"


def test_the_llamaindex_export_names_the_question_it_leaves_out(sample_workspace):
    at = import_samples(open_page("pages/gold.py", sample_workspace, doc="keihi_seisan_kitei.pdf"))
    assert "left out" not in texts(at)
    at.radio(key="rli:gold:export_fmt").set_value("llamaindex").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at).replace("\\", "")  # the caption is markdown-escaped
    assert "left out ja-026" in shown and "(reference: metadata_only)" in shown
