"""`python -m core migrate --to postgresql://…`: a SQLite workspace arrives whole, the log's seq
numbers included, and a target that already holds a workspace is refused without a change."""
from __future__ import annotations

import pytest

from core import cli
from core.store.postgres import PostgresWorkspace
from core.store.workspace import Workspace
from test_store import make_doc


@pytest.fixture
def filled_sqlite(tmp_path, sample_docs):
    from core.ingest.pipeline import ingest_path

    ws = Workspace(tmp_path / "ws")
    record = ingest_path(ws, sample_docs / "keihi_seisan_kitei.pdf", engine="fast").record
    ws.save_machine_document(make_doc(), 9)
    ws.append_events(record.doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "reviewed"}], "alice")
    ws.append_events(make_doc().doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "in_progress"}], "bob")
    ws.put_gold_item({"id": "g1", "doc_id": record.doc_id, "question": "上限は?"})
    ws.put_blob("crop/x", b"\x89PNG", "image/png")
    yield ws
    ws.close()


def test_a_migrated_workspace_reads_the_same_on_postgresql(filled_sqlite, pg_url, tmp_path, capsys):
    src = filled_sqlite
    assert cli.main(["migrate", "--workspace", str(src.root), "--to", pg_url]) == 0
    assert '"events": 2' in capsys.readouterr().out
    pg = PostgresWorkspace(pg_url, cache=tmp_path / "cache")
    try:
        assert pg.documents() == src.documents()
        for record in src.documents():
            assert pg.events(record.doc_id) == src.events(record.doc_id)
            assert pg.machine_engines(record.doc_id) == src.machine_engines(record.doc_id)
            assert pg.load_machine_document(record.doc_id) == src.load_machine_document(record.doc_id)
        pdf_doc = src.documents()[0].doc_id
        assert pg.document_pdf(pdf_doc).read_bytes() == src.document_pdf(pdf_doc).read_bytes()
        assert pg.gold_items() == src.gold_items() and pg.get_blob("crop/x") == (b"\x89PNG", "image/png")
        [new] = pg.append_events(pdf_doc, [{"kind": "mark_reviewed", "page": 2, "status": "reviewed"}], "carol")
        assert new.seq == 3  # the log goes on after the migrated seqs, never reusing one
    finally:
        pg.close()


def test_migrating_into_a_database_that_holds_a_workspace_is_refused(filled_sqlite, pg_url, tmp_path, capsys):
    pg = PostgresWorkspace(pg_url, cache=tmp_path / "cache")
    pg.put_gold_item({"id": "theirs"})
    assert cli.main(["migrate", "--workspace", str(filled_sqlite.root), "--to", pg_url]) == 2
    assert "already holds a workspace" in capsys.readouterr().err
    assert pg.documents() == [] and [g["id"] for g in pg.gold_items()] == ["theirs"]
    pg.close()


def test_a_wrong_target_url_is_one_line_not_a_traceback(filled_sqlite, capsys):
    assert cli.main(["migrate", "--workspace", str(filled_sqlite.root), "--to", "sqlite:///x.db"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "not a PostgreSQL URL" in err and "Traceback" not in err


def test_the_cli_reads_a_postgresql_workspace_with_database_url(filled_sqlite, pg_url, tmp_path, capsys):
    cli.main(["migrate", "--workspace", str(filled_sqlite.root), "--to", pg_url])
    capsys.readouterr()
    doc_id = make_doc().doc_id
    assert cli.main(["elements", doc_id, "--machine", "--database-url", pg_url,
                     "--workspace", str(tmp_path / "cache")]) == 0
    assert "本文" in capsys.readouterr().out


def test_migrating_a_folder_that_holds_no_sqlite_workspace_is_refused_and_creates_nothing(tmp_path, pg_url, capsys):
    missing = tmp_path / "not-a-workspace"
    assert cli.main(["migrate", "--workspace", str(missing), "--to", pg_url]) == 2
    assert "no SQLite workspace in" in capsys.readouterr().err
    assert not missing.exists()
