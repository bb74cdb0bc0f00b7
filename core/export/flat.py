"""Chunk metadata with scalar values only, for vector stores that take nothing else.

Chroma, and LangChain's `filter_complex_metadata` in front of such stores, keep only str, int,
float and bool values: the nested chunk/v1 metadata would lose `source_record_refs` (the page and
box citations), `section_path`, captions and footnotes on the way in. The flat form keeps every
key: scalars stay as they are, `section_path` becomes one string joined with " > " (readable,
filterable), and every other list, dict or None becomes a JSON string. `json_keys` names the keys
written as JSON, so `unflatten_metadata` gives the nested form back exactly; `section_path_json`
is added only when the joined path would not split back into the same headings.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

METADATA_SHAPES = ("nested", "flat")
PATH_SEPARATOR = " > "
JSON_KEYS = "json_keys"  # a JSON list of the keys whose values are written as JSON strings
PATH_JSON = "section_path_json"
_SCALARS = (str, int, float, bool)


def _split_path(joined: str) -> list[str]:
    return joined.split(PATH_SEPARATOR) if joined else []


def flatten_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Every value a str, int, float or bool; nothing dropped."""
    if JSON_KEYS in metadata or PATH_JSON in metadata:
        raise ValueError(f"metadata already uses the reserved keys {JSON_KEYS!r}/{PATH_JSON!r}: is it flat already?")
    out: dict[str, Any] = {}
    encoded: list[str] = []
    for key, value in metadata.items():
        if key == "section_path" and isinstance(value, (list, tuple)):
            parts = [str(p) for p in value]
            out[key] = PATH_SEPARATOR.join(parts)
            if _split_path(out[key]) != parts:  # a heading holding the separator, or an empty heading
                out[PATH_JSON] = json.dumps(parts, ensure_ascii=False)
        elif isinstance(value, _SCALARS):
            out[key] = value
        else:
            out[key] = json.dumps(value, ensure_ascii=False)
            encoded.append(key)
    out[JSON_KEYS] = json.dumps(encoded, ensure_ascii=False)
    return out


def unflatten_metadata(flat: Mapping[str, Any]) -> dict[str, Any]:
    """The nested metadata `flatten_metadata` was given."""
    if JSON_KEYS not in flat:
        raise ValueError(f"not flat chunk metadata: no {JSON_KEYS!r} key")
    encoded = set(json.loads(flat[JSON_KEYS]))
    out: dict[str, Any] = {}
    for key, value in flat.items():
        if key in (JSON_KEYS, PATH_JSON):
            continue
        if key in encoded:
            out[key] = json.loads(value)
        elif key == "section_path" and isinstance(value, str):
            out[key] = json.loads(flat[PATH_JSON]) if PATH_JSON in flat else _split_path(value)
        else:
            out[key] = value
    return out


def flat_records(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """chunk/v1 records ({"id", "text", "metadata"}) with their metadata flattened."""
    return [{**r, "metadata": flatten_metadata(r["metadata"])} for r in records]
