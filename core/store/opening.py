"""Which workspace to open: PostgreSQL when a database URL is given (`--database-url` or
`RLI_DATABASE_URL`), else the SQLite folder (`--workspace`, `RLI_WORKSPACE` or ./workspace).

`RLI_DATABASE_SERVER=postgresql://…/` is the third way: one PostgreSQL server holding a database
per workspace folder. A team keeps several corpora (one folder each, as with SQLite) on one server
and every command that names a folder reaches that folder's database, created on first use. The
test suite uses it to run every test on PostgreSQL: each test's folder gets a database of its own,
in its own process and in every child it starts (CLI, Streamlit)."""
from __future__ import annotations

import hashlib
import os
from urllib.parse import urlsplit, urlunsplit

from core.store.interface import WorkspaceStore
from core.store.records import workspace_root

SERVER_ENV = "RLI_DATABASE_SERVER"


def database_url(explicit: str | None = None) -> str | None:
    return explicit or os.environ.get("RLI_DATABASE_URL") or None


def open_workspace(workspace: str | os.PathLike | None = None, database: str | None = None) -> WorkspaceStore:
    """The workspace to use; with a database URL, `workspace` is only the folder caching its PDFs."""
    from core.store.postgres import PostgresWorkspace

    url = database_url(database)
    if url:
        return PostgresWorkspace(url, cache=workspace)
    server = os.environ.get(SERVER_ENV)
    if server:  # the folder and its database are one workspace: the folder is also the PDF cache
        return PostgresWorkspace(folder_database(server, workspace), root=workspace_root(workspace))
    from core.store.workspace import Workspace

    return Workspace(workspace)


def database_name_for(workspace: str | os.PathLike | None) -> str:
    """The folder's database: its name (readable in `\\l`) and a digest of its full path (unique)."""
    folder = workspace_root(workspace).resolve()
    digest = hashlib.sha256(str(folder).encode("utf-8")).hexdigest()[:12]
    readable = "".join(c if c.isalnum() else "_" for c in folder.name.lower())[:30]
    return f"rli_{readable}_{digest}"


def folder_database(server: str, workspace: str | os.PathLike | None) -> str:
    """The URL of the workspace folder's database on `server`, created when it does not exist yet."""
    from core.store.postgres import connect

    name = database_name_for(workspace)
    parts = urlsplit(server)
    url = urlunsplit(parts._replace(path="/" + name))
    conn = connect(server)
    try:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            _create_database(conn, name)
    finally:
        conn.close()
    return url


def _create_database(conn, name: str) -> None:
    import psycopg
    from psycopg import sql

    try:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'").format(sql.Identifier(name)))
    except psycopg.errors.DuplicateDatabase:
        pass  # another process opening the same folder made it first
    except psycopg.errors.UniqueViolation:
        pass  # the same race, caught in pg_database's index instead


def reopen(ws: WorkspaceStore) -> WorkspaceStore:
    """A second connection to the same workspace (for another thread, which must not share the
    first one's transactions)."""
    url = getattr(ws, "url", None)
    if url:
        from core.store.postgres import PostgresWorkspace

        return PostgresWorkspace(url, root=ws.root)
    from core.store.workspace import Workspace

    return Workspace(ws.root)
