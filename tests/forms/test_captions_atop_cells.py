"""A US government form's grid (DAF Form 1206, AF Form 4141): each ruled cell prints its caption in small
type at its top left and the value is typed under it, larger, in the filler's face. Baked, the values of a
row share a baseline, so the page reader joins them into one line across the cells' walls, and each
value's box reaches up into the caption over it. Real widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_fields
from core.ingest.cell_walls import split_at_walls
from core.ingest.lines import Line, Span
from form_fixtures import add_text_widget

ROWS = ((("AWARD", "Jordan A. Whitfield"), ("CATEGORY (If Applicable)", "1,234.56"), ("AWARD PERIOD", "12/31/25")),
        (("RANK/NAME OF NOMINEE", "Kim Min-jun"), ("MAJCOM, FLDCOM, FOA OR DRU", "K9"), ("TELEPHONE", "7004-B")),
        (("DUTY TITLE", "Maria Gonzalez"), ("UNIT", "X-4471"), ("BASE/STATE/ZIP CODE", "Portland, OR 97205")))
WIDTHS = (250, 170, 152)


def _grid_of_captioned_cells() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((200, 40), "NOMINATION FOR AWARD", fontsize=10, fontname="tibo")
    for r, row in enumerate(ROWS):
        y, x = 60 + 24 * r, 20
        for c, (caption, value) in enumerate(row):
            page.draw_rect(pymupdf.Rect(x, y, x + WIDTHS[c], y + 24), color=(0, 0, 0), width=0.5)
            page.insert_text((x + 2, y + 6), caption, fontsize=5, fontname="tiro")
            add_text_widget(page, f"f{r}{c}", pymupdf.Rect(x + 2, y + 6, x + WIDTHS[c] - 2, y + 23), value, 12)
            x += WIDTHS[c]
    page.insert_text((20, 760), "DAF FORM 1206, 20240313     PREVIOUS EDITIONS ARE OBSOLETE", fontsize=6, fontname="tiro")
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_each_cell_s_value_is_paired_with_the_caption_atop_it(engine):
    """Failed before: the page was not taken for a form (a value's box reaching up into its caption made it
    no caption's, and a cell had two texts over it), and a value beside a row of tall values read as a
    table's data row."""
    fields = {f.key: f.value for f in ingest_fields(_grid_of_captioned_cells(), "cells.pdf", engine) if f.key}
    for row in ROWS:
        for caption, value in row:
            assert fields.get(caption) == value


def _line(*spans: tuple[float, float, str]) -> Line:
    parts = [Span((x0, 100.0, x1, 114.0), text, 12.0, "Helvetica", 0) for x0, x1, text in spans]
    return Line((parts[0].bbox[0], 100.0, parts[-1].bbox[2], 114.0), parts, 0)


def test_a_line_is_cut_at_a_cell_wall_between_its_spans_and_not_at_a_comb_s():
    """Failed before (no such cut): a row of values read as one line "7004-B K9 45"."""
    row = _line((42, 106, "7004-B"), (106, 138, " K9"), (376, 402, " 45"))
    walls = [(110.0, 95.0, 120.0, 0), (376.0, 95.0, 120.0, 1), (38.0, 95.0, 120.0, 2), (423.0, 95.0, 120.0, 3)]
    assert [ln.text for ln in split_at_walls([row], walls)] == ["7004-B", "K9", "45"]
    # a comb: a wall between every character's cell, each a character wide, holds one value
    comb = _line((200, 214, "4"), (214, 228, "8"), (228, 242, "2"))
    comb_walls = [(200.0 + 14 * k, 95.0, 120.0, k) for k in range(4)]
    assert [ln.text for ln in split_at_walls([comb], comb_walls)] == ["482"]
    # a wall that does not reach the line's height is no wall of its cells
    assert [ln.text for ln in split_at_walls([row], [(110.0, 60.0, 90.0, 0)])] == ["7004-B K9 45"]


def test_values_typed_into_a_row_of_boxes_are_read_one_line_per_box():
    """Failed before: the page reader joined the four values, each filling its box, into one line."""
    from core.ingest.page_facts import read_page

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    x, values = 40.0, ("1,234.56", "12/31/25", "50,461", "7004-B")
    for k, value in enumerate(values):
        w = pymupdf.get_text_length(value, fontname="helv", fontsize=10) + 5
        page.draw_rect(pymupdf.Rect(x, 100, x + w, 116), color=(0, 0, 0), width=0.5)
        add_text_widget(page, f"v{k}", pymupdf.Rect(x + 1, 101, x + w - 1, 115), value, 10)
        x += w
    doc.bake()
    assert [ln.text for ln in read_page(doc[0]).lines] == list(values)
