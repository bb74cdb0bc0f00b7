"""AppTest: the app on a database URL it cannot use says so once, instead of a traceback, and
writes nothing to the workspace folder."""
from __future__ import annotations

from apptest_helpers import app_test, empty_workspace  # noqa: F401  (fixtures are used by name)
from store_backends import drop_connections


def test_an_unreachable_database_is_one_clear_message_without_its_password(empty_workspace, monkeypatch):
    monkeypatch.setenv("RLI_DATABASE_URL", f"postgresql://rli:hunter2@/rli?host={empty_workspace}&port=1")
    at = app_test(empty_workspace).run()
    assert not at.exception, [e.value for e in at.exception]
    [error] = [e.value for e in at.error]
    assert "cannot reach the database" in error and "hunter2" not in error
    assert not (empty_workspace / "workspace.sqlite").exists()


def test_a_url_that_is_not_postgresql_is_refused(empty_workspace, monkeypatch):
    monkeypatch.setenv("RLI_DATABASE_URL", "mysql://db/rli")
    at = app_test(empty_workspace).run()
    assert not at.exception
    assert any("not a PostgreSQL URL" in e.value for e in at.error)


def test_a_database_lost_mid_session_is_a_message_with_try_again_not_a_traceback(empty_workspace, pg_url,
                                                                                monkeypatch):
    monkeypatch.setenv("RLI_DATABASE_URL", pg_url)
    at = app_test(empty_workspace).run()  # the first visit stores the samples in the database
    assert not at.exception and not at.error
    drop_connections(pg_url)  # what a database restart does to the session
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    [error] = [e.value for e in at.error]
    assert "lost the connection to the database" in error and "Traceback" not in error
    at.button[0].click().run()  # "Try again": the workspace reconnects
    assert not at.exception and not at.error
