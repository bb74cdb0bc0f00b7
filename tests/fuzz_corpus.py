"""Hostile inputs made from good ones, with a fixed seed: mutated PDFs and mutated parser JSON,
event files and gold files, and a runner that puts each through `python -m core` in-process.

Shared by tests/robustness/test_fuzz.py (a small fixed set in CI) and bench/fuzz.py (the figures
over the samples and the real files). A case passes when the command ends with exit status 0 or 2
and no exception escapes (an escaping exception is what a user sees as a traceback), nothing it
prints holds NaN or Infinity, and a refused input (status 2) leaves the workspace as it was.
"""
from __future__ import annotations

import contextlib
import io
import json
import random
import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

# ---- PDFs ------------------------------------------------------------------------------------
_NUMBER_KEYS = (rb"/Count", rb"/Length", rb"/Size", rb"/N", rb"/W", rb"/Rotate", rb"/First", rb"/Prev")
_ODD_NUMBERS = (b"-1", b"0", b"999999999", b"2147483648", b"1e308", b"-0", b"3.5")


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[:rng.randint(len(data) // 10, len(data) - 1)]


def _flip_bytes(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 40)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _splice_noise(rng: random.Random, data: bytes) -> bytes:
    start = rng.randrange(len(data))
    size = rng.randint(16, 4096)
    return data[:start] + rng.randbytes(size) + data[start + size:]


def _delete_window(rng: random.Random, data: bytes) -> bytes:
    start = rng.randrange(len(data))
    return data[:start] + data[start + rng.randint(1, 8192):]


def _duplicate_window(rng: random.Random, data: bytes) -> bytes:
    start = rng.randrange(len(data))
    return data[:start] + data[start:start + rng.randint(1, 8192)] * rng.randint(2, 5) + data[start:]


def _odd_number(rng: random.Random, data: bytes) -> bytes:
    """A structural number (/Count, /Length, startxref, …) set to something no writer would put there."""
    key = rng.choice(_NUMBER_KEYS + (rb"startxref\s*",))
    matches = list(re.finditer(key + rb"\s*(-?\d+)", data))
    if not matches:
        return _flip_bytes(rng, data)
    m = rng.choice(matches)
    return data[:m.start(1)] + rng.choice(_ODD_NUMBERS) + data[m.end(1):]


def _odd_box(rng: random.Random, data: bytes) -> bytes:
    matches = list(re.finditer(rb"/(?:MediaBox|CropBox|Rect|BBox)\s*\[([^\]]*)\]", data))
    if not matches:
        return _flip_bytes(rng, data)
    m = rng.choice(matches)
    box = rng.choice([b"0 0 0 0", b"0 0 1e30 1e30", b"595 842 0 0", b"-1e9 -1e9 1e9 1e9", b"0 0 nan nan", b"1 2"])
    return data[:m.start(1)] + box + data[m.end(1):]


def _no_eof(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"%%EOF", b"")


PDF_MUTATIONS: tuple[Callable[[random.Random, bytes], bytes], ...] = (
    _truncate, _flip_bytes, _splice_noise, _delete_window, _duplicate_window, _odd_number, _odd_number,
    _odd_box, _no_eof,
)


def _set_first(pattern: bytes, value: bytes) -> Callable[[random.Random, bytes], bytes]:
    def mutate(rng: random.Random, data: bytes) -> bytes:
        m = re.search(pattern, data)
        return data if m is None else data[:m.start(1)] + value + data[m.end(1):]
    key = re.sub(rb"[^A-Za-z]", b"", pattern.split(b"\\")[0]).decode()
    mutate.__name__ = f"_set-{key}-{value.decode()}"
    return mutate


# faults known to reach MuPDF's error paths (the page tree's /Count: "code=7: Invalid number of
# pages" at page_count; a nonsense xref offset; an impossible page box), on every source
TARGETED = (_set_first(rb"/Count\s*(-?\d+)", b"-1"), _set_first(rb"/Count\s*(-?\d+)", b"999999999"),
            _set_first(rb"startxref\s*(\d+)", b"99999999"), _set_first(rb"/MediaBox\s*\[([^\]]*)\]", b"0 0 nan 1e40"),
            _set_first(rb"/Length\s*(\d+)", b"-5"))


def targeted_pdfs(sources: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    return [(f"t-{Path(name).stem}{mutate.__name__}.pdf", mutate(random.Random(0), data))
            for name, data in sources for mutate in TARGETED]


def mutated_pdfs(sources: list[tuple[str, bytes]], n: int, seed: int) -> list[tuple[str, bytes]]:
    """`n` mutated PDFs, round-robin over the sources, one to three mutations each."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        name, data = sources[i % len(sources)]
        mutations = [rng.choice(PDF_MUTATIONS) for _ in range(rng.choice((1, 1, 2, 3)))]
        for mutate in mutations:
            data = mutate(rng, data) or data[:1]
        out.append((f"{i:03d}-{Path(name).stem}-{'+'.join(m.__name__.strip('_') for m in mutations)}.pdf", data))
    return out


# ---- JSON ------------------------------------------------------------------------------------
_ODD_VALUES: tuple[Any, ...] = (float("nan"), float("inf"), -float("inf"), 1e308, -1e7, 2e6, -1, 0, "", "x",
                                None, True, [], {}, [[[[]]]], "\x00", "../../etc/passwd")


def _nodes(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, path + (i,))


def _set(root: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return root


def _delete(root: Any, path: tuple) -> Any:
    if not path:
        return root
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    return root


def mutate_json(rng: random.Random, value: Any) -> Any:
    """One structural mutation: a leaf or subtree replaced by an odd value, a key deleted, a list
    reversed (inverted boxes), or a subtree nested very deep."""
    nodes = list(_nodes(value))
    path, node = rng.choice(nodes)
    roll = rng.random()
    if roll < 0.45:
        numbers = [(p, v) for p, v in nodes if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if numbers:
            path, node = rng.choice(numbers)
        return _set(value, path, rng.choice(_ODD_VALUES))
    if roll < 0.65 and path:
        return _delete(value, path)
    if roll < 0.8 and isinstance(node, list):
        return _set(value, path, list(reversed(node)))
    if roll < 0.9:
        return _set(value, path, rng.choice(_ODD_VALUES))
    # spelled into the text after dumping (json.dumps itself would recurse that deep)
    return _set(value, path, f"{DEEP_MARK}{rng.choice((70, 500, 5000, 200000))}")


DEEP_MARK = "\u0001deep:"


def dumps_any(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    return re.sub(r'"\\u0001deep:(\d+)"', lambda m: "[" * int(m.group(1)) + "]" * int(m.group(1)), text)


def mutated_json_text(rng: random.Random, text: str, lines: bool) -> str:
    """A JSON file (or JSONL, one line mutated) mutated; sometimes just cut short or not UTF-8 clean."""
    roll = rng.random()
    if roll < 0.08:
        return text[:rng.randrange(max(len(text), 1))]
    if not lines:
        return dumps_any(mutate_json(rng, json.loads(text)))
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    k = rng.randrange(len(rows))
    rows[k] = mutate_json(rng, rows[k])
    return "".join(dumps_any(r) + "\n" for r in rows)


# ---- running a command -----------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    code: int | None  # None: an exception escaped (a traceback for the user)
    stdout: str
    stderr: str
    traceback: str = ""
    seconds: float = 0.0

    @property
    def holds_nan(self) -> bool:
        return bool(re.search(r"(?<![\w\"])(?:NaN|-?Infinity)(?![\w\"])", self.stdout))


def run_cli(argv: list[str]) -> Outcome:
    """`python -m core ARGV` in this process, its output captured; an escaping exception is caught
    here only to be reported."""
    import time

    from core.cli import main

    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exit_:  # argparse's usage errors: status 2, a message, no traceback
        code = exit_.code if isinstance(exit_.code, int) else 2
    except BaseException:  # noqa: BLE001 - this is what the test is looking for
        return Outcome(None, out.getvalue(), err.getvalue(), traceback.format_exc(), time.perf_counter() - start)
    return Outcome(code, out.getvalue(), err.getvalue(), "", time.perf_counter() - start)


def workspace_state(root: Path) -> tuple:
    """Everything a command can write: documents, machine outputs, the event log, gold items,
    blobs and the stored PDFs."""
    from core.store.opening import open_workspace

    ws = open_workspace(root)
    try:
        db = ws._conn
        return (db.execute("SELECT doc_id, sha256, source, engine, page_count FROM documents ORDER BY doc_id").fetchall(),
                db.execute("SELECT doc_id, engine, payload FROM machine_docs ORDER BY doc_id, engine").fetchall(),
                db.execute("SELECT seq, doc_id, payload FROM events ORDER BY seq").fetchall(),
                db.execute("SELECT id, payload FROM gold_items ORDER BY id").fetchall(),
                db.execute("SELECT key FROM blobs ORDER BY key").fetchall(),
                sorted(p.name for p in ws.pdf_dir.iterdir()))
    finally:
        ws.close()
