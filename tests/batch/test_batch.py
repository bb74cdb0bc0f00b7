"""Batch ingest and export: the same Documents as one-at-a-time ingest, page ranges or not; resumable
by SHA-256; one failed row per bad file; shards and a manifest. Ray itself starts in one test only
(its start costs tens of seconds here); the others run the same driver with the serial runner."""
from __future__ import annotations

import json
import os
import shutil

import pandas as pd
import pytest

from core import cli
from core.batch.executors import ProcessExecutor, RayExecutor, SerialExecutor
from core.batch.export import batch_export
from core.batch.ingest import batch_ingest
from core.batch.plan import page_ranges
from core.chunks.pipeline import chunks_for
from core.chunks.policy import load_policy
from core.ingest.pipeline import ingest_path
from core.settings import CORES_ENV
from core.store.opening import open_workspace

SAMPLES = ("keihi_seisan_kitei.pdf", "shinseisho_form.pdf", "spread_a3.pdf")


@pytest.fixture
def corpus(tmp_path, sample_docs):
    folder = tmp_path / "corpus"
    (folder / "sub").mkdir(parents=True)
    for name in SAMPLES[:2]:
        shutil.copy(sample_docs / name, folder / name)
    shutil.copy(sample_docs / SAMPLES[2], folder / "sub" / SAMPLES[2])
    (folder / "sub" / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is no PDF body")
    (folder / "notes.txt").write_text("not a PDF, not picked up")
    return folder


def serial_reference(tmp_path, sample_docs, engine="fast") -> dict:
    ws = open_workspace(tmp_path / "reference")
    docs = {}
    for name in SAMPLES:
        record = ingest_path(ws, sample_docs / name, engine=engine).record
        docs[record.doc_id] = ws.load_machine_document(record.doc_id)
    ws.close()
    return docs


def test_page_ranges_cover_every_page_once_and_spread_a_long_pdf_over_the_workers():
    assert page_ranges(300, 2) == [(s, min(s + 16, 300)) for s in range(0, 300, 16)]
    assert page_ranges(5, 2) == [(0, 3), (3, 5)]
    assert page_ranges(1, 8) == [(0, 1)] and page_ranges(0, 2) == []
    for pages, workers in [(7, 3), (33, 2), (16, 1)]:
        covered = [p for a, b in page_ranges(pages, workers) for p in range(a, b)]
        assert covered == list(range(pages))


@pytest.mark.parametrize("per_task", [1, 16], ids=["page ranges", "whole PDFs"])
def test_a_batch_stores_what_one_at_a_time_ingest_stores(tmp_path, corpus, sample_docs, per_task):
    """Page by page (the driver assembles and refines) or a whole PDF per task (refined in it)."""
    ws = open_workspace(tmp_path / "ws")
    report = batch_ingest(ws, [corpus], engine="fast", executor=SerialExecutor(), per_task=per_task)
    reference = serial_reference(tmp_path, sample_docs)
    assert sorted(r.doc_id for r in ws.documents()) == sorted(reference)
    for doc_id, expected in reference.items():
        got = ws.load_machine_document(doc_id)
        assert got.pages == expected.pages
        assert {k: v for k, v in dict(got.meta).items() if k != "parse_seconds"} == \
               {k: v for k, v in dict(expected.meta).items() if k != "parse_seconds"}
        assert ws.document_pdf(doc_id).read_bytes() == (sample_docs / got.source).read_bytes()
    assert report.summary()["pages"] == sum(d.page_count for d in reference.values())
    ws.close()


def test_a_rerun_skips_every_ingested_file_and_a_bad_file_is_a_failed_row(tmp_path, corpus):
    ws = open_workspace(tmp_path / "ws")
    first = batch_ingest(ws, [corpus], engine="fast", executor=SerialExecutor())
    assert (first.count("done"), first.count("skipped"), first.count("failed")) == (3, 0, 1)
    [failed] = [o for o in first.outcomes if o.status == "failed"]
    assert failed.path.endswith("broken.pdf") and "broken.pdf" in failed.message
    again = batch_ingest(ws, [corpus], engine="fast", executor=SerialExecutor())
    assert (again.count("done"), again.count("skipped"), again.count("failed")) == (0, 3, 1)
    other_engine_counts = len(ws.documents())
    assert other_engine_counts == 3
    ws.close()


def test_a_rerun_parses_again_a_file_whose_stored_parse_older_code_made(tmp_path, corpus):
    from dataclasses import replace

    from core.ingest.pdf import engine_version

    ws = open_workspace(tmp_path / "ws")
    batch_ingest(ws, [corpus], engine="fast", executor=SerialExecutor())
    older = ws.documents()[0]
    doc = ws.load_machine_document(older.doc_id)
    ws.save_machine_document(replace(doc, engine_version="fast/0ld0ld0ld0ld"), older.size_bytes)
    again = batch_ingest(ws, [corpus], engine="fast", executor=SerialExecutor())
    assert (again.count("done"), again.count("skipped"), again.count("failed")) == (1, 2, 1)
    [done] = [o for o in again.outcomes if o.status == "done"]
    assert done.doc_id == older.doc_id and "parsed again" in done.message and "fast/0ld0ld0ld0ld" in done.message
    assert ws.machine_version(older.doc_id, "fast") == engine_version("fast")
    ws.close()


def test_the_cli_writes_a_json_report_of_every_file(tmp_path, corpus, capsys):
    report_path = tmp_path / "report.json"
    code = cli.main(["batch", "ingest", str(corpus), "--engine", "fast", "--runner", "serial",
                     "--workspace", str(tmp_path / "ws"), "--report", str(report_path)])
    out, err = capsys.readouterr()
    assert code == 1  # one file failed
    summary = json.loads(out)
    assert (summary["done"], summary["failed"], summary["report"]) == (3, 1, str(report_path))
    assert "pages/s" in err and "failed: " in err
    rows = json.loads(report_path.read_text())["files"]
    assert sorted(r["status"] for r in rows) == ["done", "done", "done", "failed"]


def test_bad_batch_arguments_are_one_message(tmp_path, capsys):
    assert cli.main(["batch", "ingest", str(tmp_path), "--workers", "0", "--workspace", str(tmp_path / "ws")]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
    assert cli.main(["batch", "ingest", str(tmp_path / "nowhere"), "--runner", "serial",
                     "--workspace", str(tmp_path / "ws")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["jsonl", "langchain", "llamaindex", "parquet"])
def test_export_writes_shards_that_add_up_to_every_chunk_and_a_manifest(tmp_path, fast_samples_root, fmt):
    ws = open_workspace(fast_samples_root)
    policy = load_policy("default")
    total = sum(len(chunks_for(ws, r.doc_id, policy)) for r in ws.documents())
    manifest = batch_export(ws, tmp_path / "out", fmt, policy, shard_size=7)
    assert manifest["records"] == total and [s["records"] for s in manifest["shards"]][:-1] == \
        [7] * (len(manifest["shards"]) - 1)
    assert json.loads((tmp_path / "out" / "manifest.json").read_text()) == manifest
    ids = []
    for shard in manifest["shards"]:
        path = tmp_path / "out" / shard["file"]
        if fmt == "parquet":
            ids += list(pd.read_parquet(path)["id"])
        else:
            ids += [json.loads(line)["id_" if fmt == "llamaindex" else "id"] for line in path.read_text().splitlines()]
    expected = [c.id for r in ws.documents() for c in chunks_for(ws, r.doc_id, policy)]
    assert ids == expected and not list((tmp_path / "out").glob("*.tmp"))
    ws.close()


def test_batch_on_local_ray_stores_the_same_documents_and_resumes(tmp_path, corpus, sample_docs):
    """The one test that starts Ray (2 CPUs): tasks in Ray workers, results through the driver."""
    ws = open_workspace(tmp_path / "ws")
    executor = RayExecutor(2)
    try:
        first = batch_ingest(ws, [corpus], engine="fast", executor=executor, per_task=2)  # both kinds of task
        again = batch_ingest(ws, [corpus], engine="fast", executor=executor)
        # a task holds one of Ray's CPUs, so its OCR and model threads keep to one core
        cores = executor._ray.get(executor._ray.remote(lambda: __import__("os").environ.get("RLI_CORES")).remote())
    finally:
        executor.close()
    assert cores == "1"
    assert (first.count("done"), first.count("failed"), first.runner) == (3, 1, "ray")
    assert (again.count("done"), again.count("skipped")) == (0, 3)
    for doc_id, expected in serial_reference(tmp_path, sample_docs).items():
        assert ws.load_machine_document(doc_id).pages == expected.pages
    ws.close()


def test_each_worker_process_keeps_its_threads_to_its_share_of_the_cores():
    """Tesseract's OpenMP threads spin: two workers each starting one per core on two cores made a
    batch with scanned pages no faster than one process."""
    executor = ProcessExecutor(2)
    try:
        seen = executor._pool.submit(os.getenv, CORES_ENV).result()
    finally:
        executor.close()
    assert seen == str(max(1, (os.cpu_count() or 1) // 2))


def test_a_ray_cluster_that_does_not_answer_is_one_message(tmp_path, corpus, capsys):
    code = cli.main(["batch", "ingest", str(corpus), "--address", "ray://127.0.0.1:1", "--engine", "fast",
                     "--workspace", str(tmp_path / "ws")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: Ray could not connect to ray://127.0.0.1:1") and "Traceback" not in err
