"""A form that prints its check boxes as glyphs (☐, a word processor's) with a check-box widget laid
over each (WV Legal Aid's VOCA release): baked, each box is printed twice, the glyph and the widget's
square over it. It is one box, with the state the widget shows. Real widgets, baked, as bench/forms.py does."""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from bench.forms import ingest_fields

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
OPTIONS = (("in person", True), ("by phone", False), ("by email", True), ("by fax", False))


def _glyph_boxes_under_widgets() -> tuple[bytes, list[pymupdf.Rect]]:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 80), "Release of information", fontsize=14, fontname="hebo")
    x, y, rects = 40.0, 120.0, []
    page.insert_text((x, y), "The information may be shared:", fontsize=12, fontname="tiro")
    x += pymupdf.get_text_length("The information may be shared:", fontname="tiro", fontsize=12) + 8
    for k, (label, ticked) in enumerate(OPTIONS):
        page.insert_text((x, y), "☐", fontsize=12, fontname="dejavu", fontfile=str(FONT))
        glyph = pymupdf.Font(fontfile=str(FONT)).text_length("☐", fontsize=12)
        cx = x + glyph / 2
        rect = pymupdf.Rect(cx - 8.5, y - 12.5, cx + 8.5, y + 4.5)
        w = pymupdf.Widget()
        w.field_type, w.field_name, w.rect = pymupdf.PDF_WIDGET_TYPE_CHECKBOX, f"c{k}", rect
        w.border_color, w.border_width, w.fill_color = (0, 0, 0), 1, (1, 1, 1)
        w.field_value = ticked
        page.add_widget(w)
        rects.append(rect)
        x += glyph + 4
        page.insert_text((x, y), label, fontsize=12, fontname="tiro")
        x += pymupdf.get_text_length(label, fontname="tiro", fontsize=12) + 14
    doc.bake()
    return doc.tobytes(), rects


@pytest.mark.skipif(not FONT.is_file(), reason="DejaVu Sans (a font with ☐) not installed")
@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_square_drawn_over_a_printed_box_glyph_is_one_box_with_the_widgets_state(engine):
    """Failed before: each box gave two marks, the glyph's and the square's, the square of unknown state."""
    data, rects = _glyph_boxes_under_widgets()
    marks = sorted((f for f in ingest_fields(data, "glyphs.pdf", engine) if f.is_selection),
                   key=lambda f: f.value_bbox[0])
    assert len(marks) == len(OPTIONS)
    for mark, rect, (label, ticked) in zip(marks, rects, OPTIONS):
        assert mark.selection_state == ("selected" if ticked else "unselected"), (label, mark)
        assert pymupdf.Rect(mark.value_bbox).intersect(rect).get_area() > 0.8 * rect.get_area()
        assert mark.key == label
