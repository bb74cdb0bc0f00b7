"""What a workspace stores and hands back, whatever the backend: the value types and small helpers.

`DocumentRecord` (one stored document) and `StoredEvent` (one event of the correction log) are what
`core.store.interface.WorkspaceStore` returns; the helpers name a document by its bytes' SHA-256,
find the workspace folder and stamp events. The SQLite backend (`workspace.py`) and any later one
(PostgreSQL) share them, so callers do not depend on a backend to use them.
"""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

DEFAULT_WORKSPACE = "workspace"


@dataclass(frozen=True)
class DocumentRecord:
    doc_id: str
    sha256: str
    source: str
    engine: str
    page_count: int
    size_bytes: int
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class StoredEvent:
    seq: int  # position in the whole log; an event's id is its seq as a string
    doc_id: str
    kind: str
    payload: Mapping[str, Any]
    actor: str
    at: str
    base: int

    @property
    def event_id(self) -> str:
        return str(self.seq)

    def to_dict(self) -> dict[str, Any]:
        return {**self.payload, "id": self.event_id, "actor": self.actor, "at": self.at, "base": self.base}


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def doc_id_for(sha256: str) -> str:
    return sha256[:16]


def workspace_root(explicit: str | os.PathLike | None = None) -> Path:
    return Path(explicit or os.environ.get("RLI_WORKSPACE") or DEFAULT_WORKSPACE)


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
