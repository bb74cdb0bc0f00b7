"""What both backends guarantee beyond one call: two connections, schema versions, PDFs in the
database (PostgreSQL), and one clear message for a database that cannot be used."""
from __future__ import annotations

import sqlite3
import threading

import pytest

from core.errors import StaleView
from core.store.interface import WorkspaceStore
from core.store.opening import open_workspace
from core.store.postgres import PostgresWorkspace
from core.store.records import sha256_of
from core.store.schema import SCHEMA_VERSION, DatabaseUnavailable, NewerSchema, WrongDatabaseUrl, redacted_url
from core.store.workspace import Workspace
from store_backends import drop_connections, reopen
from test_store import make_doc

REVIEWED = {"kind": "mark_reviewed", "page": 1, "status": "reviewed"}


def test_both_backends_are_workspace_stores(workspace):
    assert isinstance(workspace, WorkspaceStore)


def test_a_second_connection_sees_a_save_and_its_stale_edit_is_refused(workspace):
    doc = make_doc()
    workspace.save_machine_document(doc, 9)
    other = reopen(workspace)
    try:
        workspace.append_events(doc.doc_id, [REVIEWED], "alice", expected_head=0)
        assert [e.actor for e in other.events(doc.doc_id)] == ["alice"]
        with pytest.raises(StaleView, match="reload"):
            other.append_events(doc.doc_id, [REVIEWED], "bob", expected_head=0)
        assert other.head(doc.doc_id) == workspace.head(doc.doc_id)
    finally:
        other.close()


def test_of_many_writers_against_the_same_head_exactly_one_wins(workspace):
    doc = make_doc()
    workspace.save_machine_document(doc, 9)
    stores = [reopen(workspace) for _ in range(6)]
    outcomes: list[str] = []
    gate = threading.Barrier(len(stores))

    def write(store, name):
        gate.wait()
        try:
            store.append_events(doc.doc_id, [REVIEWED], name, expected_head=0)
            outcomes.append("saved")
        except StaleView:
            outcomes.append("stale")

    threads = [threading.Thread(target=write, args=(s, f"w{i}")) for i, s in enumerate(stores)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores:
        s.close()
    assert sorted(outcomes) == ["saved"] + ["stale"] * 5
    assert len(workspace.events(doc.doc_id)) == 1


def test_a_failed_append_writes_nothing(workspace):
    doc = make_doc()
    workspace.save_machine_document(doc, 9)
    with pytest.raises(ValueError, match="without 'kind'"):
        workspace.append_events(doc.doc_id, [REVIEWED, {"page": 1}], "alice")
    assert workspace.events(doc.doc_id) == [] and workspace.head(doc.doc_id) == 0


def test_gold_items_and_blobs_round_trip_and_replace(workspace):
    workspace.put_gold_item({"id": "b", "doc_id": "d1", "question": "いくら?"})
    workspace.put_gold_item({"id": "a", "doc_id": "d2", "question": "q"})
    workspace.put_gold_item({"id": "b", "doc_id": "d1", "question": "上限は?"})
    assert [g["id"] for g in workspace.gold_items()] == ["a", "b"]
    assert workspace.gold_items("d1") == [{"id": "b", "doc_id": "d1", "question": "上限は?"}]
    workspace.delete_gold_item("a")
    workspace.delete_gold_item("missing")
    assert [g["id"] for g in workspace.gold_items()] == ["b"]
    workspace.put_blob("crop/1", b"\x89PNG", "image/png")
    workspace.put_blob("crop/1", b"\xff\xd8", "image/jpeg")
    assert workspace.get_blob("crop/1") == (b"\xff\xd8", "image/jpeg")
    assert workspace.get_blob("nothing") is None


def test_postgresql_keeps_the_pdf_in_the_database_not_only_in_its_cache(pg_url, tmp_path):
    data = b"%PDF-1.7 shared"
    doc = make_doc()
    doc = type(doc)(doc.doc_id, doc.source, sha256_of(data), doc.engine, doc.pages, doc.engine_version)
    first = PostgresWorkspace(pg_url, cache=tmp_path / "laptop-a")
    first.store_pdf(doc.sha256, data)
    first.save_machine_document(doc, len(data))
    first.close()
    second = PostgresWorkspace(pg_url, cache=tmp_path / "laptop-b")  # another machine: an empty cache
    try:
        path = second.document_pdf(doc.doc_id)
        assert path is not None and path.read_bytes() == data and str(tmp_path / "laptop-b") in str(path)
    finally:
        second.close()


def test_a_postgresql_database_of_a_newer_schema_is_refused(pg_url, tmp_path):
    PostgresWorkspace(pg_url, cache=tmp_path).close()
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION + 1,))
    with pytest.raises(NewerSchema, match="update the RAG Layout Inspector"):
        PostgresWorkspace(pg_url, cache=tmp_path)


def test_a_sqlite_workspace_of_a_newer_schema_is_refused(tmp_path):
    ws = Workspace(tmp_path / "ws")
    ws.close()
    with sqlite3.connect(tmp_path / "ws" / "workspace.sqlite") as db:
        db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(NewerSchema, match=f"schema {SCHEMA_VERSION + 1}"):
        Workspace(tmp_path / "ws")


def test_an_unreachable_database_is_one_message_without_the_password(tmp_path):
    url = f"postgresql://alice:s3cret@/nowhere?host={tmp_path}&port=1"
    with pytest.raises(DatabaseUnavailable, match="cannot reach the database") as err:
        open_workspace(tmp_path, url)
    assert "s3cret" not in str(err.value) and "alice:***@" in str(err.value)


def test_a_url_that_is_not_postgresql_is_refused_before_connecting(tmp_path):
    with pytest.raises(WrongDatabaseUrl, match="not a PostgreSQL URL"):
        open_workspace(tmp_path, "mysql://bob:pw@db/x")
    assert redacted_url("postgresql://u:p@h/d?password=q") == "postgresql://u:***@h/d?password=***"


def test_without_a_url_the_sqlite_folder_is_opened(tmp_path, monkeypatch):
    monkeypatch.delenv("RLI_DATABASE_URL", raising=False)
    monkeypatch.delenv("RLI_DATABASE_SERVER", raising=False)
    ws = open_workspace(tmp_path / "ws")
    assert isinstance(ws, Workspace)
    ws.close()


def test_with_a_database_server_each_folder_is_its_own_database(pg_server, tmp_path, monkeypatch):
    monkeypatch.delenv("RLI_DATABASE_URL", raising=False)
    monkeypatch.setenv("RLI_DATABASE_SERVER", pg_server.url())
    first, second = open_workspace(tmp_path / "corpus a"), open_workspace(tmp_path / "corpus b")
    try:
        assert isinstance(first, PostgresWorkspace) and first.root == tmp_path / "corpus a"
        first.save_machine_document(make_doc(), 9)
        assert [r.doc_id for r in first.documents()] == [make_doc().doc_id]
        assert second.documents() == []  # the other folder's database is another workspace
        again = open_workspace(tmp_path / "corpus a")  # a second process opening the folder finds the same data
        assert [r.doc_id for r in again.documents()] == [make_doc().doc_id]
        assert "corpus_a" in again.url
        again.close()
    finally:
        first.close()
        second.close()


def refuse_machine_saves(ws) -> None:
    """A real database failure at the save after the PDF is stored (a trigger, as a full disk or a
    lost connection would fail it), on either backend."""
    if isinstance(ws, PostgresWorkspace):
        with ws.transaction() as db:
            db.execute("CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$ "
                       "LANGUAGE plpgsql")
            db.execute("CREATE TRIGGER refuse BEFORE INSERT ON machine_docs FOR EACH ROW EXECUTE FUNCTION refuse()")
    else:
        with sqlite3.connect(ws.db_path) as db:
            db.execute("CREATE TRIGGER refuse BEFORE INSERT ON machine_docs BEGIN SELECT RAISE(ABORT, 'disk full'); END")


def test_an_ingest_whose_save_fails_leaves_no_pdf_behind(workspace):
    from core.ingest.pipeline import ingest_bytes
    from pdf_builders import build_pdf, paragraph
    from store_backends import table_rows

    kept = ingest_bytes(workspace, build_pdf(lambda p: paragraph(p, 72, 90, ["既にある文書です。"])), "kept.pdf",
                        engine="fast").record
    refuse_machine_saves(workspace)
    before = table_rows(workspace), sorted(p.name for p in workspace.pdf_dir.iterdir())
    with pytest.raises(Exception, match="disk full"):
        ingest_bytes(workspace, build_pdf(lambda p: paragraph(p, 72, 90, ["保存に失敗する文書です。"])), "new.pdf",
                     engine="fast")
    assert (table_rows(workspace), sorted(p.name for p in workspace.pdf_dir.iterdir())) == before
    assert workspace.document_pdf(kept.doc_id).exists()  # the PDF a document refers to stays


def test_a_dropped_postgresql_connection_is_one_message_and_the_next_call_reconnects(pg_url, tmp_path):
    ws = PostgresWorkspace(pg_url, cache=tmp_path)
    doc = make_doc()
    ws.save_machine_document(doc, 9)
    drop_connections(pg_url)  # what a server restart does to the app's connection
    with pytest.raises(DatabaseUnavailable, match="lost the connection") as caught:
        ws.documents()
    assert "Traceback" not in str(caught.value) and "nothing was changed" in str(caught.value)
    assert [r.doc_id for r in ws.documents()] == [doc.doc_id]  # the next call works again
    ws.append_events(doc.doc_id, [REVIEWED], "alice", expected_head=0)
    assert ws.head(doc.doc_id) == 1
    ws.close()
