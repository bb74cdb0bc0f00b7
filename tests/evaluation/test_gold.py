"""Gold sets: gold/v1 round trip, quote anchoring (NFKC, whitespace ignored), per-item reports
(the LlamaIndex and ragas shapes: test_gold_export.py)."""
import json

import pytest

from core.categories import Category
from core.errors import BadInput, UnknownDocument
from core.evaluation.gold import (ANCHORED, PAGE_ONLY, UNANCHORED, Copy, Evidence, GoldItem, anchor_evidence,
                                  anchor_item, anchor_items, import_gold, load_items, parse_gold_jsonl, to_jsonl)
from core.model import Document, Element, Page
from core.store.opening import open_workspace

DOC_ID = "0123456789abcdef"


def element(eid: str, page: int, seq: int, text: str, bbox=(50, 100, 500, 130), category=Category.TEXT):
    return Element(eid, page, seq, category, bbox, text, "fast")


def document(doc_id: str = DOC_ID) -> Document:
    p1 = Page(1, 595, 842, elements=(
        element("e-title", 1, 0, "経費精算規程", (200, 60, 400, 90), Category.TITLE),
        element("e-rule", 1, 1, "交通費は、最も経済的な経路の実費を支給する。", (50, 100, 500, 130)),
        element("e-table", 1, 2, "区分 上限額\n新幹線・特急 12,000円\nタクシー 5,000円", (50, 150, 500, 260),
                Category.TABLE),
    ))
    p2 = Page(2, 595, 842, elements=(
        element("e-note", 2, 0, "※1 ただし、事前に所属長の承認を得た場合は、この限りでない。", (50, 750, 500, 780),
                Category.FOOTNOTE),
        element("e-rule2", 2, 1, "交通費は、翌月10日までに申請する。", (50, 100, 500, 130)),
        element("e-next", 2, 2, "申請期限を過ぎた申請は受け付けない。", (50, 140, 500, 170)),
    ))
    return Document(doc_id, "kitei.pdf", doc_id * 4, "fast", (p1, p2))


def item(*evidence: Evidence, question="タクシーの上限額は？", doc_id=DOC_ID, item_id="q1", source=None) -> GoldItem:
    return GoldItem(item_id, question, "5,000円", doc_id, evidence, ("table",), "tester", "2026-01-01T00:00:00Z",
                    source)


# ---- quote anchoring ---------------------------------------------------------------------------------
@pytest.mark.parametrize("quote", [
    "タクシー 5,000円",        # as printed
    "タクシー　５，０００円",   # full-width digits, comma and ideographic space
    "タクシー5,000円",          # spaces dropped
    "ﾀｸｼｰ 5,000円",            # half-width katakana
])
def test_quote_anchors_after_nfkc_ignoring_whitespace(quote):
    result = anchor_evidence(document(), Evidence(None, 1, None, quote))
    assert result.level == ANCHORED
    assert result.evidence.record_id == "e-table"
    assert result.evidence.bbox == (50, 150, 500, 260) and result.evidence.quote == quote


def test_quote_wins_over_a_stale_record_id():
    result = anchor_evidence(document(), Evidence("old-id-from-another-engine", 2, (0, 0, 1, 1), "ただし、事前に所属長"))
    assert result.evidence.record_id == "e-note"


def test_a_quote_on_several_elements_prefers_the_given_page_then_the_given_box():
    doc = document()
    on_page_2 = anchor_evidence(doc, Evidence(None, 2, None, "交通費は"))
    assert on_page_2.evidence.record_id == "e-rule2"
    near_box = anchor_evidence(doc, Evidence(None, None, (50, 100, 500, 130), "交通費は"))
    assert near_box.level == ANCHORED


def test_a_quote_found_on_another_page_is_anchored_with_a_note():
    result = anchor_evidence(document(), Evidence(None, 1, None, "翌月10日までに申請"))
    assert result.evidence.record_id == "e-rule2" and "page 2" in result.note


def test_a_quote_found_nowhere_is_unanchored_and_kept_as_given():
    ev = Evidence("e-rule", 1, (50, 100, 500, 130), "海外出張の日当")
    result = anchor_evidence(document(), ev)
    assert result.level == UNANCHORED and "not found" in result.note
    assert result.evidence.quote == "海外出張の日当" and result.evidence.anchored is False


def test_a_quote_across_two_consecutive_elements_anchors_to_both():
    result = anchor_evidence(document(), Evidence(None, 2, None, "申請する。申請期限を過ぎた"))
    assert result.level == ANCHORED and "runs across 2 consecutive elements" in result.note
    assert (result.evidence.record_id, result.evidence.also, result.evidence.method) == ("e-rule2", ("e-next",), "span")


def test_a_quote_whose_lines_the_element_holds_in_another_order_anchors_line_by_line():
    # the parser read the table's column downwards: the quote's row order is not the element's
    quote = "タクシー 5,000円\n新幹線・特急 12,000円"
    result = anchor_evidence(document(), Evidence(None, 1, None, quote))
    assert result.level == ANCHORED and result.evidence.record_id == "e-table"
    assert result.evidence.method == "lines-in-element"
    assert Evidence.from_dict(result.evidence.to_dict()).method == "lines-in-element"  # recorded in gold/v1


def test_a_figure_quote_spread_over_labels_of_one_region_anchors_to_the_region():
    labels = [element(f"lab{i}", 1, i, t, (50 + 60 * i, 300, 100 + 60 * i, 320)) for i, t in
              enumerate(["売上高", "営業利益", "前年比 +12%", "2024年度"])]
    page = Page(1, 595, 842, elements=tuple(labels))
    doc = Document(DOC_ID, "fig.pdf", DOC_ID * 4, "fast", (page,))
    result = anchor_evidence(doc, Evidence(None, 1, None, "2024年度 売上高 前年比"))
    assert result.level == ANCHORED and result.evidence.method == "lines-in-region"
    assert {result.evidence.record_id, *result.evidence.also} == {"lab0", "lab2", "lab3"}


def test_lines_far_apart_on_the_page_are_not_one_region():
    far = [element(f"x{i}", 1, i, t) for i, t in enumerate(["売上高の推移"] + ["別の段落です。"] * 20 + ["前年比の説明"])]
    doc = Document(DOC_ID, "far.pdf", DOC_ID * 4, "fast", (Page(1, 595, 842, elements=tuple(far)),))
    result = anchor_evidence(doc, Evidence(None, 1, None, "売上高の推移 前年比の説明"))
    assert result.level == UNANCHORED and "line by line" in result.note


def lined(eid: str, lines: list[str]) -> Element:
    """An element as ingest stores it: its text and its lines (x0, y0, x1, y1, text, ...)."""
    stored = tuple((50.0, 100.0 + 20 * i, 500.0, 118.0 + 20 * i, t, 10.0, 0, "Meiryo") for i, t in enumerate(lines))
    return Element(eid, 1, 0, Category.TEXT, (50, 100, 500, 100 + 20 * len(lines)), "".join(lines), "layout",
                   attrs=(("lines", stored),))


def test_a_quote_whose_lines_have_a_side_label_read_between_them_anchors_by_the_stored_lines():
    # a slide's row label ("6) 透明性") sits beside the cell's 2nd and 3rd lines and is read between them
    cell = lined("cell", ["検証可能性を確保しながら、適切な情報を提供する（AIを利用しているという事実、",
                          "6) 透明性", "活用している範囲、データ収集の手法、等）"])
    doc = Document(DOC_ID, "deck.pdf", DOC_ID * 4, "layout", (Page(1, 842, 595, elements=(cell,)),))
    result = anchor_evidence(doc, Evidence(None, 1, None, "（AIを利用しているという事実、活用している範囲、データ収集の"))
    assert result.level == ANCHORED and result.evidence.record_id == "cell"
    assert result.evidence.method == "lines-skipping"


def test_a_quote_sharing_words_with_lines_but_not_their_joins_is_not_anchored_by_them():
    cell = lined("cell", ["検証可能性を確保しながら、適切な情報を提供する", "6) 透明性", "活用している範囲、等）"])
    doc = Document(DOC_ID, "deck.pdf", DOC_ID * 4, "layout", (Page(1, 842, 595, elements=(cell,)),))
    # the second piece starts mid-line: not a line of the element read whole
    result = anchor_evidence(doc, Evidence(None, 1, None, "情報を提供する範囲、等）"))
    assert result.level == UNANCHORED


def test_without_a_quote_the_record_id_then_the_box_anchor():
    doc = document()
    assert anchor_evidence(doc, Evidence("e-note", 2, None, "")).evidence.record_id == "e-note"
    by_box = anchor_evidence(doc, Evidence("gone", 1, (52, 152, 498, 258), ""))
    assert by_box.evidence.record_id == "e-table" and by_box.level == ANCHORED


def test_page_only_evidence_anchors_at_page_level():
    result = anchor_evidence(document(), Evidence(None, 2, None, ""))
    assert result.level == PAGE_ONLY and result.evidence.record_id is None


def test_item_report_lists_each_unanchored_evidence():
    anchored, report = anchor_item(document(), item(
        Evidence(None, 1, None, "タクシー 5,000円"),
        Evidence(None, 1, None, "存在しない文"),
        Evidence(None, 9, None, ""),
    ))
    assert [r.level for r in report.results] == [ANCHORED, UNANCHORED, UNANCHORED]
    assert [i for i, _ in report.problems] == [1, 2]
    assert "outside 1..2" in report.results[2].note
    assert report.to_dict()["unanchored"] == 2
    assert anchored.evidence[0].record_id == "e-table"


# ---- files ----------------------------------------------------------------------------------------------
def test_gold_jsonl_round_trips():
    original = [item(Evidence("e-table", 1, (50, 150, 500, 260), "タクシー 5,000円")),
                item(Evidence(None, 2, None, ""), item_id="q2", question="脚注の条件は？")]
    text = to_jsonl(original)
    assert all(json.loads(line)["schema"] == "gold/v1" for line in text.splitlines())
    assert parse_gold_jsonl(text) == original


def test_a_bad_line_is_reported_with_its_number_and_nothing_is_read():
    good = to_jsonl([item(Evidence(None, 1, None, "x"))])
    with pytest.raises(BadInput, match="line 2: not JSON"):
        parse_gold_jsonl(good + "{oops\n")
    with pytest.raises(BadInput, match="line 1: .*empty question"):
        parse_gold_jsonl(json.dumps({"doc_id": DOC_ID, "question": " ", "evidence": []}))
    with pytest.raises(BadInput, match="duplicate id"):
        parse_gold_jsonl(good + good)


def test_import_anchors_and_stores_and_a_missing_document_changes_nothing(tmp_path):
    ws = open_workspace(tmp_path / "ws")
    ws.save_machine_document(document(), 100)
    with pytest.raises(UnknownDocument, match="Ingest those PDFs first"):
        import_gold(ws, [item(Evidence(None, 1, None, "タクシー")), item(doc_id="ffffffffffffffff", item_id="q9")])
    assert ws.gold_items() == []
    report = import_gold(ws, [item(Evidence(None, 1, None, "タクシー 5,000円"), Evidence(None, 1, None, "無い"))])
    stored = load_items(ws)
    assert [e.record_id for e in stored[0].evidence] == ["e-table", None]
    assert stored[0].evidence[1].anchored is False  # kept, flagged, not dropped
    assert not report.ok


def test_import_finds_the_document_by_file_name_when_the_doc_id_changed(tmp_path):
    ws = open_workspace(tmp_path / "ws")
    ws.save_machine_document(document(), 100)
    report = import_gold(ws, [item(Evidence(None, 1, None, "タクシー"), doc_id="ffffffffffffffff",
                                   source="kitei.pdf")])
    assert report.remapped == (("q1", "ffffffffffffffff", DOC_ID),)
    assert load_items(ws)[0].doc_id == DOC_ID


def summary_deck(doc_id: str = "fedcba9876543210") -> Document:
    """A second document that repeats one sentence of the first word for word, on its page 1."""
    p1 = Page(1, 595, 842, elements=(element("s-copy", 1, 0, "要点: 交通費は、最も経済的な経路の実費を支給する。"),))
    return Document(doc_id, "gaiyou.pdf", doc_id * 4, "fast", (p1,))


def test_evidence_copies_round_trip_and_anchor_on_their_own_document(tmp_path):
    ws = open_workspace(tmp_path / "ws")
    ws.save_machine_document(document(), 100)
    ws.save_machine_document(summary_deck(), 100)
    copies = (Copy("0000000000000000", 1, "gaiyou.pdf"),  # stale doc_id: found by its file name
              Copy("ffffffffffffffff", 1, "missing.pdf"))  # a document this workspace lacks: dropped
    given = item(Evidence(None, 1, None, "交通費は、最も経済的な経路の実費を支給する。", copies=copies))
    assert parse_gold_jsonl(to_jsonl([given])) == [given]
    anchored, report = anchor_items(ws, [given])
    assert report.ok
    ev = anchored[0].evidence[0]
    assert ev.record_id == "e-rule"
    assert ev.copies == (Copy("fedcba9876543210", 1, "gaiyou.pdf", "s-copy"),)


def test_a_copy_whose_page_lacks_the_quote_keeps_only_its_page(tmp_path):
    ws = open_workspace(tmp_path / "ws")
    ws.save_machine_document(document(), 100)
    given = item(Evidence(None, 1, None, "交通費は、最も経済的な経路の実費を支給する。",
                          copies=(Copy(DOC_ID, 2, "kitei.pdf"),)))
    ev = anchor_items(ws, [given])[0][0].evidence[0]
    assert ev.copies == (Copy(DOC_ID, 2, "kitei.pdf", None),)


# ---- command line, on the sample documents and the shipped gold set ----------------------------------
from pathlib import Path

from core.cli import main as cli_main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
GOLD = SAMPLES / "gold_ja.jsonl"


def test_the_shipped_gold_set_covers_what_it_promises():
    items = parse_gold_jsonl(GOLD.read_text(encoding="utf-8"))
    assert len(items) >= 25
    tags = {t for i in items for t in i.tags}
    assert {"footnote", "ただし", "caption", "figure", "table", "cell", "checkbox", "empty", "formula", "sql",
            "procedure"} <= tags
    assert {i.source for i in items} == {p.name for p in SAMPLES.glob("*.pdf")}
    for i in items:
        assert i.evidence and all(e.record_id and e.page and e.bbox for e in i.evidence)


def test_cli_import_anchors_every_shipped_item_and_export_round_trips(fast_samples_root, tmp_path, capsys):
    assert cli_main(["gold", "import", str(GOLD), "--workspace", str(fast_samples_root)]) == 0
    captured = capsys.readouterr()
    reports = [json.loads(line) for line in captured.out.splitlines()]
    assert len(reports) >= 25 and all(r["unanchored"] == 0 and r["page_only"] == 0 for r in reports)
    out = tmp_path / "export.jsonl"
    assert cli_main(["gold", "export", str(out), "--workspace", str(fast_samples_root)]) == 0
    exported = {i.id: i for i in parse_gold_jsonl(out.read_text(encoding="utf-8"))}
    shipped = {i.id: i for i in parse_gold_jsonl(GOLD.read_text(encoding="utf-8"))}
    assert exported.keys() == shipped.keys()
    assert all(exported[k].question == shipped[k].question for k in shipped)


def test_cli_exports_llamaindex_and_ragas_shapes_from_a_policys_chunks(fast_samples_root, tmp_path, capsys):
    assert cli_main(["gold", "import", str(GOLD), "--workspace", str(fast_samples_root)]) == 0
    li, rg = tmp_path / "li.json", tmp_path / "ragas.jsonl"
    assert cli_main(["gold", "export", str(li), "--format", "llamaindex", "--workspace", str(fast_samples_root)]) == 0
    assert cli_main(["gold", "export", str(rg), "--format", "ragas", "--policy", "naive",
                     "--workspace", str(fast_samples_root)]) == 0
    data = json.loads(li.read_text(encoding="utf-8"))
    assert set(data) >= {"queries", "corpus", "relevant_docs"}
    assert all(set(ids) <= set(data["corpus"]) for ids in data["relevant_docs"].values())
    assert sum(bool(ids) for ids in data["relevant_docs"].values()) >= 25
    rows = [json.loads(line) for line in rg.read_text(encoding="utf-8").splitlines()]
    assert set(rows[0]) == {"user_input", "reference", "reference_contexts", "reference_context_ids"}


def test_cli_import_of_a_malformed_file_says_which_line_and_changes_nothing(fast_samples_root, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "doc_id": "x", "evidence": []}\nnot json\n', encoding="utf-8")
    before = open_workspace(fast_samples_root).gold_items()
    assert cli_main(["gold", "import", str(bad), "--workspace", str(fast_samples_root)]) == 2
    assert "line 2: not JSON" in capsys.readouterr().err
    assert open_workspace(fast_samples_root).gold_items() == before
