"""A form made in Word prints its check boxes as Wingdings' "q" (❑; PyMuPDF reads it as the Private Use
character U+F071) at the start of each option's line, and a filled copy, flattened, has the tick drawn
over it. The box is the option's mark and the rest of the line its label, whether the option stands on
a line of its own or inside a paragraph; the tick sets its state. Real widgets, filled and baked."""
from __future__ import annotations

import pymupdf

from bench.forms import ingest_fields

TO_UNICODE = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /WdBox def\n"
              b"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <71> <F071> endbfchar endcmap\n"
              b"CMapName currentdict /CMap defineresource pop end end")
OPTIONS = (("1. Within 10 days after the effective date", True), ("2. Within 20 days after the effective date", False),
           ("3. Buyer has received the information", False))


def _printed_page(doc: pymupdf.Document, lines) -> pymupdf.Page:
    """A page whose content is written by hand: (x, y, text, wingdings) in 10 pt Helvetica, or in a
    Wingdings font whose ToUnicode gives its "q" as U+F071, the way Word's PDFs carry it."""
    page = doc.new_page(width=612, height=792)

    def new(obj: str, stream: bytes) -> int:
        xref = doc.get_new_xref()
        doc.update_object(xref, obj)
        doc.update_stream(xref, stream)
        return xref

    cmap = new("<<>>", TO_UNICODE)
    wingdings = doc.get_new_xref()
    doc.update_object(wingdings, f"<</Type/Font/Subtype/TrueType/BaseFont/Wingdings-Regular/FirstChar 113"
                                 f"/LastChar 113/Widths[768]/ToUnicode {cmap} 0 R>>")
    helvetica = doc.get_new_xref()
    doc.update_object(helvetica, "<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>")
    ops = b"".join(b"BT /%s 10 Tf %.1f %.1f Td (%s) Tj ET\n" % (b"FWd" if wing else b"F1", x, 792 - y, text.encode())
                   for x, y, text, wing in lines)
    doc.xref_set_key(page.xref, "Resources", f"<</Font<</F1 {helvetica} 0 R/FWd {wingdings} 0 R>>>>")
    doc.xref_set_key(page.xref, "Contents", f"{new('<<>>', ops)} 0 R")
    return page


def _tick(page: pymupdf.Page, name: str, rect: pymupdf.Rect, on: bool) -> None:
    w = pymupdf.Widget()
    w.field_type, w.field_name, w.rect = pymupdf.PDF_WIDGET_TYPE_CHECKBOX, name, rect
    w.field_value = w.on_state() if on else "Off"
    page.add_widget(w)
    if on:
        w.field_value = w.on_state()
        w.update()


def _word_form(in_paragraph: bool) -> bytes:
    doc = pymupdf.open()
    lines = [(40, 100, "A. SUBDIVISION INFORMATION: (Check only one box):", False)]
    boxes = []
    for k, (label, _) in enumerate(OPTIONS):
        y = 130 + (24 if in_paragraph else 30) * k
        lines += [(43, y, "q", True), (52, y, label, False)]
        if in_paragraph:  # the option runs on as a paragraph, the next box starting a line of it
            lines.append((52, y + 12, "and the earnest money will be refunded to the Buyer as the contract says.", False))
        boxes.append(pymupdf.Rect(43, y - 9, 51, y - 1))
    page = _printed_page(doc, lines)
    for k, ((_, on), rect) in enumerate(zip(OPTIONS, boxes)):
        _tick(page, f"option{k}", rect, on)
    doc.bake()
    return doc.tobytes()


def _marks(data: bytes) -> dict[str, str]:
    return {f.key: f.selection_state for f in _mark_fields(data)}


def _mark_fields(data: bytes):
    return [f for f in ingest_fields(data, "word_form.pdf", "fast") if f.is_selection]


def test_a_wingdings_box_is_a_check_box_and_the_tick_over_it_its_state():
    marks = _marks(_word_form(in_paragraph=False))
    assert marks == {label: "selected" if on else "unselected" for label, on in OPTIONS}


def test_a_wingdings_box_inside_a_paragraph_is_placed_on_its_line():
    fields = _mark_fields(_word_form(in_paragraph=True))
    assert {f.key: f.selection_state for f in fields} == {label: "selected" if on else "unselected" for label, on in OPTIONS}
    for k, f in enumerate(sorted(fields, key=lambda f: f.value_bbox[1])):
        y = 130 + 24 * k  # the glyph's baseline: the box is where it is printed, not along the paragraph
        x0, y0, x1, y1 = f.value_bbox
        assert 40 <= (x0 + x1) / 2 <= 54 and y - 12 <= (y0 + y1) / 2 <= y + 2, (f.key, f.value_bbox)
