"""The rebuild after a correction (page memos, resumed assembly) gives exactly the chunks a full
rebuild gives: random corrections, page-local and crossing pages, each compared byte for byte
with a build from empty caches."""
import json
import random
from collections import OrderedDict
from contextlib import contextmanager

import pymupdf
import pytest

from core import memo
from core.categories import Category
from core.chunks import cache, resume
from core.chunks.pipeline import chunks_for
from core.chunks.policy import DEFAULT
from core.ingest.pipeline import ingest_path
from core.review.corrections import corrected_document, record_events
from core.review.events import BadEvent
from core.store.opening import open_workspace
from chunk_fixtures import SAMPLES

PAGES = 12
RELABELS = ("text", "section_header", "caption", "footnote", "page_header", "decorative", "list_item", "title")


@pytest.fixture(scope="module")
def long_sample(tmp_path_factory):
    source = SAMPLES / "keihi_seisan_kitei.pdf"
    if not source.exists():
        pytest.skip("sample_docs/keihi_seisan_kitei.pdf missing: run python sample_docs/generate.py")
    folder = tmp_path_factory.mktemp("incremental")
    src, out = pymupdf.open(source), pymupdf.open()
    while out.page_count < PAGES:
        out.insert_pdf(src, to_page=min(src.page_count, PAGES - out.page_count) - 1)
    out.save(folder / "long.pdf")
    ws = open_workspace(folder / "ws")
    doc_id = ingest_path(ws, folder / "long.pdf", engine="fast").record.doc_id
    yield ws, doc_id
    ws.close()


@contextmanager
def empty_caches():
    """Every cache of the rebuild empty for one build, then put back as it was (so the next
    correction's rebuild is still incremental)."""
    memos = [(m, m._data) for m in memo._ALL]
    runs, sets = dict(resume._RUNS), cache.CHUNK_SETS._data
    for m in memo._ALL:
        m._data = OrderedDict()
    resume._RUNS.clear()
    cache.CHUNK_SETS._data = OrderedDict()
    try:
        yield
    finally:
        for m, data in memos:
            m._data = data
        resume._RUNS.clear()
        resume._RUNS.update(runs)
        cache.CHUNK_SETS._data = sets


def records(chunks) -> str:
    return json.dumps([c.to_record() for c in chunks], ensure_ascii=False, sort_keys=True)


def random_correction(rng: random.Random, doc) -> list[dict]:
    pages = [p for p in doc.pages if p.elements]
    page = rng.choice(pages)
    e = rng.choice(page.elements)
    kind = rng.choice(("relabel", "set_text", "reorder", "chunk_break", "join_chunks", "link", "delete_element",
                       "split_element", "relabel_far"))
    if kind in ("relabel", "relabel_far"):
        return [{"kind": "relabel", "target": e.id, "category": rng.choice(RELABELS)}]
    if kind == "set_text":
        return [{"kind": "set_text", "target": e.id, "text": rng.choice(("第9条（改定）", "※1 注記の本文。", "本文を直した。" * 40))}]
    if kind == "reorder":
        other = rng.choice(page.elements)
        return [{"kind": "reorder", "target": e.id, rng.choice(("after", "before")): other.id}]
    if kind in ("chunk_break", "join_chunks"):
        return [{"kind": kind, "before": e.id}]
    if kind == "delete_element":
        return [{"kind": "delete_element", "target": e.id}]
    if kind == "split_element":
        return [{"kind": "split_element", "target": e.id, "at_line": 1}]
    # a caption or footnote linked to an element on another page: the context of two pages changes
    target = rng.choice([x for p in pages if p.number != page.number for x in p.elements])
    events = [] if e.category in (Category.CAPTION, Category.FOOTNOTE) else \
        [{"kind": "relabel", "target": e.id, "category": rng.choice(("caption", "footnote"))}]
    return events + [{"kind": "link", "source": e.id, "target": target.id}]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_rebuild_after_a_random_correction_equals_a_full_rebuild(long_sample, seed):
    ws, doc_id = long_sample
    rng = random.Random(seed)
    cache.clear_cache()
    chunks_for(ws, doc_id, DEFAULT)
    resumed_before = resume.STATS["resumed"]
    applied = 0
    while applied < 14:
        try:
            record_events(ws, doc_id, random_correction(rng, corrected_document(ws, doc_id)), "tester")
        except BadEvent:
            continue
        applied += 1
        incremental = chunks_for(ws, doc_id, DEFAULT)
        with empty_caches():
            full = chunks_for(ws, doc_id, DEFAULT)
        assert records(incremental) == records(full), f"after correction {applied}: {ws.events(doc_id)[-1].payload}"
    assert resume.STATS["resumed"] > resumed_before  # the assembly did resume, not only run in full


@pytest.mark.parametrize("kind", ["set_text", "chunk_break", "join_chunks"])
def test_a_correction_on_one_page_assembles_only_from_that_page_on_until_the_state_meets_the_old_run(
        long_sample, kind):
    ws, doc_id = long_sample
    cache.clear_cache()
    chunks_for(ws, doc_id, DEFAULT)
    doc = corrected_document(ws, doc_id)
    target = next(e for n in range(PAGES // 2, PAGES) for e in doc.page(n).elements
                  if e.category is Category.TEXT and e.text.strip() and e.attr("chunk_break") is None)
    event = {"kind": kind, "before": target.id} if kind != "set_text" else \
        {"kind": "set_text", "target": target.id, "text": "本文を直した。"}
    before = dict(resume.STATS)
    record_events(ws, doc_id, [event], "tester")
    incremental = chunks_for(ws, doc_id, DEFAULT)
    assert resume.STATS["resumed"] == before["resumed"] + 1
    # a reviewer's wish is remembered as taken (wishes_seen) and still the state meets the old run's
    assert resume.STATS["pages_assembled"] - before["pages_assembled"] < PAGES // 2  # not from page 1, not to the end
    with empty_caches():
        assert records(incremental) == records(chunks_for(ws, doc_id, DEFAULT))
