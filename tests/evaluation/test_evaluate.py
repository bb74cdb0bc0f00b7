"""Metrics on hand-computed tiny cases, and the budget rule (evidence wholly inside the first N chars)."""
import math

import pytest

from core.categories import Category
from core.evaluation.retrieval import RetrievedChunk
from core.evaluation.scoring import (EvalConfig, EvidenceUnit, Question, budget_prefix, category_rows, evaluate_chunks,
                                     found_in_prefix, hit_at_k, ndcg_at_k, reciprocal_rank, recall_at_k, score_question,
                                     summary_rows)
from core.model import Chunk, SourceRef


def chunk(cid: str, text: str, refs=(), doc="d", pages=(1, 1)) -> Chunk:
    sources = tuple(SourceRef(r, pages[0], (0, 0, 1, 1), Category.TEXT) for r in refs)
    return Chunk(cid, text, doc, "d.pdf", pages[0], pages[1], (), (Category.TEXT,), False, sources, "p")


def ranked(*chunks: Chunk) -> list[RetrievedChunk]:
    return [RetrievedChunk(c, 1.0 / (i + 1), i + 1) for i, c in enumerate(chunks)]


def unit(record_id, text="", page=1, category="text", doc="d") -> EvidenceUnit:
    return EvidenceUnit(doc, record_id, page, category, text)


# ---- primitives -----------------------------------------------------------------------------------
def test_hit_at_k_is_one_when_any_of_the_top_k_is_relevant():
    relevant = [False, False, True, False]
    assert [hit_at_k(relevant, k) for k in (1, 2, 3, 10)] == [0.0, 0.0, 1.0, 1.0]


def test_recall_at_k_counts_distinct_units_found_so_far():
    covered = [frozenset({"a"}), frozenset(), frozenset({"a", "b"}), frozenset({"c"})]
    assert recall_at_k(covered, 4, 1) == 0.25
    assert recall_at_k(covered, 4, 3) == 0.5  # "a" found twice counts once
    assert recall_at_k(covered, 4, 4) == 0.75


def test_reciprocal_rank_is_one_over_the_first_relevant_rank():
    assert reciprocal_rank([False, False, True, True]) == pytest.approx(1 / 3)
    assert reciprocal_rank([False, False]) == 0.0


def test_ndcg_matches_a_hand_computation():
    # relevant at ranks 2 and 3, three relevant chunks exist: DCG = 1/log2(3) + 1/log2(4)
    dcg = 1 / math.log2(3) + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k([False, True, True, False], 3, 3) == pytest.approx(dcg / idcg)
    # at k=1 nothing relevant yet
    assert ndcg_at_k([False, True, True], 1, 3) == 0.0
    # the ideal ranking scores 1
    assert ndcg_at_k([True, True, False], 5, 2) == pytest.approx(1.0)


def test_budget_prefix_joins_chunks_with_one_newline_and_cuts_at_n():
    prefix, ends = budget_prefix(["abcd", "efgh", "ijkl"], 7)
    assert prefix == "abcd\nef"
    assert ends == [4, 9]  # stops reading once the budget is spent


def test_found_means_wholly_inside_the_prefix_after_nfkc_and_ignoring_spaces():
    prefix = "表１　交通費の上限額\n新幹線・特急 １２,０００円"
    assert found_in_prefix(prefix, "新幹線・特急12,000円")
    assert not found_in_prefix(prefix[:-2], "新幹線・特急12,000円")  # cut inside the evidence
    assert not found_in_prefix(prefix, "")


# ---- one question, by hand ------------------------------------------------------------------------
def test_score_question_element_and_page_levels_by_hand():
    # Evidence: e1 (page 1) and e2 (page 2). Ranking: c_other (page 3), c_e2 (page 2), c_e1 (page 1).
    c_other = chunk("c0", "関係のない文章です。", ["x"], pages=(3, 3))
    c_e2 = chunk("c2", "日当は二千円とする。", ["e2"], pages=(2, 2))
    c_e1 = chunk("c1", "宿泊費は一万円とする。", ["e1"], pages=(1, 1))
    q = Question("q", "?", "d", (unit("e1", "宿泊費は一万円", page=1), unit("e2", "日当は二千円", page=2)))
    result = score_question(q, ranked(c_other, c_e2, c_e1), [c_other, c_e2, c_e1], (1, 2, 3), (10, 22))

    element = result.levels["element"]
    assert element.hit == {1: 0.0, 2: 1.0, 3: 1.0}
    assert element.recall == {1: 0.0, 2: 0.5, 3: 1.0}
    assert element.rr == 0.5
    assert element.ndcg[3] == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3)))
    assert result.levels["page"].first_rank == 2
    # budget: "関係のない文章です。\n日当は二千円とする。" is 21 characters: e2 fits in 22, e1 does not
    assert result.budget == {10: 0.0, 22: 0.5}


def test_a_chunk_covering_the_page_but_not_the_element_hits_only_at_page_level():
    whole_page = chunk("page", "別の段落。", ["other"], pages=(1, 2))
    q = Question("q", "?", "d", (unit("e1", "宿泊費", page=2),))
    result = score_question(q, ranked(whole_page), [whole_page], (1,), (100,))
    assert result.levels["element"].hit[1] == 0.0
    assert result.levels["page"].hit[1] == 1.0


def test_other_documents_chunks_spend_the_budget():
    distractor = chunk("x", "あ" * 50, ["y"], doc="other")
    target = chunk("t", "交通費の上限は三千円。", ["e1"])
    q = Question("q", "?", "d", (unit("e1", "交通費の上限は三千円"),))
    assert score_question(q, ranked(target, distractor), [target], (1,), (20,)).budget == {20: 1.0}
    assert score_question(q, ranked(distractor, target), [target], (1,), (20,)).budget == {20: 0.0}


def test_an_element_without_text_is_found_when_a_chunk_citing_it_fits_the_budget():
    form = chunk("f", "仮払金: 空欄", ["empty_field"])
    q = Question("q", "?", "d", (unit("empty_field", "", category="form_field"),))
    assert score_question(q, ranked(form), [form], (1,), (7, 6)).budget == {7: 1.0, 6: 0.0}


def test_page_only_evidence_scores_at_page_level_and_by_its_quote():
    c = chunk("c", "表1 交通費の上限額", ["e"], pages=(2, 2))
    q = Question("q", "?", "d", (EvidenceUnit("d", None, 2, "page", "交通費の上限額"),))
    result = score_question(q, ranked(c), [c], (1,), (100,))
    assert "element" not in result.levels
    assert result.levels["page"].hit[1] == 1.0 and result.budget == {100: 1.0}


# ---- honest figures: unanchored is a miss, never left out -----------------------------------------
def test_an_unanchored_question_is_a_miss_in_every_metric_and_counted():
    from core.evaluation.gold import Evidence, GoldItem
    from core.evaluation.scoring import question_counts, question_from_item

    a = chunk("a", "交通費の上限は三千円とする。", ["ea"])
    good = Question("q1", "交通費の上限", "d", (unit("ea", "交通費の上限は三千円"),))
    lost = GoldItem("q2", "交通費の上限は", "", "d", (Evidence(None, 1, None, "どこにもない文", anchored=False),))
    lost_q = question_from_item(lost, None)
    assert not lost_q.anchored and lost_q.skipped == 1
    config = EvalConfig(ks=(1,), budgets=(100,))
    results = evaluate_chunks([good, lost_q], [a], "pol", "bm25", config)
    element = next(r for r in summary_rows(results, config.ks, config.budgets) if r["level"] == "element")
    # the old code averaged over q1 alone and reported 1.0 everywhere
    assert element["hit@1"] == 0.5 and element["mrr"] == 0.5 and element["budget_recall@100"] == 0.5
    assert (element["total"], element["anchored"], element["scored"]) == (2, 1, 2)
    assert question_counts(results) == {"total": 2, "anchored": 1, "scored": 2}
    cats = {r["category"] for r in category_rows(results, config.ks, config.budgets)}
    assert "unanchored" in cats


def test_evidence_split_over_two_chunks_counts_when_both_parts_are_inside_the_budget():
    first = chunk("c1", "経費の精算は翌月十日までに", ["e1"])
    second = chunk("c2", "所属長の承認を得て行う。", ["e2"])
    other = chunk("c3", "関係のない長い文章がここに入ります。", ["x"])
    q = Question("q", "?", "d", (unit("e1", "経費の精算は翌月十日までに所属長の承認を得て行う。"),))
    # the two parts are ranked apart: the joined prefix never holds the quote in one piece
    result = score_question(q, ranked(first, other, second), [first, second, other], (1,), (20, 80))
    assert result.budget == {20: 0.0, 80: 1.0}


def test_parts_shorter_than_the_minimum_do_not_count():
    from core.evaluation.scoring import covered_in_parts
    assert covered_in_parts("あいうえおかきくけこ|さしすせそたちつてと", "あいうえおかきくけこさしすせそたちつてと")
    assert not covered_in_parts("あいう|えお", "あいうえお", min_part=8)  # pieces of 3 and 2 characters
    assert covered_in_parts("あいうえお", "あいうえお", min_part=8)  # the whole needle is always enough



def test_a_quote_whose_lines_one_passage_holds_in_another_order_is_found_in_the_budget():
    """A figure's labels as a person reads them ("AIモデル 学習・作成 …") against the order the parser
    read them in: found when one passage holds every line, as anchoring's lines-in-element."""
    figure = chunk("c1", "データ前処理AIモデル前処理収集学習・作成AIモデル検証AIシステム検証", ["e1"])
    other = chunk("c2", "AIモデルの学習・作成は開発者が行う。", ["x"])
    q = Question("q", "?", "d", (unit("e1", "AIモデル 学習・作成 AIモデル 検証 AI システム 検証"),))
    assert score_question(q, ranked(figure), [figure], (1,), (200,)).budget == {200: 1.0}
    assert score_question(q, ranked(other, figure), [figure, other], (1,), (25,)).budget == {25: 0.0}


def test_the_lines_of_a_quote_spread_over_two_passages_are_not_found():
    """Short lines are inside almost any few passages of a corpus; they must be inside one."""
    first = chunk("c1", "学習・作成の手順を定める。", ["e1"])
    second = chunk("c2", "AIシステム検証は提供者が行う。", ["e2"])
    q = Question("q", "?", "d", (unit("e1", "学習・作成 AIシステム 検証"),))
    assert score_question(q, ranked(first, second), [first, second], (1,), (200,)).budget == {200: 0.0}
    one_line = Question("q1", "?", "d", (unit("e1", "学習・作成AIシステム検証"),))  # no lines to reorder
    merged = chunk("c3", "検証AIシステム、学習・作成", ["e1"])
    assert score_question(one_line, ranked(merged), [merged], (1,), (200,)).budget == {200: 0.0}

# ---- aggregation ------------------------------------------------------------------------------------
def test_summary_rows_average_over_questions_with_the_promised_keys():
    a = chunk("a", "交通費の上限は三千円とする。", ["ea"])
    b = chunk("b", "宿泊費の上限は一万円とする。", ["eb"])
    questions = [
        Question("q1", "交通費の上限はいくら", "d", (unit("ea", "交通費の上限は三千円"),)),
        Question("q2", "宿泊費の上限はいくら", "d", (unit("eb", "宿泊費の上限は一万円", category="table"),)),
    ]
    config = EvalConfig(ks=(1, 2), budgets=(15, 100))
    results = evaluate_chunks(questions, [a, b], "pol", "bm25", config)
    rows = summary_rows(results, config.ks, config.budgets)
    element = next(r for r in rows if r["level"] == "element")
    assert set(element) == {"policy", "retriever", "level", "hit@1", "hit@2", "recall@1", "recall@2", "mrr",
                            "ndcg@1", "ndcg@2", "budget_recall@15", "budget_recall@100", "n",
                            "total", "anchored", "scored"}
    assert element["hit@1"] == 1.0 and element["mrr"] == 1.0 and element["n"] == 2
    assert element["budget_recall@15"] == 1.0  # each answer is the first 14 characters of its ranking
    cats = {r["category"]: r for r in category_rows(results, config.ks, config.budgets)}
    assert set(cats) == {"text", "table"} and cats["table"]["recall@1"] == 1.0


# ---- end to end on the sample documents and the shipped gold set ------------------------------------
import json
from pathlib import Path

from core.cli import main as cli_main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
GOLD = SAMPLES / "gold_ja.jsonl"


def run_json(capsys, *argv) -> dict:
    assert cli_main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_default_policy_beats_naive_on_budget_recall_at_1000_chars(fast_samples_root, capsys):
    out = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                   "--policy", "default", "--policy", "naive", "--json")
    rows = {(r["policy"], r["level"]): r for r in out["results"]}
    default, naive = rows[("default", "element")], rows[("naive", "element")]
    assert default["n"] == naive["n"] >= 25
    assert default["budget_recall@1000"] > naive["budget_recall@1000"]


def test_evaluate_json_has_the_promised_keys_for_every_k_and_budget(fast_samples_root, capsys):
    out = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                   "--policy", "default", "--retriever", "tfidf", "--k", "1,5", "--budget", "300,900", "--json")
    assert {"questions", "unanchored", "results", "by_category", "per_question"} <= set(out)
    assert {r["level"] for r in out["results"]} == {"element", "page"}
    for row in out["results"]:
        assert set(row) == {"policy", "retriever", "level", "hit@1", "hit@5", "recall@1", "recall@5", "mrr",
                            "ndcg@1", "ndcg@5", "budget_recall@300", "budget_recall@900", "n",
                            "total", "anchored", "scored"}
        assert row["retriever"] == "tfidf"
    question = out["per_question"][0]
    assert {"id", "question", "evidence", "retrieved", "element", "page", "budget_recall@900"} <= set(question)
    assert len(out["per_question"]) == sum(1 for line in GOLD.read_text(encoding="utf-8").splitlines() if line)


def test_evaluate_table_shows_budget_first_and_a_category_breakdown(fast_samples_root, capsys):
    assert cli_main(["evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD)]) == 0
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if line.startswith("policy"))
    assert header.split()[3] == "budget_recall@500"
    assert "by evidence category" in text and "footnote" in text and "selection_mark" in text


def test_routed_scope_searches_one_document_per_question(fast_samples_root, capsys):
    out = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                   "--policy", "default", "--scope", "routed", "--json")
    assert {r["retriever"] for r in out["results"]} == {"bm25·routed"}
    for question in out["per_question"]:
        assert len({r["doc_id"] for r in question["retrieved"]}) <= 1


def test_modes_run_side_by_side_from_one_command(fast_samples_root, capsys):
    out = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                   "--policy", "default", "--modes", "plain,routed,pages", "--expand-pages", "300", "--json")
    assert out["modes"] == ["plain", "routed", "pages"]
    assert [r["retriever"] for r in out["results"] if r["level"] == "element"] == ["bm25", "bm25·routed", "bm25·pages"]
    plain = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                     "--policy", "default", "--json")
    assert plain["results"][0] == out["results"][0]  # the plain row is the run without modes
    assert cli_main(["evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD), "--modes", "fast"]) == 2
    assert "mode must be one of plain, routed, pages" in capsys.readouterr().err


def test_evaluate_rejects_bad_k_with_a_message(fast_samples_root, capsys):
    assert cli_main(["evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD), "--k", "1,x"]) == 2
    assert "--k must be comma-separated whole numbers" in capsys.readouterr().err


def test_dense_without_a_model_is_a_clear_error_not_a_download(fast_samples_root, capsys, monkeypatch):
    monkeypatch.delenv("RLI_DENSE_MODEL", raising=False)
    assert cli_main(["evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                     "--retriever", "dense"]) == 2
    assert "Nothing is downloaded" in capsys.readouterr().err


def test_a_check_box_glyph_is_not_text_the_budget_looks_for():
    form = chunk("f", "状態: 会議費 は 選択されていない", ["mark"])
    q = Question("q", "?", "d", (unit("mark", "☐", category="selection_mark"),))
    assert score_question(q, ranked(form), [form], (1,), (100, 5)).budget == {100: 1.0, 5: 0.0}


def test_two_policies_with_the_same_name_are_reported_separately(fast_samples_root, capsys):
    toml = Path(__file__).resolve().parents[2] / "policies" / "default.toml"
    out = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                   "--policy", "default", "--policy", str(toml), "--json")
    assert {r["policy"] for r in out["results"]} == {"default", "default #2"}


def test_evidence_anchored_to_a_region_is_covered_by_a_chunk_citing_any_of_its_elements():
    labels = chunk("c", "2024年度 売上高", ["lab0"])
    q = Question("q", "?", "d", (EvidenceUnit("d", "lab3", 1, "text", "2024年度 売上高", also=("lab0",)),))
    result = score_question(q, ranked(labels), [labels], (1,), (100,))
    assert result.levels["element"].hit[1] == 1.0 and result.budget == {100: 1.0}


def test_a_chunk_holding_a_copy_of_the_quote_in_another_document_covers_the_evidence():
    copy = chunk("c", "要点: 交通費は実費を支給する。", ["s-copy"], doc="summary", pages=(4, 4))
    own = chunk("o", "交通費は実費を支給する。", ["e1"], pages=(2, 2))
    q = Question("q", "?", "d", (EvidenceUnit("d", "e1", 2, "text", "交通費は実費を支給する",
                                              copy_elements=(("summary", "s-copy"),), copy_pages=(("summary", 4),)),))
    result = score_question(q, ranked(copy, own), [copy, own], (1,), (100,))
    assert result.levels["element"].hit[1] == 1.0 and result.levels["page"].hit[1] == 1.0
    assert result.levels["element"].ndcg[1] == 1.0  # both chunks are relevant; the ideal counts both
    plain = Question("q", "?", "d", (EvidenceUnit("d", "e1", 2, "text", "交通費は実費を支給する"),))
    without = score_question(plain, ranked(copy, own), [copy, own], (1,), (100,))
    assert without.levels["element"].hit[1] == 0.0 and without.levels["page"].hit[1] == 0.0


# ---- retrieval modes -------------------------------------------------------------------------------
def test_routing_uses_the_document_a_question_names_not_the_gold_doc_id():
    from core.evaluation.modes import DocumentRouter
    a = Chunk("a1", "交通費は実費を支給する。", "A", "keihi_kitei.pdf", 1, 1, (), (Category.TEXT,), False, (), "p")
    b = Chunk("b1", "交通費は定額を支給する。", "B", "ryohi_kitei.pdf", 1, 1, (), (Category.TEXT,), False, (), "p")
    router = DocumentRouter([a, b], "bm25")
    assert router.route("ryohi の交通費は？") == "B"  # named by its file name
    assert router.route("実費を支給するのは？") == "A"  # named none: its best document


def test_page_expansion_hands_up_the_whole_page_of_a_small_first_hit_in_reading_order():
    from core.evaluation.modes import PageExpansion, expand_pages
    p1 = [chunk(f"p1-{i}", t, [f"e{i}"]) for i, t in enumerate(["第1条 目的", "この規程は経費を定める。", "表1 上限額"])]
    p2 = chunk("p2", "第2条 申請", ["f"], pages=(2, 2))
    expanded = expand_pages(ranked(p1[2], p2), {"d": [*p1, p2]}, PageExpansion(small_below=50))
    assert [r.chunk.id for r in expanded] == ["p1-0", "p1-1", "p1-2", "p2"]
    assert [r.rank for r in expanded] == [1, 2, 3, 4]
    big = chunk("big", "長" * 60, ["g"])
    kept = expand_pages(ranked(big, p2), {"d": [big, *p1, p2]}, PageExpansion(small_below=50))
    assert [r.chunk.id for r in kept] == ["big", "p2"]  # a large first hit is context enough


def test_fusion_weights_come_from_the_command_line_and_bad_ones_get_a_message(fast_samples_root, capsys):
    out = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD), "--policy",
                   "default", "--retriever", "fusion", "--fusion-weights", "bm25=1,tfidf=0", "--json")
    bm25 = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD), "--policy",
                    "default", "--json")
    ranks = lambda o: [[r["id"] for r in q["retrieved"]] for q in o["per_question"]]  # noqa: E731
    assert ranks(out) == ranks(bm25)  # all weight on BM25: fusion ranks as BM25 does
    assert cli_main(["evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                     "--fusion-weights", "bm25=heavy"]) == 2
    assert "NAME=WEIGHT" in capsys.readouterr().err
    assert cli_main(["evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                     "--fusion-weights", "bm25=-1"]) == 2
    assert "weights >= 0" in capsys.readouterr().err


# ---- the pymupdf4llm baseline ---------------------------------------------------------------------
def test_pymupdf4llm_output_cites_the_elements_its_boxes_cover():
    from core.evaluation.baselines import chunks_from_output
    from core.model import Document, Element, Page
    inside = Element("in", 1, 0, Category.TEXT, (10, 10, 100, 30), "中の文", "fast")
    outside = Element("out", 1, 1, Category.TEXT, (10, 500, 100, 530), "外の文", "fast")
    doc = Document("d", "d.pdf", "d" * 64, "fast", (Page(1, 595, 842, elements=(inside, outside)),))
    [c] = chunks_from_output([{"text": "中の文", "page_start": 1, "page_end": 1,
                               "bboxes": [[1, 0, 0, 200, 100]]}], doc)
    assert [r.record_id for r in c.refs] == ["in"] and c.policy == "pymupdf4llm"


def test_evaluate_runs_the_pymupdf4llm_baseline_beside_default_and_caches_it(fast_samples_root, capsys):
    from core.store.opening import open_workspace
    out = run_json(capsys, "evaluate", "--workspace", str(fast_samples_root), "--gold", str(GOLD),
                   "--policy", "default", "--policy", "pymupdf4llm", "--json")
    rows = {(r["policy"], r["level"]): r for r in out["results"]}
    assert rows[("pymupdf4llm", "element")]["total"] == rows[("default", "element")]["total"]
    assert rows[("pymupdf4llm", "element")]["budget_recall@1000"] is not None
    ws = open_workspace(fast_samples_root)
    try:
        assert any(ws.get_blob(f"pymupdf4llm-chunks/{d.sha256}") for d in ws.documents())  # kept for next time
    finally:
        ws.close()
