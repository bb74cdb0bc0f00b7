"""AWS Textract AnalyzeDocument / GetDocumentAnalysis response (`Blocks`) → Document.

LAYOUT_* blocks give the page's elements (text from their child LINEs, in the PAGE's reading
order); without LAYOUT, LINEs are the text elements. TABLE/CELL/MERGED_CELL give tables (a
LAYOUT_TABLE over the same area is the same table), TABLE_TITLE/TABLE_FOOTER become a caption and a
footnote linked to their table. KEY_VALUE_SET blocks become form_field elements: a KEY finds its
VALUE through the VALUE relationship and its words through CHILD; a VALUE without CHILD is an
empty value; a SELECTION_ELEMENT under a VALUE gives that value's selection state. A QUERY (no
Geometry of its own) and its QUERY_RESULT answers become form fields: the query's text is the key,
each answer the value, placed at the answer's box. Geometry is in page ratios, scaled by the page
size; any other block without Geometry is left out and counted in meta `not_held`.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from core.categories import Category, category_from_label
from core.errors import MalformedImport
from core.geometry import iou
from core.ingest.import_base import (
    DocumentBuilder, ImportContext, fill_pdf_pages, grid_from_cells, join_words, need, number, optional,
    table_text,
)
from core.model import Document

STATES = {"SELECTED": "selected", "NOT_SELECTED": "unselected"}
TEXT_LAYOUTS = ("LAYOUT_TITLE", "LAYOUT_HEADER", "LAYOUT_FOOTER", "LAYOUT_SECTION_HEADER", "LAYOUT_PAGE_NUMBER",
                "LAYOUT_LIST", "LAYOUT_FIGURE", "LAYOUT_TEXT", "LAYOUT_KEY_VALUE", "LAYOUT_TABLE")
NOT_PLACED = 10**9
# Block types this importer turns into elements or reads for their text; anything else is reported in meta.
HELD_BLOCKS = {"PAGE", "LINE", "WORD", "TABLE", "CELL", "MERGED_CELL", "TABLE_TITLE", "TABLE_FOOTER",
               "KEY_VALUE_SET", "SELECTION_ELEMENT", "QUERY", "QUERY_RESULT", *TEXT_LAYOUTS}
# Blocks Textract itself gives no Geometry: a PAGE may go without, a QUERY always does.
NO_GEOMETRY = {"PAGE", "QUERY"}
SAME_TABLE_IOU = 0.5


def looks_like_textract(payload: Any) -> bool:
    return isinstance(payload, Mapping) and isinstance(payload.get("Blocks"), list)


def to_document(payload: Mapping[str, Any], ctx: ImportContext) -> Document:
    blocks = _blocks(payload)
    return _Reader(blocks, ctx, payload).document()


def _blocks(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if not isinstance(payload, Mapping):
        raise MalformedImport(f"a Textract response is a JSON object; this file holds {type(payload).__name__}")
    blocks = need(payload, "Blocks", "Textract response", list)
    for i, block in enumerate(blocks):
        where = f"Blocks[{i}]"
        need(block, "Id", where, str)
        need(block, "BlockType", where, str)
        if "Geometry" in block:  # missing: left out and noted (see _Reader.unplaced)
            bbox = need(need(block, "Geometry", where, dict), "BoundingBox", where + ".Geometry", dict)
            for key in ("Left", "Top", "Width", "Height"):
                value = number(need(bbox, key, where + ".Geometry.BoundingBox"), f"{where}.Geometry.BoundingBox.{key}")
                if key in ("Width", "Height") and value < 0:
                    raise MalformedImport(f"{where}.Geometry.BoundingBox.{key} is {value:g}; an inverted box "
                                          "(a width or height must not be negative)")
        for j, rel in enumerate(optional(block, "Relationships", where, list, [])):
            need(rel, "Type", f"{where}.Relationships[{j}]", str)
            need(rel, "Ids", f"{where}.Relationships[{j}]", list)
    if not any(b["BlockType"] == "PAGE" for b in blocks):
        raise MalformedImport("the Textract response has no PAGE block")
    return blocks


class _Reader:
    def __init__(self, blocks: Sequence[Mapping[str, Any]], ctx: ImportContext, payload: Mapping[str, Any]):
        self.blocks = blocks
        self.by_id = {b["Id"]: b for b in blocks}
        self.ctx = ctx
        self.payload = payload
        self.builder = DocumentBuilder(ctx)
        self.pages = [b for b in blocks if b["BlockType"] == "PAGE"]
        self.page_of = self._page_numbers()
        self.parents: dict[str, list[str]] = {}
        self.unplaced = Counter(b["BlockType"] for b in blocks
                                if "Geometry" not in b and b["BlockType"] not in NO_GEOMETRY)
        for b in blocks:
            for rel in b.get("Relationships") or ():
                for child in rel["Ids"]:
                    self.parents.setdefault(child, []).append(b["Id"])

    # ---- plumbing ---------------------------------------------------------------------------
    def _page_numbers(self) -> dict[str, int]:
        """Each block's page: its `Page` field (multi-page jobs), else the PAGE that lists it."""
        page_of: dict[str, int] = {}
        for index, page in enumerate(self.pages, start=1):
            number_ = int(page.get("Page", index))
            page_of[page["Id"]] = number_
            stack = list(self.related(page, "CHILD"))
            while stack:
                block = stack.pop()
                if block["Id"] not in page_of:
                    page_of[block["Id"]] = number_
                    stack.extend(self.related(block, "CHILD", "VALUE", "MERGED_CELL", "TABLE_TITLE",
                                              "TABLE_FOOTER"))
        for b in self.blocks:
            if "Page" in b:
                page_of[b["Id"]] = int(b["Page"])
        return page_of

    def related(self, block: Mapping[str, Any], *types: str) -> list[Mapping[str, Any]]:
        out = []
        for rel in block.get("Relationships") or ():
            if rel["Type"] in types:
                for child in rel["Ids"]:
                    if child not in self.by_id:
                        raise MalformedImport(f"block {block['Id']} has a {rel['Type']} relationship to "
                                              f"{child}, which is not in Blocks")
                    out.append(self.by_id[child])
        return out

    def page(self, block: Mapping[str, Any]) -> int:
        if block["Id"] in self.page_of:
            return self.page_of[block["Id"]]
        if len(self.pages) == 1:
            return self.page_of[self.pages[0]["Id"]]
        raise MalformedImport(f"block {block['Id']} ({block['BlockType']}) is on no page")

    @staticmethod
    def ratio_box(block: Mapping[str, Any]) -> tuple[float, float, float, float]:
        """Min/max over the polygon when there is one (rotated scans), else the axis-aligned box."""
        polygon = block["Geometry"].get("Polygon")
        if isinstance(polygon, list) and polygon and all(isinstance(p, Mapping) for p in polygon):
            xs = [float(p["X"]) for p in polygon]
            ys = [float(p["Y"]) for p in polygon]
            return (min(xs), min(ys), max(xs), max(ys))
        b = block["Geometry"]["BoundingBox"]
        return (b["Left"], b["Top"], b["Left"] + b["Width"], b["Top"] + b["Height"])

    def words(self, block: Mapping[str, Any]) -> str:
        return join_words(w.get("Text", "") for w in self.related(block, "CHILD") if w["BlockType"] == "WORD")

    def add(self, block: Mapping[str, Any], category: Category, text: str, order: tuple, *,
            state: str | None = None, **attrs: Any) -> None:
        if "Geometry" not in block:
            return  # nowhere to put it on the page: counted in not_held
        attrs.setdefault("textract_type", block["BlockType"])
        attrs.setdefault("confidence", round(block["Confidence"], 2) if "Confidence" in block else None)
        self.builder.add(block["Id"], self.page(block), self.ratio_box(block), category, text, state=state,
                         attrs=attrs, order=order)

    # ---- the document -----------------------------------------------------------------------
    def document(self) -> Document:
        for index, page in enumerate(self.pages, start=1):
            self.builder.add_frame(self.ctx.frame(int(page.get("Page", index)), 1.0, 1.0, points_per_unit=None))
        fill_pdf_pages(self.builder)
        order = self._layout_order()
        has_layout = any(b["BlockType"].startswith("LAYOUT_") for b in self.blocks)
        tables = [b for b in self.blocks if b["BlockType"] == "TABLE"]
        merged_layout = self._match_layout_tables(tables)

        for block in self.blocks:
            kind = block["BlockType"]
            if kind in TEXT_LAYOUTS:
                self._add_layout(block, order, merged_layout)
            elif kind == "LINE" and not has_layout:
                self.add(block, Category.TEXT, block.get("Text", ""), (self._position(block), 0))
        for table in tables:
            self._add_table(table, order, merged_layout)
        for block in self.blocks:
            if block["BlockType"] == "KEY_VALUE_SET" and "KEY" in (block.get("EntityTypes") or ()):
                self._add_key_value(block, order)
        self._add_loose_selection_marks(order)
        unanswered = self._add_queries(order)

        meta = {"import_format": "textract", "textract_model_version": self.payload.get("AnalyzeDocumentModelVersion"),
                "textract_pages": (self.payload.get("DocumentMetadata") or {}).get("Pages")}
        ignored = Counter(b["BlockType"] for b in self.blocks if b["BlockType"] not in HELD_BLOCKS)
        ignored.update({f"{kind} without Geometry": n for kind, n in self.unplaced.items() if kind in HELD_BLOCKS})
        if unanswered:
            ignored["QUERY without an answer"] = unanswered
        if ignored:
            meta["not_held"] = dict(sorted(ignored.items()))  # e.g. SIGNATURE: no category for it
        return self.builder.build(engine_version=f"textract {self.payload.get('AnalyzeDocumentModelVersion', '')}".strip(),
                                  meta=meta)

    def _layout_order(self) -> dict[str, int]:
        """Reading order = the order in which each PAGE lists its LAYOUT blocks (then LINEs)."""
        order: dict[str, int] = {}
        for page in self.pages:
            for i, child in enumerate(self.related(page, "CHILD")):
                order.setdefault(child["Id"], i)
                for grandchild in self.related(child, "CHILD"):
                    if grandchild["BlockType"].startswith("LAYOUT_"):
                        order.setdefault(grandchild["Id"], i)
        return order

    def _position(self, block: Mapping[str, Any], order: Mapping[str, int] | None = None) -> float:
        if order and block["Id"] in order:
            return order[block["Id"]]
        return NOT_PLACED

    def _container_order(self, block: Mapping[str, Any], order: Mapping[str, int]) -> tuple:
        """Items outside the layout tree sit after the LAYOUT block whose box holds them, top to bottom."""
        if "Geometry" not in block:
            return (NOT_PLACED,)
        box, page = self.ratio_box(block), self.page(block)
        best = NOT_PLACED
        for other in self.blocks:
            if (other["BlockType"].startswith("LAYOUT_") and other["Id"] in order and "Geometry" in other
                    and self.page(other) == page):
                o = self.ratio_box(other)
                if o[0] - 0.005 <= box[0] and o[1] - 0.005 <= box[1] and box[2] <= o[2] + 0.005 and box[3] <= o[3] + 0.005:
                    best = min(best, order[other["Id"]])
        return (best, box[1], box[0])

    def _match_layout_tables(self, tables: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        """LAYOUT_TABLE id → TABLE id for the pairs that cover the same area: one table, not two."""
        matched: dict[str, str] = {}
        for layout in (b for b in self.blocks if b["BlockType"] == "LAYOUT_TABLE" and "Geometry" in b):
            best, best_iou = None, SAME_TABLE_IOU
            for table in tables:
                if ("Geometry" in table and self.page(table) == self.page(layout)
                        and table["Id"] not in matched.values()):
                    overlap = iou(self.ratio_box(layout), self.ratio_box(table))
                    if overlap >= best_iou:
                        best, best_iou = table["Id"], overlap
            if best:
                matched[layout["Id"]] = best
        return matched

    # ---- kinds of block ---------------------------------------------------------------------
    def _add_layout(self, block: Mapping[str, Any], order: Mapping[str, int], merged: Mapping[str, str]) -> None:
        kind = block["BlockType"]
        if kind == "LAYOUT_TABLE" and block["Id"] in merged:
            return  # the TABLE block carries it, with cells
        children = self.related(block, "CHILD")
        if kind == "LAYOUT_LIST" and any(c["BlockType"].startswith("LAYOUT_") for c in children):
            return  # its LAYOUT_TEXT children are the list items
        category = category_from_label("textract", kind)
        attrs: dict[str, Any] = {}
        parent_list = next((p for p in self.parents.get(block["Id"], ())
                            if self.by_id[p]["BlockType"] == "LAYOUT_LIST"), None)
        if parent_list:
            category, attrs["textract_list"] = Category.LIST_ITEM, parent_list
        if kind == "LAYOUT_KEY_VALUE":
            attrs["kv_role"] = "region"
        text = "\n".join(c.get("Text", "") for c in children if c["BlockType"] == "LINE")
        self.add(block, category, text, (self._position(block, order), 0), **attrs)

    def _add_table(self, table: Mapping[str, Any], order: Mapping[str, int], merged: Mapping[str, str]) -> None:
        layout = next((lid for lid, tid in merged.items() if tid == table["Id"]), None)
        position = (self._position(self.by_id[layout], order), 0) if layout else self._container_order(table, order)
        cells, merged_children = [], set()
        for mc in self.related(table, "MERGED_CELL"):
            parts = self.related(mc, "CHILD")
            merged_children.update(p["Id"] for p in parts)
            cells.append(self._cell(mc, join_words(self._cell_text(p) for p in sorted(
                parts, key=lambda p: (p.get("RowIndex", 0), p.get("ColumnIndex", 0))))))
        for cell in self.related(table, "CHILD"):
            if cell["BlockType"] == "CELL" and cell["Id"] not in merged_children:
                cells.append(self._cell(cell, self._cell_text(cell)))
        cells.sort(key=lambda c: (c["row"], c["col"]))
        grid = grid_from_cells(cells, 0, 0) if cells else []
        self.add(table, Category.TABLE, table_text(grid), position, cells=cells, rows=grid, n_rows=len(grid),
                 n_cols=len(grid[0]) if grid else 0, table_kind=",".join(table.get("EntityTypes") or ()) or None,
                 layout_id=layout)
        for kind, category in (("TABLE_TITLE", Category.CAPTION), ("TABLE_FOOTER", Category.FOOTNOTE)):
            for block in self.related(table, kind):
                self.add(block, category, self._lines_or_words(block),
                         (position[0], -1 if kind == "TABLE_TITLE" else 1) + tuple(position[1:]))
                self.builder.link(block["Id"], table["Id"])

    def _cell(self, cell: Mapping[str, Any], text: str) -> dict[str, Any]:
        where = f"{cell['BlockType']} {cell['Id']}"
        entry = {"row": int(need(cell, "RowIndex", where)) - 1, "col": int(need(cell, "ColumnIndex", where)) - 1,
                 "row_span": int(cell.get("RowSpan", 1)), "col_span": int(cell.get("ColumnSpan", 1)), "text": text}
        for entity in cell.get("EntityTypes") or ():
            entry[entity.lower()] = True  # COLUMN_HEADER, TABLE_TITLE, TABLE_SUMMARY, ...
        return entry

    def _cell_text(self, cell: Mapping[str, Any]) -> str:
        parts = []
        for child in self.related(cell, "CHILD"):
            if child["BlockType"] == "WORD":
                parts.append(child.get("Text", ""))
            elif child["BlockType"] == "SELECTION_ELEMENT":
                parts.append("☑" if child.get("SelectionStatus") == "SELECTED" else "☐")
        return join_words(parts)

    def _lines_or_words(self, block: Mapping[str, Any]) -> str:
        children = self.related(block, "CHILD")
        lines = [c.get("Text", "") for c in children if c["BlockType"] == "LINE"]
        return "\n".join(lines) if lines else join_words(c.get("Text", "") for c in children if c["BlockType"] == "WORD")

    def _add_key_value(self, key: Mapping[str, Any], order: Mapping[str, int]) -> None:
        values = [v for v in self.related(key, "VALUE") if v["BlockType"] == "KEY_VALUE_SET"]
        pair = key["Id"]
        position = self._container_order(key, order)
        value_ref = ""  # "" = no value at all: an empty value for core.forms.fields
        if values:
            marks = [c for c in self.related(values[0], "CHILD") if c["BlockType"] == "SELECTION_ELEMENT"]
            value_ref = marks[0]["Id"] if marks else values[0]["Id"]  # a check box answers with its mark
        empty = not values or not self.related(values[0], "CHILD")
        self.add(key, Category.FORM_FIELD, self.words(key), position, kv_role="key", kv_pair=pair,
                 kv_empty=True if empty else None, kv_value_id_ref=value_ref,
                 kv_confidence=round(key["Confidence"] / 100, 4) if "Confidence" in key else None)
        for value in values:
            children = self.related(value, "CHILD")
            marks = [c for c in children if c["BlockType"] == "SELECTION_ELEMENT"]
            state = STATES.get(marks[0].get("SelectionStatus")) if marks else None
            self.add(value, Category.FORM_FIELD, self.words(value), position + (1,), kv_role="value", kv_pair=pair,
                     kv_empty=True if not children else None, selection_state=state)
            for mark in marks:
                self.add(mark, Category.SELECTION_MARK, "", position + (2,),
                         state=self._state(mark), kv_role="selection", kv_pair=pair)

    def _add_loose_selection_marks(self, order: Mapping[str, int]) -> None:
        """Selection elements not under a VALUE (in table cells, or free) are plain selection marks."""
        for block in self.blocks:
            if block["BlockType"] != "SELECTION_ELEMENT" or self.builder.has(block["Id"]):
                continue
            parent_cell = next((p for p in self.parents.get(block["Id"], ())
                                if self.by_id[p]["BlockType"] in ("CELL", "MERGED_CELL")), None)
            table = next((t for t in self.parents.get(parent_cell, ()) if self.by_id[t]["BlockType"] == "TABLE"),
                         None) if parent_cell else None
            self.add(block, Category.SELECTION_MARK, "", self._container_order(block, order) + (3,),
                     state=self._state(block), parent_ref=table)

    def _add_queries(self, order: Mapping[str, int]) -> int:
        """Each answer of a QUERY becomes one element holding the pair (core.forms.pair_fields reads
        `kv_key` / `kv_value`); returns how many queries had no placed answer."""
        unanswered = 0
        for query in (b for b in self.blocks if b["BlockType"] == "QUERY"):
            spec = optional(query, "Query", f"QUERY {query['Id']}", dict, {})
            question = str(optional(spec, "Text", f"QUERY {query['Id']}.Query", str, ""))
            answers = [a for a in self.related(query, "ANSWER")
                       if a["BlockType"] == "QUERY_RESULT" and "Geometry" in a]
            unanswered += not answers
            for answer in answers:
                text = str(answer.get("Text", ""))
                self.add(answer, Category.FORM_FIELD, text, self._container_order(answer, order) + (4,),
                         kv_key=question, kv_value=text, kv_role="query", kv_pair=query["Id"],
                         query_alias=spec.get("Alias"),
                         kv_confidence=round(answer["Confidence"] / 100, 4) if "Confidence" in answer else None)
        return unanswered

    @staticmethod
    def _state(block: Mapping[str, Any]) -> str:
        status = block.get("SelectionStatus")
        if status not in STATES:
            raise MalformedImport(f"SELECTION_ELEMENT {block['Id']} has SelectionStatus {status!r}; "
                                  f"expected SELECTED or NOT_SELECTED")
        return STATES[status]
