"""Bad input: each unusable file gets a message saying what is wrong and what to do, and the
workspace is left exactly as it was (database rows and stored PDFs)."""
from __future__ import annotations

import pymupdf
import pytest

from core.errors import (BadInput, CorruptPdf, EmptyFile, FileTooLarge, NotAPdf, PasswordRequired,
                         WrongPassword)
from core.ingest.pipeline import DEFAULT_MAX_BYTES, configured_max_bytes, ingest_bytes, ingest_path
from pdf_builders import build_pdf, paragraph
from store_backends import table_rows


def good_pdf() -> bytes:
    return build_pdf(lambda p: paragraph(p, 72, 90, ["正常なPDFの本文です。"]),
                     lambda p: paragraph(p, 72, 90, ["二ページ目の本文です。" * 20] * 20))


def snapshot(ws) -> tuple:
    """Everything ingest could touch: every table's rows and the stored files."""
    rows = table_rows(ws)
    files = sorted((p.name, p.stat().st_size) for p in ws.pdf_dir.iterdir())
    return rows, files


@pytest.fixture
def seeded(workspace):
    """A workspace that already holds one document, so 'unchanged' means more than 'empty'."""
    ingest_bytes(workspace, good_pdf(), "existing.pdf", engine="fast")
    return workspace


def assert_refused(ws, error, match, data, **kw):
    before = snapshot(ws)
    with pytest.raises(error, match=match) as caught:
        ingest_bytes(ws, data, kw.pop("filename", "upload.pdf"), engine="fast", **kw)
    assert isinstance(caught.value, BadInput)
    assert snapshot(ws) == before
    return str(caught.value)


def test_zero_byte_file_is_refused_as_empty(seeded):
    message = assert_refused(seeded, EmptyFile, "empty", b"")
    assert "upload.pdf" in message and "choose the PDF" in message


def test_a_file_that_is_not_a_pdf_is_refused(seeded):
    message = assert_refused(seeded, NotAPdf, "not a PDF", "請求書の本文\n".encode() * 50, filename="memo.txt")
    assert "memo.txt" in message and "save it as PDF" in message


def test_an_image_is_read_as_a_one_page_scan_and_a_damaged_one_is_refused(seeded):
    # issue 13: a PNG/JPEG/TIFF becomes one page per image (OCR'd when it is a scan); it was NotAPdf
    from core.ingest.images import CorruptImage

    png = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), 0).tobytes("png")
    assert_refused(seeded, CorruptImage, "scan.png is a damaged or unreadable PNG", png[:40], filename="scan.png")
    assert ingest_bytes(seeded, png, "scan.png", engine="fast").record.page_count == 1


def test_a_truncated_pdf_is_refused_as_damaged(seeded):
    data = good_pdf()
    message = assert_refused(seeded, CorruptPdf, "truncated", data[: len(data) * 2 // 3])
    assert "again" in message


def test_a_pdf_with_a_broken_body_is_refused_as_damaged(seeded):
    assert_refused(seeded, CorruptPdf, "damaged", b"%PDF-1.7\n" + b"\x00garbage" * 200)


def test_a_pdf_without_pages_is_refused(seeded):
    empty_tree = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
                  b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
    assert pymupdf.open(stream=empty_tree).page_count == 0
    assert_refused(seeded, CorruptPdf, "no pages", empty_tree)


@pytest.fixture
def encrypted() -> bytes:
    return pymupdf.open(stream=good_pdf()).tobytes(
        encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="himitsu", owner_pw="owner-pw")


def test_an_encrypted_pdf_without_a_password_asks_for_it(seeded, encrypted):
    message = assert_refused(seeded, PasswordRequired, "encrypted", encrypted, filename="secret.pdf")
    assert message == "secret.pdf is encrypted; give its password (--password / the password box)"


def test_an_encrypted_pdf_with_a_wrong_password_is_refused(seeded, encrypted):
    message = assert_refused(seeded, WrongPassword, "wrong", encrypted, password="guess")
    assert "try again" in message


def test_the_real_encrypted_pdf_needs_its_password(seeded, realdata):
    data = (realdata / "pdfs" / "misc" / "crazyones_encrypted_aes256.pdf").read_bytes()
    assert_refused(seeded, PasswordRequired, "encrypted", data)
    assert_refused(seeded, WrongPassword, "wrong", data, password="Password")


def test_a_file_over_the_size_limit_is_refused_before_parsing(seeded):
    message = assert_refused(seeded, FileTooLarge, "over the", good_pdf(), max_bytes=1000)
    assert "RLI_MAX_UPLOAD_MB" in message


def test_the_size_limit_comes_from_the_environment(monkeypatch, seeded):
    monkeypatch.delenv("RLI_MAX_UPLOAD_MB", raising=False)
    assert configured_max_bytes() == DEFAULT_MAX_BYTES == 200 * 1024 * 1024
    monkeypatch.setenv("RLI_MAX_UPLOAD_MB", "0.001")
    assert configured_max_bytes() == 1048
    assert_refused(seeded, FileTooLarge, "over the 0 MB limit", good_pdf())
    monkeypatch.setenv("RLI_MAX_UPLOAD_MB", "lots")
    with pytest.raises(ValueError, match="'lots'"):
        configured_max_bytes()


def test_a_file_path_over_the_limit_is_refused_without_reading_it(seeded, tmp_path):
    path = tmp_path / "big.pdf"
    path.write_bytes(good_pdf())
    before = snapshot(seeded)
    with pytest.raises(FileTooLarge, match="big.pdf"):
        ingest_path(seeded, path, engine="fast", max_bytes=100)
    assert snapshot(seeded) == before
