"""ui/trace.py: what a click did, on stderr only when RLI_TRACE_UI is set, with no typed text."""
from __future__ import annotations

from ui.trace import trace


def test_the_trace_writes_one_line_when_asked(monkeypatch, capsys):
    monkeypatch.setenv("RLI_TRACE_UI", "1")
    trace("save", kinds=["join_chunks"], outcome="stored", head=7)
    err = capsys.readouterr().err
    assert err.startswith("rli-trace ") and err.endswith("save kinds=['join_chunks'] outcome='stored' head=7\n")


def test_the_trace_is_silent_unless_asked(monkeypatch, capsys):
    monkeypatch.delenv("RLI_TRACE_UI", raising=False)
    trace("save", outcome="stored")
    assert capsys.readouterr() == ("", "")
