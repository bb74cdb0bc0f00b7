"""Vertical writing on scanned pages (core.ingest.ocr_vertical and the column text layer of
core.ingest.ocr). The OCR tests run Tesseract for real on a small built tategaki page; they skip,
saying why, where Tesseract's jpn or jpn_vert data is absent (CI installs both)."""
from __future__ import annotations

import os
import unicodedata
from difflib import SequenceMatcher
from pathlib import Path

import pymupdf
import pytest

from core.ingest.ocr import OcrSettings, OcrWord, find_tessdata, write_text_layer
from core.ingest.ocr_vertical import (
    calls_for_vertical, column_lines, reading_score, vertical_install_hint, vertical_language,
)
from core.ingest.pipeline import ingest_bytes
from scan_builders import scanned_pdf, tategaki_pdf

TEXT = "縦書きの申請書を読み取ります経費の精算は月末までに提出してください領収書を必ず添付すること"


def flat(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def tategaki_scan() -> bytes:
    return scanned_pdf(tategaki_pdf(TEXT, size=16, per_column=12, width=420, height=595))


@pytest.fixture
def vertical_tessdata():
    folder, why = find_tessdata(OcrSettings.from_env())
    if folder is not None and not (Path(folder) / "jpn_vert.traineddata").is_file():
        folder, why = None, "jpn_vert.traineddata is not installed (tesseract-ocr-jpn-vert)"
    if folder is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but Tesseract's vertical language data is absent: {why}")
        pytest.skip(f"Tesseract language data absent: {why}")
    return folder


def row(box, text, line, conf=0.9):
    return (box, conf, text, (1, 1, line))


def test_lines_much_taller_than_wide_are_columns_and_enough_of_them_call_for_the_vertical_model():
    columns = [row((100 - 20 * i, 10, 112 - 20 * i, 130), "縦書きの文字列です", i) for i in range(3)]
    across = [row((10, 200 + 15 * i, 300, 212 + 15 * i), "横書きの本文が続きます", 10 + i) for i in range(20)]
    single = [row((10, 500, 22, 540), "一", 40)]  # one character: its box says nothing of direction
    assert column_lines(columns + across + single) == {(1, 1, 0), (1, 1, 1), (1, 1, 2)}
    assert calls_for_vertical(columns + across)  # 27 characters in columns, 12 % of the page
    assert not calls_for_vertical(columns[:1] + across)  # 9 in columns: a stray box
    assert not calls_for_vertical(across + single)


def test_the_vertical_model_is_added_only_where_it_is_installed(tmp_path):
    (tmp_path / "jpn.traineddata").write_bytes(b"")
    assert vertical_language("jpn+eng", str(tmp_path)) is None
    (tmp_path / "jpn_vert.traineddata").write_bytes(b"")
    assert vertical_language("jpn+eng", str(tmp_path)) == "jpn+eng+jpn_vert"
    assert vertical_language("jpn+jpn_vert", str(tmp_path)) is None  # already asked for


def test_the_install_hint_names_the_vertical_package_of_each_language_asked_for():
    assert vertical_install_hint("jpn") == "vertical writing found: install tesseract-ocr-jpn-vert to read it"
    assert vertical_install_hint("chi_tra+eng") == (
        "vertical writing found: install tesseract-ocr-chi-tra-vert to read it")
    assert vertical_install_hint("jpn+kor") == (
        "vertical writing found: install tesseract-ocr-jpn-vert and tesseract-ocr-kor-vert to read it")
    assert vertical_install_hint("eng") == "vertical writing found: Tesseract has no vertical model for eng"


def test_a_confident_reading_scores_over_a_garbage_one_of_the_same_length():
    garbage = [row((0, 0, 10, 100), "でンつりこの忠除", 0, conf=0.26)]
    right = [row((0, 0, 10, 100), "わたくしといふ現", 0, conf=0.89)]
    assert reading_score(right) > reading_score(garbage)


def test_a_column_of_ocr_words_is_written_as_one_vertical_line_read_top_to_bottom():
    page = pymupdf.open().new_page(width=300, height=400)
    words = [OcrWord((200.0, 50.0, 212.0, 118.0), "縦書きの文", 0, 0.9, vertical=True),
             OcrWord((200.0, 118.0, 212.0, 145.0), "字列", 0, 0.9, vertical=True),
             OcrWord((180.0, 50.0, 192.0, 86.0), "二行目", 1, 0.9, vertical=True)]
    write_text_layer(page, words)
    lines = [ln for b in page.get_text("dict")["blocks"] for ln in b.get("lines", ())]
    assert [("".join(s["text"] for s in ln["spans"]), ln["dir"]) for ln in lines] == [
        ("縦書きの文字列", (0.0, 1.0)), ("二行目", (0.0, 1.0))]
    first = lines[0]["bbox"]
    assert 196 <= first[0] and first[2] <= 216 and abs(first[1] - 50) <= 2  # over the column's ink


def test_a_scanned_tategaki_page_is_read_with_the_vertical_model_in_columns(workspace, vertical_tessdata):
    result = ingest_bytes(workspace, tategaki_scan(), "tategaki.pdf", engine="fast")
    page = workspace.load_machine_document(result.record.doc_id, "fast").pages[0]
    assert "(the tesseract command; jpn+jpn_vert, 300 dpi)" in page.notice
    texts = [e for e in page.elements if e.text.strip()]
    assert texts and all(e.attr("vertical") for e in texts)
    read = flat("".join(e.text for e in texts))
    # columns in order, right to left; a character or two misread (縦 → 終 here) is OCR's lot
    assert SequenceMatcher(None, read, TEXT).ratio() >= 0.9
    for phrase in ("書きの申請書", "経費の精算", "月末までに提出", "添付すること"):
        assert phrase in read
    stored = pymupdf.open(workspace.pdf_path(result.record.sha256))[0]
    lines = [ln for b in stored.get_text("dict")["blocks"] for ln in b.get("lines", ())]
    assert lines and all(ln["dir"] == (0.0, 1.0) for ln in lines)


def test_without_the_vertical_model_a_tategaki_scan_says_what_to_install(workspace, vertical_tessdata,
                                                                         tmp_path, monkeypatch):
    for name in ("jpn.traineddata", "eng.traineddata", "osd.traineddata", "configs", "tessconfigs"):
        if (Path(vertical_tessdata) / name).exists():  # configs: the `tsv` output is one
            (tmp_path / name).symlink_to(Path(vertical_tessdata) / name)
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    result = ingest_bytes(workspace, tategaki_scan(), "tategaki.pdf", engine="fast")
    page = workspace.load_machine_document(result.record.doc_id, "fast").pages[0]
    assert "(the tesseract command; jpn, 300 dpi)" in page.notice
    assert page.notice.endswith("; vertical writing found: install tesseract-ocr-jpn-vert to read it")


def test_the_vertical_reading_can_be_switched_off(workspace, vertical_tessdata, monkeypatch):
    monkeypatch.setenv("RLI_OCR_VERTICAL", "0")
    result = ingest_bytes(workspace, tategaki_scan(), "tategaki.pdf", engine="fast")
    page = workspace.load_machine_document(result.record.doc_id, "fast").pages[0]
    assert "(the tesseract command; jpn, 300 dpi)" in page.notice and "vertical writing" not in page.notice
