"""The widget path is the ground truth a reviewer starts from, so it must equal PyMuPDF's own
`page.widgets()` on every widget of real forms: same page, box (±0.5 pt), type, value and on/off
state, whatever the catalog's /AcroForm says about the fields."""
from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from core.ingest.display import Display
from core.ingest.pdf import parse_pdf
from core.ingest.pipeline import ingest_bytes
from core.model import Document
from core.store.records import doc_id_for, sha256_of
from pdf_builders import build_pdf
from widget_truth import chosen_options

CHOICE = (pymupdf.PDF_WIDGET_TYPE_COMBOBOX, pymupdf.PDF_WIDGET_TYPE_LISTBOX)
MARKS = (pymupdf.PDF_WIDGET_TYPE_CHECKBOX, pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON)


def parse(data: bytes, engine: str = "fast") -> Document:
    sha = sha256_of(data)
    return parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="w.pdf", engine=engine).document


def unescape(name: str) -> str:
    return re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), name)


def reference(doc: pymupdf.Document) -> list[dict]:
    """Every widget as page.widgets() reports it."""
    out = []
    for page in doc:
        show = Display(page)
        for w in page.widgets():
            row = {"page": page.number + 1, "box": show(w.rect), "name": w.field_name, "type": w.field_type_string}
            if w.field_type in MARKS:
                # field_value comes unescaped, on_state() keeps the name's #xx escapes
                on = unescape(str(w.on_state()))
                value = w.field_value
                row["state"] = "selected" if value is True or (
                    isinstance(value, str) and value not in ("", "Off") and unescape(value) == on) else "unselected"
            else:
                several = chosen_options(doc, w.xref) if w.field_type in CHOICE else None
                row["value"] = several if several is not None else ("" if w.field_value is None else w.field_value)
            out.append(row)
    return out


def mismatches(ours: Document, ref: list[dict]) -> list[str]:
    bad, taken = [], set()
    for row in ref:
        candidates = [e for e in ours.page(row["page"]).elements
                      if e.source == "widget" and e.id not in taken and e.attr("field_name") == row["name"]
                      and max(abs(a - b) for a, b in zip(e.bbox, row["box"])) <= 0.5]
        if not candidates:
            bad.append(f"p{row['page']} {row['name']!r} {row['type']}: no field at {row['box']}")
            continue
        e = candidates[0]
        taken.add(e.id)
        got = {"type": e.attr("field_type")}
        got.update({"state": e.state} if "state" in row else {"value": e.attr("value")})
        want = {k: row[k] for k in got}
        if got != want:
            bad.append(f"p{row['page']} {row['name']!r}: ours {got} != page.widgets() {want}")
    extra = sum(1 for p in ours.pages for e in p.elements if e.source == "widget") - len(taken)
    if extra:
        bad.append(f"{extra} widget fields page.widgets() does not report")
    return bad


def corpus(realdata: Path) -> list[Path]:
    files = sorted((realdata / "pdfs" / "widget_corpus").glob("*.pdf"))
    assert len(files) == 50
    return files


def test_every_widget_of_the_real_widget_corpus_equals_pymupdfs(realdata):
    checked, failures = 0, []
    for path in corpus(realdata):
        data = path.read_bytes()
        ref = reference(pymupdf.open(stream=data))
        failures += [f"{path.name} {m}" for m in mismatches(parse(data), ref)]
        checked += len(ref)
    print(f"\nwidget corpus: {checked - len(failures)}/{checked} widgets right")
    assert checked == 369 and not failures, "\n".join(failures)


def strip_acroform(data: bytes, how: str) -> bytes:
    """The catalog as XFA exporters and page-splitting tools leave it: no /AcroForm, or one whose
    /Fields is empty, while the pages keep their widget annotations."""
    doc = pymupdf.open(stream=data)
    catalog = doc.pdf_catalog()
    if how == "none":
        doc.xref_set_key(catalog, "AcroForm", "null")
    else:
        kind, ref = doc.xref_get_key(catalog, "AcroForm")
        assert kind == "xref"
        doc.xref_set_key(int(ref.split()[0]), "Fields", "[]")
    return doc.tobytes(garbage=0)


@pytest.mark.parametrize("how", ["none", "empty"])
def test_widgets_are_read_whatever_the_catalog_acroform_says(realdata, how):
    """Failed before: ingest read widgets only when doc.is_form_pdf was true (0 or False here)."""
    path = realdata / "pdfs" / "forms" / "irs_f7004_fillable.pdf"
    data = strip_acroform(path.read_bytes(), how)
    pdf = pymupdf.open(stream=data)
    assert not pdf.is_form_pdf
    ref = reference(pdf)
    assert len(ref) == 25
    assert mismatches(parse(data), ref) == []


def test_the_layout_engine_reads_uncatalogued_widgets_too(realdata):
    path = realdata / "pdfs" / "forms" / "pdf_form_example_all_widget_types.pdf"
    data = strip_acroform(path.read_bytes(), "none")
    assert mismatches(parse(data, "layout"), reference(pymupdf.open(stream=data))) == []


def test_a_list_box_keeps_every_chosen_option_through_the_workspace(workspace, realdata):
    """Failed before: several chosen options came out as an empty value (MuPDF's text of an array)."""
    path = realdata / "pdfs" / "widget_corpus" / "pdfjs__annotation-choice-widget.pdf"
    record = ingest_bytes(workspace, path.read_bytes(), path.name, engine="fast").record
    doc = workspace.load_machine_document(record.doc_id)
    (box,) = [e for e in doc.elements() if str(e.attr("field_name")).endswith("Keuzelijst2[0]")]
    assert tuple(box.attr("value")) == ("Ipsum", "Amet", "Consectetur", "Elit")
    assert box.text == "Ipsum, Amet, Consectetur, Elit"


def test_inherited_type_value_and_flags_of_kids_come_from_their_parent():
    """A hierarchical field: the parent holds /FT, /V, /Ff and /Opt; its two kids are bare widgets."""
    def page(p):
        w = pymupdf.Widget()
        w.field_type, w.field_name, w.rect = pymupdf.PDF_WIDGET_TYPE_COMBOBOX, "tmp", pymupdf.Rect(72, 72, 250, 90)
        w.choice_values, w.field_value = ["東京", "大阪"], "大阪"
        p.add_widget(w)
    doc = pymupdf.open(stream=build_pdf(page))
    page = doc[0]
    kid = page.first_widget.xref
    parent = doc.get_new_xref()
    doc.update_object(parent, "<< /T (form[0]) /FT /Ch /Ff 131072 /V <FEFF5927962A> "
                              "/Opt [<FEFF67714EAC> <FEFF5927962A>] >>")
    for key in ("FT", "V", "Ff", "Opt"):
        doc.xref_set_key(kid, key, "null")
    doc.xref_set_key(kid, "T", "(city[0])")
    doc.xref_set_key(kid, "Parent", f"{parent} 0 R")
    data = doc.tobytes()
    ref = reference(pymupdf.open(stream=data))
    assert [(r["name"], r["type"], r["value"]) for r in ref] == [("form[0].city[0]", "ComboBox", "大阪")]
    ours = parse(data)
    assert mismatches(ours, ref) == []
    (field,) = [e for e in ours.elements() if e.source == "widget"]
    assert field.attr("options") == ("東京", "大阪")


def test_push_buttons_are_kept_as_widgets_without_a_value(realdata):
    """Failed before: push buttons were dropped, so page.widgets() reported widgets we did not."""
    path = realdata / "pdfs" / "widget_corpus" / "pdfjs__listbox_actions.pdf"
    ours = parse(path.read_bytes())
    buttons = [e for e in ours.elements() if e.attr("field_type") == "Button"]
    assert len(buttons) == 4 and all(e.attr("value") == "" and e.text == "" for e in buttons)
