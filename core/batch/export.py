"""`batch export`: every document's chunks (corrected view, one policy) as shards of at most
`shard_size` records plus a manifest.json listing each shard with its record count and SHA-256.

Shards are written under a temporary name and renamed, and the manifest last, so a reader that
trusts the manifest never sees a half-written export.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any, Iterator

from core.errors import BadInput
from core.export.formats import json_lines, langchain_records, llamaindex_records, to_records

FORMATS = ("jsonl", "langchain", "llamaindex", "parquet")
SHARD_SIZE = 10_000
_RECORDS = {"jsonl": to_records, "langchain": langchain_records, "llamaindex": llamaindex_records}


def document_records(ws, fmt: str, policy) -> Iterator[dict[str, Any]]:
    """The records of every document in turn (llamaindex links a chunk to its neighbours in its document)."""
    from core.chunks.pipeline import chunks_for

    shape = _RECORDS["jsonl" if fmt == "parquet" else fmt]
    for record in ws.documents():
        yield from shape(list(chunks_for(ws, record.doc_id, policy)))


def batch_export(ws, out: Path, fmt: str, policy, shard_size: int = SHARD_SIZE) -> dict[str, Any]:
    if fmt not in FORMATS:
        raise BadInput(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if shard_size < 1:
        raise BadInput(f"--shard-size must be at least 1, got {shard_size}")
    out.mkdir(parents=True, exist_ok=True)
    shards, batch = [], []
    for record in document_records(ws, fmt, policy):
        batch.append(record)
        if len(batch) == shard_size:
            shards.append(_write_shard(out, len(shards), batch, fmt))
            batch = []
    if batch or not shards:
        shards.append(_write_shard(out, len(shards), batch, fmt))
    manifest = {"format": fmt, "policy": policy.name, "documents": len(ws.documents()),
                "records": sum(s["records"] for s in shards), "shard_size": shard_size,
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "shards": shards}
    _atomic_write(out / "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8"))
    return manifest


def _write_shard(out: Path, number: int, records: list[dict[str, Any]], fmt: str) -> dict[str, Any]:
    name = f"chunks-{number:05d}.{'parquet' if fmt == 'parquet' else 'jsonl'}"
    data = _parquet_bytes(records) if fmt == "parquet" else json_lines(records).encode("utf-8")
    _atomic_write(out / name, data)
    return {"file": name, "records": len(records), "sha256": hashlib.sha256(data).hexdigest()}


def _parquet_bytes(records: list[dict[str, Any]]) -> bytes:
    """id, text, and the metadata as a JSON string (its keys differ between chunk kinds)."""
    import io

    import pandas as pd

    frame = pd.DataFrame({"id": [r["id"] for r in records], "text": [r["text"] for r in records],
                          "metadata": [json.dumps(r["metadata"], ensure_ascii=False) for r in records]})
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
