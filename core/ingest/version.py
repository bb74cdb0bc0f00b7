"""Which code made a stored parse: an engine's version names the code that shapes its output.

A workspace keeps each file's machine Document per engine. Without a version that follows the code,
a parse made before a fix (a broken character, a figure's labels in the wrong order) would be served
for ever once stored: uploading the file again, the batch ingest and every bench would read the old
elements as if they were today's. A hand-bumped number is forgotten (it stayed "1" through every
change to ingest), so the version is a digest of the source of the modules that decide what an engine
emits. A stored output whose version differs is stale: ingest parses the file again, and the
reviewer's events re-anchor to the new elements (core.review.reanchor) from the anchors they carry.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

CORE = Path(__file__).resolve().parents[1]
# Every module under these folders, and these single modules, shape the elements a PDF engine emits.
# tests/ingest/test_ingest_version.py checks that every core module ingest imports is here or in
# NOT_SHAPING, so a new module cannot change the output without changing the version.
SHAPING_FOLDERS = ("ingest", "refine")
SHAPING_MODULES = ("categories.py", "geometry.py", "model.py", "text.py")
# imported by ingest, but they decide where things are stored or how errors read, not the elements
NOT_SHAPING = ("__init__.py", "errors.py", "settings.py", "store", "batch")


def shaping_files(core: Path = CORE) -> list[Path]:
    files = [p for folder in SHAPING_FOLDERS for p in (core / folder).rglob("*.py")]
    return sorted(files + [core / name for name in SHAPING_MODULES])


def named_not_shaping(path: Path) -> bool:
    """Whether a core module's file is one NOT_SHAPING names (a file, or a folder it lies in)."""
    first = path.relative_to(CORE).parts[0]
    return first in NOT_SHAPING


def digest_of(core: Path) -> str:
    """12 hex digits of the sha256 over the shaping files' paths (relative to `core`) and bytes."""
    digest = hashlib.sha256()
    for path in shaping_files(core):
        digest.update(path.relative_to(core).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


@functools.cache
def code_digest() -> str:
    """The digest of this installation's ingest code, read once a process."""
    return digest_of(CORE)
