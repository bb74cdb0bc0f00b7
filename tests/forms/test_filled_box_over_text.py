"""Radio buttons laid over the underscores a word processor's form printed for a tick ("___ O routine
medical decisions", the Kinship Connector's TCA form): baked, each is a ring over the blank, a dark dot
in the chosen one. Text runs across the ring, so the refine step keeps it as an ornament; the dot still
ticks it. Real widgets, baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_fields

OPTIONS = (("I consent to routine medical care.", True), ("I consent to medical treatment decisions.", False),
           ("I consent to school enrolment.", True), ("I consent to educational decisions.", False))


def _rings_over_blanks() -> tuple[bytes, list[pymupdf.Rect]]:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Powers given to the caregiver", fontsize=14, fontname="hebo")
    for k, caption in enumerate(("Child's name:", "Caregiver's name:", "Date of birth:")):
        page.insert_text((72, 250 + 18 * k), caption, fontsize=11, fontname="helv")
    rects = []
    for k, (label, chosen) in enumerate(OPTIONS):
        y = 120 + 26 * k
        page.insert_text((90, y), "___ " + label, fontsize=11, fontname="helv")
        rect = pymupdf.Rect(90, y - 13, 107, y + 4)
        w = pymupdf.Widget()
        w.field_type, w.field_name, w.rect = pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON, f"power{k // 2}", rect
        w.border_color, w.border_width = (0, 0, 0), 1
        w.field_value = chosen
        page.add_widget(w)
        rects.append(rect)
    doc.bake()
    dots = [d["rect"] for d in doc[0].get_drawings() if d.get("fill")]
    assert [any(r.contains(d) for d in dots) for r in rects] == [chosen for _, chosen in OPTIONS]  # as baked
    return doc.tobytes(), rects


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_ring_drawn_over_a_blank_is_ticked_by_its_dot(engine):
    """Failed before: the chosen rings read unselected (a box text runs into, with no tick glyph)."""
    data, rects = _rings_over_blanks()
    marks = [f for f in ingest_fields(data, "rings.pdf", engine) if f.is_selection]
    for rect, (label, chosen) in zip(rects, OPTIONS):
        here = [m for m in marks if pymupdf.Rect(m.value_bbox).intersect(rect).get_area() > 0.5 * rect.get_area()]
        assert [m.selection_state for m in here] == ["selected" if chosen else "unselected"], (label, here)
