"""The PostgreSQL (psycopg 3) workspace: the same WorkspaceStore as the SQLite default, for a team.

Chosen with `RLI_DATABASE_URL=postgresql://…` or `--database-url` (see `core.store.opening`). The
PDFs and derived blobs live in the database too, so a team backs up one thing; a local folder only
caches PDFs as files, because PyMuPDF and the renderer open paths. Guarantees as on SQLite: every
write is one transaction; `append_events` takes a per-document advisory lock before it reads the head,
so of two writers against the same head the second gets StaleView, never a silent overwrite; a
commit is durable (synchronous_commit stays on), so a killed writer loses no confirmed event.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from core.errors import StaleView, UnknownDocument
from core.model import Document
from core.store.records import DocumentRecord, StoredEvent, now_iso, workspace_root
from core.store.schema import (SCHEMA_VERSION, DatabaseUnavailable, NewerSchema, WrongDatabaseUrl,
                               redacted_url)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, sha256 TEXT NOT NULL, source TEXT NOT NULL,
    engine TEXT NOT NULL, page_count INTEGER NOT NULL, size_bytes BIGINT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL);
CREATE TABLE IF NOT EXISTS machine_docs (
    doc_id TEXT NOT NULL, engine TEXT NOT NULL, engine_version TEXT NOT NULL,
    payload BYTEA NOT NULL, created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (doc_id, engine));
CREATE TABLE IF NOT EXISTS events (
    seq BIGSERIAL PRIMARY KEY, doc_id TEXT NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL,
    actor TEXT NOT NULL, at TEXT NOT NULL, base BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS events_doc ON events (doc_id, seq);
CREATE TABLE IF NOT EXISTS gold_items (
    id TEXT PRIMARY KEY, doc_id TEXT, payload TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL);
CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, mime TEXT NOT NULL, data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS pdfs (sha256 TEXT PRIMARY KEY, data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
"""


def connect(url: str):
    """A psycopg connection (autocommit; transactions are explicit), or one clear error naming the URL
    without its password."""
    import psycopg

    if not url.startswith(("postgresql://", "postgres://")):
        raise WrongDatabaseUrl(
            f"database URL {redacted_url(url)!r} is not a PostgreSQL URL; expected postgresql://USER@HOST:PORT/DB")
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.ProgrammingError as err:  # an unparsable conninfo
        raise WrongDatabaseUrl(f"database URL {redacted_url(url)!r} cannot be used: {_first_line(err)}") from None
    except psycopg.OperationalError as err:
        raise DatabaseUnavailable(
            f"cannot reach the database at {redacted_url(url)}: {_first_line(err)}; "
            "is PostgreSQL running, and are the host, port, user and database name right?") from None


def _first_line(err: Exception) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0]


def cache_root_for(url: str, cache: str | os.PathLike | None = None) -> Path:
    """The local folder caching this database's PDFs: one per database, so in-process caches keyed by
    `root` never mix two databases."""
    digest = hashlib.sha256(redacted_url(url).encode("utf-8")).hexdigest()[:12]
    return workspace_root(cache) / f"postgresql-{digest}"


class PostgresWorkspace:
    """The PostgreSQL implementation of core.store.interface.WorkspaceStore."""

    def __init__(self, url: str, cache: str | os.PathLike | None = None, root: str | os.PathLike | None = None):
        """`cache`: the folder under which this database's PDF cache lives (a subfolder per database);
        `root`: the cache folder itself, for a workspace folder bound to its own database
        (core.store.opening's RLI_DATABASE_SERVER), where folder and database are one thing."""
        self.url = url
        self._conn = connect(url)
        self.root = Path(root) if root is not None else cache_root_for(url, cache)
        self.pdf_dir = self.root / "pdfs"
        self.pdf_dir.mkdir(parents=True, exist_ok=True)
        self._create_schema()

    def __repr__(self) -> str:
        return f"PostgresWorkspace({redacted_url(self.url)!r})"

    def _create_schema(self) -> None:
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(7361)")  # two first starts must not race the DDL
            db.execute(_SCHEMA)
            row = db.execute("SELECT max(version) FROM schema_version").fetchone()
            if row[0] is None:
                db.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION,))
            elif row[0] > SCHEMA_VERSION:
                raise NewerSchema(
                    f"the database at {redacted_url(self.url)} has workspace schema {row[0]}, newer than this "
                    f"code's {SCHEMA_VERSION}; update the RAG Layout Inspector before opening it")

    def schema_version(self) -> int:
        return int(self._one("SELECT max(version) FROM schema_version")[0])

    def close(self) -> None:
        self._conn.close()

    def _live(self):
        """The connection, made anew when the server dropped the last one (a restart, a failover, an
        idle timeout): a reviewer's next click works again without restarting the app."""
        if self._conn.closed or self._conn.broken:
            self._conn = connect(self.url)
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self._lost_connection_said("the change may not have been saved: reload the page to see"):
            conn = self._live()
            with conn.transaction():
                yield conn

    def _one(self, sql: str, params: Sequence[Any] = ()):
        with self._lost_connection_said("nothing was changed"):
            return self._live().execute(sql, params).fetchone()

    def _all(self, sql: str, params: Sequence[Any] = ()):
        with self._lost_connection_said("nothing was changed"):
            return self._live().execute(sql, params).fetchall()

    @contextmanager
    def _lost_connection_said(self, consequence: str) -> Iterator[None]:
        """A connection lost in the middle of a call becomes one DatabaseUnavailable naming the
        database (without its password) and what it means for the user's work, not a psycopg trace."""
        import psycopg

        try:
            yield
        except psycopg.OperationalError as err:
            if not (self._conn.closed or self._conn.broken):
                raise
            raise DatabaseUnavailable(
                f"lost the connection to the database at {redacted_url(self.url)} ({_first_line(err)}); "
                f"{consequence}, and try again") from None

    # ---- PDFs (in the database; files are a cache) -------------------------------------------
    def pdf_path(self, sha256: str) -> Path:
        if not all(c in "0123456789abcdef" for c in sha256) or len(sha256) != 64:
            raise ValueError(f"not a sha256: {sha256!r}")
        return self.pdf_dir / f"{sha256}.pdf"

    def store_pdf(self, sha256: str, data: bytes) -> Path:
        path = self.pdf_path(sha256)
        with self.transaction() as db:
            db.execute("INSERT INTO pdfs VALUES (%s, %s) ON CONFLICT (sha256) DO NOTHING", (sha256, data))
        self._cache(path, data)
        return path

    def discard_pdf(self, sha256: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM pdfs WHERE sha256=%s AND NOT EXISTS (SELECT 1 FROM documents WHERE sha256=%s)",
                       (sha256, sha256))
        if self._one("SELECT 1 FROM pdfs WHERE sha256=%s", (sha256,)) is None:
            self.pdf_path(sha256).unlink(missing_ok=True)

    def _cache(self, path: Path, data: bytes) -> None:
        if not path.exists():
            tmp = path.with_name(f"{path.stem}.{os.getpid()}.{time.monotonic_ns()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)  # never half-written under the final name

    def document_pdf(self, doc_id: str) -> Path | None:
        sha = self.document(doc_id).sha256
        path = self.pdf_path(sha)
        if not path.exists():
            row = self._one("SELECT data FROM pdfs WHERE sha256=%s", (sha,))
            if row is None:
                return None
            self._cache(path, bytes(row[0]))
        return path

    # ---- documents ---------------------------------------------------------------------------
    def documents(self) -> list[DocumentRecord]:
        return [DocumentRecord(*row) for row in self._all("SELECT * FROM documents ORDER BY created_at, doc_id")]

    def find_document(self, doc_id: str) -> DocumentRecord | None:
        row = self._one("SELECT * FROM documents WHERE doc_id=%s", (doc_id,))
        return DocumentRecord(*row) if row else None

    def document(self, doc_id: str) -> DocumentRecord:
        record = self.find_document(doc_id)
        if record is None:
            raise UnknownDocument(
                f"no document {doc_id!r} in the database {redacted_url(self.url)}; "
                "`python -m core ingest FILE` adds one")
        return record

    def has_machine(self, doc_id: str, engine: str) -> bool:
        return self._one("SELECT 1 FROM machine_docs WHERE doc_id=%s AND engine=%s", (doc_id, engine)) is not None

    def machine_version(self, doc_id: str, engine: str) -> str | None:
        row = self._one("SELECT engine_version FROM machine_docs WHERE doc_id=%s AND engine=%s", (doc_id, engine))
        return row[0] if row else None

    def save_machine_document(self, doc: Document, size_bytes: int) -> DocumentRecord:
        payload = zlib.compress(doc.to_json().encode("utf-8"), 6)
        stamp = time.time()
        with self.transaction() as db:
            db.execute(
                """INSERT INTO machine_docs VALUES (%s,%s,%s,%s,%s) ON CONFLICT (doc_id, engine) DO UPDATE
                   SET engine_version=excluded.engine_version, payload=excluded.payload,
                   created_at=excluded.created_at""",
                (doc.doc_id, doc.engine, doc.engine_version, payload, stamp))
            db.execute(
                """INSERT INTO documents VALUES (%s,%s,%s,%s,%s,%s,%s,%s)
                   ON CONFLICT (doc_id) DO UPDATE SET engine=excluded.engine,
                   page_count=excluded.page_count, updated_at=excluded.updated_at""",
                (doc.doc_id, doc.sha256, doc.source, doc.engine, doc.page_count, size_bytes, stamp, stamp))
        return self.document(doc.doc_id)

    def load_machine_document(self, doc_id: str, engine: str | None = None) -> Document:
        engine = engine or self.document(doc_id).engine
        row = self._one("SELECT payload FROM machine_docs WHERE doc_id=%s AND engine=%s", (doc_id, engine))
        if row is None:
            raise UnknownDocument(f"document {doc_id!r} has no {engine!r} output in this workspace")
        return Document.from_json(zlib.decompress(bytes(row[0])).decode("utf-8"))

    def machine_engines(self, doc_id: str) -> list[str]:
        rows = self._all("SELECT engine FROM machine_docs WHERE doc_id=%s ORDER BY created_at", (doc_id,))
        return [r[0] for r in rows]

    def delete_document(self, doc_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM machine_docs WHERE doc_id=%s", (doc_id,))
            db.execute("DELETE FROM documents WHERE doc_id=%s", (doc_id,))

    # ---- correction log ----------------------------------------------------------------------
    def head(self, doc_id: str) -> int:
        return int(self._one("SELECT max(seq) FROM events WHERE doc_id=%s", (doc_id,))[0] or 0)

    def append_events(self, doc_id: str, events: Sequence[Mapping[str, Any]], actor: str,
                      expected_head: int | None = None) -> list[StoredEvent]:
        """One transaction; the advisory lock serialises writers of one document (as BEGIN IMMEDIATE
        does on SQLite), so the head read below is still the head at commit."""
        self.document(doc_id)
        stored: list[StoredEvent] = []
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (doc_id,))
            head = int(db.execute("SELECT max(seq) FROM events WHERE doc_id=%s", (doc_id,)).fetchone()[0] or 0)
            if expected_head is not None and head != expected_head:
                raise StaleView(
                    "this document was changed in another session since your view was loaded "
                    f"(log head {head}, your view {expected_head}); reload to see the changes, then redo your edit")
            for event in events:
                if "kind" not in event:
                    raise ValueError(f"event without 'kind': {dict(event)!r}")
                body = {k: v for k, v in event.items() if k not in ("id", "actor", "at", "base")}
                who, at = str(event.get("actor") or actor), str(event.get("at") or now_iso())
                base = int(event.get("base", head))
                head = int(db.execute(
                    "INSERT INTO events (doc_id, kind, payload, actor, at, base) VALUES (%s,%s,%s,%s,%s,%s) "
                    "RETURNING seq",
                    (doc_id, body["kind"], json.dumps(body, ensure_ascii=False), who, at, base)).fetchone()[0])
                stored.append(StoredEvent(head, doc_id, body["kind"], body, who, at, base))
        return stored

    def events(self, doc_id: str) -> list[StoredEvent]:
        rows = self._all(
            "SELECT seq, doc_id, kind, payload, actor, at, base FROM events WHERE doc_id=%s ORDER BY seq", (doc_id,))
        return [StoredEvent(int(s), d, k, json.loads(p), a, at, int(b)) for s, d, k, p, a, at, b in rows]

    # ---- gold items --------------------------------------------------------------------------
    def put_gold_item(self, item: Mapping[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                """INSERT INTO gold_items VALUES (%s,%s,%s,%s) ON CONFLICT (id) DO UPDATE
                   SET doc_id=excluded.doc_id, payload=excluded.payload, updated_at=excluded.updated_at""",
                (item["id"], item.get("doc_id"), json.dumps(item, ensure_ascii=False), time.time()))

    def delete_gold_item(self, item_id: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM gold_items WHERE id=%s", (item_id,))

    def gold_items(self, doc_id: str | None = None) -> list[dict[str, Any]]:
        if doc_id is None:
            rows = self._all("SELECT payload FROM gold_items ORDER BY id COLLATE \"C\"")
        else:
            rows = self._all("SELECT payload FROM gold_items WHERE doc_id=%s ORDER BY id COLLATE \"C\"", (doc_id,))
        return [json.loads(r[0]) for r in rows]

    # ---- derived blobs (figure crops) -------------------------------------------------------
    def put_blob(self, key: str, data: bytes, mime: str) -> None:
        with self.transaction() as db:
            db.execute("""INSERT INTO blobs VALUES (%s,%s,%s) ON CONFLICT (key) DO UPDATE
                          SET mime=excluded.mime, data=excluded.data""", (key, mime, data))

    def get_blob(self, key: str) -> tuple[bytes, str] | None:
        row = self._one("SELECT data, mime FROM blobs WHERE key=%s", (key,))
        return (bytes(row[0]), row[1]) if row else None
