"""Labels are names (base name, no control characters, capped) and concurrent writes to the same
workspace file all succeed (each write has its own temporary file)."""
from __future__ import annotations

import threading

from core.store.records import sha256_of
from core.store.opening import open_workspace
from core.text import MAX_LABEL_CHARS, file_label
from pdf_builders import build_pdf, text


def test_a_label_is_the_base_name_without_control_characters_and_capped():
    assert file_label("../../../tmp/evil_import.json", "x") == "evil_import.json"
    assert file_label("C:\\Users\\me\\申請書.pdf", "x") == "申請書.pdf"
    assert file_label("a\x00b\x1b[31m.pdf", "x") == "ab[31m.pdf"
    assert file_label("../..", "upload.pdf") == "upload.pdf"
    long = file_label("x" * 500 + ".pdf", "x")
    assert len(long) == MAX_LABEL_CHARS and long.endswith(".pdf")


def test_an_ingest_and_an_import_store_only_the_base_name(workspace, sample_docs):
    from core.ingest.importers import import_file
    from core.ingest.pipeline import ingest_bytes

    data = (sample_docs / "shinseisho_form.pdf").read_bytes()
    record = ingest_bytes(workspace, data, "../../../tmp/evil\x00name.pdf", engine="fast").record
    assert record.source == "evilname.pdf"
    fixture = (sample_docs.parent / "tests" / "fixtures" / "docling_small.json").read_bytes()
    imported = import_file(workspace, fixture, "docling", name="../../../tmp/evil_import\x07.json").record
    assert imported.source == "evil_import.json"


def test_concurrent_store_pdf_calls_for_the_same_file_all_succeed(tmp_path):
    """Eight writers at once, ten rounds, each round a file none of them has stored yet."""
    root = tmp_path / "ws"
    open_workspace(root).close()
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)
    payloads = [build_pdf(lambda page, n=n: text(page, 72, 72, f"round {n}")) for n in range(10)]

    def writer() -> None:
        ws = open_workspace(root)
        try:
            for data in payloads:
                barrier.wait()
                try:
                    ws.store_pdf(sha256_of(data), data)
                except BaseException as err:  # noqa: BLE001 - the test counts every failure
                    errors.append(err)
        finally:
            ws.close()
    threads = [threading.Thread(target=writer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    ws = open_workspace(root)
    assert all(ws.pdf_path(sha256_of(d)).read_bytes() == d for d in payloads)
    assert not list(ws.pdf_dir.glob("*.tmp")), "no temporary file is left behind"
    ws.close()


def test_concurrent_ingests_of_the_same_file_all_succeed(tmp_path, sample_docs):
    from core.ingest.pipeline import ingest_bytes

    root = tmp_path / "ws"
    open_workspace(root).close()
    data = (sample_docs / "shinseisho_flat.pdf").read_bytes()
    results, errors = [], []

    def ingest() -> None:
        ws = open_workspace(root)
        try:
            results.append(ingest_bytes(ws, data, "shinseisho_flat.pdf", engine="fast").record.doc_id)
        except BaseException as err:  # noqa: BLE001
            errors.append(err)
        finally:
            ws.close()
    threads = [threading.Thread(target=ingest) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(set(results)) == 1 and len(results) == 4
