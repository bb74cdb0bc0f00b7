"""The forms benchmark's own test set: what it fills is what the baked page prints, and its audit of
the truth on paper counts what a reader of the page cannot see."""
from __future__ import annotations

import pymupdf

from bench.form_filling import fill_form
from bench.forms import audit_truth, key_sources, widget_truth


def _one_field_on_two_pages() -> bytes:
    """One text field whose two widgets (its kids) sit on two pages, as forms repeat a name or a
    number on every page."""
    doc = pymupdf.open()
    kids = []
    for n in range(2):
        page = doc.new_page()
        page.insert_text((72, 90), "Your name", fontsize=10)
        w = pymupdf.Widget()
        w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, f"tmp{n}"
        w.rect, w.text_fontsize = pymupdf.Rect(150, 80, 350, 94), 10
        kids.append(page.add_widget(w).xref)
    parent = doc.get_new_xref()
    doc.update_object(parent, "<< /FT /Tx /T (applicant) /Kids [%d 0 R %d 0 R] >>" % tuple(kids))
    for xref in kids:
        doc.xref_set_key(xref, "Parent", f"{parent} 0 R")
        doc.xref_set_key(xref, "T", "null")
        doc.xref_set_key(xref, "FT", "null")
    doc.xref_set_key(doc.pdf_catalog(), "AcroForm/Fields", f"[{parent} 0 R]")
    return doc.tobytes()


def test_widgets_of_one_field_print_the_one_value_the_field_holds():
    # old filler: a new value per widget, so page 1 kept printing a value the field no longer held
    doc = pymupdf.open(stream=fill_form(_one_field_on_two_pages()), filetype="pdf")
    truths = widget_truth(doc)
    sources = key_sources(doc)
    doc.bake()
    assert len(truths) == 2 and truths[0].value == truths[1].value != ""
    audit = audit_truth(sources, truths, doc, {})
    assert (audit.values, audit.in_box, audit.unprinted) == (2, 2, [])
    assert audit.key_name == 2 and audit.key_printed == 0  # the name "applicant" is printed nowhere


def test_the_audit_lists_a_value_the_baked_page_does_not_print():
    doc = pymupdf.open()
    page = doc.new_page()
    w = pymupdf.Widget()
    w.field_type, w.field_name, w.field_label = pymupdf.PDF_WIDGET_TYPE_TEXT, "f1", "Your name"
    w.rect, w.field_value = pymupdf.Rect(150, 80, 350, 94), "Jordan"
    page.add_widget(w)
    doc.xref_set_key(page.first_widget.xref, "F", "2")  # annotation flag 2: hidden, never printed
    truths = widget_truth(doc)
    sources = key_sources(doc)
    doc.bake()
    audit = audit_truth(sources, truths, doc, {})
    assert audit.values == 1 and audit.in_box == 0 and audit.key_tooltip == 1
    assert audit.unprinted and audit.unprinted[0].startswith("value not printed in its box (box empty or hidden)")


def test_the_summary_shows_a_hold_out_form_only_in_the_means_unless_asked():
    from bench.forms import Row, Score, summary

    rows = [Row("studied.pdf", "tune", "fast", "filled", Score("a", truth=2, predicted=2, matched=2)),
            Row("unseen.pdf", "hold-out", "fast", "filled", Score("b", truth=2, predicted=2, matched=0))]
    quiet = "\n".join(summary(rows))
    assert "studied.pdf" in quiet and "unseen.pdf" not in quiet
    assert " hold-out " in quiet and " 0.000 " in quiet  # its figures still make the hold-out mean
    assert "unseen.pdf" in "\n".join(summary(rows, show_hold_out=True))


def test_the_ingest_audit_finds_the_baked_value_as_one_unit_in_its_box():
    from bench.forms import audit_ingest, ingest_document

    doc = pymupdf.open(stream=fill_form(_one_field_on_two_pages()), filetype="pdf")
    truths = widget_truth(doc)
    doc.bake()
    flat = doc.tobytes()
    ingested, _ = ingest_document(flat, "flat.pdf", "fast")
    audit = audit_ingest(truths, pymupdf.open(stream=flat, filetype="pdf"), ingested)
    assert (audit.values, audit.own_unit, audit.reasons) == (2, 2, [])
    assert audit.drawn == 0  # the widget has no border: nothing but the value's type sets it apart


def test_the_ingest_audit_says_why_a_printed_value_is_not_a_unit_of_its_own():
    from bench.forms import Truth, audit_ingest, ingest_document

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Your name Jordan", fontsize=10)  # value and caption printed as one line
    flat = doc.tobytes()
    ingested, _ = ingest_document(flat, "flat.pdf", "fast")
    truth = Truth(1, "Your name", "Jordan", None, (118, 80, 160, 94), False)
    audit = audit_ingest([truth], pymupdf.open(stream=flat, filetype="pdf"), ingested)
    assert audit.values == 1 and audit.own_unit == 0
    assert audit.reasons[0].startswith("joined to other text in one unit")
    assert not audit.form_gate  # one line of print: nothing shows a form


def test_the_ingest_report_names_no_hold_out_form():
    from bench.forms import IngestAudit, ingest_report

    audits = [("fast filled studied.pdf", "tune", IngestAudit(values=1, own_unit=1)),
              ("fast filled unseen.pdf", "hold-out", IngestAudit(form_gate=False, values=2, reasons=["split over units: x"]))]
    text = "\n".join(ingest_report(audits))
    assert "studied.pdf" in text and "unseen.pdf" not in text
    assert "hold-out forms taken for a form 0/1" in text and "split over units x1" in text


def _form_with(tmp_path, name: str, texts: int = 0, combs: int = 0, boxes: int = 0) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    for n in range(texts + combs + boxes):
        w = pymupdf.Widget()
        w.field_name, w.rect = f"f{n}", pymupdf.Rect(72, 72 + 30 * n, 272, 90 + 30 * n)
        if n < texts + combs:
            w.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
            if n >= texts:
                w.text_maxlen, w.field_flags = 9, 1 << 24
        else:
            w.field_type, w.rect = pymupdf.PDF_WIDGET_TYPE_CHECKBOX, pymupdf.Rect(72, 72 + 30 * n, 84, 84 + 30 * n)
        page.add_widget(w)
    doc.save(tmp_path / name)


def test_forms_with_comb_fields_or_rows_of_marks_join_the_tune_half(tmp_path, monkeypatch):
    import bench.forms as bf

    _form_with(tmp_path, "plain.pdf", texts=5, boxes=2)
    _form_with(tmp_path, "comb.pdf", texts=1, combs=1)
    _form_with(tmp_path, "marks.pdf", boxes=3)
    monkeypatch.setattr(bf, "CORPUS_DIR", tmp_path)
    chosen = [p.name for p in bf.trait_forms()]
    assert chosen == ["comb.pdf", "marks.pdf"]
    assert bf.halves([tmp_path / n for n in ("plain.pdf", "comb.pdf")], frozenset(chosen)) == {
        "plain.pdf": "hold-out", "comb.pdf": "tune"}
