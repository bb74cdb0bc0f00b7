"""Every store test runs on both backends: `workspace` here is SQLite, then PostgreSQL."""
from __future__ import annotations

import pytest


@pytest.fixture
def workspace(any_workspace):
    return any_workspace
