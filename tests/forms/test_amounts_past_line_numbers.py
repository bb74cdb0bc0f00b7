"""A tax schedule's lines with no box drawn: "1. Interest income ...", the line's number printed again
before the amount column far to the right, the amount typed right after that number (NC D-400
Schedule S). Real widgets, filled and baked, as bench/forms.py does."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_document, ingest_fields
from core.forms.fields import document_units
from core.forms.labels import typed_families
from core.forms.rulings import page_rulings
from form_fixtures import add_text_widget

LINES = (("Interest Income From Obligations of Other States", "1,234.56"),
         ("Bonus Depreciation", "50,461"),
         ("Federal Net Operating Loss Deduction", "7,004"))


def _numbered_lines(page: pymupdf.Page, first: int) -> None:
    """LINES from number `first` on: the number, the caption (Times 8), the number printed again at
    x = 440, and the amount widget past it (Helvetica 12)."""
    for i, (caption, amount) in enumerate(LINES):
        y, number = 160 + 32 * i, first + i
        page.insert_text((40, y), f"{number}.", fontsize=8, fontname="tiro")
        page.insert_text((52, y), caption, fontsize=8, fontname="tiro")
        page.insert_text((440, y), f"{number}.", fontsize=8, fontname="tiro")
        add_text_widget(page, f"line{number}", pymupdf.Rect(454, y - 13, 575, y + 4), amount, 12)


def _schedule_without_boxes() -> bytes:
    """A header of three colon captions with their widgets, then three numbered lines whose amount
    widgets (Helvetica 12) sit past the line number printed again at x = 440 (Times 8)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for k, caption in enumerate(("Name:", "SSN:", "Date:")):
        page.insert_text((40 + 180 * k, 110), caption, fontsize=8, fontname="tiro")
        add_text_widget(page, f"h{k}", pymupdf.Rect(70 + 180 * k, 100, 200 + 180 * k, 114), "K9", 10)
    _numbered_lines(page, first=1)
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_an_amount_typed_past_the_lines_number_is_the_lines_value(engine):
    """Failed before: the caption ends far (over 120 pt) from its amount, past the number printed again
    there, so no rule took the amount (the nearest text to its right was the number)."""
    fields = ingest_fields(_schedule_without_boxes(), "schedule.pdf", engine)
    for caption, amount in LINES:  # the engine may read the line's leading number into its caption
        assert [f.value for f in fields if f.key.endswith(caption)] == [amount]


def _schedule_continued() -> bytes:
    """The same schedule, its header on page 1 and its numbered lines alone on page 2 (no caption ends in
    a colon there, no box is drawn)."""
    doc = pymupdf.open(stream=_schedule_without_boxes(), filetype="pdf")
    page = doc.new_page(width=612, height=792)
    _numbered_lines(page, first=17)
    doc.bake()
    return doc.tobytes()


def test_numbered_amount_lines_show_a_page_is_a_form():
    """Failed before: page 2 showed no sign of a form (labels.page_looks_like_form), so its lines were
    read as print."""
    fields = [f for f in ingest_fields(_schedule_continued(), "schedule2.pdf", "fast") if f.page == 2]
    for caption, amount in LINES:
        assert [f.value for f in fields if f.key.endswith(caption)] == [amount]


def _lines_alone() -> bytes:
    """The numbered lines alone on their page: no caption ends in a colon, no box is drawn."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _numbered_lines(page, first=1)
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_numbered_amount_lines_alone_show_the_file_is_a_form(engine):
    """Failed before: nothing else on the file showed a form (labels.form_signal), so no field was read."""
    fields = ingest_fields(_lines_alone(), "lines.pdf", engine)
    for caption, amount in LINES:
        assert [f.value for f in fields if f.key.endswith(caption)] == [amount]



# what a filler types into a 1040's amount boxes is not always digits: "N/A", a code, a name
DOLLARS = ("1,234", "N/A", "K9")
CENTS = ("05", "90", "45")


def _dollars_and_cents() -> bytes:
    """A 1040's amount column: the line's number printed again, then a ruled dollars box and cents box,
    the caption far to the left (Times 8); the amounts typed in Helvetica 10. No caption stands near
    any amount, so only the line numbers printed again show the face typed."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for i, ((caption, _), dollars, cents) in enumerate(zip(LINES, DOLLARS, CENTS)):
        y, number = 160 + 24 * i, 7 + i
        page.insert_text((40, y), f"{number}", fontsize=8, fontname="tiro")
        page.insert_text((52, y), caption + " . . . . . .", fontsize=8, fontname="tiro")
        page.insert_text((440, y), f"{number}", fontsize=8, fontname="tiro")
        dollars_box, cents_box = pymupdf.Rect(454, y - 10, 540, y + 2), pymupdf.Rect(540, y - 10, 570, y + 2)
        for box in (dollars_box, cents_box):
            page.draw_rect(box, color=(0, 0, 0), width=0.5)
        add_text_widget(page, f"d{number}", dollars_box, dollars, 10)
        add_text_widget(page, f"c{number}", cents_box, cents, 10)
    doc.bake()
    return doc.tobytes()


def test_the_dollars_and_cents_typed_past_a_lines_number_are_that_lines_and_never_keys():
    """A code typed in the dollars box ("N/A", "K9") is a value, never the key of the cents after it.
    (This passed before too, through the caption's own rule; it guards the typed-face change below.)"""
    fields = ingest_fields(_dollars_and_cents(), "dollars.pdf", "fast")
    typed = set(DOLLARS) | set(CENTS)
    assert not [f for f in fields if f.key in typed]
    for (caption, _), dollars, cents in zip(LINES, DOLLARS, CENTS):
        got = sorted(f.value for f in fields if caption in f.key)
        assert got == sorted((dollars, cents)), (caption, [(f.key, f.value) for f in fields])


def test_the_face_amounts_are_typed_in_past_their_line_numbers_is_a_typed_face():
    """Failed before: a face counted as typed only by lines with a caption close to them, so on a 1040
    (every caption far left of its amount) the filler's Helvetica was the form's print, and a code
    typed into one box could be the key of the next box's value."""
    doc, _ = ingest_document(_dollars_and_cents(), "dollars.pdf", "fast")
    texts = [u for u in document_units(doc)[1] if u.kind == "text"]
    assert "helvetica" in typed_families(texts, page_rulings(doc, doc.page(1)))
