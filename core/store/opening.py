"""Which workspace to open: PostgreSQL when a database URL is given (`--database-url` or
`RLI_DATABASE_URL`), else the SQLite folder (`--workspace`, `RLI_WORKSPACE` or ./workspace)."""
from __future__ import annotations

import os

from core.store.interface import WorkspaceStore


def database_url(explicit: str | None = None) -> str | None:
    return explicit or os.environ.get("RLI_DATABASE_URL") or None


def open_workspace(workspace: str | os.PathLike | None = None, database: str | None = None) -> WorkspaceStore:
    """The workspace to use; with a database URL, `workspace` is only the folder caching its PDFs."""
    url = database_url(database)
    if url:
        from core.store.postgres import PostgresWorkspace

        return PostgresWorkspace(url, cache=workspace)
    from core.store.workspace import Workspace

    return Workspace(workspace)


def reopen(ws: WorkspaceStore) -> WorkspaceStore:
    """A second connection to the same workspace (for another thread, which must not share the
    first one's transactions)."""
    url = getattr(ws, "url", None)
    if url:
        from core.store.postgres import PostgresWorkspace

        return PostgresWorkspace(url, cache=ws.root.parent)
    from core.store.workspace import Workspace

    return Workspace(ws.root)
