"""AppTest: the Documents page (upload, list, open, delete) and the app's navigation."""
from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from apptest_helpers import (  # noqa: F401  (fixtures are used by name)
                             REPO, SAMPLE_DOCS, app_test, empty_workspace, open_page, sample_workspace, texts,
                             )
from core.store.opening import open_workspace

# Every page app.py registers, read from app.py itself so a new page is covered without editing this.
PAGES = tuple(dict.fromkeys(re.findall(r'st\.Page\("(pages/[a-z_]+\.py)"', (REPO / "app.py").read_text("utf-8"))))


def small_pdf(text: str = "申請書 テスト", **save_options) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 100), text, fontname="japan", fontsize=14)
    return doc.tobytes(**save_options)


def encrypted_pdf(password: str) -> bytes:
    return small_pdf("暗号化された文書", encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=password, owner_pw="owner-" + password)


def workspace_state(root: Path) -> tuple[list[str], list[str]]:
    ws = open_workspace(root)
    try:
        return [r.doc_id for r in ws.documents()], sorted(p.name for p in ws.pdf_dir.iterdir())
    finally:
        ws.close()


def upload(at, *files: tuple[str, bytes], engine: str = "fast", password: str | None = None):
    at.file_uploader(key="rli:uploader").set_value([(name, data, "application/pdf") for name, data in files])
    at.radio(key="rli:engine").set_value(engine)
    at.run()  # as in the browser: choosing files reruns the page, which enables the button
    if password is not None:
        at.text_input(key="rli:pdf_password").input(password)
    return at.button(key="rli:ingest").click().run()


# ---- navigation ---------------------------------------------------------------------------------
def test_every_page_of_the_navigation_opens_without_an_error(sample_workspace):
    at = app_test(sample_workspace).run()
    assert not at.exception
    assert {"pages/documents.py", "pages/inspect.py"} <= set(PAGES) and len(PAGES) >= 7
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])


def test_sidebar_picker_lists_the_documents_and_switches_the_current_one(sample_workspace):
    at = app_test(sample_workspace).run()
    picker = at.sidebar.selectbox(key="rli:doc_picker")
    assert len(picker.options) == len(list(SAMPLE_DOCS.glob("*.pdf")))
    form = next(option for option in picker.options if option.startswith("shinseisho_form.pdf"))
    picker.select(form).run()
    assert "shinseisho\\_form\\.pdf" in texts(at)


def test_reviewer_name_is_kept_for_the_session(sample_workspace):
    at = app_test(sample_workspace).run()
    at.sidebar.text_input(key="rli:reviewer_box").input("  佐藤  ").run()
    at.switch_page("pages/documents.py").run()
    assert at.session_state["rli:reviewer"] == "佐藤"
    assert at.sidebar.text_input(key="rli:reviewer_box").value.strip() == "佐藤"


# ---- list, open, delete -------------------------------------------------------------------------
def test_documents_page_lists_every_document_with_pages_and_engine(sample_workspace):
    at = open_page("pages/documents.py", sample_workspace)
    table = at.dataframe[0].value
    assert sorted(table["source"]) == sorted(p.name for p in SAMPLE_DOCS.glob("*.pdf"))
    assert set(table["engine"]) == {"fast"}
    assert (table["pages"] >= 1).all()
    assert set(table["review status"]) == {"unreviewed"}


def test_open_in_inspect_switches_to_the_chosen_document(sample_workspace):
    at = open_page("pages/documents.py", sample_workspace, doc="spread_a3.pdf")
    at.button(key="rli:open").click().run()
    assert not at.exception
    assert "spread\\_a3\\.pdf** · page 1 of" in texts(at)


def test_delete_removes_the_document_from_the_list_and_the_workspace(sample_workspace):
    before, _ = workspace_state(sample_workspace)
    at = open_page("pages/documents.py", sample_workspace, doc="spread_a3.pdf")
    at.button(key="rli:delete").click().run()
    assert not at.exception
    after, _ = workspace_state(sample_workspace)
    assert len(after) == len(before) - 1
    assert "spread_a3.pdf" not in list(at.dataframe[0].value["source"])


def older_parse(root: Path, source: str) -> str:
    """Mark one sample's stored parse as made by older ingest code (core.ingest.version); its doc_id."""
    from dataclasses import replace

    ws = open_workspace(root)
    try:
        record = next(r for r in ws.documents() if r.source == source)
        doc = ws.load_machine_document(record.doc_id)
        ws.save_machine_document(replace(doc, engine_version="fast/0ld0ld0ld0ld"), record.size_bytes)
        return record.doc_id
    finally:
        ws.close()


def test_a_document_parsed_by_older_code_is_flagged_and_parsed_again_on_request(sample_workspace):
    from core.ingest.pdf import engine_version

    doc_id = older_parse(sample_workspace, "spread_a3.pdf")
    at = open_page("pages/documents.py", sample_workspace, doc="spread_a3.pdf")
    table = at.dataframe[0].value
    assert dict(zip(table["source"], table["parse"]))["spread_a3.pdf"] == "older parser: parse again"
    assert set(table["parse"]) == {"current", "older parser: parse again"}
    assert "1 of 4 documents were parsed by an older version of the parser (spread\\_a3\\.pdf)" in texts(at)
    at.button(key="rli:parse_again").click().run()
    assert not at.exception
    assert any(s.value.startswith("Parsed spread\\_a3\\.pdf again: the stored parse was made by an older version")
               for s in at.success), [s.value for s in at.success]
    assert set(at.dataframe[0].value["parse"]) == {"current"}
    assert not [b for b in at.button if b.key == "rli:parse_again"]
    ws = open_workspace(sample_workspace)
    try:
        assert ws.machine_version(doc_id, "fast") == engine_version("fast")
    finally:
        ws.close()


def test_every_document_an_older_parser_read_is_parsed_again_with_one_button(sample_workspace):
    older_parse(sample_workspace, "spread_a3.pdf")
    older_parse(sample_workspace, "shinseisho_form.pdf")
    at = open_page("pages/documents.py", sample_workspace)
    assert "2 of 4 documents were parsed by an older version" in texts(at)
    at.button(key="rli:parse_all_again").click().run()
    assert not at.exception
    assert sum(" again: the stored parse was made by an older" in s.value for s in at.success) == 2
    assert set(at.dataframe[0].value["parse"]) == {"current"}
    assert "documents were parsed by an older version" not in texts(at)


# ---- upload -------------------------------------------------------------------------------------
def test_uploading_a_pdf_adds_it_and_makes_it_current(sample_workspace):
    at = open_page("pages/documents.py", sample_workspace)
    upload(at, ("新しい申請書.pdf", small_pdf()))
    assert not at.exception
    [added] = [s.value for s in at.success]
    # the real time and rate it took, not a promise
    assert re.fullmatch(r"Added 新しい申請書\\\.pdf: 1 page in \d+ s \((\d+\.\d\d pages/s|instantly)\), fast engine\.",
                        added), added
    assert "新しい申請書.pdf" in list(at.dataframe[0].value["source"])
    docs, _ = workspace_state(sample_workspace)
    assert at.session_state["rli:doc_id"] == docs[-1]


def test_uploading_the_same_file_again_does_no_work(sample_workspace):
    data = (SAMPLE_DOCS / "spread_a3.pdf").read_bytes()
    before = workspace_state(sample_workspace)
    at = open_page("pages/documents.py", sample_workspace)
    upload(at, ("copy of spread.pdf", data))
    assert "already in the workspace" in texts(at)
    assert workspace_state(sample_workspace) == before


def test_uploaded_file_name_never_becomes_a_path(sample_workspace):
    at = open_page("pages/documents.py", sample_workspace)
    upload(at, ("../../escape *bold* <i>x<i>.pdf", small_pdf("path test")))
    assert not at.exception
    _, pdfs = workspace_state(sample_workspace)
    assert all(len(name) == 64 + 4 and name.endswith(".pdf") for name in pdfs)  # <sha256>.pdf only
    assert not (sample_workspace.parent / "escape *bold* <i>x<i>.pdf").exists()
    assert "escape *bold* <i>x<i>.pdf" in list(at.dataframe[0].value["source"])


@pytest.mark.parametrize("name, data, message", [
    ("empty.pdf", b"", "empty"),
    ("notes.pdf", "これはPDFではありません".encode("utf-8") * 20, "not a PDF"),
    ("truncated.pdf", (SAMPLE_DOCS / "keihi_seisan_kitei.pdf").read_bytes()[:1500], "PDF"),
])
def test_bad_file_gets_a_clear_error_and_changes_nothing(sample_workspace, name, data, message):
    before = workspace_state(sample_workspace)
    at = open_page("pages/documents.py", sample_workspace)
    upload(at, (name, data))
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and name.replace(".", "\\.") in errors[0]
    assert message.lower() in errors[0].lower()
    assert workspace_state(sample_workspace) == before


def test_file_over_the_size_limit_is_refused_with_the_limit(sample_workspace, monkeypatch):
    monkeypatch.setenv("RLI_MAX_UPLOAD_MB", "0.001")
    before = workspace_state(sample_workspace)
    at = open_page("pages/documents.py", sample_workspace)
    upload(at, ("big.pdf", small_pdf("x" * 50) + b"%" * 4096))
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "limit" in errors[0] and "RLI\\_MAX\\_UPLOAD\\_MB" in errors[0]
    assert workspace_state(sample_workspace) == before


def test_encrypted_pdf_asks_for_its_password_then_opens_with_it(sample_workspace):
    before = workspace_state(sample_workspace)
    at = open_page("pages/documents.py", sample_workspace)
    data = encrypted_pdf("himitsu")
    upload(at, ("locked.pdf", data))
    assert len(at.error) == 1 and "password" in at.error[0].value.lower()
    assert workspace_state(sample_workspace) == before
    assert "locked\\.pdf" in at.text_input(key="rli:pdf_password").label

    upload(at, ("locked.pdf", data), password="wrong")
    assert len(at.error) == 1 and "password" in at.error[0].value.lower()
    assert workspace_state(sample_workspace) == before

    upload(at, ("locked.pdf", data), password="himitsu")
    assert not at.error
    assert "locked.pdf" in list(at.dataframe[0].value["source"])


def test_first_visit_to_an_empty_workspace_ingests_the_samples(empty_workspace):
    at = app_test(empty_workspace).run()
    assert not at.exception
    docs, _ = workspace_state(empty_workspace)
    assert len(docs) == len(list(SAMPLE_DOCS.glob("*.pdf")))
    assert "page 1 of" in texts(at)  # Inspect is the first page and shows a sample right away


def test_an_uploaded_scan_says_when_no_ocr_is_available(sample_workspace, monkeypatch):
    from scan_builders import scanned_page_png

    monkeypatch.setenv("RLI_OCR_LANG", "zzz_missing")  # as on a machine without Tesseract's data
    png = scanned_page_png(pymupdf.open(stream=small_pdf("スキャンした申請書"), filetype="pdf")[0], dpi=72)
    at = open_page("pages/documents.py", sample_workspace)
    upload(at, ("scan.png", png))
    assert not at.exception
    [warning] = [w.value for w in at.warning]
    assert re.match(r"Added scan\\\.png: 1 page in \d+ s \(.* pages/s\), fast engine\. scan\\\.png page 1\\: "
                    r"scanned page, no OCR available\\: install tesseract\\-ocr", warning), warning


def test_a_folder_upload_adds_every_pdf_in_it(sample_workspace):
    at = app_test(sample_workspace).switch_page("pages/documents.py").run()
    before, _ = workspace_state(sample_workspace)
    at.file_uploader(key="rli:folder_uploader").set_value(
        [("folder/a.pdf", small_pdf("フォルダ 一"), "application/pdf"),
         ("folder/b.pdf", small_pdf("フォルダ 二"), "application/pdf")])
    at.radio(key="rli:engine").set_value("fast")
    at.run()
    at.button(key="rli:ingest").click().run()
    assert not at.exception
    after, _ = workspace_state(sample_workspace)
    assert len(after) == len(before) + 2
    assert sum("Added" in s.value for s in at.success) == 2
