"""Azure Document Intelligence (Form Recognizer) analyzeResult → Document.

v3/v4 (`pages` + `paragraphs`): paragraphs by role, tables with cells (`rowSpan`/`columnSpan`),
figures with their caption and footnotes linked, `keyValuePairs` (a missing value is an empty
value), selection marks. v2.1 layout (`readResults` + `pageResults`): lines, tables, selection marks.
Polygons are in the page's `unit` (inch for PDFs, pixel for images): min/max over all points, then
scaled to the page in points (×72 for inches when there is no PDF).
"""
from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any, Callable, Iterable, Mapping, Sequence

from core.categories import Category, category_from_label
from core.errors import MalformedImport
from core.ingest.import_base import (
    DocumentBuilder, ImportContext, fill_pdf_pages, grid_from_cells, need, number, optional, polygon_box,
    table_text,
)
from core.model import Document

POINTS_PER_UNIT = {"inch": 72.0, "pixel": 1.0}
NO_SPAN = 10**12
NOT_HELD = ("sections", "styles", "languages", "documents")  # section tree, fonts/handwriting, languages, model fields  # sorts items without a text span after everything that has one
CELL_FLAGS = {"columnHeader": "column_header", "rowHeader": "row_header", "stubHead": "stub_head",
              "description": "description"}


def looks_like_azure(payload: Any) -> bool:
    if not isinstance(payload, Mapping):
        return False
    result = payload.get("analyzeResult", payload)
    return isinstance(result, Mapping) and ("analyzeResult" in payload or "readResults" in result or (
        "pages" in result and any(k in result for k in ("apiVersion", "modelId", "paragraphs", "content"))))


def analyze_result(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """The REST response wraps the result in `analyzeResult`; the SDK's `as_dict()` does not."""
    result = payload.get("analyzeResult", payload)
    if not isinstance(result, Mapping):
        raise MalformedImport("analyzeResult should be a JSON object")
    return result


def to_document(payload: Mapping[str, Any], ctx: ImportContext) -> Document:
    result = analyze_result(payload)
    if "readResults" in result:
        return _v2_document(result, ctx)
    if "pages" not in result:
        raise MalformedImport("analyzeResult has neither 'pages' (v3/v4) nor 'readResults' (v2.1)")
    return _v3_document(result, ctx)


# ---- v3 / v4 ---------------------------------------------------------------------------------
class _Content:
    """The result's `content` with span slicing in the result's own index unit (UTF-16 by default)."""

    def __init__(self, result: Mapping[str, Any]):
        self.text = result.get("content") or ""
        self.utf16 = result.get("stringIndexType", "utf16CodeUnit") == "utf16CodeUnit"
        self._encoded = self.text.encode("utf-16-le") if self.utf16 else b""
        self.markdown = result.get("contentFormat") == "markdown"

    def slice(self, offset: int, length: int) -> str:
        if self.utf16:
            return self._encoded[2 * offset: 2 * (offset + length)].decode("utf-16-le", errors="ignore")
        return self.text[offset: offset + length]


class _Words:
    """All words of all pages by span offset, to rebuild clean text for markdown-format results."""

    def __init__(self, result: Mapping[str, Any], content: _Content):
        words = []
        for page in result.get("pages") or ():
            for word in page.get("words") or ():
                span = word.get("span") or {}
                if isinstance(span.get("offset"), int):
                    words.append((span["offset"], span.get("length", 0), word.get("content", "")))
        words.sort()
        self.words = words
        self.offsets = [w[0] for w in words]
        self.content = content

    def text_in(self, spans: Iterable[Mapping[str, Any]]) -> str | None:
        pieces: list[tuple[int, int, str]] = []
        for span in spans:
            start, end = span.get("offset", 0), span.get("offset", 0) + span.get("length", 0)
            i = bisect_left(self.offsets, start)
            while i < len(self.words) and self.words[i][0] + self.words[i][1] <= end:
                pieces.append(self.words[i])
                i += 1
        if not pieces:
            return None
        out = pieces[0][2]
        for (o0, l0, _), (o1, _, word) in zip(pieces, pieces[1:]):
            between = self.content.slice(o0 + l0, o1 - (o0 + l0)) if o1 > o0 + l0 else ""
            out += ("\n" if "\n" in between else " " if between else "") + word
        return out


_MD_COMMENT = re.compile(r'<!--\s*\w+="(.*?)"\s*-->', re.S)
_MD_HEADING = re.compile(r"^#{1,6}\s+", re.M)
_MD_UNDERLINE = re.compile(r"\n(===+|---+)\s*$")
_MD_MARKS = re.compile(r":(un)?selected:")
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>])")


def clean_markdown(text: str) -> str:
    """Fallback when a markdown result has no words: drop Azure's markup around paragraph text."""
    text = _MD_COMMENT.sub(r"\1", text)
    text = _MD_UNDERLINE.sub("", _MD_HEADING.sub("", text))
    text = _MD_ESCAPE.sub(r"\1", _MD_MARKS.sub("", text))
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _first_offset(item: Mapping[str, Any]) -> int:
    spans = item.get("spans") or ([item["span"]] if isinstance(item.get("span"), Mapping) else [])
    offsets = [s.get("offset") for s in spans if isinstance(s, Mapping) and isinstance(s.get("offset"), int)]
    return min(offsets) if offsets else NO_SPAN


def _regions(item: Mapping[str, Any], where: str) -> list[tuple[int, tuple[float, float, float, float]]]:
    out = []
    for i, region in enumerate(optional(item, "boundingRegions", where, list, [])):
        page = need(region, "pageNumber", f"{where}.boundingRegions[{i}]", int)
        polygon = need(region, "polygon", f"{where}.boundingRegions[{i}]", list)
        out.append((page, _polygon(polygon, f"{where}.boundingRegions[{i}].polygon")))
    return out


def _polygon(polygon: Sequence[Any], where: str) -> tuple[float, float, float, float]:
    """v4 polygons are flat numbers; v3 previews used [{"x":..,"y":..}] points."""
    if polygon and isinstance(polygon[0], Mapping):
        polygon = [v for p in polygon for v in (p.get("x"), p.get("y"))]
    return polygon_box(polygon, where)


def _union(boxes: Sequence[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _paragraph_index(ref: Any) -> int | None:
    match = re.fullmatch(r"/paragraphs/(\d+)", ref) if isinstance(ref, str) else None
    return int(match.group(1)) if match else None


def _add_page_frames(builder: DocumentBuilder, ctx: ImportContext, pages: list, list_name: str,
                     number_key: str) -> None:
    """Each page's size and unit (v3/v4 `pages`, v2.1 `readResults`: only the page-number key differs)."""
    for i, page in enumerate(pages):
        where = f"{list_name}[{i}]"
        unit = need(page, "unit", where, str)
        if unit not in POINTS_PER_UNIT:
            raise MalformedImport(f"{where}.unit is {unit!r}; expected 'inch' or 'pixel'")
        builder.add_frame(ctx.frame(need(page, number_key, where, int), number(need(page, "width", where), where),
                                    number(need(page, "height", where), where), POINTS_PER_UNIT[unit]))


def _v3_document(result: Mapping[str, Any], ctx: ImportContext) -> Document:
    builder = DocumentBuilder(ctx)
    _add_page_frames(builder, ctx, need(result, "pages", "analyzeResult", list), "pages", "pageNumber")
    fill_pdf_pages(builder)
    text_of = _text_reader(result)
    paragraphs = optional(result, "paragraphs", "analyzeResult", list, [])
    tables = optional(result, "tables", "analyzeResult", list, [])
    figures = optional(result, "figures", "analyzeResult", list, [])
    _add_paragraphs(builder, paragraphs, _ParagraphPlaces(tables, figures), text_of)
    for i, table in enumerate(tables):
        _add_v3_table(builder, table, i, text_of)
    for i, figure in enumerate(figures):
        _add_figure(builder, figure, i)
    for kind, items in (("tables", tables), ("figures", figures)):
        for i, item in enumerate(items):
            _add_unlinked_captions(builder, item, f"/{kind}/{i}", text_of)
    _add_v3_selection_marks(builder, result["pages"])
    for i, pair in enumerate(optional(result, "keyValuePairs", "analyzeResult", list, [])):
        _add_key_value(builder, pair, i, text_of)
    return builder.build(engine_version=f"{result.get('modelId', 'azure')} {result.get('apiVersion', '')}".strip(),
                         meta=_v3_meta(result))


def _text_reader(result: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], str]:
    """An item's text: its `content`, or for a markdown-format result the words its spans cover."""
    content = _Content(result)
    words = _Words(result, content)

    def text_of(item: Mapping[str, Any]) -> str:
        raw = str(item.get("content", ""))
        if not content.markdown:
            return raw
        rebuilt = words.text_in(item.get("spans") or ())
        return rebuilt if rebuilt is not None else clean_markdown(raw)

    return text_of


class _ParagraphPlaces:
    """Where tables and figures put paragraphs: inside a table cell, as a caption or footnote of
    an owner, or as one of an owner's elements."""

    def __init__(self, tables: Sequence[Mapping[str, Any]], figures: Sequence[Mapping[str, Any]]):
        self.in_table: set[int] = set()
        self.role_of: dict[int, tuple[Category, str]] = {}  # paragraph → (caption|footnote, owner ref)
        self.parent_of: dict[int, str] = {}
        for kind, items in (("tables", tables), ("figures", figures)):
            for i, item in enumerate(items):
                self._read_owner(item, f"/{kind}/{i}")

    def _read_owner(self, item: Mapping[str, Any], owner: str) -> None:
        for cell in item.get("cells") or ():
            self.in_table.update(p for p in map(_paragraph_index, cell.get("elements") or ()) if p is not None)
        for p in map(_paragraph_index, item.get("elements") or ()):
            if p is not None:
                self.parent_of[p] = owner
        for category, parts in _captions_and_footnotes(item):
            for part in parts:
                for p in map(_paragraph_index, part.get("elements") or ()):
                    if p is not None:
                        self.role_of[p] = (category, owner)


def _add_paragraphs(builder: DocumentBuilder, paragraphs: Sequence[Mapping[str, Any]], places: _ParagraphPlaces,
                    text_of: Callable[[Mapping[str, Any]], str]) -> None:
    for i, paragraph in enumerate(paragraphs):
        if i in places.in_table:
            continue  # the table element carries its cells' text
        where = f"paragraphs[{i}]"
        role = paragraph.get("role")
        try:
            category = category_from_label("azure", role or "paragraph")
        except KeyError as err:
            raise MalformedImport(f"{where}: {err.args[0]}") from None
        ref = f"/paragraphs/{i}"
        links = []
        if i in places.role_of:
            category, owner = places.role_of[i]
            links.append(owner)
        attrs = {"azure_role": role, "parent_ref": places.parent_of.get(i) if i not in places.role_of else None}
        _add_regions(builder, ref, _regions(paragraph, where), category, text_of(paragraph), attrs,
                     (_first_offset(paragraph),), links)


def _add_v3_selection_marks(builder: DocumentBuilder, pages: Sequence[Mapping[str, Any]]) -> None:
    for p, page in enumerate(pages):
        for m, mark in enumerate(page.get("selectionMarks") or ()):
            where = f"pages[{p}].selectionMarks[{m}]"
            state = need(mark, "state", where, str)
            builder.add(f"/pages/{p}/selectionMarks/{m}", page["pageNumber"],
                        _polygon(need(mark, "polygon", where, list), where + ".polygon"), Category.SELECTION_MARK,
                        "", state=_state(state, where), attrs={"confidence": mark.get("confidence")},
                        order=(_first_offset(mark),))


def _v3_meta(result: Mapping[str, Any]) -> dict[str, Any]:
    meta = {"import_format": "azure", "azure_api_version": result.get("apiVersion"),
            "azure_model_id": result.get("modelId"), "content_format": result.get("contentFormat")}
    not_held = {key: len(result[key]) for key in NOT_HELD if isinstance(result.get(key), list) and result[key]}
    not_held.update({f"pages.{key}": n for key in ("formulas", "barcodes")
                     if (n := sum(len(p.get(key) or ()) for p in result["pages"]))})
    if not_held:
        meta["not_held"] = not_held  # what the result carries that has no place in a Document
    return meta


def _captions_and_footnotes(item: Mapping[str, Any]) -> list[tuple[Category, list[Mapping[str, Any]]]]:
    caption = item.get("caption")
    captions = [caption] if isinstance(caption, Mapping) else [c for c in item.get("captions") or ()
                                                               if isinstance(c, Mapping)]
    footnotes = [f for f in item.get("footnotes") or () if isinstance(f, Mapping)]
    return [(Category.CAPTION, captions), (Category.FOOTNOTE, footnotes)]


def _add_regions(builder: DocumentBuilder, ref: str, regions, category: Category, text: str,
                 attrs: Mapping[str, Any], order: tuple, links: Sequence[str] = ()) -> None:
    """One element per page the item spans (regions on the same page are unioned)."""
    by_page: dict[int, list] = {}
    for page, box in regions:
        by_page.setdefault(page, []).append(box)
    if not by_page:
        return
    for index, (page, boxes) in enumerate(by_page.items()):
        part_attrs = dict(attrs)
        if len(by_page) > 1:
            part_attrs.update(part=index + 1, parts=len(by_page))
        if index:
            part_attrs["part_of_ref"] = ref
        part_ref = ref if index == 0 else f"{ref}@{index}"
        builder.add(part_ref, page, _union(boxes), category, text if index == 0 else "", attrs=part_attrs,
                    order=order)
        for target in links:
            builder.link(part_ref, target)


def _add_v3_table(builder: DocumentBuilder, table: Mapping[str, Any], i: int, text_of) -> None:
    where = f"tables[{i}]"
    cells, boxes_by_page = [], {}
    for j, cell in enumerate(need(table, "cells", where, list)):
        cw = f"{where}.cells[{j}]"
        entry = {"row": need(cell, "rowIndex", cw, int), "col": need(cell, "columnIndex", cw, int),
                 "row_span": int(cell.get("rowSpan") or 1), "col_span": int(cell.get("columnSpan") or 1),
                 "text": text_of(cell)}
        flag = CELL_FLAGS.get(cell.get("kind", "content"))
        if flag:
            entry[flag] = True
        for page, box in _regions(cell, cw):
            boxes_by_page.setdefault(page, []).append(box)
        cells.append(entry)
    grid = grid_from_cells(cells, int(table.get("rowCount") or 0), int(table.get("columnCount") or 0))
    if not boxes_by_page:  # no cell boxes: the table's own regions, minus its caption's
        skip = {box for _, parts in _captions_and_footnotes(table) for part in parts for _, box in _regions(part, where)}
        for page, box in _regions(table, where):
            if box not in skip:
                boxes_by_page.setdefault(page, []).append(box)
    attrs = {"cells": cells, "rows": grid, "n_rows": len(grid), "n_cols": len(grid[0]) if grid else 0}
    regions = [(page, box) for page, boxes in boxes_by_page.items() for box in boxes]
    _add_regions(builder, f"/tables/{i}", regions, Category.TABLE, table_text(grid), attrs, (_first_offset(table),))


def _add_figure(builder: DocumentBuilder, figure: Mapping[str, Any], i: int) -> None:
    where = f"figures[{i}]"
    # A figure's regions list its caption's region too; the picture itself is what remains.
    skip = {box for _, parts in _captions_and_footnotes(figure) for part in parts for _, box in _regions(part, where)}
    regions = [(page, box) for page, box in _regions(figure, where) if box not in skip] or _regions(figure, where)
    _add_regions(builder, f"/figures/{i}", regions, Category.PICTURE, "", {"azure_id": figure.get("id")},
                 (_first_offset(figure),))


def _add_unlinked_captions(builder: DocumentBuilder, item: Mapping[str, Any], owner: str, text_of) -> None:
    """A caption/footnote that names no paragraph (older results) becomes its own element."""
    for category, parts in _captions_and_footnotes(item):
        for k, part in enumerate(parts):
            if any(_paragraph_index(e) is not None for e in part.get("elements") or ()):
                continue
            ref = f"{owner}/{category.value}/{k}"
            _add_regions(builder, ref, _regions(part, ref), category, text_of(part), {}, (_first_offset(part),),
                         links=[owner])


def _add_key_value(builder: DocumentBuilder, pair: Mapping[str, Any], i: int, text_of) -> None:
    where = f"keyValuePairs[{i}]"
    key = need(pair, "key", where, dict)
    value = pair.get("value")
    pair_id = f"/keyValuePairs/{i}"
    common = {"kv_pair": pair_id, "confidence": pair.get("confidence")}
    has_value = isinstance(value, Mapping) and bool(value.get("boundingRegions"))
    # Azure omits `value` when the field is blank: that is an empty value, named by "" for core.forms.fields.
    key_attrs = {**common, "kv_role": "key", "kv_value_id_ref": f"{pair_id}/value" if has_value else "",
                 "kv_empty": None if has_value else True, "kv_confidence": pair.get("confidence")}
    _add_regions(builder, f"{pair_id}/key", _regions(key, where + ".key"), Category.FORM_FIELD, text_of(key),
                 key_attrs, (_first_offset(key),))
    if has_value:
        _add_regions(builder, f"{pair_id}/value", _regions(value, where + ".value"), Category.FORM_FIELD,
                     text_of(value), {**common, "kv_role": "value"}, (_first_offset(key), 1))


def _state(value: str, where: str) -> str:
    if value not in ("selected", "unselected"):
        raise MalformedImport(f"{where}.state is {value!r}; expected 'selected' or 'unselected'")
    return value


# ---- v2.1 ------------------------------------------------------------------------------------
def _v2_document(result: Mapping[str, Any], ctx: ImportContext) -> Document:
    builder = DocumentBuilder(ctx)
    read_results = need(result, "readResults", "analyzeResult", list)
    _add_page_frames(builder, ctx, read_results, "readResults", "page")
    fill_pdf_pages(builder)

    word_ref = re.compile(r"#/readResults/(\d+)/lines/(\d+)(?:/words/(\d+))?")
    used_words: dict[tuple[int, int], set[int]] = {}
    table_line_order: dict[str, int] = {}
    for p, page_result in enumerate(optional(result, "pageResults", "analyzeResult", list, [])):
        for t, table in enumerate(page_result.get("tables") or ()):
            for cell in table.get("cells") or ():
                for ref in cell.get("elements") or ():
                    match = word_ref.fullmatch(ref) if isinstance(ref, str) else None
                    if match and match.group(3) is not None:
                        used_words.setdefault((int(match.group(1)), int(match.group(2))), set()).add(
                            int(match.group(3)))
                        key = f"/pageResults/{p}/tables/{t}"
                        table_line_order[key] = min(table_line_order.get(key, NO_SPAN), int(match.group(2)))

    for r, page in enumerate(read_results):
        page_no = page["page"]
        lines = optional(page, "lines", f"readResults[{r}]", list, [])
        for n, line in enumerate(lines):
            where = f"readResults[{r}].lines[{n}]"
            words = line.get("words") or []
            if words and len(used_words.get((r, n), ())) >= len(words):
                continue  # every word of this line is a table cell's: the table carries it
            builder.add(f"/readResults/{r}/lines/{n}", page_no,
                        _polygon(need(line, "boundingBox", where, list), where + ".boundingBox"),
                        category_from_label("azure", "line"), need(line, "text", where, str),
                        attrs={"style": (line.get("appearance") or {}).get("style", {}).get("name")},
                        order=(n,))
        line_boxes = [_polygon(line["boundingBox"], "line") for line in lines if line.get("boundingBox")]
        for m, mark in enumerate(page.get("selectionMarks") or ()):
            where = f"readResults[{r}].selectionMarks[{m}]"
            box = _polygon(need(mark, "boundingBox", where, list), where + ".boundingBox")
            builder.add(f"/readResults/{r}/selectionMarks/{m}", page_no, box, Category.SELECTION_MARK, "",
                        state=_state(need(mark, "state", where, str), where),
                        attrs={"confidence": mark.get("confidence")},
                        order=(_line_position(line_boxes, box) - 0.5,))

    for p, page_result in enumerate(optional(result, "pageResults", "analyzeResult", list, [])):
        page_no = need(page_result, "page", f"pageResults[{p}]", int)
        for t, table in enumerate(page_result.get("tables") or ()):
            _add_v2_table(builder, table, p, t, page_no, table_line_order.get(f"/pageResults/{p}/tables/{t}", NO_SPAN))
        for k, pair in enumerate(page_result.get("keyValuePairs") or ()):
            _add_v2_key_value(builder, pair, p, k, page_no)
    meta = {"import_format": "azure", "azure_api_version": result.get("version")}
    return builder.build(engine_version=f"layout {result.get('version', '2.1')}", meta=meta)


def _line_position(line_boxes: Sequence[tuple[float, float, float, float]], box) -> int:
    """A selection mark reads just before the first line to its right on its row, or below it."""
    for i, line in enumerate(line_boxes):
        same_row = min(line[3], box[3]) - max(line[1], box[1]) > 0.5 * min(line[3] - line[1], box[3] - box[1])
        if (same_row and line[0] >= box[0]) or line[1] >= box[3]:
            return i
    return len(line_boxes)


def _add_v2_table(builder: DocumentBuilder, table: Mapping[str, Any], p: int, t: int, page_no: int,
                  order: int) -> None:
    where = f"pageResults[{p}].tables[{t}]"
    cells, boxes = [], []
    for j, cell in enumerate(need(table, "cells", where, list)):
        cw = f"{where}.cells[{j}]"
        entry = {"row": need(cell, "rowIndex", cw, int), "col": need(cell, "columnIndex", cw, int),
                 "row_span": int(cell.get("rowSpan") or 1), "col_span": int(cell.get("columnSpan") or 1),
                 "text": str(cell.get("text", ""))}
        if cell.get("isHeader"):
            entry["column_header"] = True
        if isinstance(cell.get("boundingBox"), list):
            boxes.append(_polygon(cell["boundingBox"], cw + ".boundingBox"))
        cells.append(entry)
    if isinstance(table.get("boundingBox"), list):
        boxes = [_polygon(table["boundingBox"], where + ".boundingBox")]
    if not boxes:
        raise MalformedImport(f"{where} has neither a boundingBox nor cells with one")
    grid = grid_from_cells(cells, int(table.get("rows") or 0), int(table.get("columns") or 0))
    builder.add(f"/pageResults/{p}/tables/{t}", page_no, _union(boxes), Category.TABLE, table_text(grid),
                attrs={"cells": cells, "rows": grid, "n_rows": len(grid), "n_cols": len(grid[0]) if grid else 0},
                order=(order, -1))


def _add_v2_key_value(builder: DocumentBuilder, pair: Mapping[str, Any], p: int, k: int, page_no: int) -> None:
    where = f"pageResults[{p}].keyValuePairs[{k}]"
    pair_id = f"/pageResults/{p}/keyValuePairs/{k}"
    key, value = need(pair, "key", where, dict), pair.get("value")
    has_value = isinstance(value, Mapping) and isinstance(value.get("boundingBox"), list)
    builder.add(f"{pair_id}/key", page_no, _polygon(need(key, "boundingBox", where + ".key", list), where),
                Category.FORM_FIELD, str(key.get("text", "")),
                attrs={"kv_role": "key", "kv_pair": pair_id, "kv_empty": None if has_value else True,
                       "kv_value_id_ref": f"{pair_id}/value" if has_value else "",
                       "confidence": pair.get("confidence"), "kv_confidence": pair.get("confidence")},
                order=(NO_SPAN, k))
    if has_value:
        builder.add(f"{pair_id}/value", page_no, _polygon(value["boundingBox"], where + ".value"),
                    Category.FORM_FIELD, str(value.get("text", "")),
                    attrs={"kv_role": "value", "kv_pair": pair_id, "confidence": pair.get("confidence")},
                    order=(NO_SPAN, k, 1))
