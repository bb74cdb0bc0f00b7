"""Ingest: a PDF's bytes → a stored, refined machine Document in the workspace.

`ingest_bytes` is what the app's upload and the CLI both call. The workspace is written only after
parsing has fully succeeded, so a bad file leaves it exactly as it was. The same file with the same
engine is recognised by its SHA-256 and costs nothing the second time, as long as the stored parse
was made by today's ingest code (core.ingest.version); an older one is parsed again.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from core.errors import FileTooLarge, InspectorError
from core.store.records import DocumentRecord, doc_id_for, sha256_of
from core.store.workspace import Workspace
from core.text import file_label


class NotReparsable(InspectorError):
    """The workspace does not hold the file a document was parsed from."""


DEFAULT_MAX_BYTES = 200 * 1024 * 1024  # 200 MiB; override with RLI_MAX_UPLOAD_MB
ENGINES = ("layout", "fast")


@dataclass(frozen=True)
class IngestResult:
    record: DocumentRecord
    created: bool  # False when this file and engine were already in the workspace (no parsing done)
    # the engine_version of the stored parse this one replaced, made by older ingest code ("" if none)
    replaced_version: str = ""


def configured_max_bytes() -> int:
    """The upload limit: RLI_MAX_UPLOAD_MB when set (a positive number), else DEFAULT_MAX_BYTES."""
    from core.settings import positive_number

    return int(positive_number("RLI_MAX_UPLOAD_MB", DEFAULT_MAX_BYTES / 1024 / 1024, "megabytes") * 1024 * 1024)


def _check_size(size: int, filename: str, max_bytes: int) -> None:
    if size > max_bytes:
        raise FileTooLarge(
            f"{filename} is {size / 1048576:.1f} MB, over the {max_bytes / 1048576:.0f} MB limit; "
            "split the PDF, or raise the limit with RLI_MAX_UPLOAD_MB"
        )


def ingest_bytes(
    ws: Workspace,
    data: bytes,
    filename: str,
    engine: str = "layout",
    password: str | None = None,
    progress=None,
    max_bytes: int | None = None,
) -> IngestResult:
    """Parse, refine and store one PDF (or PNG/JPEG/TIFF image, see core.ingest.images).

    `progress(done_pages, total_pages)` is called after each page. `max_bytes` defaults to
    `configured_max_bytes()`. Raises a `core.errors.BadInput` subclass for unusable files; the
    workspace is then unchanged.
    """
    from core.ingest.images import image_kind, image_to_pdf
    from core.ingest.pdf import engine_version, parse_pdf

    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    filename = file_label(filename, "upload.pdf")  # a name for people; never used as a path
    _check_size(len(data), filename, configured_max_bytes() if max_bytes is None else max_bytes)
    sha = sha256_of(data)
    doc_id = doc_id_for(sha)
    existing = ws.find_document(doc_id)
    stored = ws.machine_version(doc_id, engine) if existing is not None else None
    if stored == engine_version(engine):
        if existing.engine != engine:
            # Switching back to an engine already run: make its stored output current, no parsing.
            existing = ws.save_machine_document(ws.load_machine_document(doc_id, engine), existing.size_bytes)
        if progress:
            progress(existing.page_count, existing.page_count)
        return IngestResult(existing, created=False)

    pdf_data, notices = data, {}
    if image_kind(data):  # a scan as PNG/JPEG/TIFF: one page per image, OCR'd like a scanned PDF
        converted = image_to_pdf(data, filename)
        pdf_data, notices = converted.pdf_bytes, converted.notices
    parsed = parse_pdf(pdf_data, doc_id=doc_id, sha256=sha, filename=filename, engine=engine,
                       password=password, progress=progress)
    return replace(store_parsed(ws, parsed, len(data), notices), replaced_version=stored or "")


def stale_version(ws: Workspace, record: DocumentRecord) -> str | None:
    """The engine_version of the document's current parse when older code of one of our PDF engines
    made it (core.ingest.version: it is parsed again rather than served), else None. An imported
    parser output has no such version, and is never stale."""
    from core.ingest.pdf import engine_version

    if record.engine not in ENGINES:
        return None
    stored = ws.machine_version(record.doc_id, record.engine)
    return None if stored == engine_version(record.engine) else stored or ""


def is_stale(ws: Workspace, record: DocumentRecord) -> bool:
    return stale_version(ws, record) is not None


def parse_again(ws: Workspace, doc_id: str, progress=None) -> IngestResult:
    """Parse a stored document again with its engine and today's ingest code, from the PDF the
    workspace keeps; the reviewer's events re-anchor to the new elements when it is next opened.
    `created` is False when the stored parse was current already (nothing is done)."""
    from core.ingest.pdf import parse_pdf

    record = ws.document(doc_id)
    stale = stale_version(ws, record)
    if stale is None:
        return IngestResult(record, created=False)
    path = ws.document_pdf(doc_id)
    data = path.read_bytes() if path is not None else b""
    if sha256_of(data) != record.sha256:
        # an image upload is kept as the PDF made from it; the image itself (and what making the PDF
        # noted, such as a downscale) is gone, so only the image can be read again faithfully
        raise NotReparsable(f"{record.source} was made into a PDF from an image or is missing from the "
                            "workspace; upload the file again to parse it with today's parser")
    parsed = parse_pdf(data, doc_id=doc_id, sha256=record.sha256, filename=record.source,
                       engine=record.engine, progress=progress)
    return replace(store_parsed(ws, parsed, record.size_bytes), replaced_version=stale)


def store_parsed(ws: Workspace, parsed, size_bytes: int, notices=None, refined: bool = False) -> IngestResult:
    """Refine a parsed PDF (core.ingest.pdf.Parsed; `refined`: that was done already) and store it
    with its PDF; on failure the workspace keeps no PDF it did not have before. Batch ingest calls
    this on its driver. `notices`: page number -> notice from turning an image into a PDF
    (core.ingest.images)."""
    from core.ingest.images import with_page_notices
    from core.refine.rules import refine

    document = parsed.document if refined else refine(with_page_notices(parsed.document, notices or {}))
    sha = document.sha256
    ws.store_pdf(sha, parsed.pdf_bytes)
    try:
        record = ws.save_machine_document(document, size_bytes)
    except BaseException:
        _take_back_pdf(ws, sha)
        raise
    return IngestResult(record, created=True)


def _take_back_pdf(ws: Workspace, sha: str) -> None:
    """Keep the workspace as it was after a failed save: the PDF goes unless a document refers to it.
    A failure here (the database gone) must not hide the error that brought us here."""
    try:
        ws.discard_pdf(sha)
    except Exception:
        pass


def check_size(size: int, filename: str) -> None:
    """The upload limit (configured_max_bytes) applied to a file of `size` bytes; FileTooLarge over it."""
    _check_size(size, filename, configured_max_bytes())


def start_layout_worker() -> None:
    """Start the layout-model process ahead of the first upload (it loads the model, ~2 s), e.g.
    when the app starts. Optional; the first layout ingest starts it anyway."""
    from core.ingest.layout_worker import start_layout_worker as start

    start()


def ingest_path(ws: Workspace, path: str | os.PathLike, **kw) -> IngestResult:
    """`ingest_bytes` on a file; the size limit is checked before the file is read."""
    p = Path(path)
    limit = kw.get("max_bytes")
    _check_size(p.stat().st_size, p.name, configured_max_bytes() if limit is None else limit)
    return ingest_bytes(ws, p.read_bytes(), p.name, **kw)
