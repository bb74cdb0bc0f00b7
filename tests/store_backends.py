"""A second connection to the same workspace, whatever its backend (a second reviewer or process),
and its address for a child process."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from core.store.opening import SERVER_ENV, database_name_for
from core.store.opening import reopen  # noqa: F401 (re-exported for the tests)


def address(ws) -> tuple[str, str]:
    """(workspace folder, database URL or "") that `open_workspace` turns back into this store, in a
    child started with child_env(ws)."""
    url = getattr(ws, "url", "")
    return (str(ws.root.parent) if url else str(ws.root)), url


def child_env(ws, **extra: str) -> dict[str, str]:
    """The environment for a child process that opens `ws` by its address: a SQLite store stays
    SQLite even in a PostgreSQL run (where RLI_DATABASE_SERVER would bind its folder to a database)."""
    env = {**os.environ, **extra}
    if not getattr(ws, "url", ""):
        env.pop(SERVER_ENV, None)
    return env


def table_rows(ws) -> dict[str, list[tuple]]:
    """Every table's rows, in a fixed order, on either backend: what 'the workspace is unchanged'
    compares."""
    if getattr(ws, "url", None):
        import psycopg

        with psycopg.connect(ws.url) as db:
            tables = [r[0] for r in db.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
            return {t: sorted((tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
                               for row in db.execute(f'SELECT * FROM "{t}"')), key=repr)
                    for t in tables}
    import sqlite3

    with sqlite3.connect(ws.db_path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {t: db.execute(f"SELECT * FROM {t}").fetchall() for t in tables}


def copy_workspace(source: Path, target: Path) -> Path:
    """A copy of the workspace folder `source` at `target`; in a PostgreSQL run (RLI_DATABASE_SERVER)
    the folder's database is copied too, so the copy holds what the source holds on either backend."""
    shutil.copytree(source, target)
    server = os.environ.get(SERVER_ENV)
    if server:
        import psycopg
        from psycopg import sql

        with psycopg.connect(server, autocommit=True) as db:
            db.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(database_name_for(target)), sql.Identifier(database_name_for(source))))
    return target


def drop_connections(url: str) -> None:
    """Close every other connection to the database at `url` from the server side, as a server
    restart or a failover does to an app's connection."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid()")
