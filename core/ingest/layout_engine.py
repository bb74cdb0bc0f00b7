"""The layout engine: the model's boxes (from the layout worker), each filled with the text lines it
covers; lines no box covers, images, squares, rules and widgets are kept as extras to be placed
among them."""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

import pymupdf

from core.categories import Category, category_from_label
from core.geometry import area, overlap_area, union
from core.ingest.display import Display
from core.ingest.draft import Draft
from core.ingest.fast_engine import FORM_LINES, vector_extras
from core.ingest.layout_worker import ModelBox
from core.ingest.line_numbers import line_number_drafts
from core.ingest.lines import Line, text_attrs
from core.ingest.page_facts import PageFacts
from core.ingest.vectors import Vectors, analyse_vectors, grid_to_rows, is_ruled_area
from core.ingest.widgets import widget_drafts
from core.model import BBox
from core.text import clean_text


def layout_drafts(page: pymupdf.Page, facts: PageFacts, groups: Sequence[ModelBox]) -> tuple[list[Draft], list[Draft]]:
    """(the model's boxes in the model's reading order, everything else to be placed among them)."""
    show = Display(page)
    boxes: list[BBox] = [show(g[:4]) for g in groups]
    labels: list[str] = [g[4] for g in groups]
    cells: list[tuple] = [g[5] for g in groups]
    assigned, loose = assign_lines(facts.lines, boxes)
    drafts: list[Draft] = []
    form_areas: list[BBox] = []
    for k, (box, label, lines, table_cells) in enumerate(zip(boxes, labels, assigned, cells)):
        category = category_from_label("pymupdf_layout", label)
        if category is Category.PICTURE and (_form_area(facts, box, lines) or _drawn_on_form(facts, box, lines)
                                             or _check_boxes_drawn(facts, box)):
            loose.extend(lines)  # its text stays text, in reading order among the model's boxes
            lines = assigned[k] = []
            form_areas.append(box)
        if not lines and category not in (Category.PICTURE, Category.TABLE, Category.FORMULA):
            continue
        attrs = text_attrs(lines, keep_lines=category in (Category.TABLE, Category.PICTURE),
                           keep_wraps=category is not Category.TABLE)
        text = None
        if category is Category.TABLE:
            rows = _model_table_rows(table_cells)
            if rows and _rows_hold_lines(rows, lines):
                attrs.update(rows=rows, n_rows=len(rows), n_cols=max(len(r) for r in rows))
                text = "\n".join(" | ".join(r) for r in rows)
            # "lines" kept: a form's ruled key|value grid is read from them (core.forms.units)
        elif category is Category.PICTURE:
            hit = next((ident for b, ident in facts.images if overlap_area(b, box) > 0.5 * area(b)), None)
            attrs["kind"] = "image" if hit else "vector"
            if hit:
                attrs["image"] = hit
        drafts.append(Draft(category, box, lines, "layout", text=text, attrs=attrs))
    extras = loose_line_drafts(loose, "layout") + line_number_drafts(facts.line_numbers, "layout")
    occupied = [d.bbox for d in drafts]
    for box, ident in facts.images:
        if not any(overlap_area(box, o) > 0.5 * area(box) for o in occupied):
            extras.append(Draft(Category.PICTURE, box, source="layout", text="",
                                attrs={"kind": "image", "image": ident}))
    _, _, rules = analyse_vectors(Vectors(hsegs=facts.vectors.hsegs, vsegs=facts.vectors.vsegs),
                                  facts.width, facts.height)
    # a form area's squares are its check boxes, not a figure's legend keys
    graphics = [d.bbox for d in drafts if d.category is Category.PICTURE and d.bbox not in form_areas] \
        + [b for b, _ in facts.images]
    for d in vector_extras(facts, rules, occupied, graphics):
        # squares are kept even inside a model box (a check box inside a "table" form region)
        if d.attrs.get("kind") == "square" or not any(
                overlap_area(d.bbox, o) > 0.5 * max(area(d.bbox), 1.0) for o in occupied):
            d.source = "layout"
            extras.append(d)
    return drafts, extras + widget_drafts(facts.widgets)


def _form_area(facts: PageFacts, box: BBox, lines: Sequence[Line]) -> bool:
    """A "picture" the model drew over a ruled form area: no image under it, only straight strokes
    (core.ingest.vectors.is_ruled_area), and many text lines or most of the page's."""
    if not lines or any(overlap_area(b, box) > 0.5 * area(b) for b, _ in facts.images):
        return False
    many = len(lines) >= FORM_LINES or 2 * len(lines) >= len(facts.lines)
    return many and is_ruled_area(facts.vectors, box)


CHECK_BOXES = 2  # empty check-box squares or radio rings in a vector "picture" before it is a form


def _check_boxes_drawn(facts: PageFacts, box: BBox) -> bool:
    """A "picture" over no image that holds empty check boxes (outlined squares or rings, unfilled):
    the model took a form's boxes for a drawing. A chart's legend keys are filled swatches."""
    if any(overlap_area(b, box) > 0.5 * area(b) for b, _ in facts.images):
        return False
    empty = [b for b, filled in facts.vectors.squares if not filled and overlap_area(b, box) > 0.5 * area(b)]
    return len(empty) >= CHECK_BOXES


def _drawn_on_form(facts: PageFacts, box: BBox, lines: Sequence[Line]) -> bool:
    """A "picture" with text over no image on a page with widgets: a button face, a field's frame or
    a drawn label, whose text is one of the form's labels (as in the fast engine)."""
    return bool(lines and facts.widgets) and not any(overlap_area(b, box) > 0.5 * area(b) for b, _ in facts.images)


def _rows_hold_lines(rows: Sequence[Sequence[str]], lines: Sequence[Line], share: float = 0.98) -> bool:
    """The model's cell texts hold (nearly) every character of the page's lines in its box. When
    they do not (its own extraction lost or repeated glyphs), the lines' text is the table's."""
    own = Counter(ch for ln in lines for ch in ln.text if not ch.isspace())
    if not own:
        return True
    cells = Counter(ch for row in rows for cell in row for ch in cell if not ch.isspace())
    return sum(min(n, cells[ch]) for ch, n in own.items()) >= share * sum(own.values())


def _model_table_rows(table_cells: Iterable[tuple]) -> tuple[tuple[str, ...], ...]:
    """The model's cells as rows. It gives a cell's lines one by one, each with the rows it spans:
    a line that starts inside the span of the cell above it in its column belongs to that cell (a
    group label spanning rows, its lines falling in different rows)."""
    cells: dict[tuple[int, int], list[str]] = {}
    spans: dict[int, tuple[int, int]] = {}  # column → (first row, end row) of its last cell
    for cell in table_cells:
        row, col, text = cell[:3]
        end = cell[3] if len(cell) > 3 else row + 1
        text = clean_text(text)[0].strip()
        if not text:
            continue
        first, last = spans.get(col, (row, end))
        if first <= row < last:
            row, end = first, max(last, end)
        spans[col] = (row, end)
        cells.setdefault((row, col), []).append(text)
    return grid_to_rows(cells)


def assign_lines(lines: Sequence[Line], boxes: Sequence[BBox]) -> tuple[list[list[Line]], list[Line]]:
    """Each line goes to the box it overlaps most; lines overlapping none are returned apart."""
    assigned: list[list[Line]] = [[] for _ in boxes]
    loose: list[Line] = []
    for ln in lines:
        best, best_share = -1, 0.0
        line_area = max(area(ln.bbox), 1e-6)
        for i, box in enumerate(boxes):
            if ln.bbox[2] < box[0] or ln.bbox[0] > box[2] or ln.bbox[3] < box[1] or ln.bbox[1] > box[3]:
                continue
            share = overlap_area(ln.bbox, box) / line_area
            if share > best_share:
                best, best_share = i, share
        if best >= 0 and best_share >= 0.3:
            assigned[best].append(ln)
        else:
            loose.append(ln)
    return assigned, loose


def loose_line_drafts(lines: Sequence[Line], source: str) -> list[Draft]:
    """Lines outside every model box become text elements, one per PyMuPDF block, so no text is lost;
    they carry their font facts like any element (a check glyph's dingbat font, a value's size)."""
    by_block: dict[int, list[Line]] = {}
    for ln in lines:
        by_block.setdefault(ln.block, []).append(ln)
    return [Draft(Category.TEXT, union(ln.bbox for ln in group), list(group), source, attrs=text_attrs(group))
            for group in by_block.values()]
