"""The workspace schema's version, shared by both backends, and the errors of opening a database.

Each backend records the version it created (SQLite in its `meta` table, PostgreSQL in the
`schema_version` table) and refuses a workspace written by newer code, whose tables it may not
understand, instead of writing into it.
"""
from __future__ import annotations

import re
import sqlite3

from core.errors import InspectorError

SCHEMA_VERSION = 1


class DatabaseUnavailable(InspectorError):
    """The database URL is well formed but nothing answers there (or it refuses us)."""


class WrongDatabaseUrl(InspectorError):
    """The database URL is not a PostgreSQL URL or cannot be parsed."""


class NewerSchema(InspectorError):
    """The workspace was written by newer code; opening it could damage it."""


class TargetNotEmpty(InspectorError):
    """A migration target that already holds a workspace."""


def redacted_url(url: str) -> str:
    """The URL with any password replaced by ***, fit for a message or a log."""
    url = re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)
    return re.sub(r"(password=)[^&\s]*", r"\1***", url)


def check_sqlite_schema(conn: sqlite3.Connection, where: object) -> None:
    """Record the schema version in a new SQLite workspace; refuse one of a newer version."""
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    elif int(row[0]) > SCHEMA_VERSION:
        raise NewerSchema(
            f"the workspace {where} has schema {row[0]}, newer than this code's {SCHEMA_VERSION}; "
            "update the RAG Layout Inspector before opening it")
