"""A layout model reads a filled-in value and the form's next printed caption as one text block
(CMS-1490S, filled and baked: "hanako.sato@example.jp" over "Policyholder's Name (Last, First,
Middle)"). Set in another font and another size, the two lines are a value and a caption, not one
paragraph, so each is a unit of its own (core.forms.units)."""
from __future__ import annotations

from core.categories import Category
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


def test_a_value_over_a_caption_in_another_font_and_size_is_a_unit_of_its_own():
    """Failed before: the two lines read as one paragraph (their mean length is over 28 characters)."""
    texts = _texts(_block((10.0, "Helvetica"), (8.0, "FrutigerLTStd-Italic")))
    assert "hanako.sato@example.jp" in texts and "Policyholder’s Name (Last, First, Middle)" in texts


def test_a_paragraph_with_a_line_in_another_font_only_stays_one_unit():
    # one size: an italic line of a paragraph, not a value typed in
    assert len(_texts(_block((8.0, "Frutiger-Italic"), (8.0, "Frutiger-Roman")))) == 1
    # another size in the same font: not enough to call it a value (a heading run in, a note)
    assert len(_texts(_block((10.0, "Helvetica"), (8.0, "Helvetica")))) == 1
