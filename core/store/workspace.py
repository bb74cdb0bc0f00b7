"""The workspace: one SQLite database (WAL) plus the PDFs stored by SHA-256.

This is the only stateful part of the loop. It persists the machine Document (never recomputed on
reopen), the append-only correction log, gold items and derived blobs (figure crops). Every write
is one transaction, so a process killed mid-save loses nothing it had confirmed. The records it
returns and the id helpers are backend-neutral and live in core/store/records.py.
"""
from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import time
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from core.errors import StaleView, UnknownDocument
from core.model import Document
from core.store.records import DocumentRecord, StoredEvent, now_iso, workspace_root
from core.store.schema import SCHEMA_VERSION, check_sqlite_schema  # noqa: F401 (SCHEMA_VERSION: re-exported)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    sha256 TEXT NOT NULL,
    source TEXT NOT NULL,
    engine TEXT NOT NULL,            -- the engine whose machine output is current
    page_count INTEGER NOT NULL,
    size_bytes INTEGER NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS machine_docs (
    doc_id TEXT NOT NULL,
    engine TEXT NOT NULL,
    engine_version TEXT NOT NULL,
    payload BLOB NOT NULL,           -- zlib(JSON of Document)
    created_at REAL NOT NULL,
    PRIMARY KEY (doc_id, engine)
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,           -- the event JSON as written by the app or given to `correct`
    actor TEXT NOT NULL,
    at TEXT NOT NULL,
    base INTEGER NOT NULL            -- head seq of this document's log the event was made against
);
CREATE INDEX IF NOT EXISTS events_doc ON events (doc_id, seq);
CREATE TABLE IF NOT EXISTS gold_items (
    id TEXT PRIMARY KEY,
    doc_id TEXT,
    payload TEXT NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS blobs (
    key TEXT PRIMARY KEY,
    mime TEXT NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Workspace:
    """The SQLite (WAL) implementation of core.store.interface.WorkspaceStore."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = workspace_root(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.pdf_dir = self.root / "pdfs"
        self.pdf_dir.mkdir(exist_ok=True)
        self.db_path = self.root / "workspace.sqlite"
        self._conn = sqlite3.connect(self.db_path, timeout=30, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.executescript(_SCHEMA)
        check_sqlite_schema(self._conn, self.db_path)

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE so two writers serialise instead of one failing late."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # ---- PDFs --------------------------------------------------------------------------------
    def pdf_path(self, sha256: str) -> Path:
        if not all(c in "0123456789abcdef" for c in sha256) or len(sha256) != 64:
            raise ValueError(f"not a sha256: {sha256!r}")
        return self.pdf_dir / f"{sha256}.pdf"

    def document_pdf(self, doc_id: str) -> Path | None:
        """The stored, openable (already decrypted) PDF of a document, or None for imports without one."""
        path = self.pdf_path(self.document(doc_id).sha256)
        return path if path.exists() else None

    def store_pdf(self, sha256: str, data: bytes) -> Path:
        """Write atomically: a half-written PDF never sits under its final name. The temporary file
        is unique per call, so concurrent ingests of the same file never share (and unlink) one."""
        path = self.pdf_path(sha256)
        if not path.exists():
            fd, tmp = tempfile.mkstemp(prefix=f".{sha256[:16]}.", suffix=".tmp", dir=self.pdf_dir)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, path)  # the same bytes under the same name: the last rename wins harmlessly
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return path

    def discard_pdf(self, sha256: str) -> None:
        if self._conn.execute("SELECT 1 FROM documents WHERE sha256=?", (sha256,)).fetchone() is None:
            self.pdf_path(sha256).unlink(missing_ok=True)

    # ---- documents ---------------------------------------------------------------------------
    def documents(self) -> list[DocumentRecord]:
        rows = self._conn.execute("SELECT * FROM documents ORDER BY created_at, doc_id").fetchall()
        return [DocumentRecord(*row) for row in rows]

    def find_document(self, doc_id: str) -> DocumentRecord | None:
        row = self._conn.execute("SELECT * FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
        return DocumentRecord(*row) if row else None

    def document(self, doc_id: str) -> DocumentRecord:
        record = self.find_document(doc_id)
        if record is None:
            raise UnknownDocument(
                f"no document {doc_id!r} in workspace {self.root}; `python -m core ingest FILE` adds one"
            )
        return record

    def has_machine(self, doc_id: str, engine: str) -> bool:
        row = self._conn.execute(
            "SELECT 1 FROM machine_docs WHERE doc_id=? AND engine=?", (doc_id, engine)
        ).fetchone()
        return row is not None

    def machine_version(self, doc_id: str, engine: str) -> str | None:
        row = self._conn.execute(
            "SELECT engine_version FROM machine_docs WHERE doc_id=? AND engine=?", (doc_id, engine)
        ).fetchone()
        return row[0] if row else None

    def save_machine_document(self, doc: Document, size_bytes: int) -> DocumentRecord:
        """Store a machine Document and make its engine the current one, in one transaction."""
        payload = zlib.compress(doc.to_json().encode("utf-8"), 6)
        stamp = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO machine_docs VALUES (?,?,?,?,?)",
                (doc.doc_id, doc.engine, doc.engine_version, payload, stamp),
            )
            db.execute(
                """INSERT INTO documents VALUES (?,?,?,?,?,?,?,?)
                   ON CONFLICT(doc_id) DO UPDATE SET engine=excluded.engine,
                   page_count=excluded.page_count, updated_at=excluded.updated_at""",
                (doc.doc_id, doc.sha256, doc.source, doc.engine, doc.page_count, size_bytes, stamp, stamp),
            )
        return self.document(doc.doc_id)

    def load_machine_document(self, doc_id: str, engine: str | None = None) -> Document:
        engine = engine or self.document(doc_id).engine
        row = self._conn.execute(
            "SELECT payload FROM machine_docs WHERE doc_id=? AND engine=?", (doc_id, engine)
        ).fetchone()
        if row is None:
            raise UnknownDocument(f"document {doc_id!r} has no {engine!r} output in this workspace")
        return Document.from_json(zlib.decompress(row[0]).decode("utf-8"))

    def machine_engines(self, doc_id: str) -> list[str]:
        rows = self._conn.execute(
            "SELECT engine FROM machine_docs WHERE doc_id=? ORDER BY created_at", (doc_id,)
        ).fetchall()
        return [r[0] for r in rows]

    def delete_document(self, doc_id: str) -> None:
        """Removes the document and its machine outputs; the correction log is kept (never lost)."""
        with self.transaction() as db:
            db.execute("DELETE FROM machine_docs WHERE doc_id=?", (doc_id,))
            db.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))

    # ---- correction log ----------------------------------------------------------------------
    def head(self, doc_id: str) -> int:
        row = self._conn.execute("SELECT MAX(seq) FROM events WHERE doc_id=?", (doc_id,)).fetchone()
        return int(row[0] or 0)

    def append_events(
        self,
        doc_id: str,
        events: Sequence[Mapping[str, Any]],
        actor: str,
        expected_head: int | None = None,
    ) -> list[StoredEvent]:
        """Append events in one transaction.

        `expected_head` is the log head the caller's view was built from; if someone else has
        appended since, StaleView is raised and nothing is written.
        """
        self.document(doc_id)
        stored: list[StoredEvent] = []
        with self.transaction() as db:
            head = int(db.execute("SELECT MAX(seq) FROM events WHERE doc_id=?", (doc_id,)).fetchone()[0] or 0)
            if expected_head is not None and head != expected_head:
                raise StaleView(
                    "this document was changed in another session since your view was loaded "
                    f"(log head {head}, your view {expected_head}); reload to see the changes, then redo your edit"
                )
            for event in events:
                if "kind" not in event:
                    raise ValueError(f"event without 'kind': {dict(event)!r}")
                body = {k: v for k, v in event.items() if k not in ("id", "actor", "at", "base")}
                who = str(event.get("actor") or actor)
                at = str(event.get("at") or now_iso())
                base = int(event.get("base", head))
                cur = db.execute(
                    "INSERT INTO events (doc_id, kind, payload, actor, at, base) VALUES (?,?,?,?,?,?)",
                    (doc_id, body["kind"], json.dumps(body, ensure_ascii=False), who, at, base),
                )
                head = int(cur.lastrowid)
                stored.append(StoredEvent(head, doc_id, body["kind"], body, who, at, base))
        return stored

    def events(self, doc_id: str) -> list[StoredEvent]:
        rows = self._conn.execute(
            "SELECT seq, doc_id, kind, payload, actor, at, base FROM events WHERE doc_id=? ORDER BY seq",
            (doc_id,),
        ).fetchall()
        return [StoredEvent(s, d, k, json.loads(p), a, at, b) for s, d, k, p, a, at, b in rows]

    # ---- gold items --------------------------------------------------------------------------
    def put_gold_item(self, item: Mapping[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO gold_items VALUES (?,?,?,?)",
                (item["id"], item.get("doc_id"), json.dumps(item, ensure_ascii=False), time.time()),
            )

    def delete_gold_item(self, item_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM gold_items WHERE id=?", (item_id,))

    def gold_items(self, doc_id: str | None = None) -> list[dict[str, Any]]:
        if doc_id is None:
            rows = self._conn.execute("SELECT payload FROM gold_items ORDER BY id").fetchall()
        else:
            rows = self._conn.execute(
                "SELECT payload FROM gold_items WHERE doc_id=? ORDER BY id", (doc_id,)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    # ---- derived blobs (figure crops) -------------------------------------------------------
    def put_blob(self, key: str, data: bytes, mime: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO blobs VALUES (?,?,?)", (key, mime, data))

    def get_blob(self, key: str) -> tuple[bytes, str] | None:
        row = self._conn.execute("SELECT data, mime FROM blobs WHERE key=?", (key,)).fetchone()
        return (bytes(row[0]), row[1]) if row else None
