import json
import os
from dataclasses import replace

import pytest

from core.categories import Category
from core.chunks.cache import cache_stats, clear_cache
from core.chunks.chunking import build_chunks, naive_chunks
from core.chunks.pipeline import chunks_for
from core.chunks.policy import DEFAULT, policy_from_mapping
from core.ingest.pipeline import ingest_path
from core.model import Document
from core.store.opening import open_workspace
from chunk_fixtures import SAMPLES, doc, el, squash, truth_document
from sentinel_pdf import (
    CAPTION, CODE, FOOTER, FOOTNOTE, FORMULA, HEADER, MARKER_SENTENCE, build_sentinel_pdf,
)

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
REGENERATE = os.environ.get("RLI_REGEN_GOLDEN") == "1"


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory):
    root = tmp_path_factory.mktemp("sentinel")
    sentences = build_sentinel_pdf(root / "sentinel.pdf")
    ws = open_workspace(root / "ws")
    record = ingest_path(ws, root / "sentinel.pdf", engine="fast").record
    yield ws, record.doc_id, sentences
    ws.close()


def containing(chunks, text):
    return [c for c in chunks if squash(text) in squash(c.text)]


# ---- sentinels on a generated PDF (fast engine) -----------------------------------------------
def test_every_body_sentence_lands_in_exactly_one_default_chunk(sentinel):
    ws, doc_id, sentences = sentinel
    chunks = chunks_for(ws, doc_id, DEFAULT)
    for sentence in sentences:
        assert len(containing(chunks, sentence)) == 1, sentence


def test_a_repeated_footer_is_in_no_chunk_text_but_in_metadata(sentinel):
    ws, doc_id, _ = sentinel
    chunks = chunks_for(ws, doc_id, DEFAULT)
    for furniture in (HEADER, FOOTER):
        assert not containing(chunks, furniture)
    assert all(any(squash(FOOTER) in squash(f) for f in c.extra_value("page_footers", ())) for c in chunks)
    assert all(HEADER in c.extra_value("page_headers", ()) for c in chunks)
    page_numbers = {f for c in chunks for f in c.extra_value("page_footers", ())}
    assert any("- 3 -" in f for f in page_numbers)


def test_a_caption_is_in_its_figures_chunk(sentinel):
    ws, doc_id, _ = sentinel
    [chunk] = containing(chunks_for(ws, doc_id, DEFAULT), CAPTION)
    assert Category.PICTURE in chunk.source_categories and chunk.atomic
    assert chunk.extra_value("captions")


def test_a_footnote_is_in_the_chunk_of_the_block_that_references_it(sentinel):
    ws, doc_id, _ = sentinel
    [chunk] = containing(chunks_for(ws, doc_id, DEFAULT), FOOTNOTE)
    assert squash(MARKER_SENTENCE) in squash(chunk.text)
    assert chunk.extra_value("footnotes")


def test_each_formula_and_each_code_block_is_one_whole_chunk(sentinel):
    ws, doc_id, _ = sentinel
    chunks = chunks_for(ws, doc_id, DEFAULT)
    [formula] = containing(chunks, FORMULA)
    assert formula.atomic and [r.category for r in formula.refs] == [Category.FORMULA]
    assert "式: " + FORMULA in formula.text
    [code] = [c for c in chunks if Category.CODE in c.source_categories]
    assert code.atomic and code.text.count("```") == 2 and code.extra_value("language") == "sql"
    assert all(squash(line) in squash(code.text) for line in CODE)
    assert not [c for c in chunks if c is not code and "SELECT" in c.text]


def test_every_chunk_cites_pages_and_boxes_of_what_it_contains(sentinel):
    ws, doc_id, _ = sentinel
    from core.review.corrections import corrected_document
    document = corrected_document(ws, doc_id)
    index = document.element_index()
    chunks = chunks_for(ws, doc_id, DEFAULT)
    for c in chunks:
        assert c.refs and c.start_page == min(r.page for r in c.refs) and c.end_page == max(r.page for r in c.refs)
        for ref in c.refs:
            assert index[ref.record_id].bbox == ref.bbox and index[ref.record_id].category is ref.category
    cited = {r.record_id for c in chunks for r in c.refs}
    body = {e.id for e in document.elements() if e.category in (Category.TEXT, Category.SECTION_HEADER,
                                                               Category.CAPTION, Category.FOOTNOTE,
                                                               Category.FORMULA, Category.CODE, Category.PICTURE)}
    assert body <= cited


def test_chunk_ids_are_deterministic(sentinel):
    ws, doc_id, _ = sentinel
    from core.review.corrections import corrected_document
    document = corrected_document(ws, doc_id)
    again = Document.from_json(document.to_json())
    clear_cache()
    assert [c.id for c in build_chunks(document, DEFAULT)] == [c.id for c in build_chunks(again, DEFAULT)]
    assert len({c.id for c in build_chunks(document, DEFAULT)}) == len(build_chunks(document, DEFAULT))


# ---- corrections drive the chunks --------------------------------------------------------------
def test_a_correction_rebuilds_only_the_evidence_of_its_page(tmp_path):
    build_sentinel_pdf(tmp_path / "s.pdf")
    ws = open_workspace(tmp_path / "ws")
    doc_id = ingest_path(ws, tmp_path / "s.pdf", engine="fast").record.doc_id
    from core.review.corrections import corrected_document
    before = chunks_for(ws, doc_id, DEFAULT)
    built = cache_stats()["page_evidence_built"]
    assert chunks_for(ws, doc_id, DEFAULT) is before  # same log head: nothing rebuilt
    target = next(e for e in corrected_document(ws, doc_id).page(2).elements if "S0202" in e.text)
    ws.append_events(doc_id, [{"kind": "relabel", "target": target.id, "category": "decorative"}], "test")
    after = chunks_for(ws, doc_id, DEFAULT)
    assert cache_stats()["page_evidence_built"] - built == 1
    assert not containing(after, "S0202") and containing(before, "S0202")
    ws.close()


def test_a_reviewer_link_moves_a_footnote(tmp_path):
    build_sentinel_pdf(tmp_path / "s.pdf")
    ws = open_workspace(tmp_path / "ws")
    doc_id = ingest_path(ws, tmp_path / "s.pdf", engine="fast").record.doc_id
    from core.review.corrections import corrected_document
    page = corrected_document(ws, doc_id).page(2)
    note = next(e for e in page.elements if e.category is Category.FOOTNOTE)
    other = next(e for e in page.elements if "S0201" in e.text)
    ws.append_events(doc_id, [{"kind": "link", "source": note.id, "target": other.id}], "test")
    [chunk] = containing(chunks_for(ws, doc_id, DEFAULT), FOOTNOTE)
    assert "S0201" in chunk.text
    ws.close()


# ---- the chunker's rules on Documents built in code ---------------------------------------------
def test_long_text_is_split_only_at_sentence_ends_under_the_limit():
    sentences = [f"これは{i}番目の文であり、区切りの確認に使う。" for i in range(40)]
    document = doc([[el(1, 0, "text", (60, 100, 500, 700), "".join(sentences))]])
    policy = policy_from_mapping({"max_chars": 120})
    chunks = build_chunks(document, policy)
    assert len(chunks) > 5
    assert all(len(c.text) <= 120 and c.text.endswith("。") for c in chunks)
    assert "".join(c.text for c in chunks) == "".join(sentences)


def test_a_sentence_pointing_back_starts_its_chunk_with_the_sentence_it_points_to():
    # the white paper's p5: "…市場で流通するようになる。" then "このことはアテンション・エコノミーと呼ばれ…";
    # cut between them, neither chunk held both the description and the name
    filler = "情報過多の社会では多くの情報が流通している。" * 8
    described = "人の注意や時間が経済的価値を持って市場で流通するようになる。"
    named = "このことはアテンション・エコノミーと呼ばれている。"
    document = doc([[el(1, 0, "text", (60, 100, 500, 700), filler + described + named)]])
    limit = len(filler + described) + 12  # the named sentence no longer fits the first chunk
    with_referent = build_chunks(document, policy_from_mapping({"max_chars": limit}))
    assert [c.text for c in with_referent] == [filler, described + named]
    plain = build_chunks(document, policy_from_mapping({"max_chars": limit, "referent_sentence": False}))
    assert [c.text for c in plain] == [filler + described, named]


def test_a_sentence_longer_than_the_limit_stays_whole():
    long_sentence = "あ" * 300 + "。"
    document = doc([[el(1, 0, "text", (60, 100, 500, 700), long_sentence + "短い文。")]])
    chunks = build_chunks(document, policy_from_mapping({"max_chars": 100}))
    assert [c.text for c in chunks] == [long_sentence, "短い文。"]


def test_a_long_table_is_split_between_rows_repeating_its_header_and_caption():
    rows = [["区分", "上限額"]] + [[f"項目{i}", f"{i * 1000}円"] for i in range(40)]
    table = el(1, 1, "table", (60, 120, 500, 700), "", attrs=(("rows", tuple(tuple(r) for r in rows)),))
    caption = el(1, 0, "caption", (60, 100, 300, 115), "表1　上限額")
    note = el(1, 2, "footnote", (60, 760, 500, 775), "※ 税込み。")
    chunks = build_chunks(doc([[caption, table, note]]), policy_from_mapping({"max_chars": 200}))
    assert len(chunks) > 2
    for c in chunks:
        assert c.atomic and c.text.startswith("表1　上限額\n| 区分 | 上限額 |") and c.text.endswith("※ 税込み。")
    body_rows = [line for c in chunks for line in c.text.splitlines() if line.startswith("| 項目")]
    assert len(body_rows) == 40 and len(set(body_rows)) == 40
    assert chunks[0].extra_value("table_part") == f"1/{len(chunks)}"


def test_list_items_are_grouped_as_one_procedure_under_their_section():
    heading = el(1, 0, "section_header", (60, 60, 300, 75), "第10条（申請の手順）")
    intro = el(1, 1, "text", (60, 80, 500, 95), "手順は次のとおりとする。")
    items = [el(1, 2 + i, "list_item", (70, 100 + 20 * i, 500, 115 + 20 * i), f"({i + 1}) 手順{i + 1}を行う。")
             for i in range(4)]
    after = el(1, 6, "text", (60, 200, 500, 215), "以上。")
    [chunk] = build_chunks(doc([[heading, intro, *items, after]]), DEFAULT)
    assert chunk.section_path == ("第10条（申請の手順）",) and chunk.extra_value("procedure") is True
    policy = policy_from_mapping({"max_chars": 60})
    chunks = build_chunks(doc([[heading, intro, *items, after]]), policy)
    [procedure] = [c for c in chunks if "(1)" in c.text]
    assert all(f"({i + 1})" in procedure.text for i in range(4))  # kept whole: it fits a chunk


def test_sections_start_new_chunks_and_carry_their_path():
    document = doc([[
        el(1, 0, "title", (60, 40, 300, 60), "経費精算規程"),
        el(1, 1, "section_header", (60, 80, 300, 95), "第1章 総則"),
        el(1, 2, "section_header", (60, 100, 300, 115), "第1条（目的）"),
        el(1, 3, "text", (60, 120, 500, 135), "目的を定める。"),
        el(1, 4, "section_header", (60, 140, 300, 155), "第2条（適用）"),
        el(1, 5, "text", (60, 160, 500, 175), "全員に適用する。"),
        el(1, 6, "section_header", (60, 180, 300, 195), "第2章 交通費"),
        el(1, 7, "text", (60, 200, 500, 215), "実費を支給する。"),
    ]])
    paths = [c.section_path for c in build_chunks(document, DEFAULT)]
    assert paths == [("経費精算規程", "第1章 総則", "第1条（目的）"), ("経費精算規程", "第1章 総則", "第2条（適用）"),
                     ("経費精算規程", "第2章 交通費")]


def test_a_chunk_crossing_a_page_records_both_pages():
    document = doc([[el(1, 0, "text", (60, 700, 500, 800), "前のページの文。")],
                    [el(2, 0, "text", (60, 60, 500, 80), "次のページの文。")]])
    [chunk] = build_chunks(document, DEFAULT)
    assert (chunk.start_page, chunk.end_page) == (1, 2)


def test_a_footnote_on_a_page_without_body_joins_the_chunk_before_it():
    document = doc([[el(1, 0, "text", (60, 100, 500, 120), "本文の最後。")],
                    [el(2, 0, "footnote", (60, 760, 500, 775), "※ 前ページの補足。")]])
    [chunk] = build_chunks(document, DEFAULT)
    assert "前ページの補足" in chunk.text and chunk.end_page == 2


def test_spread_halves_never_share_a_chunk():
    document = truth_document("spread_a3", sides=True)
    chunks = build_chunks(document, DEFAULT)
    assert {c.extra_value("side") for c in chunks} == {"left", "right"}
    index = document.element_index()
    for c in chunks:
        assert len({index[r.record_id].attr("side") for r in c.refs}) == 1


def test_metadata_only_and_excluded_categories_never_reach_chunk_text():
    document = truth_document("keihi_seisan_kitei")
    chunks = build_chunks(document, DEFAULT)
    text = "\n".join(c.text for c in chunks)
    for e in document.elements():
        if e.category in (Category.REFERENCE, Category.DOCUMENT_INDEX) or (
                e.category is Category.PAGE_FOOTER and e.text.strip()):
            assert squash(e.text) not in squash(text), e.text
    refs = [r for c in chunks for r in c.extra_value("references", ())]
    assert any(r.startswith("[1]") for r in refs)


# ---- naive baseline ---------------------------------------------------------------------------
def test_naive_chunks_follow_seed_002():
    sentences = [f"第{i}の文はこれで終わる。" for i in range(400)]
    pages = [[el(p, 0, "text", (60, 60, 500, 800), "".join(sentences[(p - 1) * 100: p * 100]))]
             for p in range(1, 5)]
    chunks = naive_chunks(doc(pages))
    assert len(chunks) > 2
    assert all(len(c.text) <= 2048 for c in chunks)
    for a, b in zip(chunks, chunks[1:]):
        shared = next(k for k in range(min(len(a.text), len(b.text)), -1, -1) if a.text.endswith(b.text[:k]))
        assert 0 < shared <= 300  # the next chunk restarts within the last 300 characters
    assert chunks[0].start_page == 1 and chunks[-1].end_page == 4
    assert all(c.start_page == min(r.page for r in c.refs) for c in chunks)
    assert all(c.policy == "naive" and not c.atomic for c in chunks)


def test_naive_policy_is_selected_by_name_and_keeps_furniture_in_text():
    document = truth_document("keihi_seisan_kitei")
    chunks = build_chunks(document, "naive")
    assert chunks and all(c.policy == "naive" for c in chunks)
    assert any("© 2026" in c.text for c in chunks)


# ---- forms: redacted values never reach a chunk -------------------------------------------------
@pytest.mark.parametrize("policy", ["default", "naive"])
def test_personal_values_of_a_flattened_form_reach_no_chunk(tmp_path, policy):
    truth = json.loads((SAMPLES / "shinseisho_flat.truth.json").read_text("utf-8"))
    ws = open_workspace(tmp_path / "ws")
    doc_id = ingest_path(ws, SAMPLES / "shinseisho_flat.pdf", engine="fast").record.doc_id
    from core.export.formats import to_jsonl
    exported = to_jsonl(chunks_for(ws, doc_id, policy))
    for value in truth["personal_values"]:
        assert squash(value) not in squash(exported), value
    assert "[REDACTED]" in exported
    ws.close()


def test_data_tables_outside_form_pages_stay_captioned_table_chunks(tmp_path):
    ws = open_workspace(tmp_path / "ws")
    doc_id = ingest_path(ws, SAMPLES / "keihi_seisan_kitei.pdf", engine="fast").record.doc_id
    chunks = chunks_for(ws, doc_id, DEFAULT)
    for caption, header in (("表1", "| 区分 |"), ("表2", "| 役職区分 |")):
        # the caption leads the table, after the section path the default policy puts first
        [table] = [c for c in chunks if any(line.startswith(caption) for line in c.text.splitlines()[:2])]
        assert table.atomic and Category.TABLE in table.source_categories and header in table.text
    assert not [c for c in chunks if "項目:" in c.text]  # no key/value guesses over a regulation
    ws.close()


# ---- golden chunks of the sample documents -----------------------------------------------------
def golden_cases():
    return {
        "keihi_seisan_kitei.default": build_chunks(truth_document("keihi_seisan_kitei"), DEFAULT),
        "keihi_seisan_kitei.naive": build_chunks(truth_document("keihi_seisan_kitei"), "naive"),
        "spread_a3.default": build_chunks(truth_document("spread_a3", sides=True), DEFAULT),
    }


@pytest.mark.parametrize("name", ["keihi_seisan_kitei.default", "keihi_seisan_kitei.naive", "spread_a3.default"])
def test_sample_chunks_match_the_golden_files(name):
    records = [c.to_record() for c in golden_cases()[name]]
    path = os.path.join(GOLDEN, f"{name}.json")
    if REGENERATE:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(records, f, ensure_ascii=False, indent=1)
            f.write("\n")
    with open(path, encoding="utf-8") as f:
        golden = json.load(f)
    assert records == golden, (f"chunks of {name} changed; if intended, run "
                               "RLI_REGEN_GOLDEN=1 python -m pytest tests/chunks/test_chunking.py and review the diff")


def test_the_golden_regenerate_switch_is_off():
    assert not REGENERATE, "RLI_REGEN_GOLDEN=1 rewrites the golden files instead of checking them; unset it"


def test_a_table_whose_first_row_holds_content_repeats_no_header():
    # a slide's table of guidelines: its first row is a guideline like the others, not column names
    rows = [[f"U-{i}) i.", f"指針{i}", f"⁃ AI提供者が定めた利用上の留意点{i}を遵守して、想定した範囲内で利用する"] for i in range(12)]
    table = el(1, 0, "table", (60, 120, 500, 700), "", attrs=(("rows", tuple(tuple(r) for r in rows)),))
    chunks = build_chunks(doc([[table]]), policy_from_mapping({"max_chars": 200}))
    lines = [line for c in chunks for line in c.text.splitlines() if line.startswith("| U-")]
    assert len(chunks) > 1 and len(lines) == 12 and len(set(lines)) == 12  # every row once


def test_a_tables_cells_written_above_their_label_stay_in_the_labels_part():
    # the 本編's 表1: each principle's cells, centred in a merged row, were read as a row above its
    # label ("2）" / "安全性" / "②適正利用"), and a split between them put 安全性's cells in one part
    # and its name in the next
    rows = [["区分", "指針", "AI開発者", "AI利用者"]]
    for i in range(8):
        rows += [["", "", f"i.開発者の事項{i}の確保", f"i.利用者の事項{i}の実施"],
                 [f"{i}）", f"①指針{i}の前半の", "", ""], [f"名前{i}", "項目の続き", "", ""], ["", f"②指針{i}の後半", "", ""]]
    table = el(1, 0, "table", (60, 120, 500, 700), "", attrs=(("rows", tuple(tuple(r) for r in rows)),))
    chunks = build_chunks(doc([[table]]), policy_from_mapping({"max_chars": 230, "context_prefix": "off"}))
    assert len(chunks) > 2
    for i in range(8):
        [part] = [c for c in chunks if f"| 名前{i} |" in c.text]
        assert f"i.開発者の事項{i}の確保" in part.text and f"②指針{i}の後半" in part.text
    lines = [line for c in chunks for line in c.text.splitlines() if "| 区分 |" not in line]
    assert len(lines) == 32 and len(set(lines)) == 32  # every row once


def test_a_run_on_slide_list_with_no_sentence_end_is_cut_before_its_bullets_into_even_parts():
    # the 概要's p13: one list item of 1030 characters, its items led by ✓ and never ended by 。
    items = [f"✓AIシステム・サービスの指針{i}について、関係する情報を文書化して一定期間保管し、適切に管理し、参照可能な状態とする" for i in range(7)]
    document = doc([[el(1, 0, "list_item", (60, 100, 500, 700), "".join(items))]])
    chunks = build_chunks(document, policy_from_mapping({"max_chars": 200, "context_prefix": "off"}))
    assert len(chunks) > 1 and "".join(c.text for c in chunks) == "".join(items)
    assert all(c.text.startswith("✓") for c in chunks)  # cut before a bullet, never inside ・
    sizes = [len(c.text) for c in chunks]
    assert max(sizes) <= 200 and min(sizes) >= max(sizes) // 2  # shared out evenly: no tail of one item


def test_a_split_tables_lead_heading_opens_its_first_part_only():
    # the 概要's p21: a 100-character statement read as the heading right above the table led
    # every part of it; the parts after the first name their section in the path prefix (off here,
    # so the text shows which parts hold the heading itself)
    heading = el(1, 0, "section_header", (60, 60, 500, 75), "• AI利用者は、AI提供者が意図した範囲内で継続的に適正利用を行うことが重要である")
    rows = [["区分", "上限額"]] + [[f"項目{i}", f"{i * 1000}円"] for i in range(30)]
    table = el(1, 1, "table", (60, 120, 500, 700), "", attrs=(("rows", tuple(tuple(r) for r in rows)),))
    chunks = build_chunks(doc([[heading, table]]), policy_from_mapping({"max_chars": 200, "context_prefix": "off"}))
    assert len(chunks) > 1 and heading.text in chunks[0].text
    assert not any(heading.text in c.text for c in chunks[1:])
    assert all("| 区分 | 上限額 |" in c.text for c in chunks)  # the header row still opens every part
    body_rows = [line for c in chunks for line in c.text.splitlines() if line.startswith("| 項目")]
    assert len(body_rows) == 30
