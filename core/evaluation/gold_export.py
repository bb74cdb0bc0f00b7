"""A gold set in the shapes evaluation libraries read, built from one policy's chunks.

- `gold`        gold/v1 JSONL (core.evaluation.gold.to_jsonl)
- `llamaindex`  the retrieval-eval JSON of LlamaIndex (`queries`, `corpus`, `relevant_docs`,
                `mode`: the fields of `EmbeddingQAFinetuneDataset`); each query's expected ids are
                what `RetrieverEvaluator.evaluate(query, expected_ids)` takes. A question whose
                evidence no chunk holds (a reference kept as metadata only, an unanchored quote) is
                left out, with its reason in `GoldExport.left_out`: an empty `relevant_docs` entry
                makes RetrieverEvaluator raise, and a query without one breaks `query_docid_pairs`.
- `ragas`       one JSON object per line, as `ragas.EvaluationDataset.from_list` (ragas >= 0.2)
                reads it: `user_input`, `reference` (the answer), `reference_contexts` (the
                evidence quotes), `reference_context_ids` (the chunks holding the evidence) and,
                for a run, `retrieved_contexts` / `retrieved_context_ids` from our retriever.

Evidence quotes leave the tool only through `evidence_quotes`, so one rule (redaction) covers
every shape that carries them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from core.errors import BadInput
from core.evaluation.gold import ANCHORED, PAGE_ONLY, GoldItem, to_jsonl
from core.model import Chunk, Document

SHAPES = ("gold", "llamaindex", "ragas")


@dataclass(frozen=True)
class LeftOut:
    item_id: str
    question: str
    reason: str

    def line(self) -> str:
        return f"left out {self.item_id} ({self.question[:40]}): {self.reason}"


@dataclass(frozen=True)
class Run:
    """Retrieve for each question with our retriever, for ragas' `retrieved_contexts`."""
    retriever: str = "bm25"
    k: int = 5
    scope: str = "corpus"

    def __post_init__(self) -> None:
        if self.k < 1:
            raise BadInput(f"--k must be at least 1, got {self.k}")


@dataclass(frozen=True)
class GoldExport:
    text: str
    written: int  # questions in the export
    left_out: tuple[LeftOut, ...] = ()
    notes: tuple[str, ...] = ()  # rows written with something missing (ragas: no chunk holds the evidence)


def evidence_quotes(item: GoldItem) -> list[str]:
    """The quotes of an item's evidence as exports write them: the one place they are read."""
    return [e.quote for e in item.evidence if e.quote.strip()]


def covering_chunks(item: GoldItem, chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks whose source elements include any of the item's evidence elements."""
    wanted = {e.record_id for e in item.evidence if e.level == ANCHORED}
    return [c for c in chunks if c.doc_id == item.doc_id and any(r.record_id in wanted for r in c.refs)]


def why_no_chunk(item: GoldItem, policy: Any = None, doc: Document | None = None) -> str:
    """Why no chunk holds an item's evidence, as specifically as the policy and document tell."""
    if not item.evidence:
        return "it has no evidence"
    anchored = [e for e in item.evidence if e.level == ANCHORED]
    if not anchored:
        levels = sorted({"page only" if e.level == PAGE_ONLY else "not anchored" for e in item.evidence})
        return f"its evidence is {' / '.join(levels)}, not an element a chunk could hold"
    index = doc.element_index() if doc is not None else {}
    naive = policy is not None and policy.mode == "naive"  # page text split by size: no category actions
    kinds = []
    for e in anchored:
        element = index.get(e.record_id or "")
        if element is None:
            kinds.append(f"{e.record_id} (not in the document)")
        elif policy is not None and not naive:
            kinds.append(f"{e.record_id} ({element.category.value}: {policy.action(element.category).value})")
        else:
            kinds.append(f"{e.record_id} ({element.category.value})")
    if naive:
        return f"policy {policy.name!r} (naive page-text splitter) cites none of its evidence elements: {', '.join(kinds)}"
    where = f"policy {policy.name!r}" if policy is not None else "the policy"
    return f"{where} puts none of its evidence elements into a chunk: {', '.join(kinds)}"


def llamaindex_dataset(items: Sequence[GoldItem], chunks: Sequence[Chunk], policy: Any = None,
                       docs: Mapping[str, Document] | None = None) -> tuple[dict[str, Any], list[LeftOut]]:
    """The retrieval-eval JSON and the questions left out of it (never an empty relevant_docs)."""
    queries: dict[str, str] = {}
    relevant: dict[str, list[str]] = {}
    left_out: list[LeftOut] = []
    for item in items:
        ids = [c.id for c in covering_chunks(item, chunks)]
        if not ids:
            doc = (docs or {}).get(item.doc_id)
            left_out.append(LeftOut(item.id, item.question, why_no_chunk(item, policy, doc)))
            continue
        queries[item.id], relevant[item.id] = item.question, ids
    data = {"queries": queries, "corpus": {c.id: c.text for c in chunks}, "relevant_docs": relevant, "mode": "text"}
    return data, left_out


def ragas_rows(items: Sequence[GoldItem], chunks: Sequence[Chunk], run: Run | None = None) -> list[dict[str, Any]]:
    """One ragas SingleTurnSample per item; `retrieved_*` only for a run."""
    search = None
    if run is not None:
        from core.evaluation.retrieval import ChunkSearch

        search = ChunkSearch(chunks, run.retriever, run.scope)
    rows = []
    for item in items:
        row: dict[str, Any] = {"user_input": item.question, "reference": item.answer,
                               "reference_contexts": evidence_quotes(item),
                               "reference_context_ids": [c.id for c in covering_chunks(item, chunks)]}
        if search is not None and run is not None:
            hits = search.search(item.question, run.k, doc_id=item.doc_id)
            row["retrieved_contexts"] = [h.chunk.text for h in hits]
            row["retrieved_context_ids"] = [h.chunk.id for h in hits]
        rows.append(row)
    return rows


def _json_lines(rows: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def export_gold(ws: Any, items: Sequence[GoldItem], fmt: str, policy_name: str = "default",
                run: Run | None = None) -> GoldExport:
    """The export text of `items` in `fmt`, with what was left out and why."""
    if fmt not in SHAPES:
        raise BadInput(f"export format must be one of {', '.join(SHAPES)}, got {fmt!r}")
    from core.evaluation.gold import redacted_items

    items = redacted_items(ws, items)  # quotes are whole element texts: personal values go first
    if fmt == "gold":
        return GoldExport(to_jsonl(items), len(items))
    from core.chunks.pipeline import chunks_for
    from core.chunks.policy import load_policy
    from core.review.corrections import corrected_document

    policy = load_policy(policy_name)
    doc_ids = list(dict.fromkeys(i.doc_id for i in items))
    chunks = [c for doc_id in doc_ids for c in chunks_for(ws, doc_id, policy)]
    if fmt == "llamaindex":
        docs = {doc_id: corrected_document(ws, doc_id) for doc_id in doc_ids}
        data, left_out = llamaindex_dataset(items, chunks, policy, docs)
        text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
        return GoldExport(text, len(data["queries"]), tuple(left_out))
    rows = ragas_rows(items, chunks, run)
    notes = tuple(f"{i.id}: no chunk of policy {policy.name!r} holds its evidence (reference_context_ids is empty)"
                  for i, r in zip(items, rows) if not r["reference_context_ids"])
    return GoldExport(_json_lines(rows), len(rows), notes=notes)
