"""A corrected Document as DoclingDocument 1.x JSON, so a reviewer's fixes flow back into Docling pipelines.

    export_docling(doc, fields=None) -> dict        pure; validate with docling-core's DoclingDocument
    docling_export_for(ws, doc_id) -> dict          the stored document, corrections and form events applied

Elements become `texts` / `tables` / `pictures` in reading order under `body` (running headers and
footers in the furniture layer), captions and footnotes become the `captions` / `footnotes` refs
of what they are linked to, and form fields become one `key_value_items` graph per page. Boxes
are written BOTTOMLEFT, as Docling's PDF pipeline writes them. A redacted form value never
appears: its value element is written as [REDACTED], the graph cell carries the redacted value,
and the raw value is scrubbed from every other text and table cell as well.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from core.categories import Category
from core.chunks.blocks import FURNITURE
from core.forms.redaction import REDACTED
from core.model import Document, Element, thaw

DOCLING_VERSION = "1.10.0"

C = Category
TEXT_LABELS = {
    C.TITLE: "title", C.SECTION_HEADER: "section_header", C.TEXT: "text", C.LIST_ITEM: "list_item",
    C.CAPTION: "caption", C.FOOTNOTE: "footnote", C.PAGE_HEADER: "page_header", C.PAGE_FOOTER: "page_footer",
    C.FORMULA: "formula", C.CODE: "code", C.REFERENCE: "reference", C.FORM_FIELD: "text",
    C.DECORATIVE: "text", C.SELECTION_MARK: "checkbox_unselected",
}
FLOATING = (C.TABLE, C.DOCUMENT_INDEX, C.PICTURE, C.CODE)
# docling-core's CodeLanguageLabel values, matched case-insensitively; anything else is "unknown"
CODE_LANGUAGES = ("Ada", "Awk", "Bash", "bc", "C", "C#", "C++", "CMake", "COBOL", "CSS", "Ceylon", "Clojure",
                  "Crystal", "Cuda", "Cython", "D", "Dart", "dc", "Dockerfile", "Elixir", "Erlang", "FORTRAN",
                  "Forth", "Go", "HTML", "Haskell", "Haxe", "Java", "JavaScript", "JSON", "Julia", "Kotlin",
                  "Lisp", "Lua", "Matlab", "MoonScript", "Nim", "OCaml", "ObjectiveC", "Octave", "PHP", "Pascal",
                  "Perl", "Prolog", "Python", "Racket", "Ruby", "Rust", "SML", "SQL", "Scala", "Scheme", "Swift",
                  "TypeScript", "unknown", "VisualBasic", "XML", "YAML")


def docling_export_for(ws: Any, doc_id: str) -> dict[str, Any]:
    """The stored document with its corrections, and its form fields with reviewer events, as Docling JSON."""
    from core.review.corrections import corrected_document
    from core.forms.fields import extract_fields

    doc = corrected_document(ws, doc_id)
    return export_docling(doc, fields=extract_fields(doc))


def export_docling(doc: Document, fields: Sequence[Any] | None = None) -> dict[str, Any]:
    """DoclingDocument JSON of `doc`. `fields` are core.forms.form_field FormFields (default: extracted from `doc`)."""
    if fields is None:
        from core.forms.fields import extract_fields

        fields = extract_fields(doc)
    return _Writer(doc, fields).document()


def file_name(source: str) -> str:
    stem = Path(source).stem or "document"
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in stem) + ".docling.json"


class _Writer:
    def __init__(self, doc: Document, fields: Sequence[Any]):
        self.doc = doc
        self.fields = list(fields)
        self.heights = {p.number: p.height for p in doc.pages}
        self.widths = {p.number: p.width for p in doc.pages}
        self.secrets = _secrets(self.fields)
        self.hidden_values = _redacted_value_elements(self.fields)
        self.out: dict[str, list] = {"texts": [], "tables": [], "pictures": [], "groups": [], "key_value_items": []}
        self.refs: dict[str, str] = {}  # element id → self_ref
        self.body: list[dict] = []
        self.furniture: list[dict] = []

    # ---- the document -------------------------------------------------------------------------
    def document(self) -> dict[str, Any]:
        elements = [e for p in self.doc.pages for e in sorted(p.elements, key=lambda e: e.seq)]
        parts = {e.id: e for e in elements if e.attr("part_of")}
        list_group: dict | None = None
        for e in elements:
            if e.id in parts and e.attr("part_of") in self.refs:
                continue
            if e.category is C.FORM_FIELD and e.attr("kv_role") == "region":
                continue  # a key/value region is the graph's own box, below
            if e.category is C.LIST_ITEM:
                if list_group is None:
                    list_group = self._group("list", "list")
                self._add(e, parent=list_group, continuation=self._parts_of(e, parts))
                continue
            list_group = None
            self._add(e, parent=None, continuation=self._parts_of(e, parts))
        self._link_captions(elements)
        self._add_key_values()
        return {
            "schema_name": "DoclingDocument", "version": DOCLING_VERSION, "name": Path(self.doc.source).stem or "document",
            "origin": {"mimetype": "application/pdf", "binary_hash": int(self.doc.sha256[:16], 16),
                       "filename": self.doc.source},
            "furniture": {"self_ref": "#/furniture", "children": [], "content_layer": "furniture", "name": "_root_",
                          "label": "unspecified"},
            "body": {"self_ref": "#/body", "children": self.body + self.furniture, "content_layer": "body",
                     "name": "_root_", "label": "unspecified"},
            **self.out, "form_items": [],
            "pages": {str(p.number): {"size": {"width": p.width, "height": p.height}, "page_no": p.number}
                      for p in self.doc.pages},
        }

    def _parts_of(self, e: Element, parts: Mapping[str, Element]) -> list[Element]:
        return [p for p in parts.values() if p.attr("part_of") == e.id]

    def _group(self, name: str, label: str) -> dict:
        ref = f"#/groups/{len(self.out['groups'])}"
        group = {"self_ref": ref, "parent": {"$ref": "#/body"}, "children": [], "content_layer": "body",
                 "name": name, "label": label}
        self.out["groups"].append(group)
        self.body.append({"$ref": ref})
        return group

    # ---- one element ----------------------------------------------------------------------------
    def _add(self, e: Element, parent: dict | None, continuation: Sequence[Element]) -> None:
        pieces = [e, *continuation]
        text = self.text_of(pieces)
        provs, offset = [], 0
        for piece in pieces:
            length = len(self.text_of([piece])) if continuation else len(text)
            provs.append(self._prov(piece.page, piece.bbox, offset, offset + length))
            offset += length
        if e.category in (C.TABLE, C.DOCUMENT_INDEX):
            item = self._table(e, provs)
        elif e.category is C.PICTURE:
            item = self._item("pictures", e, "picture", provs, parent)
            item.update(captions=[], references=[], footnotes=[], annotations=[])
            if e.attr("description"):
                item["meta"] = {"description": {"text": self.scrub(str(e.attr("description"))),
                                                "created_by": "rag-layout-inspector"}}
        else:
            label = TEXT_LABELS[e.category]
            if e.category is C.SELECTION_MARK and e.state == "selected":
                label = "checkbox_selected"
            item = self._item("texts", e, label, provs, parent)
            item.update(orig=text, text=text)
            if e.category is C.DECORATIVE:
                item["content_layer"] = "background"
            if e.category is C.SECTION_HEADER:
                item["level"] = max(1, min(100, int(e.attr("level") or 1)))
            if e.category is C.LIST_ITEM:
                item.update(enumerated=bool(e.attr("enumerated")), marker=str(e.attr("marker") or "-"))
            if e.category is C.CODE:
                item.update(captions=[], references=[], footnotes=[], code_language=_code_language(e))
        if e.category in FURNITURE:
            item["content_layer"] = "furniture"

    def text_of(self, pieces: Sequence[Element]) -> str:
        if any(p.id in self.hidden_values for p in pieces):
            return REDACTED
        return self.scrub("".join(p.text for p in pieces))

    def _item(self, array: str, e: Element, label: str, provs: list, parent: dict | None) -> dict:
        ref = f"#/{array}/{len(self.out[array])}"
        parent_ref = parent["self_ref"] if parent else "#/body"
        item = {"self_ref": ref, "parent": {"$ref": parent_ref}, "children": [], "content_layer": "body",
                "label": label, "prov": provs}
        self.out[array].append(item)
        self.refs[e.id] = ref
        if parent is not None:
            parent["children"].append({"$ref": ref})
        else:
            (self.furniture if e.category in FURNITURE else self.body).append({"$ref": ref})
        return item

    def _table(self, e: Element, provs: list) -> dict:
        item = self._item("tables", e, "document_index" if e.category is C.DOCUMENT_INDEX else "table", provs, None)
        cells, n_rows, n_cols = self._cells(e)
        item.update(captions=[], references=[], footnotes=[], annotations=[],
                    data={"table_cells": cells, "num_rows": n_rows, "num_cols": n_cols})
        return item

    def _cells(self, e: Element) -> tuple[list[dict], int, int]:
        """The source's cells when it gave them; else the rows grid; else one cell per text line."""
        raw = thaw(e.attr("cells")) if e.attr("cells") else None
        if raw:
            cells = [dict(c) for c in raw]
        else:
            rows = thaw(e.attr("rows")) if e.attr("rows") else [[line] for line in e.text.splitlines() if line.strip()]
            cells = [{"row": r, "col": c, "text": str(t)} for r, row in enumerate(rows)
                     for c, t in enumerate(row if isinstance(row, list) else [row])]
        out = []
        for c in cells:
            row, col = int(c["row"]), int(c["col"])
            row_span, col_span = int(c.get("row_span", 1)), int(c.get("col_span", 1))
            cell = {"row_span": row_span, "col_span": col_span, "start_row_offset_idx": row,
                    "end_row_offset_idx": row + row_span, "start_col_offset_idx": col,
                    "end_col_offset_idx": col + col_span, "text": self.scrub(str(c.get("text", ""))),
                    "column_header": bool(c.get("column_header")), "row_header": bool(c.get("row_header")),
                    "row_section": bool(c.get("row_section"))}
            if c.get("bbox"):
                cell["bbox"] = self._bbox(e.page, tuple(c["bbox"]))
            out.append(cell)
        n_rows = max([c["end_row_offset_idx"] for c in out] + [int(e.attr("n_rows") or 0)])
        n_cols = max([c["end_col_offset_idx"] for c in out] + [int(e.attr("n_cols") or 0)])
        return out, n_rows, n_cols

    def _prov(self, page: int, bbox, start: int, end: int) -> dict:
        return {"page_no": page, "bbox": self._bbox(page, bbox), "charspan": [start, end]}

    def _bbox(self, page: int, bbox) -> dict:
        x0, y0, x1, y1 = (float(v) for v in bbox)
        width, height = self.widths[page], self.heights[page]
        x0, x1 = max(0.0, min(x0, width)), max(0.0, min(x1, width))
        y0, y1 = max(0.0, min(y0, height)), max(0.0, min(y1, height))
        return {"l": round(x0, 2), "t": round(height - y0, 2), "r": round(x1, 2), "b": round(height - y1, 2),
                "coord_origin": "BOTTOMLEFT"}

    # ---- links and forms ------------------------------------------------------------------------
    def _link_captions(self, elements: Iterable[Element]) -> None:
        items = {item["self_ref"]: item for array in ("texts", "tables", "pictures") for item in self.out[array]}
        for e in elements:
            if e.category not in (C.CAPTION, C.FOOTNOTE) or e.id not in self.refs:
                continue
            key = "captions" if e.category is C.CAPTION else "footnotes"
            for target in e.links:
                item = items.get(self.refs.get(target, ""))
                if item is not None and key in item and {"$ref": self.refs[e.id]} not in item[key]:
                    item[key].append({"$ref": self.refs[e.id]})

    def _add_key_values(self) -> None:
        """One key_value_region per page: a key cell and a value cell per field, joined `to_value`."""
        by_page: dict[int, list[Any]] = {}
        for f in self.fields:
            by_page.setdefault(f.page, []).append(f)
        for page, fields in sorted(by_page.items()):
            cells, links, boxes = [], [], []
            for f in fields:
                key_id = value_id = None
                if f.key or f.key_bbox:
                    key_id = len(cells)
                    cells.append(self._cell("key", key_id, f.key, page, f.key_bbox, f.key_ref))
                    boxes += [f.key_bbox] if f.key_bbox else []
                value = f.export_value if not f.is_selection else f.selection_state
                label = "checkbox" if f.is_selection else "value"
                if value or f.value_bbox:
                    value_id = len(cells)
                    cells.append(self._cell(label, value_id, self.scrub(value), page, f.value_bbox, f.value_ref))
                    boxes += [f.value_bbox] if f.value_bbox else []
                if key_id is not None and value_id is not None:
                    links.append({"label": "to_value", "source_cell_id": key_id, "target_cell_id": value_id})
            ref = f"#/key_value_items/{len(self.out['key_value_items'])}"
            item = {"self_ref": ref, "parent": {"$ref": "#/body"}, "children": [], "content_layer": "body",
                    "label": "key_value_region", "prov": [], "captions": [], "references": [], "footnotes": [],
                    "graph": {"cells": cells, "links": links}}
            if boxes:
                union = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                         max(b[3] for b in boxes))
                item["prov"] = [self._prov(page, union, 0, 0)]
            self.out["key_value_items"].append(item)
            self.body.append({"$ref": ref})

    def _cell(self, label: str, cell_id: int, text: str, page: int, bbox, unit_ref: str | None) -> dict:
        """A graph cell; when the key/value is a whole element, `item_ref` points at its text item."""
        cell: dict[str, Any] = {"label": label, "cell_id": cell_id, "text": text, "orig": text}
        if bbox:
            cell["prov"] = self._prov(page, bbox, 0, len(text))
        if unit_ref and unit_ref in self.refs and self.refs[unit_ref].startswith("#/texts/"):
            cell["item_ref"] = {"$ref": self.refs[unit_ref]}
        return cell

    def scrub(self, text: str) -> str:
        """Remove every redacted value from free text (a region or a line can hold it verbatim)."""
        for pattern in self.secrets:
            text = pattern.sub(REDACTED, text)
        return text


def _secrets(fields: Sequence[Any]) -> list[re.Pattern]:
    """Redacted values as patterns that also match them with their spacing changed (OCR, line wraps)."""
    patterns = []
    for f in fields:
        value = str(getattr(f, "value", "") or "").strip()
        if getattr(f, "redacted", False) and value:
            chars = [re.escape(ch) for ch in value if not ch.isspace()]
            patterns.append(re.compile(r"\s*".join(chars)))
    return sorted(patterns, key=lambda p: -len(p.pattern))


def _redacted_value_elements(fields: Sequence[Any]) -> set[str]:
    """Elements that are a redacted field's value (not its key): written as [REDACTED] whole."""
    out: set[str] = set()
    for f in fields:
        if getattr(f, "redacted", False) and not getattr(f, "is_selection", False):
            key = getattr(f, "key_ref", None)
            out.update(eid for eid in getattr(f, "source_element_ids", ()) if eid != key and eid)
    return out


def _code_language(e: Element) -> str:
    wanted = str(e.attr("code_language") or e.attr("language") or "").lower()
    return next((name for name in CODE_LANGUAGES if name.lower() == wanted), "unknown")
