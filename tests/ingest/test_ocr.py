"""Scanned pages (core.ingest.ocr, core.ingest.scan_marks) and images as input (core.ingest.images).

The OCR tests run Tesseract for real on one small page (A6, scanned at 200 dpi, read at the default 300) and skip, saying why, where
the Tesseract language data is absent; CI installs it (scripts/system_packages.sh)."""
from __future__ import annotations

import io
import os
import struct
import time
import unicodedata
import zlib
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from core.categories import Category
from core.cli import main
from core.errors import FileTooLarge
from core.ingest.images import CorruptImage, image_to_pdf
import core.ingest.ocr as ocr_module
from core.ingest.ocr import OcrSettings, capped_dpi, find_tessdata, is_scanned, ocr_pages, usable_chars
from core.ingest.pipeline import ingest_bytes
from scan_builders import scanned_page_png, scanned_pdf

SAMPLE_DOCS = Path(__file__).resolve().parents[2] / "sample_docs"  # not `from conftest`: several conftest modules share that name


def small_form_pdf() -> bytes:
    """An A6 page: a heading, two label/value lines, a ticked and an empty check box with labels."""
    doc = pymupdf.open()
    page = doc.new_page(width=298, height=420)
    page.insert_text((40, 60), "経費精算申請書", fontname="japan", fontsize=18)
    page.insert_text((40, 110), "氏名　山田太郎", fontname="japan", fontsize=12)
    page.insert_text((40, 140), "交通費　12,000円", fontname="japan", fontsize=12)
    shape = page.new_shape()
    for y in (180, 210):
        shape.draw_rect(pymupdf.Rect(40, y, 50, y + 10))
    shape.finish(color=(0, 0, 0), width=0.8)
    shape.draw_polyline([(42, 185), (45, 188), (49, 181)])  # the tick in the first box
    shape.finish(color=(0, 0, 0), width=1.2)
    shape.commit()
    page.insert_text((56, 189), "会議費", fontname="japan", fontsize=11)
    page.insert_text((56, 219), "交際費", fontname="japan", fontsize=11)
    return doc.tobytes()


def flat(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


@pytest.fixture
def tesseract():
    folder, why = find_tessdata(OcrSettings.from_env())
    if folder is None:
        if os.environ.get("CI"):  # .ci/run installs it (scripts/system_packages.sh): OCR must run there
            pytest.fail(f"CI is set but Tesseract's language data is absent: {why}")
        pytest.skip(f"Tesseract language data absent: {why}")
    return folder


def test_usable_characters_leave_out_whitespace_replacement_and_control_characters():
    assert usable_chars(" \u3000\ufffd\x07\ue000\n") == 0
    assert usable_chars("経費 a1") == 4


def test_a_born_digital_page_is_not_scanned_and_its_scanned_copy_is():
    born = (SAMPLE_DOCS / "keihi_seisan_kitei.pdf").read_bytes()
    assert not is_scanned(pymupdf.open(stream=born, filetype="pdf")[1])
    scan = pymupdf.open(stream=scanned_pdf(born, [1]), filetype="pdf")
    assert is_scanned(scan[0])


def test_the_render_resolution_is_capped_by_the_pixel_limit():
    a4 = pymupdf.Rect(0, 0, 595, 842)
    assert capped_dpi(a4, 300, 40_000_000) == 300
    dpi = capped_dpi(a4, 300, 4_000_000)
    assert dpi < 300 and (595 * dpi / 72) * (842 * dpi / 72) <= 4_000_000


def test_a_scanned_page_without_ocr_data_says_what_to_install(workspace, monkeypatch):
    monkeypatch.setenv("RLI_OCR_LANG", "zzz_missing")
    result = ingest_bytes(workspace, scanned_pdf(small_form_pdf()), "scan.pdf", engine="fast")
    page = workspace.load_machine_document(result.record.doc_id, "fast").pages[0]
    assert page.notice.startswith("scanned page, no OCR available: install tesseract-ocr")
    assert [e.category for e in page.elements] == [Category.PICTURE]


def test_ocr_that_hangs_falls_back_to_the_picture_with_a_notice(workspace, monkeypatch, tesseract):
    monkeypatch.setenv("RLI_OCR_TIMEOUT", "0.01")
    result = ingest_bytes(workspace, scanned_pdf(small_form_pdf()), "scan.pdf", engine="fast")
    page = workspace.load_machine_document(result.record.doc_id, "fast").pages[0]
    assert page.notice.startswith("scanned page, OCR failed (no answer within 0.01 s)")
    assert [e.category for e in page.elements] == [Category.PICTURE]


def test_a_scanned_png_is_read_with_its_text_and_check_box_states(workspace, tesseract, tmp_path, capsys):
    png = scanned_page_png(pymupdf.open(stream=small_form_pdf(), filetype="pdf")[0])
    path = tmp_path / "form.png"
    path.write_bytes(png)
    assert main(["ingest", str(path), "--engine", "fast", "--workspace", str(workspace.root)]) == 0
    err = capsys.readouterr().err
    assert "form.png page 1: scanned page, OCR'd with Tesseract (the tesseract command; jpn, 300 dpi)" in err
    doc = workspace.load_machine_document(workspace.documents()[0].doc_id, "fast")
    page = doc.pages[0]
    text = flat(" ".join(e.text for e in page.elements))
    for expected in ("山田太郎", "交通費", "12,000円"):
        assert expected in text
    assert all(e.attr("ocr", "").startswith("Tesseract (the tesseract command") for e in page.elements if e.text)
    name = next(e for e in page.elements if "山田" in e.text)
    assert 0.5 <= name.attr("ocr_confidence") <= 1.0  # Tesseract's own confidence for the words
    assert "mean confidence 0." in page.notice
    marks = sorted((e for e in page.elements if e.category is Category.SELECTION_MARK), key=lambda e: e.bbox[1])
    assert [m.state for m in marks] == ["selected", "unselected"]
    assert abs(marks[0].bbox[1] - 180) < 4 and abs(marks[1].bbox[1] - 210) < 4


def test_the_layout_engine_reads_the_ocr_text_layer(workspace, tesseract):
    result = ingest_bytes(workspace, scanned_pdf(small_form_pdf()), "scan.pdf", engine="layout")
    page = workspace.load_machine_document(result.record.doc_id, "layout").pages[0]
    assert page.notice.startswith("scanned page, OCR'd with Tesseract (the tesseract command")
    assert "山田太郎" in flat(" ".join(e.text for e in page.elements))
    stored = pymupdf.open(workspace.pdf_path(result.record.sha256))
    assert "山田太郎" in flat(stored[0].get_text())  # the text layer is in the stored PDF: box text works


def test_without_the_tesseract_command_pymupdfs_own_ocr_reads_the_page(workspace, tesseract, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")  # the OCR child finds no `tesseract` command
    result = ingest_bytes(workspace, scanned_pdf(small_form_pdf()), "scan.pdf", engine="fast")
    page = workspace.load_machine_document(result.record.doc_id, "fast").pages[0]
    assert page.notice.startswith(f"scanned page, OCR'd with Tesseract (PyMuPDF {pymupdf.VersionBind}; jpn, 300 dpi)")
    assert "mean confidence" not in page.notice  # MuPDF's OCR writer keeps no confidences
    text = flat(" ".join(e.text for e in page.elements))
    for expected in ("経費精算申請書", "氏名", "12,000円"):  # it reads 山田太郎 as 山田大朗 at this size
        assert expected in text


def test_a_corrupt_image_is_refused_with_a_message_and_nothing_is_stored(workspace):
    png = scanned_page_png(pymupdf.open(stream=small_form_pdf(), filetype="pdf")[0])
    with pytest.raises(CorruptImage, match="form.png is a damaged or unreadable PNG"):
        ingest_bytes(workspace, png[:400], "form.png", engine="fast")
    assert workspace.documents() == []


def _png_header(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))


def test_an_image_over_the_pixel_limit_is_refused_before_it_is_decoded():
    with pytest.raises(FileTooLarge, match=r"huge.png is too large an image to read \(Image size \(900000000 pixels\)"):
        image_to_pdf(_png_header(30000, 30000), "huge.png")


def test_a_large_image_is_downscaled_with_a_notice_and_a_tiff_gives_one_page_per_frame():
    buf = io.BytesIO()
    frames = [Image.new("L", (400, 300), 255), Image.new("L", (200, 100), 0)]
    frames[0].save(buf, format="TIFF", save_all=True, append_images=frames[1:], dpi=(100, 100))
    converted = image_to_pdf(buf.getvalue(), "two.tif", max_pixels=60_000)
    pdf = pymupdf.open(stream=converted.pdf_bytes, filetype="pdf")
    assert pdf.page_count == 2
    assert (round(pdf[0].rect.width), round(pdf[0].rect.height)) == (288, 216)  # 400×300 px at 100 dpi
    assert converted.notices == {1: "image downscaled from 400×300 to 282×212 pixels (over 60,000 pixels)"}


def test_scanned_pages_are_read_two_at_a_time_with_the_same_words_as_one_at_a_time(tesseract, monkeypatch):
    """OCR is the slow part of a scanned file: its pages go to Tesseract in parallel, one child per
    page, and what comes back does not depend on how many ran at once."""
    two_pages = pymupdf.open()
    for text in ("第一条　経費の精算", "第二条　交通費の上限"):
        page = two_pages.new_page(width=298, height=200)
        page.insert_text((30, 80), text, fontname="japan", fontsize=16)
    scan = pymupdf.open(stream=scanned_pdf(two_pages.tobytes()), filetype="pdf")
    settings = replace(OcrSettings.from_env(), dpi=200)
    monkeypatch.setenv("RLI_OCR_WORKERS", "1")
    serial = ocr_pages(scan, [0, 1], settings, tesseract)
    monkeypatch.setenv("RLI_OCR_WORKERS", "2")
    started: list[float] = []
    real_run = ocr_module.run_ocr_bytes

    def timed_run(*args):
        started.append(time.monotonic())
        return real_run(*args)

    monkeypatch.setattr(ocr_module, "run_ocr_bytes", timed_run)
    both = ocr_pages(scan, [0, 1], settings, tesseract)
    assert [w.text for w in both[0].words] == [w.text for w in serial[0].words]
    assert [w.text for w in both[1].words] == [w.text for w in serial[1].words]
    assert "交通費" in flat("".join(w.text for w in both[1].words))
    assert len(started) == 2 and abs(started[1] - started[0]) < 1.0  # the second did not wait for the first


def test_a_blank_scan_is_read_once_by_the_tesseract_command(workspace, tesseract):
    """Failed before: Tesseract finding no word on a page was taken for a missing command, and the
    page was OCR'd a second time by MuPDF (whose notice then named PyMuPDF)."""
    blank = pymupdf.open()
    blank.new_page(width=300, height=300)
    result = ingest_bytes(workspace, scanned_pdf(blank.tobytes()), "blank.pdf", engine="fast")
    page = workspace.load_machine_document(result.record.doc_id, "fast").pages[0]
    assert page.notice.startswith("scanned page, OCR'd with Tesseract (the tesseract command")
    assert "0 words" in page.notice


def test_a_scanned_logo_is_a_decorative_picture_not_text(workspace, tesseract):
    """A solid logo in a page header: Tesseract read it as kanji (了区, 問); it is erased before OCR
    and put back as an image crop: a picture, as on the born-digital page (on an A4 page, or
    repeated on three pages, the refine rules call it decorative)."""
    doc = pymupdf.open()
    page = doc.new_page(width=298, height=420)
    page.draw_rect(pymupdf.Rect(250, 20, 264, 34), color=None, fill=(0.2, 0.35, 0.65))
    page.draw_line((250, 34), (264, 20), color=(1, 1, 1), width=1.5)
    page.insert_text((40, 32), "経費精算規程　社内限", fontname="japan", fontsize=9)
    page.insert_text((40, 110), "氏名　山田太郎", fontname="japan", fontsize=12)
    result = ingest_bytes(workspace, scanned_pdf(doc.tobytes()), "logo.pdf", engine="fast")
    page = workspace.load_machine_document(result.record.doc_id, "fast").pages[0]
    logo = [e for e in page.elements if e.bbox[0] > 245 and e.bbox[3] < 40]
    assert [(e.category, e.text, e.attr("kind")) for e in logo] == [(Category.PICTURE, "", "image")]
    assert "山田太郎" in flat(" ".join(e.text for e in page.elements))


def gray_at_300_dpi(page):
    """The page as the OCR pass sees it: 8-bit gray pixels at 300 dpi, and the zoom to them."""
    import numpy as np

    pix = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
    return np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width).copy(), 300 / 72


def test_a_line_the_page_pass_dropped_is_read_by_the_second_look(tesseract):
    from core.ingest.ocr_second_look import second_look_rows

    doc = pymupdf.open()
    page = doc.new_page(width=298, height=120)
    page.insert_text((30, 40), "目次", fontname="japan", fontsize=13)
    page.insert_text((30, 80), "本規程は経費の精算について定める。", fontname="japan", fontsize=10)
    gray, zoom = gray_at_300_dpi(page)
    read = [((int(28 * zoom), int(71 * zoom), int(190 * zoom), int(82 * zoom)), 0.9, "本規程は経費の精算について定める。", (1, 1, 1))]
    rows = second_look_rows(gray, read, zoom, "jpn", 300, tesseract, 60)
    assert "目次" in "".join(text for _, _, text, _ in rows)
    (x0, y0, x1, y1), *_ = rows[0]
    assert 25 * zoom <= x0 and y1 <= 45 * zoom  # in page pixels, where the heading is


def test_a_doubtful_word_is_read_again_alone_and_a_sure_one_is_left_as_read(tesseract):
    from core.ingest.ocr_second_look import reread_doubtful

    # on the scanned 申請書 the page pass read the 梅 of 梅田 as 板 with confidence 0.0; read
    # alone it is 梅 at 0.92. A sure word is never read again, even when its text is wrong here
    doc = pymupdf.open()
    page = doc.new_page(width=298, height=120)
    page.insert_text((30, 60), "大阪市北区梅田", fontname="japan", fontsize=12)
    chars = {ch["c"]: ch["bbox"] for block in page.get_text("rawdict")["blocks"] for line in block["lines"]
             for span in line["spans"] for ch in span["chars"]}
    gray, zoom = gray_at_300_dpi(page)
    box = lambda c: tuple(v * zoom for v in chars[c])  # noqa: E731
    rows = [(box("梅"), 0.0, "板", (1, 1, 1)), (box("田"), 0.95, "由", (1, 1, 1)), (box("区"), 0.1, "区区", (1, 1, 1))]
    again = reread_doubtful(gray, rows, "jpn", 300, tesseract, 60)
    assert [text for _, _, text, _ in again] == ["梅", "由", "区区"]
    assert again[0][1] >= 0.6 and again[0][0] == rows[0][0] and again[1:] == rows[1:]


def test_a_latin_word_the_jpn_model_doubted_is_read_again_with_the_english_model(tesseract):
    from core.ingest.ocr_second_look import reread_doubtful

    # the jpn model read the scanned 申請書's mail address as "…example.cOo.jD" at 0.4; a Japanese
    # word as unsure is not Latin and stays as read
    doc = pymupdf.open()
    page = doc.new_page(width=298, height=120)
    page.insert_text((30, 40), "taro.yamada@example.co.jp", fontname="helv", fontsize=11)
    page.insert_text((30, 80), "経費精算", fontname="japan", fontsize=11)
    gray, zoom = gray_at_300_dpi(page)
    boxes = [tuple(v * zoom for v in line["bbox"]) for block in page.get_text("dict")["blocks"] for line in block["lines"]]
    rows = [(boxes[0], 0.4, "taro.yamada@example.cOo.jD", (1, 1, 1)), (boxes[1], 0.4, "経費精箕", (1, 1, 2))]
    again = reread_doubtful(gray, rows, "jpn", 300, tesseract, 60)
    assert [text for _, _, text, _ in again] == ["taro.yamada@example.co.jp", "経費精箕"]
    assert again[0][1] >= 0.6
