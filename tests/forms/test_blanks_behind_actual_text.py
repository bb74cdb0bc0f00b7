"""Blanks printed as underscores inside marked content whose /ActualText stands for them (Word's tagged
export writes "Client Name:______" so): the text page never reads the underscores, yet the paper shows a
line to write on, and a value typed on it is that caption's (core.ingest.vectors.underscores_behind_actual_text)."""
from __future__ import annotations

import pymupdf
import pytest

from bench.forms import ingest_document

CAPTIONS = (("Name:", "Jordan Lee"), ("City:", "Osaka"), ("Phone:", "06-1234-5678"))


def _form_with_hidden_blanks(hidden: bool) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=500)
    for n, (caption, _) in enumerate(CAPTIONS):
        page.insert_text((40, 60 + 40 * n), caption, fontsize=11)
    for n, (_, value) in enumerate(CAPTIONS):
        # typed taller than the caption, as a filler's auto-sized font sets it, standing on the blank
        page.insert_text((80, 59 + 40 * n), value, fontsize=16, fontname="tiro")
    xref = page.get_contents()[0]
    marked = b"/Span <</ActualText (\\040)>> BDC " if hidden else b""
    close = b" EMC" if hidden else b""
    blanks = b"".join(marked + b"BT /helv 11 Tf 75 %d Td (____________________) Tj ET" % (440 - 40 * n) + close + b"\n"
                      for n in range(len(CAPTIONS)))
    doc.update_stream(xref, doc.xref_stream(xref) + b"\n" + blanks)
    return doc.tobytes()


@pytest.mark.parametrize("engine", ["fast", "layout"])
def test_a_value_typed_on_a_blank_hidden_behind_actual_text_is_its_captions(engine):
    data = _form_with_hidden_blanks(hidden=True)
    assert "_" not in pymupdf.open("pdf", data)[0].get_text()  # the text page reads the ActualText only
    _, fields = ingest_document(data, "hidden_blanks.pdf", engine)
    pairs = {f.key.rstrip(":"): f.value for f in fields if f.value_type != "selection_mark"}
    # before: no rule under the captions, and no value was paired with them
    for caption, value in CAPTIONS:
        assert pairs.get(caption.rstrip(":")) == value, (engine, pairs)


def test_blanks_the_text_page_reads_are_not_drawn_twice():
    from core.ingest.display import Display
    from core.ingest.vectors import may_hold_actual_text, underscores_behind_actual_text

    page = pymupdf.open("pdf", _form_with_hidden_blanks(hidden=False))[0]
    assert not may_hold_actual_text(page)  # no ActualText: nothing to read again
    hidden = pymupdf.open("pdf", _form_with_hidden_blanks(hidden=True))[0]
    assert may_hold_actual_text(hidden)
    rules = underscores_behind_actual_text(hidden.get_texttrace(), Display(hidden), [])
    assert len(rules) == 3 and all(abs(x0 - 75) < 1 and x1 - x0 > 100 for _, x0, x1, _ in rules)
