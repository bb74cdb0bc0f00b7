"""A bold caption ending in a colon ("Date:", "This worksheet completed by:") is often read as a
section header by the layout step. On a form page it labels the value typed after it (here
Times-Bold captions over Helvetica typing, as SCA-FC-128's CIDFont captions over a filler's
Helvetica); a bold "…:" heading over print in the form's own face is still a heading, never a key.
Real widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf

from bench.forms import ingest_document
from core.categories import Category
from form_fixtures import add_captioned_blank

CAPTIONS = (("This worksheet completed by:", "Jordan A. Whitfield"), ("Date:", "2026-03-14"),
            ("Civil action number:", "26-D-117"))
# captions in the regular face: the form's own signal (three colon labels), as on SCA-FC-128
PLAIN = (("Petitioner:", "Kim Min-jun"), ("Respondent:", "Hanako Sato"), ("County:", "Kanawha"))
HEADING = "I understand that:"
PRINT = "1. The agency may share this information with the court and with my attorney."


def _bold_captions() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((150, 60), "WORKSHEET FOR INDIVIDUAL PROPOSED PARENTING PLAN", fontsize=12, fontname="hebo")
    for r, (caption, value) in enumerate(CAPTIONS):
        add_captioned_blank(page, f"f{r}", 40, 120 + 40 * r, caption, value, caption_font="tibo", end=400)
    for r, (caption, value) in enumerate(PLAIN):
        add_captioned_blank(page, f"p{r}", 40, 240 + 15 * r, caption, value, end=400)
    page.insert_text((40, 300), HEADING, fontsize=11, fontname="tibo")
    page.insert_text((40, 318), PRINT, fontsize=11, fontname="tiro")
    doc.bake()
    return doc.tobytes()


def test_bold_colon_captions_label_the_values_typed_after_them():
    doc, fields = ingest_document(_bold_captions(), "bold_captions.pdf", "fast")
    headers = {e.text.strip() for p in doc.pages for e in p.elements if e.category is Category.SECTION_HEADER}
    assert {c for c, _ in CAPTIONS} & headers, "setup: the layout step reads a bold caption as a heading"
    got = {(f.key, f.value) for f in fields}
    assert got >= {(c.rstrip(":"), v) for c, v in CAPTIONS}


def test_a_bold_colon_heading_over_print_is_no_key():
    doc, fields = ingest_document(_bold_captions(), "bold_captions.pdf", "fast")
    assert not [f for f in fields if f.key.startswith(HEADING.rstrip(":"))]
