"""The workspace as ingest uses it: PDFs by SHA-256, machine Documents per engine, one transaction per save."""
from __future__ import annotations

import pytest

from core.categories import Category
from core.errors import StaleView, UnknownDocument
from core.model import Document, Element, Page, freeze_attrs
from core.store.records import doc_id_for, sha256_of
from store_backends import reopen


def make_doc(engine="fast", text="本文") -> Document:
    sha = sha256_of(b"pdf bytes")
    doc_id = doc_id_for(sha)
    e = Element(f"{doc_id[:8]}-p1-x", 1, 0, Category.TEXT, (10, 10, 100, 20), text, engine,
                attrs=freeze_attrs({"size": 10.5, "rows": [["a", "b"]]}))
    return Document(doc_id, "a.pdf", sha, engine, (Page(1, 595, 842, 0, "i", (e,)),), "v1")


def test_machine_document_round_trips_with_its_attrs(workspace):
    doc = make_doc()
    record = workspace.save_machine_document(doc, size_bytes=9)
    assert (record.doc_id, record.engine, record.page_count, record.size_bytes) == (doc.doc_id, "fast", 1, 9)
    assert workspace.load_machine_document(doc.doc_id) == doc
    assert workspace.machine_version(doc.doc_id, "fast") == "v1" and workspace.machine_version(doc.doc_id, "layout") is None


def test_saving_another_engine_makes_it_current_and_keeps_both(workspace):
    workspace.save_machine_document(make_doc("fast"), 9)
    workspace.save_machine_document(make_doc("layout", "別の本文"), 9)
    doc_id = make_doc().doc_id
    assert workspace.document(doc_id).engine == "layout"
    assert workspace.machine_engines(doc_id) == ["fast", "layout"]
    assert workspace.load_machine_document(doc_id, "fast").engine == "fast"
    assert workspace.has_machine(doc_id, "layout") and not workspace.has_machine(doc_id, "docling")


def test_pdfs_are_stored_by_sha256_atomically(workspace):
    data = b"%PDF-1.7 test"
    sha = sha256_of(data)
    path = workspace.store_pdf(sha, data)
    assert path.name == f"{sha}.pdf" and path.read_bytes() == data
    assert not list(workspace.pdf_dir.glob("*.tmp"))
    with pytest.raises(ValueError):
        workspace.pdf_path("../../etc/passwd")


def test_unknown_documents_are_reported_with_what_to_do(workspace):
    with pytest.raises(UnknownDocument, match="python -m core ingest"):
        workspace.document("0000000000000000")


def test_a_reopened_workspace_sees_what_was_saved(workspace):
    workspace.save_machine_document(make_doc(), 9)
    again = reopen(workspace)
    assert [r.doc_id for r in again.documents()] == [make_doc().doc_id]
    again.close()


def test_deleting_a_document_keeps_its_correction_log(workspace):
    doc = make_doc()
    workspace.save_machine_document(doc, 9)
    workspace.append_events(doc.doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "reviewed"}], "alice")
    workspace.delete_document(doc.doc_id)
    assert workspace.find_document(doc.doc_id) is None
    assert [e.kind for e in workspace.events(doc.doc_id)] == ["mark_reviewed"]


def test_an_edit_made_against_an_old_view_is_refused(workspace):
    doc = make_doc()
    workspace.save_machine_document(doc, 9)
    workspace.append_events(doc.doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "in_progress"}], "a",
                            expected_head=0)
    with pytest.raises(StaleView, match="reload"):
        workspace.append_events(doc.doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "reviewed"}], "b",
                                expected_head=0)
    assert len(workspace.events(doc.doc_id)) == 1


def test_two_column_rows_keep_their_order_and_repeated_cells_through_the_workspace(workspace):
    rows = (("区分", "上限額"), ("交通費", "実費"), ("", "特急料金を含む"), ("", "グリーン車を除く"))
    options = (("oracle", "Oracle"), ("db2", "DB2"))
    doc = make_doc()
    e = doc.pages[0].elements[0].with_attrs(rows=rows, options=options, nested={"b": 1, "a": [1, 2]})
    doc = doc.with_pages([Page(1, 595, 842, 0, "i", (e,))])
    workspace.save_machine_document(doc, 9)
    back = workspace.load_machine_document(doc.doc_id).pages[0].elements[0]
    assert back.attr("rows") == rows and back.attr("options") == options
    assert dict(back.attr("nested")) == {"a": (1, 2), "b": 1}
    assert back.to_dict()["attrs"]["rows"] == [list(r) for r in rows]
    assert back.to_dict()["attrs"]["nested"] == {"a": [1, 2], "b": 1}
