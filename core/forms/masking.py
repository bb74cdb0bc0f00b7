"""Masking personal values wherever a text can leave the tool: elements, gold quotes, event logs,
evaluation reports.

The forms stage decides which values are personal (core.forms.redaction's key patterns plus the
reviewer's redact/unredact events); this module turns those decisions into a `Masker` that replaces
each redacted value, however the text spaces it, with `[REDACTED]`. Exports take a masker built
from the corrected Document so a value the reviewer redacted never reaches any output.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from core.forms.redaction import REDACTED
from core.model import Document, thaw


@dataclass(frozen=True)
class Masker:
    """Replaces every redacted value in a text; longest values first, so a name inside an address
    is not left half-masked."""
    patterns: tuple[re.Pattern[str], ...] = ()

    def __call__(self, text: str) -> str:
        for pattern in self.patterns:
            text = pattern.sub(REDACTED, text)
        return text

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def json(self, value: Any) -> Any:
        """Every string in a JSON-shaped value masked (keys included: an anchor map is keyed by id)."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self(k) if isinstance(k, str) else k: self.json(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.json(v) for v in value]
        return value

    def union(self, other: "Masker") -> "Masker":
        return Masker(_longest_first(self.patterns + other.patterns))


def value_pattern(value: str) -> re.Pattern[str] | None:
    """The value as a page may spell it: any run of spaces (half or full width) between characters."""
    chars = [re.escape(ch) for ch in str(value) if not ch.isspace()]
    return re.compile(r"\s*".join(chars)) if chars else None


def masker_for(fields: Iterable[Any]) -> Masker:
    """A masker for every redacted field's value (selection marks hide nothing: their value is ☑/☐)."""
    patterns = []
    for f in fields:
        if getattr(f, "redacted", False) and not getattr(f, "is_selection", False):
            pattern = value_pattern(str(getattr(f, "value", "") or "").strip())
            if pattern is not None:
                patterns.append(pattern)
    return Masker(_longest_first(patterns))


def _longest_first(patterns: Sequence[re.Pattern[str]]) -> tuple[re.Pattern[str], ...]:
    unique = {p.pattern: p for p in patterns}
    return tuple(sorted(unique.values(), key=lambda p: -len(p.pattern)))


def document_masker(doc: Document) -> Masker:
    """The masker of a corrected Document: its fields with the reviewer's form events applied."""
    from core.forms.fields import extract_fields

    return masker_for(extract_fields(doc))


def workspace_masker(ws: Any, doc_ids: Iterable[str | None]) -> Masker:
    """One masker for several stored documents (an evaluation or a gold export spans many)."""
    from core.review.corrections import corrected_document

    masker = Masker()
    for doc_id in dict.fromkeys(d for d in doc_ids if d):
        if ws.find_document(doc_id) is not None:
            masker = masker.union(document_masker(corrected_document(ws, doc_id)))
    return masker


def masked_document(doc: Document, masker: Masker) -> Document:
    """`doc` with every element's text and attrs masked (table cells, a widget's `value`, labels)."""
    if not masker:
        return doc
    pages = []
    for page in doc.pages:
        elements = []
        for e in page.elements:
            new = replace(e, text=masker(e.text))
            attrs = {k: v for k, v in e.attrs}
            masked = {k: masker.json(thaw(v)) for k, v in attrs.items()}
            changed = {k: v for k, v in masked.items() if v != thaw(attrs[k])}
            if changed:
                new = new.with_attrs(**changed)
            elements.append(new if new != e else e)
        pages.append(replace(page, elements=tuple(elements)))
    return doc.with_pages(pages)


def masked_log_jsonl(ws: Any, doc_id: str) -> str:
    """The document's correction log as JSONL (what `correct` reads), personal values masked: the
    Audit page's download. Anchors carry the text the reviewer saw, a set_value the value typed."""
    import json

    masker = workspace_masker(ws, [doc_id])
    return "".join(json.dumps(masker.json(e.to_dict()), ensure_ascii=False) + "\n" for e in ws.events(doc_id))
