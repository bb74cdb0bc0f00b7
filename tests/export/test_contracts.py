"""Every export loaded into the real classes of the libraries that read it (versions pinned in
requirements-dev.txt): langchain-core Document, LangChain's filter_complex_metadata and BM25Retriever,
llama-index-core TextNode, an index and RetrieverEvaluator, docling-core DoclingDocument, ragas
EvaluationDataset and evaluate(). Built from the sample documents and the shipped gold set; nothing
is downloaded (a test blocks the network around ragas)."""
from __future__ import annotations

import json
import socket
import warnings
from pathlib import Path

import pytest

from core.cli import main as cli_main
from core.chunks.pipeline import chunks_for
from core.evaluation.gold import import_gold, load_items, parse_gold_jsonl
from core.evaluation.gold_export import Run, export_gold
from core.evaluation.integrations import chunk_retriever, import_ragas, langchain_bm25, llamaindex_bm25
from core.export.flat import unflatten_metadata
from core.export.formats import langchain_records, llamaindex_records
from core.store.opening import open_workspace

lc_documents = pytest.importorskip("langchain_core.documents")
lc_utils = pytest.importorskip("langchain_community.vectorstores.utils")
li_schema = pytest.importorskip("llama_index.core.schema")
pytest.importorskip("rank_bm25")
pytest.importorskip("llama_index.retrievers.bm25")

GOLD = Path(__file__).resolve().parents[2] / "sample_docs" / "gold_ja.jsonl"
KITEI = "keihi_seisan_kitei.pdf"


@pytest.fixture(scope="module")
def samples(fast_samples_root):
    ws = open_workspace(fast_samples_root)
    import_gold(ws, parse_gold_jsonl(GOLD.read_text(encoding="utf-8")))
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def kitei(samples):
    doc_id = next(d.doc_id for d in samples.documents() if d.source == KITEI)
    return doc_id, chunks_for(samples, doc_id, "default")


@pytest.fixture(scope="module")
def all_chunks(samples):
    return [c for d in samples.documents() for c in chunks_for(samples, d.doc_id, "default")]


def lines(text):
    return [json.loads(line) for line in text.splitlines()]


# ---- LangChain ------------------------------------------------------------------------------------
def test_langchain_lines_load_as_documents_and_dump_back_unchanged(kitei):
    _, chunks = kitei
    for record in langchain_records(chunks):
        doc = lc_documents.Document(**record)
        assert {k: v for k, v in doc.model_dump().items() if k != "type"} == record


def test_filter_complex_metadata_drops_the_citations_of_nested_metadata_and_keeps_flat(kitei):
    _, chunks = kitei
    nested = [lc_documents.Document(**r) for r in langchain_records(chunks)]
    kept = lc_utils.filter_complex_metadata([d.model_copy(deep=True) for d in nested])
    assert all("source_record_refs" not in d.metadata and "section_path" not in d.metadata for d in kept)
    flat = [lc_documents.Document(**r) for r in langchain_records(chunks, "flat")]
    survived = lc_utils.filter_complex_metadata([d.model_copy(deep=True) for d in flat])
    assert [d.metadata for d in survived] == [d.metadata for d in flat]
    assert [unflatten_metadata(d.metadata) for d in survived] == [c.to_record()["metadata"] for c in chunks]
    refs = json.loads(survived[0].metadata["source_record_refs"])
    assert refs and {"record_id", "page", "bbox", "category"} <= set(refs[0])


def test_langchain_bm25_built_from_the_export_finds_the_evidence_with_our_tokenizer(samples, kitei):
    doc_id, chunks = kitei
    docs = [lc_documents.Document(**r) for r in langchain_records(chunks, "flat")]
    retriever = langchain_bm25(docs, k=5)
    data = json.loads(export_gold(samples, load_items(samples, doc_id), "llamaindex").text)
    found = [bool(set(data["relevant_docs"][q]) & {d.id for d in retriever.invoke(text)})
             for q, text in data["queries"].items()]
    assert len(found) >= 5 and sum(found) > len(found) / 2
    whitespace = langchain_bm25(docs, k=5, tokenizer=str.split)  # LangChain's default preprocessing
    assert sum(bool(set(data["relevant_docs"][q]) & {d.id for d in whitespace.invoke(t)})
               for q, t in data["queries"].items()) < sum(found)


# ---- LlamaIndex -----------------------------------------------------------------------------------
def test_llamaindex_lines_load_as_textnodes_and_round_trip(kitei):
    _, chunks = kitei
    for record in llamaindex_records(chunks) + llamaindex_records(chunks, "flat"):
        node = li_schema.TextNode.from_dict(record)
        assert node.to_dict() == record
        assert node.node_id == record["id_"] and node.get_content() == record["text"]


def test_only_flat_metadata_passes_llamaindex_vector_store_check(kitei):
    from llama_index.core.vector_stores.utils import node_to_metadata_dict

    _, chunks = kitei
    nested = li_schema.TextNode.from_dict(llamaindex_records(chunks)[0])
    with pytest.raises(ValueError):
        node_to_metadata_dict(nested, flat_metadata=True)
    flat = li_schema.TextNode.from_dict(llamaindex_records(chunks, "flat")[0])
    stored = node_to_metadata_dict(flat, flat_metadata=True)
    assert unflatten_metadata({k: v for k, v in stored.items() if k in flat.metadata}) == chunks[0].to_record()["metadata"]


def test_a_llamaindex_index_built_from_the_export_keeps_every_node(kitei):
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding

    _, chunks = kitei
    nodes = [li_schema.TextNode.from_dict(r) for r in llamaindex_records(chunks)]
    # MockEmbedding only gives the index its structure; nothing here measures retrieval with it
    index = VectorStoreIndex(nodes, embed_model=MockEmbedding(embed_dim=8))
    for chunk in chunks:
        assert index.docstore.get_node(chunk.id).metadata == chunk.to_record()["metadata"]
    bm25 = llamaindex_bm25(nodes, k=3)
    hits = bm25.retrieve(chunks[1].text[:40])
    assert hits and hits[0].node.node_id == chunks[1].id and hits[0].node.metadata == chunks[1].to_record()["metadata"]


def test_retriever_evaluator_runs_every_exported_query_through_our_retriever(samples, all_chunks):
    from llama_index.core.evaluation import RetrieverEvaluator

    result = export_gold(samples, load_items(samples), "llamaindex")
    data = json.loads(result.text)
    assert set(data) == {"queries", "corpus", "relevant_docs", "mode"}  # EmbeddingQAFinetuneDataset's fields
    assert set(data["queries"]) == set(data["relevant_docs"]) and all(data["relevant_docs"].values())
    assert len(data["queries"]) + len(result.left_out) == len(load_items(samples))
    evaluator = RetrieverEvaluator.from_metric_names(["hit_rate", "mrr"], retriever=chunk_retriever(all_chunks, k=5))
    runs = [evaluator.evaluate(query=q, expected_ids=data["relevant_docs"][qid]) for qid, q in data["queries"].items()]
    assert len(runs) == len(data["queries"])
    assert all(set(r.retrieved_ids) <= set(data["corpus"]) and len(r.retrieved_ids) <= 5 for r in runs)
    assert 0 < sum(r.metric_vals_dict["hit_rate"] for r in runs) <= len(runs)
    with pytest.raises(ValueError):  # why a question without a chunk is left out, not written empty
        evaluator.evaluate(query="参考文献は？", expected_ids=[])


def test_a_reference_kept_as_metadata_only_is_left_out_with_its_reason(samples):
    result = export_gold(samples, load_items(samples), "llamaindex")
    assert result.left_out, "the shipped gold set has a question about a reference (metadata_only under default)"
    assert all("metadata_only" in x.reason or "anchored" in x.reason for x in result.left_out)
    naive = export_gold(samples, load_items(samples), "llamaindex", "naive")
    assert all("naive page-text splitter" in x.reason for x in naive.left_out)


# ---- ragas ----------------------------------------------------------------------------------------
@pytest.fixture
def no_network(monkeypatch):
    attempts = []

    def refuse(self, address, *args, **kwargs):
        attempts.append(address)
        raise OSError(f"network blocked by the test: {address}")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    return attempts


def test_ragas_rows_load_into_evaluation_dataset_with_every_field_filled(samples, no_network):
    ragas = import_ragas()
    rows = lines(export_gold(samples, load_items(samples), "ragas", run=Run("bm25", 5)).text)
    dataset = ragas.EvaluationDataset.from_list(rows)
    assert len(dataset) == len(rows) == len(load_items(samples))
    for sample, row in zip(dataset.samples, rows):
        assert sample.user_input == row["user_input"] and sample.user_input
        assert sample.reference == row["reference"]
        assert sample.reference_contexts == row["reference_contexts"]  # empty only for a tick box (no quote)
        assert sample.retrieved_contexts == row["retrieved_contexts"] and len(sample.retrieved_contexts) <= 5
        assert sample.retrieved_context_ids == row["retrieved_context_ids"]
    assert sum(bool(s.reference_contexts) for s in dataset.samples) > len(rows) * 3 / 4
    assert [{k: v for k, v in d.items() if k in rows[0]} for d in dataset.to_list()] == rows
    assert no_network == []


def test_ragas_evaluate_runs_id_based_metrics_on_the_export_offline(samples, no_network):
    ragas = import_ragas()
    from ragas.metrics import IDBasedContextPrecision, IDBasedContextRecall

    rows = lines(export_gold(samples, load_items(samples), "ragas", run=Run("bm25", 5)).text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # ragas 0.4 moves these metrics in 1.0
        metrics = [IDBasedContextRecall(), IDBasedContextPrecision()]
    frame = ragas.evaluate(ragas.EvaluationDataset.from_list(rows), metrics=metrics, show_progress=False).to_pandas()
    assert len(frame) == len(rows)
    recall = frame["id_based_context_recall"]
    assert recall.notna().sum() == sum(bool(r["reference_context_ids"]) for r in rows)
    assert 0 < recall.mean() <= 1
    assert no_network == []


def test_old_ragas_names_load_as_empty_rows_which_is_why_they_changed():
    ragas = import_ragas()
    old = ragas.EvaluationDataset.from_list([{"question": "q", "ground_truth": "a"}]).samples[0]
    assert old.user_input is None and old.reference is None


# ---- the command line and Docling ---------------------------------------------------------------
def test_cli_writes_docling_json_that_docling_core_validates(samples, kitei, tmp_path, capsys):
    docling = pytest.importorskip("docling_core.types.doc")
    doc_id, _ = kitei
    out = tmp_path / "kitei.docling.json"
    assert cli_main(["chunks", doc_id, "--format", "docling", "--out", str(out), "--workspace", str(samples.root)]) == 0
    parsed = docling.DoclingDocument.model_validate(json.loads(out.read_text(encoding="utf-8")))
    assert parsed.texts and parsed.pages
    # and back through our Docling importer: every element's page, category and text (a Docling
    # picture carries no text of its own, so a picture comes back without the words drawn in it)
    from core.ingest.importers import parse_import
    from core.review.corrections import corrected_document

    def seen(doc):
        return sorted((e.page, e.category.value, "" if e.category.value == "picture" else e.text)
                      for e in doc.elements())
    again = parse_import(out.read_bytes(), "docling", out.name)
    assert seen(again) == seen(corrected_document(samples, doc_id))
    assert cli_main(["chunks", doc_id, "--format", "docling", "--metadata", "flat",
                     "--workspace", str(samples.root)]) == 2
    assert "--metadata flat applies to chunk exports" in capsys.readouterr().err


def test_cli_flat_metadata_and_gold_exports_report_what_they_leave_out(samples, kitei, tmp_path, capsys):
    doc_id, chunks = kitei
    assert cli_main(["chunks", doc_id, "--format", "langchain", "--metadata", "flat",
                     "--workspace", str(samples.root)]) == 0
    docs = [lc_documents.Document(**r) for r in lines(capsys.readouterr().out)]
    assert [unflatten_metadata(d.metadata) for d in lc_utils.filter_complex_metadata(docs)] == \
        [c.to_record()["metadata"] for c in chunks]
    li = tmp_path / "li.json"
    assert cli_main(["gold", "export", str(li), "--format", "llamaindex", "--workspace", str(samples.root)]) == 0
    err = capsys.readouterr().err
    assert "warning: left out" in err and "metadata_only" in err and "left out)" in err
    rg = tmp_path / "rg.jsonl"
    assert cli_main(["gold", "export", str(rg), "--format", "ragas", "--retriever", "bm25", "--k", "3",
                     "--workspace", str(samples.root)]) == 0
    rows = lines(rg.read_text(encoding="utf-8"))
    assert all(len(r["retrieved_contexts"]) <= 3 and r["user_input"] for r in rows)
    assert cli_main(["gold", "export", "-", "--format", "gold", "--retriever", "bm25",
                     "--workspace", str(samples.root)]) == 2
