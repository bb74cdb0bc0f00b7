"""Form chunks: each field's retrieval text (項目 / 値 / 状態 lines, and the phrasings people
ask with) and one atomic chunk per form section, split between fields over the policy's size.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any, Iterable, Mapping, Sequence

from core.categories import Category
from core.forms.fields import extract_fields
from core.forms.form_field import FormField, reading_order, tidy
from core.forms.redaction import rules_from_policy
from core.forms.units import stored_lines
from core.model import Chunk, Document, Element, SourceRef

EMPTY_TEXT = "空欄"
STATE_TEXT = {"selected": "選択されている", "unselected": "選択されていない", "unknown": "選択状態不明"}


def query_phrasings(f: FormField) -> tuple[str, ...]:
    """How people ask about this field (seed 001): stored in metadata, added to text by policy."""
    out: list[str] = []
    key = f.key or "(無題)"
    if f.is_selection:
        if f.selection_state == "selected":
            out += [f"{key} を選択", f"{key} がチェック済み"]
        elif f.selection_state == "unselected":
            out += [f"{key} を選択しない", f"{key} が未チェック"]
    elif f.value_type == "radio" and f.value and not f.redacted:
        out += [f"{key} は {f.value}", f"{f.value} を選択"]
    if f.is_empty:
        out += [f"{key} が空欄", f"{key} 未入力"]
    return tuple(out)


def field_text(f: FormField, phrasings: bool = False) -> str:
    """Retrieval text of one field: 項目 / 値 / 状態 lines (seed 001)."""
    key = f.key or "(無題)"
    lines = [f"項目: {key}"]
    if f.group and f.group != f.key:
        lines.append(f"区分: {f.group}")
    if f.is_selection:
        lines.append(f"状態: {key} は {STATE_TEXT[f.selection_state]}")
    else:
        lines.append(f"値: {f.export_value or EMPTY_TEXT}")
    if phrasings:
        extra = query_phrasings(f)
        if extra:
            lines.append("言い換え: " + " / ".join(extra))
    return "\n".join(lines)


# The CLI row's provenance handles that a chunk's citation has no use for.
_CLI_ONLY_KEYS = ("id", "key_ref", "value_ref", "field_name")


def field_metadata(f: FormField) -> dict[str, Any]:
    """One entry of a chunk's `form_fields`: the `forms` CLI row (value redacted when the field is)
    keyed by `field_id`, with its query phrasings."""
    row = f.to_dict()
    return {"field_id": row["id"], **{k: v for k, v in row.items() if k not in _CLI_ONLY_KEYS},
            "query_phrasings": list(query_phrasings(f))}


def form_chunks(doc: Document, fields: Sequence[FormField] | None = None, policy: Any = None) -> tuple[Chunk, ...]:
    """Form chunks, one per form section (split between fields when over the policy's size).

    `fields` defaults to `extract_fields(doc)` with the policy's sensitive-key patterns. Text is
    the fields' 項目/値/状態 lines; with the policy switch `form_query_phrasings` on, each field also
    carries its phrasings. Metadata: `form_fields` (redacted values as [REDACTED]),
    `form_query_phrasings`, and `source_record_refs` (via Chunk.refs) for highlighting.
    """
    if fields is None:
        fields = extract_fields(doc, rules=rules_from_policy(policy))
    phrasings = bool(getattr(policy, "form_query_phrasings", False))
    max_chars = int(getattr(policy, "max_chars", 800) or 800)
    policy_name = str(getattr(policy, "name", "default") if policy is not None else "default")
    index = doc.element_index()
    leftovers = _leftover_text(fields, index)
    placed: set[str] = set()
    chunks: list[Chunk] = []
    for section, group in _by_section(fields):
        for part in _split_by_size(group, section, phrasings, max_chars):
            extra = []
            for f in part:
                for eid in f.source_element_ids:
                    if eid in leftovers and eid not in placed:
                        placed.add(eid)
                        extra.append(leftovers[eid])
            chunks.append(_form_chunk(doc, section, part, phrasings, policy_name, index, extra))
    return tuple(chunks)


def _ref_parts(ref: str) -> tuple[str, str | None]:
    """A unit id → (element id, line index or None for the whole element)."""
    head, _, line = ref.partition(":")
    return head.split("~")[0], (line.split("~")[0] if line else None)


def _leftover_text(fields: Sequence[FormField], index: Mapping[str, Element]) -> dict[str, str]:
    """Lines of elements the form chunks take over that no field used as key or value (a label's
    neighbour on the same text block). The chunker drops those elements from flow text, so their
    other lines travel in the form chunk instead of being lost."""
    whole: set[str] = set()
    lines: dict[str, set[int]] = {}
    for f in fields:
        for ref in (f.key_ref, f.value_ref):
            for part in (ref or "").split("+"):
                if not part:
                    continue
                eid, line = _ref_parts(part)
                if line is None or not line.isdigit():
                    whole.add(eid)
                else:
                    lines.setdefault(eid, set()).add(int(line))
    out: dict[str, str] = {}
    for eid, used in lines.items():
        element = index.get(eid)
        if element is None or eid in whole:
            continue
        rest = [ln for i, ln in enumerate(stored_lines(element)) if i not in used]
        text = " ".join(tidy(t) for _, t, _, _ in rest if tidy(t))
        text = tidy(re.sub(r"(?:\s*[.．・…‥]){3,}|[▶►]", " ", text))  # dot leaders say nothing
        if text:
            out[eid] = text
    return out


def _by_section(fields: Sequence[FormField]) -> list[tuple[tuple[str, ...], list[FormField]]]:
    """Consecutive fields (reading order) of one section path, split again at page changes."""
    groups: list[tuple[tuple[str, ...], list[FormField]]] = []
    for f in sorted(fields, key=reading_order):
        if groups and groups[-1][0] == f.section_path and groups[-1][1][-1].page == f.page:
            groups[-1][1].append(f)
        else:
            groups.append((f.section_path, [f]))
    return groups


def _chunk_text(section: tuple[str, ...], fields: Sequence[FormField], phrasings: bool) -> str:
    head = [f"関連見出し: {' > '.join(section)}"] if section else []
    return "\n\n".join(["\n".join(head)] * bool(head) + [field_text(f, phrasings) for f in fields])


def _split_by_size(fields: list[FormField], section: tuple[str, ...], phrasings: bool,
                   max_chars: int) -> list[list[FormField]]:
    parts: list[list[FormField]] = [[]]
    for f in fields:
        if parts[-1] and len(_chunk_text(section, parts[-1] + [f], phrasings)) > max_chars:
            parts.append([])
        parts[-1].append(f)
    return [p for p in parts if p]


def _form_chunk(doc: Document, section: tuple[str, ...], fields: Sequence[FormField], phrasings: bool,
                policy_name: str, index: Mapping[str, Element], leftovers: Sequence[str] = ()) -> Chunk:
    refs: list[SourceRef] = []
    seen: set[str] = set()
    for f in fields:
        for eid in f.source_element_ids:
            if eid in seen:
                continue
            seen.add(eid)
            element = index.get(eid)
            box = element.bbox if element else f.bbox
            category = element.category if element else Category.FORM_FIELD
            refs.append(SourceRef(eid, f.page, box, category))
    categories = tuple(dict.fromkeys([r.category for r in refs] or [Category.FORM_FIELD]))
    digest = hashlib.sha1("|".join(f.id for f in fields).encode()).hexdigest()[:10]
    return Chunk(
        id=f"{doc.doc_id[:8]}-form-{digest}",
        text=_chunk_text(section, fields, phrasings) + "".join(f"\n\n{t}" for t in leftovers),
        doc_id=doc.doc_id, source=doc.source, start_page=min(f.page for f in fields),
        end_page=max(f.page for f in fields), section_path=section, source_categories=categories,
        atomic=True, refs=tuple(refs), policy=policy_name,
        extra=(("contains_form", True),
               ("form_fields", tuple(_freeze(field_metadata(f)) for f in fields)),
               ("form_query_phrasings", tuple(p for f in fields for p in query_phrasings(f)))),
    )


def _freeze(d: Mapping[str, Any]) -> Any:
    from core.model import freeze_attrs
    return freeze_attrs(d)


def form_element_ids(fields: Iterable[FormField]) -> frozenset[str]:
    """Elements whose text is represented by form chunks: the chunker keeps them out of flow text,
    so a redacted value never reaches an export through a plain text chunk."""
    return frozenset(eid for f in fields for eid in f.source_element_ids)
