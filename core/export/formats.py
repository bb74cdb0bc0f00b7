"""Chunk exports: the same chunk/v1 record in three shapes, one JSON object per line.

- `jsonl`      `Chunk.to_record()` as DESIGN.md defines it (`{"id", "text", "metadata"}`)
- `langchain`  a LangChain `Document`: `{"id", "page_content", "metadata"}` (`Document(**line)`)
- `llamaindex` a LlamaIndex `TextNode` as `TextNode.to_dict()` writes it (`TextNode.from_dict(line)`),
               with SOURCE/PREVIOUS/NEXT relationships; citation-only metadata is excluded from
               what the embedder and the LLM see.

With `metadata="flat"` every shape carries scalar-only metadata (core.export.flat) that survives
stores taking plain values (LangChain's `filter_complex_metadata`, Chroma) and converts back.

Neither library is imported: these are their wire shapes. Redacted form values never reach a
chunk (core.forms.fields replaces them before chunking), so no export can leak them.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from core.errors import BadInput
from core.export.flat import METADATA_SHAPES, flat_records
from core.model import Chunk

FORMATS = ("jsonl", "langchain", "llamaindex")

# What an embedder or an LLM reading a node's metadata needs: where the text is from.
_SHOWN_METADATA = ("source", "start_page", "end_page", "section_path")

# LlamaIndex NodeRelationship / ObjectType values as serialised (str enums built with auto())
_SOURCE, _PREVIOUS, _NEXT = "1", "2", "3"
_TEXT, _DOCUMENT = "1", "4"


def to_records(chunks: Iterable[Chunk], metadata: str = "nested") -> list[dict[str, Any]]:
    if metadata not in METADATA_SHAPES:
        raise BadInput(f"metadata must be one of {', '.join(METADATA_SHAPES)}, got {metadata!r}")
    records = [c.to_record() for c in chunks]
    return flat_records(records) if metadata == "flat" else records


def langchain_records(chunks: Iterable[Chunk], metadata: str = "nested") -> list[dict[str, Any]]:
    return [{"id": r["id"], "page_content": r["text"], "metadata": r["metadata"]}
            for r in to_records(chunks, metadata)]


def llamaindex_records(chunks: Sequence[Chunk], metadata: str = "nested") -> list[dict[str, Any]]:
    records = to_records(chunks, metadata)
    out = []
    for i, r in enumerate(records):
        hidden = [k for k in r["metadata"] if k not in _SHOWN_METADATA]
        relationships: dict[str, Any] = {_SOURCE: _related(r["metadata"]["doc_id"], _DOCUMENT)}
        if i > 0 and records[i - 1]["metadata"]["doc_id"] == r["metadata"]["doc_id"]:
            relationships[_PREVIOUS] = _related(records[i - 1]["id"], _TEXT)
        if i + 1 < len(records) and records[i + 1]["metadata"]["doc_id"] == r["metadata"]["doc_id"]:
            relationships[_NEXT] = _related(records[i + 1]["id"], _TEXT)
        out.append({
            "id_": r["id"], "embedding": None, "metadata": r["metadata"],
            "excluded_embed_metadata_keys": hidden, "excluded_llm_metadata_keys": hidden,
            "relationships": relationships, "metadata_template": "{key}: {value}",
            "metadata_separator": "\n", "text": r["text"], "mimetype": "text/plain",
            "start_char_idx": None, "end_char_idx": None, "text_template": "{metadata_str}\n\n{content}",
            "class_name": "TextNode",
        })
    return out


def _related(node_id: str, node_type: str) -> dict[str, Any]:
    return {"node_id": node_id, "node_type": node_type, "metadata": {}, "hash": None,
            "class_name": "RelatedNodeInfo"}


# Line separators that JSON leaves raw but str.splitlines() and some JSONL readers split on.
_LINE_BREAKERS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _lines(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False).translate(_LINE_BREAKERS) + "\n" for r in records)


def json_lines(records: Iterable[dict[str, Any]]) -> str:
    """One JSON object a line (for shards of records already shaped)."""
    return _lines(records)


def to_jsonl(chunks: Iterable[Chunk], metadata: str = "nested") -> str:
    return _lines(to_records(chunks, metadata))


def to_langchain(chunks: Iterable[Chunk], metadata: str = "nested") -> str:
    return _lines(langchain_records(chunks, metadata))


def to_llamaindex(chunks: Sequence[Chunk], metadata: str = "nested") -> str:
    return _lines(llamaindex_records(list(chunks), metadata))


EXPORTERS: dict[str, Callable[[Sequence[Chunk], str], str]] = {
    "jsonl": to_jsonl, "langchain": to_langchain, "llamaindex": to_llamaindex,
}


def export(chunks: Sequence[Chunk], fmt: str, metadata: str = "nested") -> str:
    if fmt not in EXPORTERS:
        raise BadInput(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return EXPORTERS[fmt](list(chunks), metadata)


def file_name(source: str, policy_name: str, fmt: str, metadata: str = "nested") -> str:
    """A download name from the document's name; only safe characters survive."""
    def safe(text: str) -> str:
        return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in text) or "document"
    shape = "" if fmt == "jsonl" else f".{safe(fmt)}"
    flat = ".flat" if metadata == "flat" else ""
    return f"{safe(Path(source).stem)}.{safe(policy_name)}{shape}{flat}.jsonl"
