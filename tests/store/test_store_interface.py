"""The SQLite Workspace fulfils core.store.interface.WorkspaceStore, method by method, so the rest of
the code can rely on the Protocol alone and a second backend can be checked the same way."""
from __future__ import annotations

import inspect
from typing import Any

from core.store.interface import WorkspaceStore
from core.store.postgres import PostgresWorkspace
from core.store.workspace import Workspace


def protocol_methods(protocol: type) -> dict[str, inspect.Signature]:
    """The Protocol's public methods (its properties are data, checked on an instance)."""
    return {name: inspect.signature(member) for name, member in vars(protocol).items()
            if inspect.isfunction(member) and not name.startswith("_")}


def parameter_shape(signature: inspect.Signature) -> list[tuple[str, Any, bool]]:
    """What a caller depends on: each parameter's name, how it is passed, and whether it may be left out."""
    return [(p.name, p.kind, p.default is not inspect.Parameter.empty) for p in signature.parameters.values()]


def mismatches(implementation: type, protocol: type = WorkspaceStore) -> list[str]:
    """Every Protocol method the class lacks or takes with other parameters; empty when it conforms."""
    found = []
    for name, wanted in protocol_methods(protocol).items():
        member = getattr(implementation, name, None)
        if not callable(member):
            found.append(f"{name}: missing")
        elif parameter_shape(inspect.signature(member)) != parameter_shape(wanted):
            found.append(f"{name}: {inspect.signature(member)} instead of {wanted}")
    return found


def test_the_protocol_names_what_callers_use():
    assert {"documents", "document", "save_machine_document", "load_machine_document", "append_events",
            "events", "head", "gold_items", "put_blob", "store_pdf", "close"} <= set(protocol_methods(WorkspaceStore))


def test_the_sqlite_workspace_has_every_method_with_the_same_parameters():
    assert mismatches(Workspace) == []


def test_the_postgresql_workspace_has_every_method_with_the_same_parameters():
    assert mismatches(PostgresWorkspace) == []


def test_an_open_sqlite_workspace_is_a_workspace_store(tmp_path):
    ws = Workspace(tmp_path / "ws")
    try:
        assert isinstance(ws, WorkspaceStore)  # includes the `root` property
    finally:
        ws.close()


def test_the_check_names_a_missing_method():
    everything_but_head = {name: getattr(Workspace, name) for name in protocol_methods(WorkspaceStore)
                           if name != "head"}
    without_head = type("WithoutHead", (), everything_but_head)
    assert mismatches(without_head) == ["head: missing"]


def test_the_check_names_a_method_with_other_parameters():
    class RenamedParameter(Workspace):
        def append_events(self, doc_id, events, actor, head=None):
            raise NotImplementedError

    assert [m.split(":")[0] for m in mismatches(RenamedParameter)] == ["append_events"]
