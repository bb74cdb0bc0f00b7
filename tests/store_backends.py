"""A second connection to the same workspace, whatever its backend (a second reviewer or process),
and its address for a child process."""
from __future__ import annotations

from core.store.opening import reopen  # noqa: F401 (re-exported for the tests)


def address(ws) -> tuple[str, str]:
    """(workspace folder, database URL or "") that `open_workspace` turns back into this store."""
    url = getattr(ws, "url", "")
    return (str(ws.root.parent) if url else str(ws.root)), url
