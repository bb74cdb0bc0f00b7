"""A page reader may read a filled-in value and the form's printed captions as one block of text:
a layout model ("hanako.sato@example.jp" over "Policyholder's Name (Last, First, Middle)" on the
filled and baked CMS-1490S), or the fast engine taking a drawn panel of caption rows for one figure.
Lines set in another font and another size, or with a blank wider than a line between them, are
not one paragraph: each is a unit of its own (core.forms.units), so a value is seen as a value."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_document
from core.categories import Category
from core.forms.fields import document_units
from core.forms.units import page_units
from core.model import Document, Element, Page


def _block(value: tuple[float, str], caption: tuple[float, str]) -> Document:
    (v_size, v_font), (c_size, c_font) = value, caption
    block = Element("blk", 1, 0, Category.TEXT, (37, 620, 186, 649),
                    "hanako.sato@example.jp Policyholder’s Name (Last, First, Middle)", "layout", attrs=(
                        ("lines", ((40, 620, 153, 634, "hanako.sato@example.jp", v_size, 0, v_font),
                                   (37, 640, 186, 649, "Policyholder’s Name (Last, First, Middle)", c_size, 0,
                                    c_font))),
                        ("size", c_size)))
    return Document("0123456789abcdef", "x.pdf", "0" * 64, "layout", (Page(1, 612, 792, elements=(block,)),))


def _texts(doc: Document) -> list[str]:
    return [u.text for u in page_units(doc, doc.pages[0])]


def test_a_value_over_a_caption_in_another_size_is_a_unit_of_its_own():
    """Failed before: the two lines read as one paragraph (their mean length is over 28 characters)."""
    for value, caption in (((10.0, "Helvetica"), (8.0, "FrutigerLTStd-Italic")), ((10.0, "Helvetica"), (8.0, "Helvetica"))):
        texts = _texts(_block(value, caption))
        assert "hanako.sato@example.jp" in texts and "Policyholder’s Name (Last, First, Middle)" in texts


def test_a_paragraph_with_a_line_in_another_font_only_stays_one_unit():
    # one size: an italic line of a paragraph, not a value typed in
    assert len(_texts(_block((8.0, "Frutiger-Italic"), (8.0, "Frutiger-Roman")))) == 1


def _baked_panel(rows, pitch: float, caption_size: float, caption_baseline: float, value_size: float,
                 value_top: float) -> bytes:
    """A flattened form: caption rows, each with a value typed in the box under it, on one drawn
    panel (the fast engine reads the panel as one figure holding every line). Row n starts at
    100 + pitch·n; its caption's baseline is caption_baseline below that, its value box value_top."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Application for a permit", fontsize=14)
    page.draw_rect(pymupdf.Rect(60, 90, 560, 400), color=(0, 0, 0), width=0.5)
    page.draw_line((60, 250), (300, 250), width=0.5)
    for n, (caption, value) in enumerate(rows):
        y = 100 + pitch * n
        page.insert_text((72, y + caption_baseline), caption, fontsize=caption_size)
        w = pymupdf.Widget()
        w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, f"f{n}"
        w.rect, w.text_fontsize, w.field_value = pymupdf.Rect(72, y + value_top, 300, y + 22), value_size, value
        page.add_widget(w)
    doc.bake()
    return doc.tobytes()


def _captions_over_values_in_a_drawn_panel() -> bytes:
    """Two 7 pt caption rows 40 pt apart, one font and size for all: a blank between the rows."""
    return _baked_panel((("Your first name and middle initial as printed", "Jordan A. Whitfield"),
                         ("Home address (number and street) or P.O. box", "Springfield")),
                        pitch=40, caption_size=7, caption_baseline=8, value_size=7, value_top=10)


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_values_typed_under_captions_with_a_blank_between_rows_are_units_of_their_own(engine):
    """Failed before (fast): the four lines read as one paragraph, each value joined to the captions."""
    doc, _ = ingest_document(_captions_over_values_in_a_drawn_panel(), "panel.pdf", engine)
    texts = [u.text for u in document_units(doc)[1]]
    assert "Jordan A. Whitfield" in texts and "Springfield" in texts


def test_a_paragraph_at_its_own_line_spacing_stays_one_unit():
    lines = tuple((60, 100 + 11 * i, 400, 109 + 11 * i, f"running text of a note, line {i} of four, on", 8.0, 0,
                   "Helvetica") for i in range(4))
    e = Element("p", 1, 0, Category.TEXT, (60, 100, 400, 142), " ".join(ln[4] for ln in lines), "fast",
                attrs=(("lines", lines), ("size", 8.0)))
    doc = Document("0123456789abcdef", "x.pdf", "0" * 64, "fast", (Page(1, 612, 792, elements=(e,)),))
    assert len(_texts(doc)) == 1


def _tight_rows_of_captions_over_values() -> bytes:
    """Rows with no blank between them: a 6 pt caption at the top of each row, the value typed in
    9 pt in the box under it, caption and value in one font."""
    return _baked_panel((("Your first name and middle initial as printed", "Jordan A. Whitfield"),
                         ("Home address (number and street) or P.O. box", "Springfield"),
                         ("City, town or post office, state, and ZIP code", "Osaka 530-0001")),
                        pitch=22, caption_size=6, caption_baseline=6, value_size=9, value_top=7)


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_values_in_another_size_than_their_captions_in_tight_rows_are_units_of_their_own(engine):
    """Failed before (both engines): no blank between the rows and one font, so the six lines read
    as one paragraph; only the size tells the values from the captions."""
    doc, _ = ingest_document(_tight_rows_of_captions_over_values(), "rows.pdf", engine)
    texts = [u.text for u in document_units(doc)[1]]
    assert {"Jordan A. Whitfield", "Springfield", "Osaka 530-0001"} <= set(texts)
