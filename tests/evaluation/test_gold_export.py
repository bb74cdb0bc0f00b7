"""Gold exports in the shapes of current LlamaIndex and ragas (the libraries themselves: tests/export/test_contracts.py)."""
from core.categories import Category
from core.chunks.policy import DEFAULT
from core.evaluation.gold import Evidence, GoldItem
from core.evaluation.gold_export import Run, evidence_quotes, llamaindex_dataset, ragas_rows, why_no_chunk
from core.model import Chunk, Document, Element, Page, SourceRef

DOC_ID = "0123456789abcdef"


def document() -> Document:
    return Document(DOC_ID, "kitei.pdf", DOC_ID * 4, "fast", (Page(1, 595, 842, elements=(
        Element("e-rule", 1, 0, Category.TEXT, (50, 100, 500, 130), "交通費は実費。", "fast"),
        Element("e-table", 1, 1, Category.TABLE, (50, 150, 500, 260), "タクシー 5,000円", "fast"),
        Element("e-ref", 1, 2, Category.REFERENCE, (50, 700, 500, 720), "[1] 旅費法", "fast"),
    )),))


def chunks():
    def c(cid, text, refs):
        return Chunk(cid, text, DOC_ID, "kitei.pdf", 1, 1, (), (Category.TEXT,), False,
                     tuple(SourceRef(r, 1, (0, 0, 1, 1), Category.TEXT) for r in refs), "default")
    return [c("c1", "表1 交通費の上限額 タクシー 5,000円", ["e-table"]), c("c2", "交通費は実費。", ["e-rule"])]


def item(item_id, question, *evidence):
    return GoldItem(item_id, question, "5,000円", DOC_ID, evidence, (), "tester", "2026-01-01T00:00:00Z")


TAXI = item("q1", "タクシーの上限額は？", Evidence("e-table", 1, (50, 150, 500, 260), "タクシー 5,000円"))
CITED = item("q2", "参考文献は？", Evidence("e-ref", 1, (50, 700, 500, 720), "[1] 旅費法"))
LOST = item("q3", "宿泊費は？", Evidence(None, 1, None, "宿泊費", anchored=False))


def test_llamaindex_shape_maps_queries_to_the_chunks_citing_their_evidence():
    data, left_out = llamaindex_dataset([TAXI], chunks())
    assert data == {"queries": {"q1": "タクシーの上限額は？"},
                    "corpus": {"c1": "表1 交通費の上限額 タクシー 5,000円", "c2": "交通費は実費。"},
                    "relevant_docs": {"q1": ["c1"]}, "mode": "text"}
    assert left_out == []


def test_a_question_whose_evidence_no_chunk_holds_is_left_out_with_its_reason_never_empty():
    # failed on the old export: q2 and q3 got "relevant_docs": [] and RetrieverEvaluator raised on them
    data, left_out = llamaindex_dataset([TAXI, CITED, LOST], chunks(), DEFAULT, {DOC_ID: document()})
    assert set(data["queries"]) == set(data["relevant_docs"]) == {"q1"}
    assert all(data["relevant_docs"].values())
    reasons = {x.item_id: x.reason for x in left_out}
    assert reasons.keys() == {"q2", "q3"}
    assert "e-ref (reference: metadata_only)" in reasons["q2"] and "'default'" in reasons["q2"]
    assert "not anchored" in reasons["q3"]


def test_why_no_chunk_without_a_document_still_names_the_elements():
    assert "e-ref" in why_no_chunk(CITED)
    assert why_no_chunk(item("q4", "何？")) == "it has no evidence"


def test_ragas_rows_use_the_current_names_with_the_evidence_quotes_as_reference_contexts():
    # failed on the old export, which wrote ragas 0.1's question/ground_truth (read as empty by ragas >= 0.2)
    rows = ragas_rows([TAXI, CITED], chunks())
    assert rows == [
        {"user_input": "タクシーの上限額は？", "reference": "5,000円", "reference_contexts": ["タクシー 5,000円"],
         "reference_context_ids": ["c1"]},
        {"user_input": "参考文献は？", "reference": "5,000円", "reference_contexts": ["[1] 旅費法"],
         "reference_context_ids": []},
    ]


def test_a_ragas_run_adds_what_our_retriever_returned_in_rank_order():
    rows = ragas_rows([TAXI], chunks(), Run("bm25", k=1))
    assert rows[0]["retrieved_context_ids"] == ["c1"]
    assert rows[0]["retrieved_contexts"] == ["表1 交通費の上限額 タクシー 5,000円"]
    two = ragas_rows([TAXI], chunks(), Run("bm25", k=2))[0]
    assert two["retrieved_context_ids"][0] == "c1" and len(two["retrieved_contexts"]) <= 2


def test_quotes_come_from_one_place_and_blank_ones_are_not_contexts():
    blank = item("q5", "空？", Evidence("e-rule", 1, None, "  "), Evidence("e-table", 1, None, "タクシー"))
    assert evidence_quotes(blank) == ["タクシー"]
    assert ragas_rows([blank], chunks())[0]["reference_contexts"] == evidence_quotes(blank)
