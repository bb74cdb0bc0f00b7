"""What a workspace does, method by method: the contract a second backend (PostgreSQL) implements.

`WorkspaceStore` lists what the rest of the code (core/, ui/, pages/) calls on a workspace, each
with the guarantee callers rely on. `core.store.workspace.Workspace` (SQLite, WAL) is the default
implementation; tests/store/test_store_interface.py checks that it has every method here with the
same parameters. The records it returns are in core/store/records.py, shared by every backend.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

from core.model import Document
from core.store.records import DocumentRecord, StoredEvent


@runtime_checkable
class WorkspaceStore(Protocol):
    """Documents, their machine output per engine, the append-only correction log, gold items,
    derived blobs and the PDFs by SHA-256. Every write is one transaction: all of it or none."""

    @property
    def root(self) -> Path:
        """The folder this workspace lives in; callers key their in-process caches by it."""

    def close(self) -> None:
        """Release the connection; the store is not used afterwards."""

    # ---- PDFs by SHA-256 ----------------------------------------------------------------------
    def pdf_path(self, sha256: str) -> Path:
        """Where the PDF with this SHA-256 is kept (it may not exist yet); ValueError for a malformed hash."""

    def store_pdf(self, sha256: str, data: bytes) -> Path:
        """Keep the bytes under their SHA-256, atomically (never half-written under the final name); idempotent."""

    def document_pdf(self, doc_id: str) -> Path | None:
        """The stored, openable (already decrypted) PDF of a document, or None for an import without one."""

    def discard_pdf(self, sha256: str) -> None:
        """Remove the PDF with this SHA-256 unless a document refers to it (an ingest that failed
        after storing its PDF takes it back, so the workspace is as it was)."""

    # ---- documents and machine output per engine ----------------------------------------------
    def documents(self) -> list[DocumentRecord]:
        """Every document, oldest first (created_at, then doc_id)."""

    def find_document(self, doc_id: str) -> DocumentRecord | None:
        """The document's record, or None when it is not stored."""

    def document(self, doc_id: str) -> DocumentRecord:
        """The document's record; UnknownDocument, naming the ingest command, when it is not stored."""

    def has_machine(self, doc_id: str, engine: str) -> bool:
        """Whether this engine's machine output of the document is stored."""

    def machine_version(self, doc_id: str, engine: str) -> str | None:
        """The engine_version of this engine's stored output of the document; None when none is stored."""

    def save_machine_document(self, doc: Document, size_bytes: int) -> DocumentRecord:
        """Store a machine Document and make its engine the current one, in one transaction."""

    def load_machine_document(self, doc_id: str, engine: str | None = None) -> Document:
        """The machine output of `engine` (default: the current one) as saved; UnknownDocument when absent."""

    def machine_engines(self, doc_id: str) -> list[str]:
        """The engines with stored output for the document, the least recently saved first."""

    def delete_document(self, doc_id: str) -> None:
        """Remove the document and its machine outputs in one transaction; its correction log is kept."""

    # ---- the append-only correction log ---------------------------------------------------------
    def head(self, doc_id: str) -> int:
        """The seq of the document's last event; 0 when its log is empty."""

    def append_events(self, doc_id: str, events: Sequence[Mapping[str, Any]], actor: str,
                      expected_head: int | None = None) -> list[StoredEvent]:
        """Append in one transaction; StaleView, with nothing written, when the head is not `expected_head`."""

    def events(self, doc_id: str) -> list[StoredEvent]:
        """The document's log in append order (seq ascending); stored events never change or go away."""

    # ---- gold items ---------------------------------------------------------------------------
    def put_gold_item(self, item: Mapping[str, Any]) -> None:
        """Insert or replace a gold item (a JSON object with an "id") in one transaction."""

    def delete_gold_item(self, item_id: str) -> None:
        """Remove a gold item; nothing happens when there is none with this id."""

    def gold_items(self, doc_id: str | None = None) -> list[dict[str, Any]]:
        """The stored gold items, only this document's when given, ordered by id."""

    # ---- derived blobs (figure crops) -----------------------------------------------------------
    def put_blob(self, key: str, data: bytes, mime: str) -> None:
        """Store or replace a derived blob under its key."""

    def get_blob(self, key: str) -> tuple[bytes, str] | None:
        """The blob's bytes and MIME type, or None when there is none under this key."""
