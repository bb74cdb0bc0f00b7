"""Opening a PDF: every bad-input case becomes one domain error that says what to do."""
from __future__ import annotations

from dataclasses import dataclass

import pymupdf

from core.errors import BadInput, CorruptPdf, EmptyFile, NotAPdf, PasswordRequired, WrongPassword


@dataclass
class OpenedPdf:
    doc: pymupdf.Document
    pdf_bytes: bytes  # what the workspace stores: the original, or the decrypted copy
    encrypted: bool


def open_pdf(data: bytes, filename: str, password: str | None = None) -> OpenedPdf:
    """The opened PDF, or a BadInput that says what to do. MuPDF raises its own errors from any
    property of a damaged file (page_count: "code=7: Invalid number of pages"), so every one
    becomes a refusal here, never a traceback."""
    name = filename or "the file"
    try:
        return _open(data, name, password)
    except BadInput:
        raise
    except Exception as err:  # noqa: BLE001 - pymupdf raises RuntimeError/ValueError/FileDataError/...
        raise CorruptPdf(f"{name} is a damaged PDF that cannot be read ({type(err).__name__}: {str(err)[:160]}); "
                         "get a fresh copy from its source or re-save it from a PDF viewer") from err


def _open(data: bytes, name: str, password: str | None) -> OpenedPdf:
    if not data:
        raise EmptyFile(f"{name} is empty (0 bytes); choose the PDF itself, not an empty or unfinished download")
    has_magic = b"%PDF-" in data[:1024]
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as err:  # pymupdf raises FileDataError/RuntimeError variants
        if not has_magic:
            raise NotAPdf(f"{name} is not a PDF (no %PDF- header); export or save it as PDF and try again") from err
        raise CorruptPdf(f"{name} is a damaged PDF that cannot be opened ({err}); "
                         "get a fresh copy from its source or re-save it from a PDF viewer") from err
    if not has_magic and not doc.is_pdf:
        raise NotAPdf(f"{name} is not a PDF (no %PDF- header); export or save it as PDF and try again")
    encrypted = bool(doc.needs_pass)
    pdf_bytes = data
    if encrypted:
        if not password:
            raise PasswordRequired(f"{name} is encrypted; give its password (--password / the password box)")
        if not doc.authenticate(password):
            raise WrongPassword(f"the password for {name} is wrong; check it (passwords are case-sensitive) and try again")
        # Store a decrypted copy so rendering and re-reading never need the password again.
        pdf_bytes = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_NONE, garbage=0)
        doc = pymupdf.open(stream=pdf_bytes, filetype="pdf")
    if doc.page_count == 0:
        raise CorruptPdf(f"{name} has no pages; it is damaged or not a finished PDF — get a fresh copy")
    if doc.is_repaired and b"%%EOF" not in data[-2048:]:
        raise CorruptPdf(f"{name} looks truncated (its end is missing, pages may be lost); "
                         "download or copy it again and retry")
    # parse_pdf reads these next; a damaged catalog fails here, inside the refusal above, not there
    doc.get_page_labels(), doc.is_form_pdf, doc.metadata
    return OpenedPdf(doc, pdf_bytes, encrypted)
