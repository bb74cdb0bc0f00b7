"""Layout ingest on every core: a pool of layout processes (one model each) reads the pages of one
PDF in parallel and hands the results back in page order, the same as one process would."""
from __future__ import annotations

import time

import pytest

from core.ingest.layout_worker import default_pool_size, layout_pool
from core.ingest.opening import open_pdf
from core.ingest.pdf import assemble, read_page_range
from core.store.records import doc_id_for, sha256_of


def layout_pages(data: bytes, workers: int):
    sha = sha256_of(data)
    reads = read_page_range(data, sha256=sha, filename="k.pdf", engine="layout", start=0, stop=10_000,
                            workers=workers)
    parsed = assemble(open_pdf(data, "k.pdf"), reads, doc_id=doc_id_for(sha), sha256=sha, filename="k.pdf",
                      engine="layout", started=time.perf_counter())
    return reads, parsed.document


def test_two_layout_processes_give_the_pages_of_one_process_in_page_order(sample_docs):
    data = (sample_docs / "keihi_seisan_kitei.pdf").read_bytes()
    one_reads, one = layout_pages(data, 1)
    two_reads, two = layout_pages(data, 2)
    assert one.page_count >= 2 and not one_reads.crashed and not two_reads.crashed
    assert [f.number for f in two_reads.facts] == list(range(1, one.page_count + 1))
    assert two.pages == one.pages
    pool = layout_pool(2)
    assert len(set(pool.pids())) == 2  # both models were used, one process each


def test_the_pool_size_comes_from_rli_layout_workers(monkeypatch):
    monkeypatch.setenv("RLI_LAYOUT_WORKERS", "3")
    assert default_pool_size() == 3
    monkeypatch.setenv("RLI_LAYOUT_WORKERS", "many")
    with pytest.raises(ValueError, match="RLI_LAYOUT_WORKERS must be a whole number"):
        default_pool_size()
    monkeypatch.delenv("RLI_LAYOUT_WORKERS")
    assert default_pool_size() >= 1


def test_each_model_of_a_pool_gets_its_share_of_the_cores(sample_docs):
    import os

    pool = layout_pool(2)
    with pool.lock:
        pool.ensure_started()
    share = str(max(1, (os.cpu_count() or 1) // 2)).encode()
    for pid in pool.pids():
        environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        assert b"RLI_MODEL_THREADS=" + share in environ
    assert all(w.model_threads is None for w in layout_pool(1).workers)  # one model: ONNX's default


def test_a_crash_costs_the_page_queued_behind_it_and_later_pages_stay_in_order(realdata):
    """Each layout process has the next page queued; when the model crashes MuPDF on a page, the
    page queued behind it on the same process falls back to the fast engine too (its fresh process
    never had it), and every later page is the model's answer for that page, not a neighbour's."""
    import pymupdf
    source = pymupdf.open(realdata / "pdfs" / "ja" / "ai_jigyosha_guideline_honpen_siryo1.pdf")
    source.select([21, 20, 20, 19])  # page 22 crashes MuPDF inside the model
    reads, doc = layout_pages(source.tobytes(garbage=3, deflate=True), 1)
    assert sorted(reads.crashed) == [1, 2]
    assert "restarted after a crash" in reads.crashed[2]
    assert {e.source for e in doc.pages[2].elements} == {"layout"} == {e.source for e in doc.pages[3].elements}
    for number in (3, 4):  # the answer that page got is for that page: its own words, not its neighbour's
        said = "".join(e.text for e in doc.pages[number - 1].elements).replace(" ", "")
        words = [w[4] for w in source[number - 1].get_text("words")]
        assert sum(w in said for w in words) >= 0.8 * len(words)


def test_a_model_process_over_its_memory_cap_is_replaced_before_the_next_document(sample_docs, monkeypatch):
    """The model keeps ONNX's memory arena (faster), so its process holds its largest page's memory;
    past RLI_LAYOUT_WORKER_MB it is restarted between documents, and the reading is the same."""
    data = (sample_docs / "keihi_seisan_kitei.pdf").read_bytes()
    _, first = layout_pages(data, 1)
    pool = layout_pool(1)
    before = pool.pids()
    _, again = layout_pages(data, 1)
    assert pool.pids() == before  # the same document, under the cap: the same process
    monkeypatch.setenv("RLI_LAYOUT_WORKER_MB", "1")
    other = (sample_docs / "shinseisho_form.pdf").read_bytes()
    layout_pages(other, 1)
    replaced = pool.pids()
    assert replaced and replaced != before
    _, after = layout_pages(data, 1)
    assert after.pages == first.pages == again.pages


def test_two_answers_already_in_the_pipe_are_both_collected_at_once(sample_docs, monkeypatch):
    """Failed before (the page cap ran out on page 2): a buffered reader pulled the second queued
    answer into its buffer with the first, and select() on the then empty pipe waited for it."""
    from core.ingest.layout_worker import LayoutWorker

    monkeypatch.setenv("RLI_LAYOUT_PAGE_SECONDS", "3")
    worker = LayoutWorker()
    try:
        worker.open("keihi", (sample_docs / "keihi_seisan_kitei.pdf").read_bytes())
        worker.request(0)
        worker.request(1)
        time.sleep(6)  # the model loads and answers both pages: two answers wait in the pipe
        started = time.monotonic()
        first, second = worker.result(0), worker.result(1)
        assert first and second and time.monotonic() - started < 1.0
    finally:
        worker.close()
