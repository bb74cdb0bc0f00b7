"""DoclingDocument 1.x JSON → Document.

Read in the document's own reading order (the `body` tree, then the `furniture` tree, then any item
no tree reaches). Every item with a `prov` becomes one element per provenance region; boxes honour
`coord_origin` (BOTTOMLEFT is flipped with the page height). Captions and footnotes become links,
furniture becomes page header/footer, check boxes become selection marks, and key-value graphs
become form_field elements paired by `kv_pair`. docling-core is not needed at run time: the shape
is checked here, with messages that name what is missing.
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from core.categories import Category, category_from_label
from core.errors import MalformedImport
from core.ingest.import_base import (
    DocumentBuilder, ImportContext, fill_pdf_pages, grid_from_cells, need, number, optional, ordered_box, table_text,
)
from core.model import Document

ITEM_ARRAYS = ("texts", "tables", "pictures", "key_value_items", "form_items", "field_regions", "field_items")
FLOATING_ARRAYS = ("tables", "pictures", "texts", "key_value_items", "form_items")
CHECKBOX_STATES = {"checkbox_selected": "selected", "checkbox_unselected": "unselected"}
KV_CONTAINERS = ("key_value_items", "form_items")
FIELD_ROLES = {"field_key": "key", "field_value": "value"}


def looks_like_docling(payload: Any) -> bool:
    return isinstance(payload, Mapping) and (payload.get("schema_name") == "DoclingDocument"
                                             or ("body" in payload and "texts" in payload))


def validate(payload: Any) -> None:
    where = "DoclingDocument"
    if not isinstance(payload, Mapping):
        raise MalformedImport(f"a DoclingDocument is a JSON object; this file holds {type(payload).__name__}")
    schema = need(payload, "schema_name", where, str)
    if schema != "DoclingDocument":
        raise MalformedImport(f"schema_name is {schema!r}, expected 'DoclingDocument'")
    version = need(payload, "version", where, str)
    if not version.startswith("1."):
        raise MalformedImport(f"DoclingDocument version {version!r} is not supported; expected 1.x")
    need(payload, "body", where, dict)
    pages = need(payload, "pages", where, dict)
    for key, page in pages.items():
        size = need(page, "size", f"pages[{key}]", dict)
        number(need(size, "width", f"pages[{key}].size"), f"pages[{key}].size.width")
        number(need(size, "height", f"pages[{key}].size"), f"pages[{key}].size.height")
    for array in ITEM_ARRAYS:
        for i, item in enumerate(optional(payload, array, where, list, [])):
            need(item, "self_ref", f"{array}[{i}]", str)
            need(item, "label", f"{array}[{i}]", str)
            for j, prov in enumerate(optional(item, "prov", f"{array}[{i}]", list, [])):
                need(prov, "page_no", f"{array}[{i}].prov[{j}]", int)
                need(prov, "bbox", f"{array}[{i}].prov[{j}]", dict)


def to_document(payload: Mapping[str, Any], ctx: ImportContext) -> Document:
    validate(payload)
    builder = DocumentBuilder(ctx)
    heights: dict[int, float] = {}
    for key, page in payload["pages"].items():
        page_no = int(page.get("page_no", key))
        width, height = float(page["size"]["width"]), float(page["size"]["height"])
        heights[page_no] = height
        builder.add_frame(ctx.frame(page_no, width, height, points_per_unit=1.0))
    fill_pdf_pages(builder)

    items = _items_by_ref(payload)
    unplaced: list[str] = []
    for ref in _reading_order(payload, items):
        item = items[ref]
        if item.get("prov"):
            _add_item(builder, item, items, heights)
        elif "graph" not in item:
            unplaced.append(ref)
    for array in KV_CONTAINERS:
        for item in payload.get(array) or ():
            _add_graph(builder, item, heights)
    _pair_field_items(builder, items)
    _link_captions_and_footnotes(builder, payload)

    meta = {"import_format": "docling", "docling_version": payload["version"], "docling_name": payload.get("name")}
    if unplaced:
        meta["unplaced_items"] = unplaced  # items without a page box (e.g. from DOCX) cannot be drawn
    return builder.build(engine_version=f"DoclingDocument {payload['version']}", meta=meta)


# ---- traversal -------------------------------------------------------------------------------
def _items_by_ref(payload: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    items: dict[str, Mapping[str, Any]] = {}
    for array in ITEM_ARRAYS + ("groups",):
        for item in payload.get(array) or ():
            items[item["self_ref"]] = item
    return items


def _reading_order(payload: Mapping[str, Any], items: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Depth-first over body then furniture (each item before its children), then unreached items."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(node: Mapping[str, Any]) -> Iterator[str]:
        for child in node.get("children") or ():
            ref = child.get("$ref") if isinstance(child, Mapping) else None
            if ref in seen or ref not in items:
                continue
            seen.add(ref)
            if not ref.startswith("#/groups/"):
                yield ref
            yield from visit(items[ref])

    for root in ("body", "furniture"):
        if isinstance(payload.get(root), Mapping):
            order.extend(visit(payload[root]))
    for array in ITEM_ARRAYS:
        for item in payload.get(array) or ():
            if item["self_ref"] not in seen:
                seen.add(item["self_ref"])
                order.append(item["self_ref"])
                order.extend(visit(item))
    return order


# ---- one item ----------------------------------------------------------------------------------
def _add_item(builder: DocumentBuilder, item: Mapping[str, Any], items: Mapping[str, Mapping[str, Any]],
              heights: Mapping[int, float]) -> None:
    ref, label = item["self_ref"], item["label"]
    try:
        category = category_from_label("docling", label)
    except KeyError as err:
        raise MalformedImport(f"{ref}: {err.args[0]}") from None
    layer = item.get("content_layer", "body")
    text = item.get("text") or item.get("orig") or ""
    attrs: dict[str, Any] = {"docling_label": label, "content_layer": layer if layer != "body" else None}
    if item.get("text", "") == "" and item.get("orig"):
        attrs["docling_text_empty"] = True  # e.g. a formula Docling could not transcribe: orig is shown
    state = CHECKBOX_STATES.get(label)
    if label in ("section_header", "field_heading"):
        attrs["level"] = item.get("level")
    if label == "list_item":
        attrs.update(enumerated=item.get("enumerated"), marker=item.get("marker"))
    if label == "code":
        attrs["code_language"] = item.get("code_language")
    if label in FIELD_ROLES:
        attrs["kv_role"] = FIELD_ROLES[label]
    if label in ("field_region", "field_item", "key_value_region", "form"):
        attrs["kv_role"] = "region"
    if "data" in item:  # tables and document indexes
        cells, grid = _table_cells(item, heights)
        attrs.update(cells=cells, rows=grid, n_rows=len(grid), n_cols=len(grid[0]) if grid else 0)
        text = table_text(grid)
    if "captions" in item and label in ("picture", "chart"):
        attrs.update(_picture_meta(item))
    parent = (item.get("parent") or {}).get("$ref", "")
    if parent in items and not parent.startswith("#/groups/"):
        attrs["parent_ref"] = parent

    provs = item["prov"]
    for index, prov in enumerate(provs):
        page = int(prov["page_no"])
        if page not in heights:
            raise MalformedImport(f"{ref} is on page {page}, which 'pages' does not list "
                                  f"(pages: {', '.join(map(str, sorted(heights))) or 'none'})")
        box = _box(prov["bbox"], heights[page], f"{ref}.prov[{index}]")
        category_here = _furniture_category(category, layer, box, heights.get(page))
        part_attrs = dict(attrs)
        part_text = text
        if len(provs) > 1:
            part_attrs.update(part=index + 1, parts=len(provs))
            part_text = _charspan_text(item, prov, text) if index or "data" not in item else text
        if index:
            part_attrs["part_of_ref"] = ref
        builder.add(ref if index == 0 else f"{ref}@{index}", page, box, category_here, part_text,
                    state=state, attrs=part_attrs)


def _furniture_category(category: Category, layer: str, box, height: float | None) -> Category:
    """Furniture that Docling labelled as plain text is a running header or footer by where it sits."""
    if layer == "background":
        return Category.DECORATIVE
    if layer != "furniture" or category in (Category.PAGE_HEADER, Category.PAGE_FOOTER):
        return category
    if height and (box[1] + box[3]) / 2 < height / 2:
        return Category.PAGE_HEADER
    return Category.PAGE_FOOTER


def _charspan_text(item: Mapping[str, Any], prov: Mapping[str, Any], text: str) -> str:
    span = prov.get("charspan")
    if isinstance(span, list) and len(span) == 2 and all(isinstance(v, int) for v in span):
        piece = (item.get("orig") or text)[span[0]:span[1]]
        if piece.strip():
            return piece
    return text


def _box(bbox: Mapping[str, Any], page_height: float | None, where: str) -> tuple[float, float, float, float]:
    l, t, r, b = (number(need(bbox, k, where + ".bbox"), f"{where}.bbox.{k}") for k in ("l", "t", "r", "b"))
    origin = bbox.get("coord_origin", "TOPLEFT")
    if origin == "BOTTOMLEFT":
        if page_height is None:
            raise MalformedImport(f"{where} is BOTTOMLEFT but its page has no size in 'pages'")
        return ordered_box((l, page_height - t, r, page_height - b), where + ".bbox")
    if origin != "TOPLEFT":
        raise MalformedImport(f"{where}.bbox.coord_origin is {origin!r}; expected TOPLEFT or BOTTOMLEFT")
    return ordered_box((l, t, r, b), where + ".bbox")


def _table_cells(item: Mapping[str, Any], heights: Mapping[int, float]) -> tuple[list[dict], list[list[str]]]:
    data = need(item, "data", item["self_ref"], dict)
    page = int(item["prov"][0]["page_no"]) if item.get("prov") else None
    cells = []
    for i, cell in enumerate(optional(data, "table_cells", f"{item['self_ref']}.data", list, [])):
        where = f"{item['self_ref']}.data.table_cells[{i}]"
        entry = {
            "row": int(need(cell, "start_row_offset_idx", where)),
            "col": int(need(cell, "start_col_offset_idx", where)),
            "row_span": int(cell.get("row_span", 1)), "col_span": int(cell.get("col_span", 1)),
            "text": str(cell.get("text", "")),
        }
        for flag in ("column_header", "row_header", "row_section"):
            if cell.get(flag):
                entry[flag] = True
        if isinstance(cell.get("bbox"), Mapping) and page in heights:
            box = _box(cell["bbox"], heights[page], where)
            entry["bbox"] = [round(min(box[0], box[2]), 2), round(min(box[1], box[3]), 2),
                             round(max(box[0], box[2]), 2), round(max(box[1], box[3]), 2)]
        cells.append(entry)
    grid = grid_from_cells(cells, int(data.get("num_rows") or 0), int(data.get("num_cols") or 0)) if cells or \
        data.get("num_rows") else []
    return cells, grid


def _picture_meta(item: Mapping[str, Any]) -> dict[str, Any]:
    """Keep Docling's picture description and top classification; other annotation kinds are dropped."""
    out: dict[str, Any] = {}
    meta = item.get("meta") or {}
    if isinstance(meta.get("description"), Mapping):
        out["description"] = meta["description"].get("text")
    if isinstance(meta.get("classification"), Mapping):
        predictions = meta["classification"].get("predictions") or []
        if predictions:
            out["classification"] = predictions[0].get("class_name")
    for annotation in item.get("annotations") or ():
        if annotation.get("kind") == "description":
            out.setdefault("description", annotation.get("text"))
        if annotation.get("kind") == "classification" and annotation.get("predicted_classes"):
            out.setdefault("classification", annotation["predicted_classes"][0].get("class_name"))
    return out


# ---- key-value graphs --------------------------------------------------------------------------
def _add_graph(builder: DocumentBuilder, item: Mapping[str, Any], heights: Mapping[int, float]) -> None:
    """Graph cells → form_field elements with `kv_role` key|value and a shared `kv_pair`.

    A cell that points at an existing text item (`item_ref`) annotates that element instead of
    adding a second box over the same words. A key with no `to_value` link is an empty value.
    """
    ref = item["self_ref"]
    graph = need(item, "graph", ref, dict)
    cells = optional(graph, "cells", f"{ref}.graph", list, [])
    by_id = {need(c, "cell_id", f"{ref}.graph.cells[{i}]"): c for i, c in enumerate(cells)}
    value_of: dict[Any, Any] = {}
    for i, link in enumerate(optional(graph, "links", f"{ref}.graph", list, [])):
        where = f"{ref}.graph.links[{i}]"
        source, target = need(link, "source_cell_id", where), need(link, "target_cell_id", where)
        if source not in by_id or target not in by_id:
            raise MalformedImport(f"{where} joins cell {source} to cell {target}, but {ref} has no such cell")
        if link.get("label") == "to_value":
            value_of[source] = target
        elif link.get("label") == "to_key":
            value_of[target] = source
    key_of = {v: k for k, v in value_of.items()}

    draft_ref: dict[Any, str] = {}
    for cell_id, cell in by_id.items():
        role = {"key": "key", "value": "value", "checkbox": "value"}.get(cell.get("label"), None)
        key_id = cell_id if role == "key" else key_of.get(cell_id, cell_id)
        attrs = {"kv_role": role or "cell", "kv_pair": f"{ref}/cells/{key_id}", "kv_graph": ref,
                 "docling_label": f"graph:{cell.get('label')}"}
        target_ref = (cell.get("item_ref") or {}).get("$ref")
        existing = builder.get(target_ref) if target_ref else None
        if existing is not None:
            existing.attrs.update(attrs)
            if existing.category is Category.TEXT:
                existing.category = Category.FORM_FIELD
            draft_ref[cell_id] = existing.ref
            continue
        prov = cell.get("prov")
        if not isinstance(prov, Mapping):
            continue
        where = f"{ref}.graph.cells[{cell_id}].prov"
        page = int(need(prov, "page_no", where))
        box = _box(need(prov, "bbox", where), heights.get(page), where)
        is_box = cell.get("label") == "checkbox"
        builder.add(f"{ref}/cells/{cell_id}", page, box, Category.SELECTION_MARK if is_box else Category.FORM_FIELD,
                    cell.get("text") or cell.get("orig") or "", state="unknown" if is_box else None, attrs=attrs)
        draft_ref[cell_id] = f"{ref}/cells/{cell_id}"

    for cell_id, cell in by_id.items():
        if cell.get("label") != "key" or cell_id not in draft_ref:
            continue
        key_draft = builder.get(draft_ref[cell_id])
        value_ref = draft_ref.get(value_of.get(cell_id), "")
        key_draft.attrs["kv_value_id_ref"] = value_ref  # "" = the key has no value: an empty value
        if not value_ref:
            key_draft.attrs["kv_empty"] = True


def _pair_field_items(builder: DocumentBuilder, items: Mapping[str, Mapping[str, Any]]) -> None:
    """Newer Docling forms: field_key/field_value texts under one field_item form a pair."""
    for draft in builder.drafts:
        if draft.attrs.get("docling_label") not in FIELD_ROLES:
            continue
        parent = draft.attrs.get("parent_ref")
        while parent in items and items[parent].get("label") != "field_item":
            parent = (items[parent].get("parent") or {}).get("$ref")
        draft.attrs["kv_pair"] = parent if parent in items else draft.ref
    value_of = {d.attrs["kv_pair"]: d.ref for d in builder.drafts
                if d.attrs.get("docling_label") == "field_value" and "kv_pair" in d.attrs}
    for draft in builder.drafts:
        if draft.attrs.get("docling_label") == "field_key":
            draft.attrs["kv_value_id_ref"] = value_of.get(draft.attrs.get("kv_pair"), "")
            if not draft.attrs["kv_value_id_ref"]:
                draft.attrs["kv_empty"] = True


def _link_captions_and_footnotes(builder: DocumentBuilder, payload: Mapping[str, Any]) -> None:
    for array in FLOATING_ARRAYS:
        for item in payload.get(array) or ():
            for key in ("captions", "footnotes"):
                for ref in item.get(key) or ():
                    if isinstance(ref, Mapping) and "$ref" in ref:
                        builder.link(ref["$ref"], item["self_ref"])
            refs = [r["$ref"] for r in item.get("references") or () if isinstance(r, Mapping) and "$ref" in r]
            if refs and builder.has(item["self_ref"]):
                builder.get(item["self_ref"]).attrs["reference_refs"] = refs
