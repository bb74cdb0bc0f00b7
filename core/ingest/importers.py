"""Import another parser's output (Docling, Azure Document Intelligence, Textract) as a machine Document.

An imported document is an ordinary `Document` (engine = docling | azure | textract) saved with
`Workspace.save_machine_document`, so it goes through exactly the same review loop as an ingested
one. The page image comes from the PDF when one is given; a PNG/JPEG (Textract's and Azure's
image inputs) is turned into a one-page PDF; otherwise pages are blank, of the right size, with
a notice. Everything is parsed and checked before the workspace is touched, so a bad file leaves
it unchanged.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import pymupdf

from core.errors import BadInput, CorruptPdf, EmptyFile, FileTooLarge, MalformedImport, NotAPdf, PasswordRequired
from core.ingest import azure, docling, textract
from core.ingest.import_base import ImportContext
from core.jsonio import JsonShapeError, loads_checked
from core.model import Document
from core.store.records import DocumentRecord, doc_id_for, sha256_of
from core.store.workspace import Workspace
from core.text import file_label

FORMATS: dict[str, tuple[Callable[[Any], bool], Callable[[Mapping[str, Any], ImportContext], Document]]] = {
    "docling": (docling.looks_like_docling, docling.to_document),
    "azure": (azure.looks_like_azure, azure.to_document),
    "textract": (textract.looks_like_textract, textract.to_document),
}
FORMAT_NAMES = {"docling": "Docling output (DoclingDocument JSON)",
                "azure": "Azure Document Intelligence output (analyzeResult)",
                "textract": "AWS Textract output (Blocks)"}
MAX_IMPORT_BYTES = 200 * 1024 * 1024
IMAGE_TYPES = {b"\x89PNG\r\n\x1a\n": "png", b"\xff\xd8\xff": "jpeg", b"II*\x00": "tiff", b"MM\x00*": "tiff"}


@dataclass(frozen=True)
class ImportResult:
    record: DocumentRecord
    created: bool  # False when the same output of the same file was already imported
    document: Document


@dataclass(frozen=True)
class PageSource:
    """The PDF that gives imported pages their image: the given PDF, or an image made into one."""
    pdf_bytes: bytes
    sha256: str  # of the stored PDF bytes
    id_sha256: str  # what the doc_id derives from: the file the user gave (PDF or image)
    sizes: tuple[tuple[float, float], ...]


def import_file(ws: Workspace, source: str | Path | bytes, fmt: str, pdf: str | Path | bytes | None = None,
                *, name: str | None = None, replace: bool = False) -> ImportResult:
    """Parse `source` as `fmt`, check it fully, then store it; `pdf` is the PDF or image it was made from.

    Raises MalformedImport (or another BadInput) with a message naming what is wrong; nothing is
    written to the workspace unless the whole import succeeded. A different output of the same
    parser for a document already stored is refused unless `replace` says to replace it.
    """
    data, source_name = _read(source, name, "import file")
    pages = page_source(_read(pdf, None, "--pdf file")[0]) if pdf is not None else None
    document = parse_import(data, fmt, source_name, pages)
    created = not ws.has_machine(document.doc_id, document.engine)
    differs = not created and ws.load_machine_document(document.doc_id, document.engine).to_json() != document.to_json()
    if differs and not replace:
        _refuse_overwrite(ws, document)
    if pages is not None:
        ws.store_pdf(pages.sha256, pages.pdf_bytes)
    if created or differs:
        record = ws.save_machine_document(document, size_bytes=len(pages.pdf_bytes) if pages else len(data))
    else:
        record = ws.document(document.doc_id)
    return ImportResult(record, created, document)


def _refuse_overwrite(ws: Workspace, document: Document) -> None:
    """Another output of this parser for a document already here: stored outputs are never replaced
    silently (the reviewer's events were made against it)."""
    record = ws.document(document.doc_id)
    events = len(ws.events(document.doc_id))
    raise BadInput(
        f"document {document.doc_id} ({record.source}) already has a different {document.engine} output in this "
        f"workspace ({events} correction event(s) in its log); nothing was changed. To replace that output on "
        f"purpose, import again with --replace (on the Documents page: tick \"Replace\"; the events are kept and re-anchored to the new elements where "
        f"they still match; the Audit page lists the ones that do not)")


def parse_import(data: bytes, fmt: str, source_name: str, pages: PageSource | None = None) -> Document:
    """Pure: bytes of a parser output (+ its page source) → Document, or MalformedImport."""
    if fmt not in FORMATS:
        raise MalformedImport(f"unknown import format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    payload = load_json(data, fmt)
    check_format(payload, fmt)
    sha = pages.id_sha256 if pages else sha256_of(data)
    ctx = ImportContext(doc_id=doc_id_for(sha), source=source_name, sha256=pages.sha256 if pages else sha,
                        engine=fmt, pdf_sizes=pages.sizes if pages else None)
    try:
        return FORMATS[fmt][1](payload, ctx)
    except BadInput:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        # The schema checks name the common faults; this net catches the rare shape they missed.
        raise MalformedImport(f"this {FORMAT_NAMES[fmt]} does not follow its schema: "
                              f"{type(err).__name__}: {err}") from None


def load_json(data: bytes, fmt: str) -> Any:
    if not data.strip():
        raise EmptyFile(f"the {fmt} file is empty; export the parser's JSON result and import that")
    try:
        return loads_checked(data.decode("utf-8-sig"))
    except JsonShapeError as err:
        raise MalformedImport(f"the {fmt} file cannot be read: {err}") from None
    except UnicodeDecodeError:
        raise MalformedImport(f"the {fmt} file is not UTF-8 text; is it the JSON result (not the PDF or image)?") \
            from None
    except json.JSONDecodeError as err:
        raise MalformedImport(f"the {fmt} file is not valid JSON: {err.msg} at line {err.lineno}, "
                              f"column {err.colno}") from None


def check_format(payload: Any, fmt: str) -> None:
    """The user said `fmt`; if the JSON is plainly another parser's output, say which."""
    if FORMATS[fmt][0](payload):
        return
    for other, (looks_like, _) in FORMATS.items():
        if other != fmt and looks_like(payload):
            raise MalformedImport(f"this looks like {FORMAT_NAMES[other]}, not {FORMAT_NAMES[fmt]}; "
                                  f"import it with --format {other}")
    keys = ", ".join(list(payload)[:8]) if isinstance(payload, Mapping) else type(payload).__name__
    raise MalformedImport(f"this is not {FORMAT_NAMES[fmt]} (top-level keys: {keys or 'none'})")


def page_source(data: bytes) -> PageSource:
    """A PDF as given, or a PNG/JPEG/TIFF turned into a one-page PDF, with its page sizes in points."""
    if not data:
        raise EmptyFile("the --pdf file is empty")
    kind = next((k for magic, k in IMAGE_TYPES.items() if data.startswith(magic)), None)
    if kind is None and b"%PDF" not in data[:1024]:
        raise NotAPdf("the --pdf file is neither a PDF nor a PNG/JPEG/TIFF image")
    try:
        if kind is None:
            pdf_bytes = data
            opened = pymupdf.open(stream=data, filetype="pdf")
            if opened.needs_pass:
                raise PasswordRequired("the --pdf file is encrypted; save an unencrypted copy and import with that")
        else:
            image = pymupdf.open(stream=data, filetype=kind)
            pdf_bytes = image.convert_to_pdf()  # deterministic for the same image bytes
            opened = pymupdf.open(stream=pdf_bytes, filetype="pdf")
        sizes = tuple((round(p.rect.width, 2), round(p.rect.height, 2)) for p in opened)
    except BadInput:
        raise
    except Exception as err:  # pymupdf raises its own FileDataError/RuntimeError on damaged input
        raise CorruptPdf(f"the --pdf file cannot be opened ({err}); is it damaged or truncated?") from None
    if not sizes:
        raise CorruptPdf("the --pdf file has no pages")
    return PageSource(pdf_bytes, sha256_of(pdf_bytes), sha256_of(data), sizes)


def _read(source: str | Path | bytes, name: str | None, what: str) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
        return _limit(data, what), file_label(name, "imported.json")
    path = Path(source)
    if path.is_file() and path.stat().st_size > MAX_IMPORT_BYTES:
        raise FileTooLarge(f"the {what} {path.name} is {path.stat().st_size // 2**20} MB; "
                           f"the limit is {MAX_IMPORT_BYTES // 2**20} MB")
    return path.read_bytes(), file_label(name or path.name, "imported.json")


def _limit(data: bytes, what: str) -> bytes:
    if len(data) > MAX_IMPORT_BYTES:
        raise FileTooLarge(f"the {what} is {len(data) // 2**20} MB; the limit is {MAX_IMPORT_BYTES // 2**20} MB")
    return data
