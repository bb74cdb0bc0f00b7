"""Domain errors: small classes, one message each that says what is wrong and what to do.

The CLI prints `str(err)` to stderr and exits non-zero; pages show it with `st.error`.
"""
from __future__ import annotations


class InspectorError(Exception):
    """Base class: anything the user can act on."""


class BadInput(InspectorError):
    """The given file or JSON cannot be used (empty, corrupt, not a PDF, malformed)."""


class EmptyFile(BadInput):
    pass


class NotAPdf(BadInput):
    pass


class CorruptPdf(BadInput):
    pass


class FileTooLarge(BadInput):
    pass


class PasswordRequired(BadInput):
    """Encrypted PDF with no password given; the UI asks for one."""


class WrongPassword(BadInput):
    pass


class MalformedImport(BadInput):
    """A parser output (Docling/Azure/Textract JSON) that does not follow its schema."""


class UnknownDocument(InspectorError):
    pass


class StaleView(InspectorError):
    """Someone else changed the document since this view was loaded; reload before editing."""


class PolicyError(InspectorError):
    """A policy TOML entry is invalid; the message names the entry."""


class BadSetting(BadInput, ValueError):
    """An RLI_* environment setting that is not a usable value (also a ValueError, as callers that
    read settings have always caught)."""
