"""`batch ingest`: every PDF under the given paths, page ranges read in parallel by an executor
(Ray or local processes), each document assembled, refined and stored by this process, the one
writer. A file already ingested with the engine by today's ingest code is skipped (by SHA-256 and
core.ingest.version), so a rerun resumes and a stale parse is made again; a file
that fails anywhere is a failed row with its message and the batch goes on."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, TextIO

from core.errors import InspectorError
from core.ingest.ocr import is_scanned
from core.ingest.opening import open_pdf
from core.ingest.pdf import PageReads, Parsed, assemble, engine_version, merge_reads, parse_pdf
from core.ingest.pipeline import check_size, store_parsed
from core.batch.plan import PAGES_PER_TASK, BatchFile, page_ranges, pdf_files, read_file
from core.batch.report import DONE, FAILED, SKIPPED, BatchReport, FileOutcome, Progress


@dataclass
class _Job:
    """One file in flight: its ranges' reads as they come back."""
    file: BatchFile
    ranges: list[tuple[int, int]]
    started: float
    parts: dict[int, PageReads | Parsed] = field(default_factory=dict)  # Parsed: a one-task PDF
    errors: list[str] = field(default_factory=list)
    replaces: str = ""  # the engine_version of the older parse this job makes again ("" if none)

    def elapsed(self) -> float:
        return round(time.perf_counter() - self.started, 3)

    @property
    def complete(self) -> bool:
        return len(self.parts) + len(self.errors) == len(self.ranges)


def batch_ingest(ws, paths: Iterable[str], *, engine: str, executor, stream: TextIO | None = None,
                 in_flight: int | None = None, per_task: int = PAGES_PER_TASK) -> BatchReport:
    """Ingest the PDFs under `paths`; the report has one row per file found."""
    files = list(pdf_files(paths))
    report = BatchReport(engine, executor.name, executor.workers)
    progress = Progress(len(files), stream)
    t0 = time.perf_counter()
    queue, seen = iter(files), {}
    tasks: dict = {}  # task handle → (job, range index)
    limit = in_flight or 2 * executor.workers
    while True:
        while len(tasks) < limit and (path := next(queue, None)) is not None:
            job = _start(ws, path, engine, report, seen, per_task)
            if job is None:
                progress.advance(files=1)
                continue
            data_ref = executor.put(job.file.data)
            for i, (start, stop) in enumerate(job.ranges):
                tasks[executor.submit(data_ref, job.file.sha256, path.name, engine, start, stop)] = (job, i)
        if not tasks:
            break
        handle, (status, value) = executor.next_done(list(tasks))
        job, index = tasks.pop(handle)
        if status in ("ok", "whole"):
            job.parts[index] = value
            progress.advance(pages=value.document.page_count if status == "whole" else len(value.facts))
        else:
            job.errors.append(value)
        if job.complete:
            report.add(_finish(ws, job, engine))
            progress.advance(files=1)
    progress.finish()
    report.seconds = time.perf_counter() - t0
    return report


def _start(ws, path: Path, engine: str, report: BatchReport, seen: dict[str, Path], per_task: int) -> _Job | None:
    """The file's job, or None when it is recorded already (skipped or failed before any task)."""
    try:
        check_size(path.stat().st_size, path.name)
        file = read_file(path)
        if file.sha256 in seen:
            report.add(FileOutcome(str(path), SKIPPED, file.doc_id, message=f"the same file as {seen[file.sha256]}"))
            return None
        seen[file.sha256] = path
        record = ws.find_document(file.doc_id)
        stored = ws.machine_version(file.doc_id, engine) if record is not None else None
        if stored == engine_version(engine):
            report.add(FileOutcome(str(path), SKIPPED, file.doc_id, record.page_count,
                                   f"already ingested with {engine}"))
            return None
        opened = open_pdf(file.data, path.name)
        pages = opened.doc.page_count
        opened.doc.close()
    except (InspectorError, OSError) as err:
        report.add(FileOutcome(str(path), FAILED, message=_message(err)))
        return None
    return _Job(file, page_ranges(pages, report.workers, per_task), time.perf_counter(), replaces=stored or "")


def _finish(ws, job: _Job, engine: str) -> FileOutcome:
    path = str(job.file.path)
    if job.errors:
        return FileOutcome(path, FAILED, job.file.doc_id, message=job.errors[0], seconds=job.elapsed())
    try:
        if isinstance(job.parts[0], Parsed):  # the whole PDF in one task, refined there
            result = store_parsed(ws, job.parts[0], len(job.file.data), refined=True)
        else:
            opened = open_pdf(job.file.data, job.file.path.name)
            if any(is_scanned(page) for page in opened.doc):
                # OCR writes a text layer into the PDF itself, so page ranges read apart cannot hold
                # it: a file with scanned pages is parsed whole, here on the driver
                parsed = parse_pdf(job.file.data, doc_id=job.file.doc_id, sha256=job.file.sha256,
                                   filename=job.file.path.name, engine=engine)
            else:
                reads = merge_reads([job.parts[i] for i in range(len(job.ranges))])
                parsed = assemble(opened, reads, doc_id=job.file.doc_id, sha256=job.file.sha256,
                                  filename=job.file.path.name, engine=engine, started=job.started)
            result = store_parsed(ws, parsed, len(job.file.data))
    except Exception as err:  # one file's failure is its row; the batch goes on
        return FileOutcome(path, FAILED, job.file.doc_id, message=_message(err), seconds=job.elapsed())
    again = f"parsed again: the stored parse was made by older ingest code ({job.replaces})" if job.replaces else ""
    return FileOutcome(path, DONE, result.record.doc_id, result.record.page_count, again, seconds=job.elapsed())


def _message(err: Exception) -> str:
    if isinstance(err, InspectorError):
        return str(err)
    if isinstance(err, OSError) and err.filename:
        return f"cannot read {err.filename}: {err.strerror}"
    return f"{type(err).__name__}: {err}"
