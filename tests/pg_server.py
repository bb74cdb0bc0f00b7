"""A throw-away PostgreSQL server for the tests, from Debian's `postgresql` binaries.

`PgServer.start()` runs initdb in a fresh temporary folder (as the `postgres` user when the tests run
as root, since initdb refuses root) and starts the server on a unix socket in that folder only, so it
never meets another PostgreSQL on the machine. Each test gets its own database from `fresh_url()`.
fsync is off: the tests kill clients, never the server, and a per-test CREATE DATABASE with fsync on
costs a checkpoint each.
"""
from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

PG_BIN = Path(os.environ.get("RLI_PG_BIN", "/usr/lib/postgresql/15/bin"))
PORT = 5432  # the socket file's name only: the server listens on no TCP port


def missing_reason() -> str | None:
    """Why no server can be started here, or None when the binaries are there."""
    if not (PG_BIN / "initdb").exists():
        return f"PostgreSQL binaries not found in {PG_BIN} (Debian package `postgresql`; or set RLI_PG_BIN)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without `runuser` to start PostgreSQL as the postgres user"
    return None


def _as_server_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@dataclass
class PgServer:
    base: Path
    _names: itertools.count = field(default_factory=lambda: itertools.count(1))

    @property
    def data(self) -> Path:
        return self.base / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.base}&port={PORT}"

    @classmethod
    def start(cls) -> "PgServer":
        base = Path(tempfile.mkdtemp(prefix="rli-pg-"))
        if os.geteuid() == 0:
            shutil.chown(base, "postgres", "postgres")
        server = cls(base)
        run = dict(check=True, capture_output=True, text=True, timeout=120)
        subprocess.run(_as_server_user([str(PG_BIN / "initdb"), "-D", str(server.data), "-U", "postgres",
                                        "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"]), **run)
        options = f"-k {base} -p {PORT} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
        subprocess.run(_as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(server.data), "-l",
                                        str(base / "server.log"), "-o", options, "-w", "start"]), **run)
        return server

    def fresh_url(self) -> str:
        """A new empty database's URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def stop(self) -> None:
        subprocess.run(_as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]),
                       capture_output=True, timeout=60)
        shutil.rmtree(self.base, ignore_errors=True)
