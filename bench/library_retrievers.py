"""Our exports inside LangChain, LlamaIndex and ragas, on the sample documents and the shipped gold set.

    python bench/library_retrievers.py [--engine fast|layout] [--policy default] [--k 5]

Prints, per half of the gold set (even / odd lines; nothing here is tuned, both are shown):
- hit@k of LangChain's BM25Retriever and LlamaIndex's BM25Retriever built from our exports, with
  their default tokenisation and with our Sudachi tokenizer (core.evaluation.tokenize), and of
  our own BM25 for reference. A hit = a top-k chunk holds one of the question's evidence elements;
  a question whose evidence no chunk holds counts as a miss.
- LlamaIndex's RetrieverEvaluator (hit_rate, mrr) over the llamaindex gold export, with our
  retriever wrapped as a LlamaIndex BaseRetriever.
- ragas' evaluate() over the ragas gold export with retrieved_contexts from our BM25: the ID-based
  context recall and precision (no LLM, nothing downloaded; a question without reference ids
  scores 0 here, where ragas would leave it out as NaN).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.chunks.pipeline import chunks_for  # noqa: E402
from core.chunks.policy import load_policy  # noqa: E402
from core.evaluation.gold import import_gold, load_items, parse_gold_jsonl  # noqa: E402
from core.evaluation.gold_export import Run, export_gold  # noqa: E402
from core.evaluation.integrations import (chunk_retriever, import_ragas, langchain_bm25,  # noqa: E402
                                          llamaindex_bm25)
from core.evaluation.retrieval import ChunkSearch  # noqa: E402
from core.export.formats import langchain_records, llamaindex_records  # noqa: E402
from core.ingest.pipeline import ingest_path  # noqa: E402
from core.store.workspace import Workspace  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_docs"
GOLD = SAMPLES / "gold_ja.jsonl"
LIBRARIES = ("langchain-core", "langchain-community", "rank-bm25", "llama-index-core", "llama-index-retrievers-bm25",
             "ragas", "docling-core")

Search = Callable[[str], list[str]]  # question -> chunk ids, best first


def workspace(tmp: Path, engine: str) -> Workspace:
    ws = Workspace(tmp / "ws")
    for pdf in sorted(SAMPLES.glob("*.pdf")):
        ingest_path(ws, pdf, engine=engine)
    import_gold(ws, parse_gold_jsonl(GOLD.read_text(encoding="utf-8"), origin=GOLD.name))
    return ws


def hit_rate(questions: Sequence[tuple[str, set[str]]], search: Search, k: int) -> float:
    hits = sum(bool(relevant & set(search(q)[:k])) for q, relevant in questions)
    return hits / len(questions) if questions else math.nan


def searches(chunks, k: int) -> dict[str, Search]:
    from langchain_core.documents import Document
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever as LlamaBM25
    from langchain_community.retrievers import BM25Retriever as LangchainBM25

    docs = [Document(**r) for r in langchain_records(chunks)]
    nodes = [TextNode.from_dict(r) for r in llamaindex_records(chunks)]
    lc_default = LangchainBM25.from_documents(docs, k=k)
    lc_ours = langchain_bm25(docs, k=k)
    li_default = LlamaBM25(nodes=nodes, similarity_top_k=k)
    li_ours = llamaindex_bm25(nodes, k=k)
    ours = ChunkSearch(chunks, "bm25")
    return {
        "LangChain BM25Retriever, default": lambda q: [d.id for d in lc_default.invoke(q)],
        "LangChain BM25Retriever, Sudachi": lambda q: [d.id for d in lc_ours.invoke(q)],
        "LlamaIndex BM25Retriever, default": lambda q: [n.node.node_id for n in li_default.retrieve(q)],
        "LlamaIndex BM25Retriever, Sudachi": lambda q: [n.node.node_id for n in li_ours.retrieve(q)],
        "ours (core BM25, Sudachi)": lambda q: [h.chunk.id for h in ours.search(q, k)],
    }


def halves(seq: Sequence) -> dict[str, list]:
    return {"even": list(seq[0::2]), "odd": list(seq[1::2]), "all": list(seq)}


def retriever_table(ws: Workspace, chunks, policy: str, k: int) -> None:
    data = json.loads(export_gold(ws, load_items(ws), "llamaindex", policy).text)
    items = load_items(ws)
    questions = [(i.question, set(data["relevant_docs"].get(i.id, ()))) for i in items]
    print(f"\nhit@{k} over {len(items)} questions ({len(items) - len(data['queries'])} without a chunk: misses)")
    print(f"{'retriever':40} {'even':>6} {'odd':>6} {'all':>6}")
    for name, search in searches(chunks, k).items():
        figures = [hit_rate(part, search, k) for part in halves(questions).values()]
        print(f"{name:40} " + " ".join(f"{f:6.2f}" for f in figures))


def llamaindex_evaluation(ws: Workspace, chunks, policy: str, k: int) -> None:
    from llama_index.core.evaluation import RetrieverEvaluator

    result = export_gold(ws, load_items(ws), "llamaindex", policy)
    data = json.loads(result.text)
    evaluator = RetrieverEvaluator.from_metric_names(["hit_rate", "mrr"], retriever=chunk_retriever(chunks, k=k))
    runs = [evaluator.evaluate(query=data["queries"][qid], expected_ids=data["relevant_docs"][qid])
            for qid in data["queries"]]
    means = {m: sum(r.metric_vals_dict[m] for r in runs) / len(runs) for m in ("hit_rate", "mrr")}
    print(f"\nLlamaIndex RetrieverEvaluator, our BM25 as a BaseRetriever, k={k}: {len(runs)} queries "
          f"({len(result.left_out)} left out: {'; '.join(x.reason for x in result.left_out) or 'none'})")
    print("  " + "  ".join(f"{m} {v:.3f}" for m, v in means.items()))


def ragas_evaluation(ws: Workspace, policy: str, k: int) -> None:
    ragas = import_ragas()
    from ragas.metrics import IDBasedContextPrecision, IDBasedContextRecall

    rows = [json.loads(line) for line in export_gold(ws, load_items(ws), "ragas", policy, Run("bm25", k)).text
            .splitlines()]
    dataset = ragas.EvaluationDataset.from_list(rows)
    metrics = [IDBasedContextRecall(), IDBasedContextPrecision()]
    frame = ragas.evaluate(dataset, metrics=metrics, show_progress=False).to_pandas()
    print(f"\nragas.evaluate over {len(rows)} rows, retrieved_contexts = our BM25 top {k} (NaN counted as 0):")
    for part, index in halves(range(len(rows))).items():
        cells = [f"{m.name} {frame[m.name].iloc[index].fillna(0).mean():.3f}" for m in metrics]
        print(f"  {part:5} " + "  ".join(cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("fast", "layout"), default="fast")
    parser.add_argument("--policy", default="default")
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # ragas' deprecation notices for its legacy metric imports
    print("versions: " + ", ".join(f"{name} {version(name)}" for name in LIBRARIES))
    with tempfile.TemporaryDirectory() as tmp:
        ws = workspace(Path(tmp), args.engine)
        chunks = [c for d in ws.documents() for c in chunks_for(ws, d.doc_id, load_policy(args.policy))]
        print(f"{len(ws.documents())} sample documents ({args.engine} engine), {len(chunks)} chunks "
              f"(policy {args.policy})")
        retriever_table(ws, chunks, args.policy, args.k)
        llamaindex_evaluation(ws, chunks, args.policy, args.k)
        ragas_evaluation(ws, args.policy, args.k)
        ws.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
