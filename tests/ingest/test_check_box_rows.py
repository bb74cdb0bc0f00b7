"""A form row drawn as a vector frame around its check boxes is not a picture: the fast engine
keeps its text and its boxes as marks (core.ingest.fast_engine.holds_check_boxes)."""
from __future__ import annotations

import pymupdf

from bench.form_filling import fill_form
from bench.forms import ingest_document, widget_truth


def test_the_sex_row_of_a_real_filled_form_keeps_its_check_boxes(realdata):
    path = realdata / "pdfs" / "forms" / "cms1490s_filled.pdf"
    baked = pymupdf.open(stream=fill_form(path.read_bytes()), filetype="pdf")
    truth = {t.key: (pymupdf.Rect(t.bbox), t.state == "selected") for t in widget_truth(baked)
             if t.page == 1 and t.is_mark and t.key in ("Male", "Female")}
    assert len(truth) == 2
    baked.bake()
    doc, fields = ingest_document(baked.tobytes(), "cms1490s_flat.pdf", "fast")
    marks = {f.key: f for f in fields if f.page == 1 and f.value_type == "selection_mark"}
    assert set(truth) <= set(marks)  # before: the row was one vector figure, its boxes not marks
    for label, (rect, ticked) in truth.items():
        assert pymupdf.Rect(marks[label].value_bbox).intersects(rect)
        if ticked:
            assert marks[label].selection_state == "selected"


def _radio_column_with_a_ringless_dot() -> bytes:
    """Three radio options; the selected one's look is its dot alone (pdf.js' opt_demo baked), and a
    filled disc bullet of the same size leads a list item away from the rings' column."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    for n, label in enumerate(("Apple", "Banana", "Cherry")):
        y = 60 + 30 * n
        centre = pymupdf.Point(60, y)
        if n == 1:
            page.draw_circle(centre, 6, color=None, fill=(0, 0, 0))
        else:
            page.draw_circle(centre, 10, color=(0, 0, 0), fill=None, width=1)
        page.insert_text((80, y + 4), label, fontsize=11)
    page.draw_circle(pymupdf.Point(160, 220), 6, color=None, fill=(0, 0, 0))
    page.insert_text((175, 224), "a bullet before a list item, not a radio option", fontsize=11)
    return doc.tobytes()


def test_a_dot_in_line_with_radio_rings_is_their_selected_option_and_a_bullet_is_not():
    for engine in ("fast", "layout"):
        _, fields = ingest_document(_radio_column_with_a_ringless_dot(), "radio_dot.pdf", engine)
        marks = sorted((round(f.value_bbox[1]), f.selection_state) for f in fields
                       if f.value_type == "selection_mark")
        # before: the dot was taken for a bullet, and the selected option was lost
        assert marks == [(50, "unselected"), (80, "selected"), (110, "unselected")], (engine, marks)
