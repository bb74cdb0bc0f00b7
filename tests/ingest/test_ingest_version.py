"""A stored parse names the code that made it (core.ingest.version): a parse made by older ingest code
is stale, and ingest, the batch and the Documents page's "Parse again" read the file again instead of
serving it, while the reviewer's corrections follow the new elements."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from core.categories import Category
from core.ingest import version
from core.ingest.pdf import engine_version
from core.ingest.pipeline import NotReparsable, ingest_bytes, is_stale, parse_again
from core.model import element_id
from core.review.corrections import corrected_document, record_events
from pdf_builders import build_pdf, paragraph, text

REPO = Path(__file__).resolve().parents[2]
OLD = "fast/0ld0ld0ld0ld pymupdf-1.0.0"


def report() -> bytes:
    def page(p):
        text(p, 72, 90, "経費精算規程", 22)
        paragraph(p, 72, 140, ["この規程は、役員及び従業員が業務のために立て替えた経費の精算について定める。"])
    return build_pdf(page)


def store_as_older_parse(ws, doc_id: str, broken: str | None = None):
    """Make the stored fast parse look like one from older code; `broken` replaces the body text (so
    its element gets another id), the damage a later fix would undo."""
    doc = ws.load_machine_document(doc_id, "fast")
    if broken is not None:
        page = doc.pages[0]
        body = max(page.elements, key=lambda e: len(e.text))
        damaged = replace(body, text=broken, id=element_id(doc_id, 1, body.bbox, broken))
        page = replace(page, elements=tuple(damaged if e is body else e for e in page.elements))
        doc = replace(doc, pages=(page,))
    ws.save_machine_document(replace(doc, engine_version=OLD), ws.document(doc_id).size_bytes)
    return doc


def test_the_version_is_a_digest_of_the_code_that_shapes_the_output(tmp_path):
    assert version.code_digest() in engine_version("fast") and version.code_digest() in engine_version("layout")
    copy = tmp_path / "core"
    for path in version.shaping_files():
        target = copy / path.relative_to(version.CORE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    assert version.digest_of(copy) == version.code_digest()
    rules = copy / "refine" / "rules.py"
    rules.write_text(rules.read_text() + "\n# a changed rule\n")
    assert version.digest_of(copy) != version.code_digest()


def test_every_core_module_ingest_imports_is_in_the_digest_or_named_as_not_shaping():
    code = ("import sys, json; import core.ingest.pipeline, core.ingest.pdf, core.refine.rules, core.ingest.images, "
            "core.ingest.ocr, core.batch.ingest; print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() "
            "if n.startswith('core') and getattr(m, '__file__', None))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                                       check=True).stdout)
    shaping = {p.resolve() for p in version.shaping_files()}
    others = [Path(f).resolve() for f in loaded if Path(f).resolve() not in shaping]
    unnamed = [str(p.relative_to(version.CORE)) for p in others if not version.named_not_shaping(p)]
    assert unnamed == [], "add these to SHAPING_MODULES or NOT_SHAPING in core/ingest/version.py"


def test_a_parse_made_by_older_code_is_parsed_again_and_then_served(workspace):
    data = report()
    first = ingest_bytes(workspace, data, "規程.pdf", engine="fast")
    good = workspace.load_machine_document(first.record.doc_id)
    store_as_older_parse(workspace, first.record.doc_id, broken="この規程は�経費の精算について定める。")
    assert is_stale(workspace, workspace.document(first.record.doc_id))

    again = ingest_bytes(workspace, data, "規程.pdf", engine="fast")
    assert again.created and again.replaced_version == OLD
    assert workspace.load_machine_document(first.record.doc_id).pages == good.pages
    assert workspace.machine_version(first.record.doc_id, "fast") == engine_version("fast")
    assert not is_stale(workspace, workspace.document(first.record.doc_id))
    third = ingest_bytes(workspace, data, "規程.pdf", engine="fast")
    assert not third.created and third.replaced_version == ""


def test_a_correction_made_on_the_older_parse_follows_the_new_element(workspace):
    data = report()
    doc_id = ingest_bytes(workspace, data, "規程.pdf", engine="fast").record.doc_id
    broken = "この規程は、役員及び従業員が業務のために立て替えた経費の精算について定め�。"
    old = store_as_older_parse(workspace, doc_id, broken=broken)
    damaged = next(e for e in old.elements() if e.text == broken)
    record_events(workspace, doc_id, [{"kind": "relabel", "target": damaged.id, "category": "footnote"}], "hanako")

    assert parse_again(workspace, doc_id).replaced_version == OLD
    doc = corrected_document(workspace, doc_id)
    assert damaged.id not in {e.id for e in doc.elements()}
    fixed = next(e for e in doc.elements() if e.text.startswith("この規程は"))
    assert "�" not in fixed.text and fixed.category == Category.FOOTNOTE


def test_parse_again_does_nothing_to_a_current_parse(workspace):
    doc_id = ingest_bytes(workspace, report(), "規程.pdf", engine="fast").record.doc_id
    before = workspace.document(doc_id).updated_at
    result = parse_again(workspace, doc_id)
    assert not result.created and workspace.document(doc_id).updated_at == before


def test_an_image_upload_cannot_be_parsed_again_from_the_pdf_made_of_it(workspace):
    pymupdf = pytest.importorskip("pymupdf")
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 100), False)
    pix.clear_with(255)
    doc_id = ingest_bytes(workspace, pix.tobytes("png"), "scan.png", engine="fast").record.doc_id
    store_as_older_parse(workspace, doc_id)
    with pytest.raises(NotReparsable, match="upload the file again"):
        parse_again(workspace, doc_id)
    assert workspace.machine_version(doc_id, "fast") == OLD  # nothing was written


def test_an_imported_parser_output_is_never_stale(workspace):
    doc_id = ingest_bytes(workspace, report(), "規程.pdf", engine="fast").record.doc_id
    record = workspace.document(doc_id)
    assert not is_stale(workspace, replace(record, engine="docling"))
