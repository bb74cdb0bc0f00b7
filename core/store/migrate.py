"""`python -m core migrate --to postgresql://…`: copy a SQLite workspace into an empty PostgreSQL one.

Everything goes in one PostgreSQL transaction (documents, machine output per engine, the correction
log with its seq numbers, gold items, blobs and the PDF files), so a failed or interrupted migration
leaves the target as empty as it was; the SQLite workspace is only read.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

from core.errors import InspectorError
from core.store.postgres import PostgresWorkspace
from core.store.schema import TargetNotEmpty, redacted_url
from core.store.records import workspace_root
from core.store.workspace import Workspace

TABLES = ("documents", "machine_docs", "events", "gold_items", "blobs")
TARGET_TABLES = (*TABLES, "pdfs")


def migrate(source: Workspace, target: PostgresWorkspace) -> dict[str, int]:
    """Copy `source` into `target` (which must hold no workspace yet); the counts copied per table."""
    counts: dict[str, int] = {}
    reader = sqlite3.connect(f"file:{source.db_path}?mode=ro", uri=True)
    try:
        with target.transaction() as db:
            _refuse_a_filled_target(db, target)
            for table in TABLES:
                counts[table] = _copy_table(reader, db, table)
            db.execute("SELECT setval(pg_get_serial_sequence('events', 'seq'), "
                       "GREATEST((SELECT max(seq) FROM events), 1), (SELECT count(*) > 0 FROM events))")
            counts["pdfs"] = _copy_pdfs(source.pdf_dir, db)
    finally:
        reader.close()
    return counts


def _refuse_a_filled_target(db, target: PostgresWorkspace) -> None:
    db.execute("LOCK TABLE documents, events IN EXCLUSIVE MODE")  # nobody writes while we copy
    filled = [t for t in TARGET_TABLES if db.execute(f"SELECT EXISTS (SELECT 1 FROM {t})").fetchone()[0]]
    if filled:
        raise TargetNotEmpty(
            f"the database {redacted_url(target.url)} already holds a workspace ({', '.join(filled)} not "
            "empty); migrate into a new, empty database")


def _copy_table(reader: sqlite3.Connection, db, table: str) -> int:
    cursor = reader.execute(f"SELECT * FROM {table}")
    columns = [c[0] for c in cursor.description]
    insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})"
    rows = cursor.fetchmany(500)
    total = 0
    with db.cursor() as cur:
        while rows:
            cur.executemany(insert, rows)
            total += len(rows)
            rows = cursor.fetchmany(500)
    return total


def _copy_pdfs(pdf_dir: Path, db) -> int:
    count = 0
    for path in sorted(pdf_dir.glob("*.pdf")):
        db.execute("INSERT INTO pdfs VALUES (%s, %s) ON CONFLICT (sha256) DO NOTHING", (path.stem, path.read_bytes()))
        count += 1
    return count


def source_workspace(folder: str | None, database_url: str | None) -> Workspace:
    """The SQLite workspace `migrate` copies: the folder itself, whatever RLI_DATABASE_URL or
    RLI_DATABASE_SERVER say (they name where workspaces live now, not what is being moved)."""
    if database_url:
        raise InspectorError("migrate copies a SQLite workspace folder (--workspace); drop --database-url, "
                             "and give the target with --to")
    root = workspace_root(folder)
    if not (root / "workspace.sqlite").is_file():
        raise InspectorError(f"no SQLite workspace in {root} (it has no workspace.sqlite); "
                             "give the folder to copy with --workspace")
    return Workspace(root)


def cli_migrate(args: argparse.Namespace, ws) -> int:
    """The command's handler: `ws` is the SQLite workspace being copied (source_workspace)."""
    if not ws.documents() and not ws.gold_items():
        print(f"note: the workspace {ws.root} holds no documents or gold items", flush=True)
    target = PostgresWorkspace(args.to, cache=ws.root)
    try:
        counts = migrate(ws, target)
    finally:
        target.close()
    print(json.dumps({"from": str(ws.root), "to": redacted_url(args.to), "copied": counts}, ensure_ascii=False))
    return 0
