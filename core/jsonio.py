"""Reading JSON from outside the tool: nesting bounded, NaN and Infinity refused.

Python's json module accepts the non-standard literals NaN and Infinity and recurses once per
level, so a hostile file either puts NaN into coordinates (and then into every output) or ends in
a RecursionError. Every reader of a user's JSON (import, correct, gold import) goes through here.
"""
from __future__ import annotations

import json
import math
from typing import Any

MAX_JSON_DEPTH = 64  # parser outputs nest about 10 deep; 64 leaves room and stays far from the stack


class JsonShapeError(ValueError):
    """JSON that parses but that the tool refuses to read (too deep, or a NaN/Infinity literal)."""


def loads_checked(text: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """json.loads, refusing NaN/Infinity (literals, or numbers too large for a float) with their
    JSON path, and nesting deeper than `max_depth` (json.JSONDecodeError for text that is not JSON,
    JsonShapeError for the refusals)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JsonShapeError(f"nested deeper than {max_depth} levels") from None
    _check(value, max_depth)
    return value


def _check(value: Any, max_depth: int) -> None:
    # iterative: the walk must not recurse on what it is checking; a node keeps its parent link
    # and key so the path is spelled only when something is refused
    stack: list[tuple[Any, int, Any]] = [(value, 1, None)]
    while stack:
        item, depth, link = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise JsonShapeError(f"{_pointer(link)} is {_spelled(item)}, not a JSON number (numbers must be finite)")
        if isinstance(item, dict):
            children = item.items()
        elif isinstance(item, list):
            children = enumerate(item)
        else:
            continue
        if depth > max_depth:
            raise JsonShapeError(f"nested deeper than {max_depth} levels")
        stack.extend((child, depth + 1, (link, key)) for key, child in children)


def _pointer(link: Any) -> str:
    """The JSON pointer of a node (`#/texts/0/prov/0/bbox/l`), the form Docling's refs use."""
    keys = []
    while link is not None:
        link, key = link
        keys.append(str(key))
    return "#/" + "/".join(reversed(keys))


def _spelled(value: float) -> str:
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
