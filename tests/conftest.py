"""Shared fixtures: a fresh workspace, the sample documents, and the real third-party files.

Kept small and stable: other test modules rely on these names.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check behaviour, not speed: a per-example deadline only turns a busy 2-core
# machine into a failure (speed figures live in bench/).
settings.register_profile("rli", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("rli")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DOCS = ROOT / "sample_docs"
REALDATA = Path(os.environ.get("RLI_REALDATA") or ROOT.parent / "shared" / "realdata")  # a worktree sits deeper


# RLI_TEST_BACKEND=postgresql runs the whole suite on PostgreSQL: a throw-away server is started
# before the first test and RLI_DATABASE_SERVER points at it, so every workspace a test opens through
# core.store.opening.open_workspace (fixtures, the CLI, the app, the Streamlit servers the browser
# tests start) is a database of its own on that server, one per workspace folder. Tests that are about
# SQLite itself (tests/store) name core.store.workspace.Workspace and stay on SQLite.
TEST_BACKEND = os.environ.get("RLI_TEST_BACKEND", "sqlite")
_SUITE_SERVER: list = []  # the server of a PostgreSQL run, shared with the pg_server fixture


def pytest_configure(config):
    if TEST_BACKEND not in ("sqlite", "postgresql"):
        raise pytest.UsageError(f"RLI_TEST_BACKEND must be sqlite or postgresql, got {TEST_BACKEND!r}")
    if TEST_BACKEND == "postgresql" and not _SUITE_SERVER:
        from pg_server import PgServer, missing_reason
        from core.store.opening import SERVER_ENV

        reason = missing_reason()
        if reason:
            raise pytest.UsageError(f"RLI_TEST_BACKEND=postgresql but {reason}")
        _SUITE_SERVER.append(PgServer.start())
        os.environ[SERVER_ENV] = _SUITE_SERVER[0].url()


def pytest_unconfigure(config):
    while _SUITE_SERVER:
        _SUITE_SERVER.pop().stop()


def pytest_report_header(config):
    return f"workspace backend: {TEST_BACKEND} (RLI_TEST_BACKEND)"


@pytest.fixture(scope="session")
def pg_server():
    """A throw-away PostgreSQL server (tests/pg_server.py) for the whole run. Skips with the reason
    where Debian's binaries are absent, but fails under CI=1, where they must be installed."""
    if _SUITE_SERVER:
        yield _SUITE_SERVER[0]
        return
    from pg_server import PgServer, missing_reason

    reason = missing_reason()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {reason}")
        pytest.skip(reason)
    server = PgServer.start()
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server) -> str:
    """The URL of a new, empty PostgreSQL database on the throw-away server."""
    return pg_server.fresh_url()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_workspace(request, tmp_path):
    """An empty workspace on each backend in turn: SQLite in a temporary folder, then PostgreSQL
    in a fresh database (its PDF cache in a temporary folder). `reopen(ws)` gives a second connection."""
    if request.param == "sqlite":
        from core.store.workspace import Workspace

        ws = Workspace(tmp_path / "workspace")
    else:
        from core.store.postgres import PostgresWorkspace

        ws = PostgresWorkspace(request.getfixturevalue("pg_url"), cache=tmp_path / "cache")
    yield ws
    ws.close()


@pytest.fixture
def workspace(tmp_path):
    """An empty workspace for a temporary folder: SQLite, or its own PostgreSQL database in a
    PostgreSQL run (RLI_TEST_BACKEND)."""
    from core.store.opening import open_workspace

    ws = open_workspace(tmp_path / "workspace")
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def sample_docs() -> Path:
    """The folder of generated sample PDFs and their `*.truth.json`."""
    if not any(SAMPLE_DOCS.glob("*.pdf")):
        pytest.skip(f"no sample PDFs in {SAMPLE_DOCS}; run `python sample_docs/generate.py`")
    return SAMPLE_DOCS


@pytest.fixture(scope="session")
def realdata() -> Path:
    """../shared/realdata (third-party PDFs and parser outputs); skips when absent (a fresh clone)."""
    if not REALDATA.is_dir():
        pytest.skip(f"{REALDATA} is absent: the real third-party files are not part of the repository")
    return REALDATA


@pytest.fixture(scope="module")
def fast_samples_root(tmp_path_factory) -> Path:
    """A workspace folder holding the sample PDFs ingested with the fast engine, one per test module
    (modules write gold items into it, so they do not share one)."""
    from core.ingest.pipeline import ingest_path
    from core.store.opening import open_workspace

    root = tmp_path_factory.mktemp("samples")
    ws = open_workspace(root)
    for pdf in sorted(SAMPLE_DOCS.glob("*.pdf")):
        ingest_path(ws, pdf, engine="fast")
    ws.close()
    return root


@pytest.fixture
def stored(tmp_path):
    """(workspace, Document): review_fixtures' two-page document stored in a fresh workspace, for the
    tests of corrections, re-anchoring, review status and links."""
    from review_fixtures import stored_document

    ws, doc = stored_document(tmp_path / "ws")
    yield ws, doc
    ws.close()
