"""A value typed into a comb field is printed one character per equal cell; flattened, the page
reader sees characters set far apart, broken over several lines where a narrow glyph leaves a wider
gap. Units join them back into the one value (core.forms.units.join_comb_cells)."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_document
from core.forms.fields import document_units


def _comb_form(values: tuple[str, ...], border: bool = True) -> bytes:
    """A flattened form: captions, and one comb field (10 cells, drawn border) per value."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Application for a permit", fontsize=14)
    for n, value in enumerate(values):
        y = 100 + 50 * n
        page.insert_text((72, y + 14), f"Field {n + 1}:", fontsize=10)
        w = pymupdf.Widget()
        w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, f"f{n}"
        w.rect, w.text_fontsize, w.text_maxlen = pymupdf.Rect(150, y, 300, y + 22), 12, 10
        w.field_flags = 1 << 24  # comb
        if border:
            w.border_color, w.border_width = (0, 0, 0), 1
        w.field_value = value
        page.add_widget(w)
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_comb_value_broken_over_lines_is_one_unit_again(engine):
    doc, _ = ingest_document(_comb_form(("1,234.56", "7004-B")), "comb.pdf", engine)
    texts = [u.text for u in document_units(doc)[1]]
    assert "1,234.56" in texts and "7004-B" in texts


def test_an_empty_cell_between_two_lines_of_a_comb_value_is_a_space():
    doc, _ = ingest_document(_comb_form(("Kim Min-ju", "A. Lee")), "comb.pdf", "fast")
    texts = [u.text for u in document_units(doc)[1]]
    assert "A. Lee" in texts
    # an empty cell inside one printed line leaves no trace in the line's box: the characters are
    # still one value, without that space
    assert "KimMin-ju" in texts


def _letter_grid() -> bytes:
    """A table of one-letter codes in equal ruled cells, rows stacked: not a comb field."""
    doc = pymupdf.open()
    page = doc.new_page()
    rows = ("C L L", "U X C", "C C C")
    for i, row in enumerate(rows):
        for j, ch in enumerate(row.split()):
            x, y = 100 + 24 * j, 100 + 15 * i
            if i or not j:  # the top row is one merged cell: a box around its three letters
                page.draw_rect(pymupdf.Rect(x, y, x + (72 if not i else 24), y + 15), width=0.6)
            page.insert_text((x + 8, y + 12), ch, fontsize=12)
    page.insert_text((72, 80), "Figure 3: tokens of the table", fontsize=10)
    return doc.tobytes()


def test_a_grid_of_one_letter_cells_is_left_as_it_is():
    doc, _ = ingest_document(_letter_grid(), "grid.pdf", "fast")
    texts = [u.text for u in document_units(doc)[1]]
    assert not any(t in ("CLL", "LL", "UXC", "CCC") for t in texts)


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_comb_value_of_letters_is_the_value_of_its_caption_not_a_key(engine):
    from bench.forms import ingest_fields

    fields = ingest_fields(_comb_form(("1,234.56", "7004-B", "A. Lee")), "comb.pdf", engine)
    pairs = {(f.key, f.value) for f in fields}
    assert {("Field 1", "1,234.56"), ("Field 2", "7004-B"), ("Field 3", "A. Lee")} <= pairs
    assert not any(f.key == "A. Lee" for f in fields)


def _split_comb_form() -> bytes:
    """A caption over three combs side by side (3, 2 and 4 cells, a printed dash between them, the
    cells drawn by the form), one text widget per comb, as a US form prints a social security number;
    a check box beside it."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.draw_rect(pymupdf.Rect(30, 240, 300, 290), color=(0, 0, 0), width=0.5)
    page.insert_text((34, 250), "2. SOCIAL SECURITY NUMBER", fontsize=7)
    x = 35.0
    for n, (cells, value) in enumerate(((3, "731"), (2, "31"), (4, "1605"))):
        for y in (268, 284):  # the comb's rules, and a wall between each two cells
            page.draw_line(pymupdf.Point(x, y), pymupdf.Point(x + 16.8 * cells, y), color=(0, 0, 0), width=0.5)
        for k in range(cells + 1):
            page.draw_line(pymupdf.Point(x + 16.8 * k, 268), pymupdf.Point(x + 16.8 * k, 284), color=(0, 0, 0), width=0.5)
        w = pymupdf.Widget()
        w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, f"ssn{n}"
        w.rect, w.text_fontsize, w.text_maxlen = pymupdf.Rect(x, 268, x + 16.8 * cells, 284), 11, cells
        w.field_flags = 1 << 24  # comb
        w.field_value = value
        page.add_widget(w)
        x += 16.8 * cells
        if n < 2:
            page.draw_line(pymupdf.Point(x + 3, 276), pymupdf.Point(x + 9, 276), color=(0, 0, 0), width=1.5)
            x += 12
    page.draw_rect(pymupdf.Rect(342, 255, 352, 265), color=(0, 0, 0), width=0.5)
    page.insert_text((355, 263), "YES", fontsize=7)
    doc.bake()
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_line_across_combs_side_by_side_is_one_value_per_comb(engine):
    """Failed before: the page reader joined the three combs' values into one line ("731 31 1605"),
    and the caption took it as one value over all three fields."""
    from bench.forms import ingest_fields
    fields = [f for f in ingest_fields(_split_comb_form(), "ssn.pdf", engine) if f.key == "2. SOCIAL SECURITY NUMBER"]
    assert sorted(f.value for f in fields) == ["1605", "31", "731"]
    assert all(f.value_bbox[2] - f.value_bbox[0] <= 16.8 * 4 + 2 for f in fields)
