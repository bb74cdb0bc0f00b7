"""The batch's outcome per file (done / skipped / failed with its message), a JSON report file, and a
progress line with pages per second."""
from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

DONE, SKIPPED, FAILED = "done", "skipped", "failed"


@dataclass(frozen=True)
class FileOutcome:
    path: str
    status: str  # DONE | SKIPPED | FAILED
    doc_id: str = ""
    pages: int = 0
    message: str = ""
    seconds: float = 0.0  # from the file's first task to its row (tasks, assembly, refine, store)


@dataclass
class BatchReport:
    engine: str
    runner: str
    workers: int
    started: float = field(default_factory=time.time)
    outcomes: list[FileOutcome] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, outcome: FileOutcome) -> None:
        self.outcomes.append(outcome)

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    def pages_done(self) -> int:
        return sum(o.pages for o in self.outcomes if o.status == DONE)

    def summary(self) -> dict:
        rate = self.pages_done() / self.seconds if self.seconds else 0.0
        return {"done": self.count(DONE), "skipped": self.count(SKIPPED), "failed": self.count(FAILED),
                "pages": self.pages_done(), "seconds": round(self.seconds, 2), "pages_per_second": round(rate, 2),
                "engine": self.engine, "runner": self.runner, "workers": self.workers}

    def to_dict(self) -> dict:
        return {**self.summary(), "files": [asdict(o) for o in self.outcomes]}

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
        tmp.replace(path)
        return path


class Progress:
    """`files 12/268, 3,410 pages, 41.3 pages/s` on stderr: redrawn in place on a terminal, a line
    every few seconds otherwise (a CI log). Pages count as they are read, before their file is stored."""

    def __init__(self, total_files: int, stream: TextIO | None = None, every: float = 5.0):
        self.total, self.stream, self.every = total_files, stream or sys.stderr, every
        self.files = self.pages = 0
        self.t0 = self.last = time.monotonic()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def rate(self) -> float:
        elapsed = time.monotonic() - self.t0
        return self.pages / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        filled = int(20 * self.files / self.total) if self.total else 20
        return (f"[{'#' * filled}{'.' * (20 - filled)}] files {self.files}/{self.total}, "
                f"{self.pages:,} pages, {self.rate():.1f} pages/s")

    def advance(self, files: int = 0, pages: int = 0) -> None:
        self.files += files
        self.pages += pages
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r" + self.line())
        elif now - self.last >= self.every or self.files == self.total:
            self.stream.write(self.line() + "\n")
        else:
            return
        self.last = now
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
