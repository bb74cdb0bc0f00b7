"""A column of short same-shape values ("50", "60", …) is a printed lookup table when the codes are set
in the captions' own face, and is dropped as one; typed into the form's blanks in another face, it is
what the filler wrote (a parenting plan's "Petitioner ___ % Respondent ___ %" rows, SCA-FC-128), and
every value stays a field. Real widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf

from bench.forms import ingest_fields
from form_fixtures import add_captioned_blank, add_text_widget

HEADER = (("Civil Action No.", "26-D-117"), ("Date", "2026-03-14"), ("Completed by", "Jordan Whitfield"))
SHARES = (("50", "50"), ("60", "40"), ("45", "55"), ("70", "30"), ("35", "65"))


def _share_rows(typed: bool) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 40), "Worksheet for individual proposed parenting plan", fontsize=13, fontname="hebo")
    for c, (caption, value) in enumerate(HEADER):  # the form's colon captions, typed into in both variants
        x = 40 + 180 * c
        add_captioned_blank(page, f"head{c}", x, 62, caption + ":", value, caption_font="tiro", end=x + 170)
    for r, shares in enumerate(SHARES):
        y = 160 + 60 * r
        page.insert_text((40, y - 30), f"({'ABCDE'[r]}) Examples of the parent's duties in this area", fontsize=11,
                         fontname="tiro")
        x = 74.0
        for c, (caption, share) in enumerate(zip(("Petitioner", "Respondent"), shares)):
            page.insert_text((x, y), caption, fontsize=11, fontname="tiro")
            start = x + pymupdf.get_text_length(caption, fontname="tiro", fontsize=11) + 4
            page.draw_line((start, y + 1), (start + 32, y + 1), color=(0, 0, 0), width=0.5)
            page.insert_text((start + 34, y), "%", fontsize=11, fontname="tiro")
            if typed:
                add_text_widget(page, f"share{r}{c}", pymupdf.Rect(start, y - 11, start + 32, y + 1), share, 11)
            else:  # the same numbers printed by the form itself, in its captions' face
                page.insert_text((start + 2, y - 1), share, fontsize=11, fontname="tiro")
            x = start + 60
    doc.bake()
    return doc.tobytes()


def test_a_typed_column_of_shares_keeps_every_value_with_its_caption():
    fields = ingest_fields(_share_rows(typed=True), "shares.pdf", "fast")
    got = sorted((f.key, f.value) for f in fields if f.value and (f.key, f.value) not in HEADER)
    want = sorted((caption, share) for shares in SHARES for caption, share in zip(("Petitioner", "Respondent"), shares))
    assert got == want


def test_the_same_column_printed_in_the_captions_face_is_a_lookup_table():
    fields = ingest_fields(_share_rows(typed=False), "shares_printed.pdf", "fast")
    assert {(f.key, f.value) for f in fields} >= set(HEADER), "setup: read as a form"
    assert not [f for f in fields if f.value in {s for row in SHARES for s in row}]
