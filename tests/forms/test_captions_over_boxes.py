"""A web form printed to PDF: each caption in bold over a box of its own, the value typed in the box in
the captions' own face. Nothing else shows the page a form (no colon, no check box), so the captions
over their boxes must; the fast engine reads such bold captions as headings, and they still name the
boxes under them. A grid of cells under bold column heads printed over it is a table, not such a form. Real widgets,
filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf

from bench.forms import ingest_fields
from form_fixtures import add_text_widget

FIELDS = (("Company name", "Jordan A. Whitfield"), ("Vendor reference", "1,234.56"),
          ("Remittance email", "ap@northwind.example"))


def _web_form() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((64, 80), "Supplier Intake Form", fontsize=20, fontname="hebo")
    page.insert_text((64, 98), "Synthetic reviewer sample, no real customer data", fontsize=8, fontname="helv")
    for k, (caption, value) in enumerate(FIELDS):
        y = 135 + 74 * k
        page.insert_text((64, y), caption, fontsize=10, fontname="hebo")
        box = pymupdf.Rect(64, y + 8, 548, y + 30)
        page.draw_rect(box, color=(0.4, 0.5, 0.6), width=0.8)
        add_text_widget(page, f"f{k}", box + (2, 2, -2, -2), value, 11)
    doc.bake()
    return doc.tobytes()


def _table_under_heads() -> bytes:
    """The same captions as the heads of a table, printed over its ruled grid of cells, two data rows
    under them in 11 pt Helvetica."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((64, 80), "Supplier list", fontsize=20, fontname="hebo")
    xs = (64, 224, 384, 548)
    for y in (130, 152, 174):
        page.draw_line((64, y), (548, y), color=(0, 0, 0), width=0.6)
    for x in xs:
        page.draw_line((x, 130), (x, 174), color=(0, 0, 0), width=0.6)
    for x, (caption, value) in zip(xs, FIELDS):
        page.insert_text((x + 3, 125), caption, fontsize=10, fontname="hebo")
        for y in (145, 167):
            page.insert_text((x + 3, y), value, fontsize=11, fontname="helv")
    return doc.tobytes()


def test_bold_captions_over_boxes_show_a_form_and_name_what_is_typed_in_them():
    fields = ingest_fields(_web_form(), "intake.pdf", "fast")
    assert {(f.key, f.value) for f in fields} >= set(FIELDS)


def test_bold_heads_over_a_grid_of_cells_are_no_such_form():
    fields = ingest_fields(_table_under_heads(), "suppliers.pdf", "fast")
    assert not [f for f in fields if (f.key, f.value) in set(FIELDS)]
