"""AppTest: the Evaluate page (pick, run with a progress bar, headline budget recall, table, charts,
per-category breakdown, per-question drill-down)."""
from __future__ import annotations

from pathlib import Path

import pytest

from apptest_helpers import open_page, sample_workspace, texts  # noqa: F401
from core.evaluation.gold import import_gold, parse_gold_jsonl
from core.store.opening import open_workspace

GOLD = Path(__file__).resolve().parents[2] / "sample_docs" / "gold_ja.jsonl"


@pytest.fixture
def gold_workspace(sample_workspace):
    ws = open_workspace(sample_workspace)
    try:
        import_gold(ws, parse_gold_jsonl(GOLD.read_text(encoding="utf-8")))
    finally:
        ws.close()
    return sample_workspace


def run_evaluation(root):
    at = open_page("pages/evaluate.py", root)
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="rli:eval:run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_without_gold_questions_the_page_points_to_the_gold_page(sample_workspace):
    at = open_page("pages/evaluate.py", sample_workspace)
    assert not at.exception and "No gold questions yet" in texts(at)


def test_a_run_shows_budget_recall_as_the_headline_then_the_table_and_charts(gold_workspace):
    at = run_evaluation(gold_workspace)
    assert at.subheader[0].value == "Evidence found within 1,000 characters of context"
    labels = [m.label for m in at.metric]
    assert labels[:2] == ["default · bm25", "naive · bm25"]
    default, naive = (float(m.value.rstrip("%")) for m in at.metric[:2])
    assert default > naive  # the same finding as the CLI test, through the page
    table = at.dataframe[0].value
    assert {"budget_recall@1000", "hit@1", "mrr", "ndcg@10", "n"} <= set(table.columns)
    assert set(table["policy"]) == {"default", "naive"}
    assert len(at.get("vega_lite_chart")) >= 3  # hit@k curve, budget curve, per-category bars
    assert "Which evidence each policy loses" in texts(at)


def test_opening_a_question_shows_evidence_and_a_retrieved_chunk_side_by_side(gold_workspace):
    at = run_evaluation(gold_workspace)
    at.selectbox(key="rli:eval:open").select("ja-001").run()
    assert not at.exception, [e.value for e in at.exception]
    page_text = texts(at)
    assert "**Evidence**" in page_text and "**Retrieved**" in page_text and "E1 · p2 · footnote" in page_text
    assert at.selectbox(key="rli:eval:rank").options[0].startswith("#1 ·")
    at.selectbox(key="rli:eval:run").select(1).run()  # the naive run of the same question
    assert not at.exception, [e.value for e in at.exception]
    assert "naive" in at.selectbox(key="rli:eval:run").format_func(at.selectbox(key="rli:eval:run").value)


def test_several_retrievers_and_a_routed_scope_give_one_row_per_policy_retriever_and_level(gold_workspace):
    at = open_page("pages/evaluate.py", gold_workspace)
    at.multiselect(key="rli:eval:policies").set_value(["default"]).run()
    at.multiselect(key="rli:eval:retrievers").set_value(["bm25", "tfidf", "fusion"]).run()
    at.multiselect(key="rli:eval:modes").set_value(["routed"]).run()
    at.button(key="rli:eval:run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert len(table) == 3 * 2 and set(table["retriever"]) == {"bm25·routed", "tfidf·routed", "fusion·routed"}
    assert "modes routed" in texts(at)


def test_modes_run_side_by_side_each_with_its_headline(gold_workspace):
    """plain, routed and page expansion in one run (the old page ran one scope per run); with two
    policies that is six runs, and every one gets its headline figure (the old page showed four)."""
    at = open_page("pages/evaluate.py", gold_workspace)
    at.multiselect(key="rli:eval:modes").set_value(["plain", "routed", "pages"]).run()
    at.button(key="rli:eval:run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert set(at.dataframe[0].value["retriever"]) == {"bm25", "bm25·routed", "bm25·pages"}
    assert [m.label for m in at.metric] == [f"{p} · bm25{m}" for p in ("default", "naive")
                                            for m in ("", "·routed", "·pages")]


def test_page_expansion_is_a_mode_of_its_own_beside_plain_bm25(gold_workspace):
    at = open_page("pages/evaluate.py", gold_workspace)
    at.multiselect(key="rli:eval:policies").set_value(["default"]).run()
    at.multiselect(key="rli:eval:modes").set_value(["pages"]).run()
    at.number_input(key="rli:eval:expand").set_value(300).run()
    at.button(key="rli:eval:run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert set(at.dataframe[0].value["retriever"]) == {"bm25·pages"}
    assert st_report(at).config.expansion.small_below == 300


def st_report(at):
    return at.session_state["rli:eval:report"]


def test_fusion_weights_are_set_on_the_page_and_all_zero_is_refused(gold_workspace):
    at = open_page("pages/evaluate.py", gold_workspace)
    at.multiselect(key="rli:eval:policies").set_value(["default"]).run()
    at.multiselect(key="rli:eval:retrievers").set_value(["fusion"]).run()
    at.number_input(key="rli:eval:weight:bm25").set_value(0.8).run()
    at.number_input(key="rli:eval:weight:tfidf").set_value(0.2).run()
    at.button(key="rli:eval:run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert st_report(at).config.options.fusion_weights == (("bm25", 0.8), ("tfidf", 0.2))
    at.number_input(key="rli:eval:weight:bm25").set_value(0.0).run()
    at.number_input(key="rli:eval:weight:tfidf").set_value(0.0).run()
    assert "a fusion weight above 0" in texts(at)


def test_the_downloads_carry_the_question_counts(gold_workspace):
    import json

    from core.evaluation.report_export import report_csv, report_json

    at = run_evaluation(gold_workspace)
    report = st_report(at)
    ws = open_workspace(gold_workspace)
    try:
        exported = report_json(ws, report)
        table = report_csv(ws, report)
    finally:
        ws.close()
    counts = report.counts()
    assert exported["questions"] == counts and counts["total"] >= 25
    assert json.loads(json.dumps(exported))["results"][0]["total"] == counts["total"]
    first, header, *rows = table.splitlines()
    assert first.startswith(f"# questions: {counts['total']} total, {counts['anchored']} anchored")
    assert {"total", "anchored", "scored"} <= set(header.split(",")) and len(rows) == len(report.rows())
    labels = [b.proto.label for b in at.get("download_button")]
    assert any("JSON" in label for label in labels) and any("CSV" in label for label in labels)


def test_dense_without_a_model_folder_is_explained_not_downloaded(gold_workspace):
    at = open_page("pages/evaluate.py", gold_workspace)
    at.multiselect(key="rli:eval:retrievers").set_value(["dense"]).run()
    at.button(key="rli:eval:run_button").click().run()
    assert not at.exception
    assert "Nothing is downloaded" in texts(at)


def test_the_bm25_tokenizer_can_be_switched_to_bigrams(gold_workspace):
    at = open_page("pages/evaluate.py", gold_workspace)
    at.multiselect(key="rli:eval:policies").set_value(["default"]).run()
    at.selectbox(key="rli:eval:tokenizer").select("bigram").run()
    at.button(key="rli:eval:run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.dataframe[0].value["n"].iloc[0] >= 25


def test_questions_that_cannot_be_anchored_are_counted_as_misses_and_zero_is_not_green(sample_workspace):
    """Every question's quote is missing from its page: 0% headline, not green; no bars to draw."""
    ws = open_workspace(sample_workspace)
    try:
        items = parse_gold_jsonl(GOLD.read_text(encoding="utf-8"))[:3]
        broken = [i.__class__.from_dict({**i.to_dict(), "evidence": [
            {"record_id": None, "page": 1, "bbox": None, "quote": "この文はどの頁にも書かれていない"}]}) for i in items]
        import_gold(ws, broken)
    finally:
        ws.close()
    at = run_evaluation(sample_workspace)
    page_text = texts(at)
    assert "Questions: 3 total · 0 anchored · 3 scored" in page_text
    default = at.metric[0]
    assert default.value == "0.0%"
    naive = at.metric[1]
    assert naive.value == "0.0%" and naive.delta == "+0.0 pt"
    assert naive.proto.color != naive.proto.MetricColor.GREEN  # old page: a "+0.0 pt" delta drawn in green
    assert "Nothing to draw" in page_text


def test_window_mode_runs_beside_plain_bm25_on_the_page(gold_workspace):
    at = open_page("pages/evaluate.py", gold_workspace)
    at.multiselect(key="rli:eval:policies").set_value(["default"]).run()
    at.multiselect(key="rli:eval:modes").set_value(["plain", "window"]).run()
    at.button(key="rli:eval:run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert set(at.dataframe[0].value["retriever"]) == {"bm25", "bm25·window"}
    assert [m.label for m in at.metric] == ["default · bm25", "default · bm25·window"]
    assert st_report(at).modes == ("plain", "window")
