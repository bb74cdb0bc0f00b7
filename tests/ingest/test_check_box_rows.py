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
