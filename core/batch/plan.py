"""What a batch reads: the PDFs under the given paths, each once, minus those already ingested with
the engine (resumable by SHA-256), each split into page ranges so a long report uses every worker."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from core.store.records import doc_id_for, sha256_of

PAGES_PER_TASK = 16  # a task long enough to amortise its start, short enough to spread a 300-page PDF


@dataclass(frozen=True)
class BatchFile:
    path: Path
    data: bytes
    sha256: str

    @property
    def doc_id(self) -> str:
        return doc_id_for(self.sha256)


def pdf_files(paths: Iterable[str | os.PathLike]) -> Iterator[Path]:
    """The PDFs named or under the folders named, in a stable order; a missing path raises
    FileNotFoundError (the CLI reports it)."""
    for given in paths:
        p = Path(given)
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() == ".pdf")
        elif p.exists():
            yield p
        else:
            raise FileNotFoundError(2, "No such file or directory", str(p))


def read_file(path: Path) -> BatchFile:
    data = path.read_bytes()
    return BatchFile(path, data, sha256_of(data))


def page_ranges(page_count: int, workers: int, per_task: int = PAGES_PER_TASK) -> list[tuple[int, int]]:
    """[start, stop) ranges covering the pages: at most `per_task` pages each, and at least one per
    worker when the document has that many pages."""
    if page_count <= 0:
        return []
    size = max(1, min(per_task, math.ceil(page_count / max(1, workers))))
    return [(start, min(start + size, page_count)) for start in range(0, page_count, size)]
