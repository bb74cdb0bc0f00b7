"""A government form's grid cell: the caption ruled off in a strip of its own at the top, the filled box
under it (a police information sheet's "DEFENDANT'S NAME" over the name typed in its box, the next
cell's caption "DATE OF BIRTH" to its right). The value is what was typed in the box under the strip,
in a larger size than the caption though in its face; the caption to the right is another field's.
A printed table's column head over its data, set in the data's own size, is not read that way.
Real widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf

from bench.forms import ingest_fields
from form_fixtures import add_captioned_blank, add_text_widget

HEADER = (("Docket No.", "26-D-117"), ("Date", "2026-03-14"), ("Completed by", "Jordan Whitfield"))
CELLS = ((("DEFENDANT'S NAME", "Jordan A. Whitfield"), ("DATE OF BIRTH", "1987-05-02")),
         (("HOME ADDRESS", "1450 Riverside Drive"), ("HOME TELEPHONE NO.", "555-0142")),
         (("EMPLOYER", "Northwind LLC"), ("WORK HOURS", "9 to 5")))

INSTRUCTIONS = ("The information above is requested to help the police to identify and locate the defendant",
                "in order to serve the defendant with a copy of any order that is issued. Please provide as",
                "much information as possible, and print clearly in every box that applies to the defendant.")


def _grid(typed: bool) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 40), "DEFENDANT INFORMATION FORM", fontsize=13, fontname="hebo")
    for k, line in enumerate(INSTRUCTIONS):  # the form's body text, in the header captions' size
        page.insert_text((40, 240 + 14 * k), line, fontsize=11, fontname="tiro")
    for c, (caption, value) in enumerate(HEADER):  # colon captions: the page shows itself a form
        x = 40 + 180 * c
        add_captioned_blank(page, f"head{c}", x, 70, caption + ":", value, caption_font="tiro", end=x + 170)
    columns = ((30, 400), (400, 580))
    for r, row in enumerate(CELLS):
        top = 100 + 40 * r
        strip = top + 10  # the rule under the caption strip; the input box runs from it to the next row
        page.draw_line((30, top), (580, top), color=(0, 0, 0), width=0.6)
        page.draw_line((30, strip), (580, strip), color=(0, 0, 0), width=0.6)
        for (x0, x1), (caption, value) in zip(columns, row):
            page.draw_line((x0, top), (x0, top + 40), color=(0, 0, 0), width=0.6)
            page.insert_text((x0 + 3, strip - 2), caption, fontsize=7, fontname="helv")
            box = pymupdf.Rect(x0 + 1, strip, x1 - 1, top + 40)
            if typed:  # filled in 11 pt; the form's print is 7 pt in the same face
                add_text_widget(page, f"cell{r}{x0}", box, value, 11)
            else:  # a printed table: the data in the head's own size and face
                page.insert_text((x0 + 3, strip + 9), value, fontsize=7, fontname="helv")
        page.draw_line((580, top), (580, top + 40), color=(0, 0, 0), width=0.6)
    page.draw_line((30, 220), (580, 220), color=(0, 0, 0), width=0.6)
    doc.bake()
    return doc.tobytes()


def test_the_value_typed_under_a_caption_strip_is_that_captions():
    fields = ingest_fields(_grid(typed=True), "grid.pdf", "fast")
    got = {(f.key, f.value) for f in fields}
    assert set(HEADER) <= got, "setup: read as a form"
    want = {cell for row in CELLS for cell in row}
    assert want <= got
    captions = {caption for row in CELLS for caption, _ in row}
    assert not [f for f in fields if f.key in captions and f.value in captions]


def test_a_printed_column_head_over_data_in_its_own_size_is_not_that_field():
    fields = ingest_fields(_grid(typed=False), "grid_printed.pdf", "fast")
    assert set(HEADER) <= {(f.key, f.value) for f in fields}, "setup: read as a form"
    assert not [f for f in fields if (f.key, f.value) in {cell for row in CELLS for cell in row}]
