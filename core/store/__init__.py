"""The workspace, the one stateful part of the loop: machine output per engine, the append-only
correction log with `expected_head` conflicts, gold sets, blobs and PDFs by SHA-256.
`interface.py` says what a workspace does, `records.py` holds the values it returns (any backend),
`workspace.py` is the SQLite (WAL) default."""
