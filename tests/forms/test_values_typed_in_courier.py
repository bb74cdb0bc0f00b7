"""A filler that types in Courier (pdf.js' issue6127 form, many government forms' /DA) gives lines the
layout step reads as code. On a flattened form they are still the values typed into the blanks, and
stay out of the keys: a code line is never a caption. Real widgets, filled and baked, as
bench/forms.py does."""
from __future__ import annotations

import pymupdf

from bench.forms import ingest_document
from core.categories import Category
from form_fixtures import add_captioned_blank

BLANKS = (("Name:", "Jordan A. Whitfield"), ("Street address:", "1450 Riverside Drive"),
          ("Amount due:", "1,234.56"), ("Date of birth:", "2026/06/30"))


def _courier_form(captions_in_courier: bool = False) -> bytes:
    """Colon captions over blanks typed in Courier; or the other way round (cups-filters' banner form):
    the captions printed in Courier, the values typed in Helvetica."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 60), "Application for a parking permit", fontsize=14, fontname="hebo")
    fonts = {"caption_font": "cour"} if captions_in_courier else {"value_font": "Cour"}
    for r, (caption, value) in enumerate(BLANKS):
        add_captioned_blank(page, f"f{r}", 40, 110 + 30 * r, caption, value, **fonts)
    doc.bake()
    return doc.tobytes()


def test_values_typed_in_courier_are_the_blanks_values():
    doc, fields = ingest_document(_courier_form(), "courier.pdf", "fast")
    code = {e.text.strip() for p in doc.pages for e in p.elements if e.category is Category.CODE}
    assert code & {v for _, v in BLANKS}, "setup: the layout step reads Courier typing as code"
    assert {(f.key, f.value) for f in fields} >= {(c.rstrip(":"), v) for c, v in BLANKS}


def test_colon_captions_printed_in_courier_are_the_keys_of_the_values_typed_after_them():
    doc, fields = ingest_document(_courier_form(captions_in_courier=True), "courier_captions.pdf", "fast")
    code = {e.text.strip() for p in doc.pages for e in p.elements if e.category is Category.CODE}
    assert code & {c for c, _ in BLANKS}, "setup: the layout step reads the Courier captions as code"
    assert {(f.key, f.value) for f in fields} >= {(c.rstrip(":"), v) for c, v in BLANKS}
