"""Figure/table crops: the region at 2× with its caption above and footnotes below, stored by a
deterministic key, named by chunk metadata as `image_ref`."""
from __future__ import annotations

import io
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from core.categories import Category
from core.chunks.crops import ZOOM, attach_crops, crop_plan, crop_ref_for, ensure_crops, with_image_refs
from core.model import Document, Element, Page, element_id
from core.store.records import doc_id_for, sha256_of
from core.store.workspace import Workspace
from core.store.opening import open_workspace
from apptest_helpers import sample_workspace  # noqa: F401,E402  (a fixture)

C = Category
FIGURE = (100.0, 200.0, 300.0, 300.0)  # a filled red rectangle
CAPTION = (100.0, 310.0, 300.0, 324.0)
FOOTNOTE = (100.0, 330.0, 300.0, 342.0)
RED = (255, 0, 0)


def figure_pdf() -> bytes:
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    page.draw_rect(pymupdf.Rect(*FIGURE), color=(1, 0, 0), fill=(1, 0, 0))
    page.insert_text((102, 320), "図1 申請の流れ", fontname="japan", fontsize=10)
    page.insert_text((102, 340), "※1 概略図", fontname="japan", fontsize=8)
    return pdf.tobytes()


def stored_document(tmp_path, link=True) -> tuple[Workspace, Document]:
    ws = open_workspace(tmp_path)
    data = figure_pdf()
    sha = sha256_of(data)
    doc_id = doc_id_for(sha)
    picture = Element(element_id(doc_id, 1, FIGURE, "", "p"), 1, 0, C.PICTURE, FIGURE, "", "test")
    caption = Element(element_id(doc_id, 1, CAPTION, "図1", "c"), 1, 1, C.CAPTION, CAPTION, "図1 申請の流れ", "test",
                      links=(picture.id,) if link else ())
    note = Element(element_id(doc_id, 1, FOOTNOTE, "※1", "f"), 1, 2, C.FOOTNOTE, FOOTNOTE, "※1 概略図", "test",
                   links=(picture.id,) if link else ())
    doc = Document(doc_id, "figure.pdf", sha, "fast", (Page(1, 595, 842, elements=(picture, caption, note)),))
    ws.store_pdf(sha, data)
    ws.save_machine_document(doc, len(data))
    return ws, doc


def png_of(ws, ref) -> Image.Image:
    data, mime = ws.get_blob(ref)
    assert mime == "image/png"
    return Image.open(io.BytesIO(data)).convert("RGB")


def test_a_crop_is_the_region_at_2x_with_its_caption_strip_above_and_footnote_below(tmp_path):
    ws, doc = stored_document(tmp_path)
    picture = doc.page(1).elements[0]
    refs = ensure_crops(ws, doc, attachments=())
    image = png_of(ws, refs[picture.id])
    region_px = lambda box: ((box[2] - box[0] + 4) * ZOOM, (box[3] - box[1] + 4) * ZOOM)  # 2 pt padding
    assert image.width == round(region_px(FIGURE)[0])
    caption_h, figure_h, note_h = (round(region_px(b)[1]) for b in (CAPTION, FIGURE, FOOTNOTE))
    assert image.height == caption_h + figure_h + note_h + 2 * 8
    # the caption strip is on top (dark text on white, no red), then the red figure, then the footnote
    top = image.crop((0, 0, image.width, caption_h))
    middle = image.crop((0, caption_h + 8, image.width, caption_h + 8 + figure_h))
    bottom = image.crop((0, image.height - note_h, image.width, image.height))
    assert RED not in top.getdata() and min(top.getdata()) < (100, 100, 100)
    assert middle.getpixel((middle.width // 2, middle.height // 2)) == RED
    assert RED not in bottom.getdata() and min(bottom.getdata()) < (100, 100, 100)


def test_the_caption_strip_is_the_captions_own_pdf_region(tmp_path):
    ws, doc = stored_document(tmp_path)
    image = png_of(ws, ensure_crops(ws, doc, attachments=())[doc.page(1).elements[0].id])
    page = pymupdf.open(stream=figure_pdf(), filetype="pdf")[0]
    clip = pymupdf.Rect(CAPTION[0] - 2, CAPTION[1] - 2, CAPTION[2] + 2, CAPTION[3] + 2)
    pix = page.get_pixmap(matrix=pymupdf.Matrix(ZOOM, ZOOM), clip=clip, alpha=False)
    expected = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    assert list(image.crop((0, 0, pix.width, pix.height)).getdata()) == list(expected.getdata())


def test_keys_are_deterministic_and_change_with_the_box_or_what_is_attached(tmp_path):
    ws, doc = stored_document(tmp_path)
    picture, caption, _ = doc.page(1).elements
    key = crop_ref_for(doc.doc_id, picture, [caption])
    assert key == crop_ref_for(doc.doc_id, picture, [caption]) and key.startswith(f"crop/{doc.doc_id}/{picture.id}")
    moved = Element(picture.id, 1, 0, C.PICTURE, (100, 200, 320, 300), "", "test")
    assert crop_ref_for(doc.doc_id, moved, [caption]) != key
    assert crop_ref_for(doc.doc_id, picture, []) != key
    first = ensure_crops(ws, doc, attachments=())
    assert ensure_crops(ws, doc, attachments=()) == first


def test_captions_attached_by_the_chunking_policy_are_drawn_when_nothing_is_linked(tmp_path):
    ws, doc = stored_document(tmp_path, link=False)
    picture, caption, note = doc.page(1).elements
    assert crop_plan(doc)[picture.id].captions == ()
    plan = crop_plan(doc, [(caption.id, picture.id), (note.id, picture.id)])[picture.id]
    assert (plan.captions, plan.footnotes) == ((caption,), (note,))
    refs = ensure_crops(ws, doc)  # default: the default policy's attachments
    assert refs[picture.id] == crop_ref_for(doc.doc_id, picture, [caption, note])


def test_chunk_metadata_names_the_crop_as_image_ref(tmp_path):
    from core.chunks.chunking import build_chunks

    ws, doc = stored_document(tmp_path)
    with_refs = attach_crops(ws, doc)
    picture = with_refs.page(1).elements[0]
    assert picture.attr("image_ref") and ws.get_blob(picture.attr("image_ref")) is not None
    records = [c.to_record()["metadata"] for c in build_chunks(with_refs, "default")]
    assert any(m.get("image_ref") == picture.attr("image_ref") for m in records)


def test_no_pdf_means_no_crops(tmp_path):
    from core.ingest.importers import import_file
    from tests.importer_support import FIXTURES

    ws = open_workspace(tmp_path)
    doc = import_file(ws, FIXTURES / "docling_small.json", "docling").document
    assert ensure_crops(ws, doc) == {} and with_image_refs(doc, {}) is doc


def test_sample_tables_and_figures_crop_with_their_captions(tmp_path):
    pdf = Path(__file__).resolve().parents[2] / "sample_docs" / "keihi_seisan_kitei.pdf"
    if not pdf.exists():
        pytest.skip("sample_docs/keihi_seisan_kitei.pdf is not generated")
    from core.chunks.crops import policy_attachments
    from core.ingest.pipeline import ingest_path

    ws = open_workspace(tmp_path)
    doc = ws.load_machine_document(ingest_path(ws, pdf, engine="fast").record.doc_id, "fast")
    plans = crop_plan(doc, policy_attachments(doc))
    captions = sorted(c.text.split()[0][:2] for p in plans.values() for c in p.captions)
    assert {"表1", "表2", "図1"} <= set(captions)
    refs = ensure_crops(ws, doc)
    assert len(refs) == len(plans) and all(ws.get_blob(r) for r in refs.values())


def test_chunks_page_shows_crops_to_view_and_download(sample_workspace):
    from apptest_helpers import open_page

    at = open_page("pages/chunks.py", sample_workspace, doc="keihi_seisan_kitei.pdf")
    assert not any(b.key.startswith("rli:crops:") for b in at.get("download_button"))
    at.toggle(key="rli:crops:show").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    pngs = [b for b in at.get("download_button") if b.key and b.key.startswith("rli:crops:")]
    assert len(pngs) >= 4 and any(b.key == "rli:crops:zip" for b in pngs)
    images = [n for n in _walk(at.main) if getattr(n, "type", None) == "image"]
    assert len(images) >= len(pngs) - 1  # one image per crop (the zip button has none)


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)
