"""Form evidence (seed 001): every form field of a document, reviewer events applied.

A form is not prose: "氏名 [ ] 対象 [x] 対象外 [ ]" read as text answers nothing. Each field
becomes one `FormField` (core.forms.form_field: key, value, selection state, boxes, provenance),
and retrieval sees `項目: / 値: / 状態:` lines plus the phrasings people ask with ("X を選択",
"X が空欄"), core.forms.form_chunks.

Sources, most trusted first:
1. AcroForm widgets (`source == "widget"` elements): exact value and state; the key is the visible
   label found by geometry, falling back to the tooltip (TU) and then the field name
   (core.forms.widget_fields).
2. Key/value pairs given by an imported parser's output (Docling/Azure/Textract), see
   `field_from_pair` and the `kv_*` element attributes (core.forms.pair_fields).
3. Geometry over the page's text, marks and rulings, for flattened or scanned forms
   (core.forms.pairing, read into fields by core.forms.pair_fields).

Reviewer events from the shared correction log change the result: `pair`, `unpair`, `set_value`,
`redact`, `unredact` are applied by core.forms.form_events; `set_selection` is applied to the
element by core.review.replay, so the state is already in the Document this module reads.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

from core.forms.form_events import apply_form_events, events_in_effect
from core.forms.form_field import FormField, finish_field, reading_order
from core.forms.labels import form_signal
from core.forms.pair_fields import geometry_fields, import_fields
from core.forms.redaction import DEFAULT_RULES, RedactionRules
from core.forms.rulings import page_rulings
from core.forms.units import Unit, page_units, section_paths
from core.forms.widget_fields import widget_fields
from core.memo import Same, page_memo
from core.model import Document, Page


def extract_fields(
    doc: Document,
    events: Sequence[Mapping[str, Any]] = (),
    rules: RedactionRules = DEFAULT_RULES,
) -> tuple[FormField, ...]:
    """Every form field of the document, reviewer events applied, in page and reading order.

    `events` are correction-log events (dicts; an `id` lets `undo` events cancel them). Events that
    core.review.replay already folded into `doc` (its `form_events` meta) are applied too, so passing
    the corrected Document alone is enough.
    """
    return apply_form_events(doc, machine_fields(doc, rules), events_in_effect(doc, events), rules)[0]


def machine_fields(doc: Document, rules: RedactionRules = DEFAULT_RULES) -> tuple[FormField, ...]:
    """Fields before any reviewer event: widgets, then imported pairs, then geometry."""
    sections = section_paths(doc)
    out: list[FormField] = []
    units_of = document_units(doc)
    is_form = shows_form(doc, units_of)
    # a page's fields read the document only for its id and, in geometry, its stored rulings
    rulings = doc.meta_value("rulings") if is_form else None
    for page in doc.pages:
        out.extend(_PAGE_FIELDS.get(page, (doc.doc_id, is_form, Same(rulings)),
                                    lambda page=page: _page_fields(doc, page, units_of[page.number], is_form)))
    unique = _unique_ids(out)
    return tuple(finish_field(f, sections, rules) for f in sorted(unique, key=reading_order))


def document_units(doc: Document) -> dict[int, tuple[Unit, ...]]:
    """Page number → the page's units (memoised per page)."""
    return {page.number: _UNITS.get(page, None, lambda page=page: page_units(doc, page)) for page in doc.pages}


def shows_form(doc: Document, units_of: Mapping[int, Sequence[Unit]] | None = None) -> bool:
    """Geometry only reads a document that shows itself a form somewhere (a labelled check box, or
    "氏名：" style labels, captions each beside a ruled box of its own): boxes, rules and tables
    in a report or a slide deck are not fields."""
    units_of = units_of if units_of is not None else document_units(doc)
    return any(_SIGNALS.get(page, None, lambda page=page: form_signal(page, units_of[page.number],
                                                                      page_rulings(doc, page)))
               for page in doc.pages)


# Page-local steps, memoised by page object (core.memo): after a correction on one page, only
# that page's units and fields are made again.
_UNITS, _SIGNALS, _PAGE_FIELDS = page_memo(), page_memo(), page_memo()


def _page_fields(doc: Document, page: Page, units: Sequence[Unit], is_form: bool) -> tuple[FormField, ...]:
    page_fields = widget_fields(doc, page, units)
    page_fields += import_fields(doc, page, units)
    if is_form and not any(e.source == "widget" for e in page.elements):
        taken = {ref for f in page_fields for ref in (f.key_ref, f.value_ref) if ref}
        page_fields += geometry_fields(doc, page, units, taken)
    return tuple(page_fields)


def _unique_ids(fields: Iterable[FormField]) -> list[FormField]:
    """Two fields with one anchor (a field name used twice) get distinct, still stable, ids."""
    seen: dict[str, int] = {}
    out = []
    for f in fields:
        n = seen.get(f.id, 0)
        seen[f.id] = n + 1
        out.append(f if n == 0 else replace(f, id=f"{f.id}-{n + 1}"))
    return out


# ---- a stored document's fields ---------------------------------------------------------------
def document_fields(ws: Any, doc_id: str) -> tuple[FormField, ...]:
    """The corrected fields of a stored document (what the CLI, the page and exports show)."""
    from core.review.corrections import corrected_document

    # the corrected Document carries the form events in effect (meta "form_events")
    return extract_fields(corrected_document(ws, doc_id))
