"""Context knobs (core/chunks/context.py): heading/path prefix, tiny and heading-only chunks joined
to the next, a footnote's chunk holding the sentence with its mark; and their policy validation."""
from dataclasses import replace

import pytest

from core.categories import Category
from core.chunks.context import add_marked_sentence, add_prefix, join_small, with_context
from core.chunks.policy import policy_from_mapping
from core.errors import PolicyError
from core.model import Chunk, SourceRef


def chunk(cid, text, cats=(Category.TEXT,), page=1, path=(), atomic=False, doc="d") -> Chunk:
    refs = tuple(SourceRef(f"{cid}-{i}", page, (0, 0, 1, 1), c) for i, c in enumerate(cats))
    return Chunk(cid, text, doc, "d.pdf", page, page, tuple(path), tuple(dict.fromkeys(cats)), atomic, refs, "p")


def test_path_prefix_starts_every_chunk_with_its_section_path_and_tables_too():
    table = chunk("t", "区分 金額\nA 100", (Category.TABLE,), path=("第1節 経費", "クラウドプログラム"), atomic=True)
    assert add_prefix(table, "path", 60).text.startswith("第1節 経費 > クラウドプログラム\n区分")
    assert add_prefix(table, "heading", 60).text.startswith("クラウドプログラム\n")
    assert add_prefix(table, "path", 8).text.startswith("クラウドプログ…\n区分")  # the nearest heading's start


def test_a_long_path_prefix_keeps_whole_headings_nearest_first():
    path = ("令和6年版 情報通信白書", "第4章 デジタルテクノロジーの動向", "第1節 AIの進化", "1 生成AIが抱える課題")
    c = chunk("c", "本文です。", path=path)
    assert add_prefix(c, "path", 30).text == "第1節 AIの進化 > 1 生成AIが抱える課題\n本文です。"
    assert add_prefix(c, "path", 50).text == "第4章 デジタルテクノロジーの動向 > 第1節 AIの進化 > 1 生成AIが抱える課題\n本文です。"


def test_a_chunk_already_starting_with_its_heading_gets_no_second_copy():
    c = chunk("c", "クラウドプログラム\n本文です。", path=("クラウドプログラム",))
    assert add_prefix(c, "heading", 60).text == c.text


def test_tiny_and_heading_only_chunks_join_the_next_chunk_on_the_same_or_next_page():
    title = chunk("h", "第2章 旅費", (Category.SECTION_HEADER,))
    body = chunk("b", "旅費は実費を支給する。" * 20)
    tiny = chunk("s", "以上", page=2)
    far = chunk("f", "別の頁の本文。" * 20, page=5)
    out = join_small([title, body, tiny, far], 50)
    assert [c.id for c in out] == ["b", "s", "f"]
    assert out[0].text.startswith("第2章 旅費\n旅費は") and {r.category for r in out[0].refs} >= {Category.SECTION_HEADER}
    assert out[1].text == "以上"  # page 5 is not its neighbour: kept alone


def test_a_small_table_is_never_joined_into_its_neighbour():
    table = chunk("t", "A 1", (Category.TABLE,), atomic=True)
    assert [c.id for c in join_small([table, chunk("b", "本文" * 40)], 50)] == ["t", "b"]


def test_a_footnote_chunk_gets_the_body_sentence_with_its_mark():
    body = chunk("b", "フィルターバブル及びエコーチェンバー現象\n＊1が生じてしまう。次の文。")
    note = chunk("n", "＊1 「フィルターバブル」とは、アルゴリズムが…を指す。", (Category.FOOTNOTE,))
    out = add_marked_sentence(note, [body, note])
    assert "（本文: フィルターバブル及びエコーチェンバー現象＊1が生じてしまう。）" in out.text
    together = chunk("t", "現象＊1が生じる。\n＊1 注の本文。", (Category.TEXT, Category.FOOTNOTE))
    assert add_marked_sentence(together, [together]).text == together.text  # the mark is there already


def test_with_context_off_changes_nothing():
    chunks = [chunk("a", "見出し", (Category.SECTION_HEADER,), path=("見出し",)), chunk("b", "本文。", path=("見出し",))]
    assert with_context(chunks, "off", 60, 0, False) == chunks


def test_policy_knobs_are_validated_with_the_bad_value_quoted():
    with pytest.raises(PolicyError, match="context_prefix = 'all'"):
        policy_from_mapping({"context_prefix": "all"})
    with pytest.raises(PolicyError, match="join_under_chars = -1"):
        policy_from_mapping({"join_under_chars": -1})
    knobs = policy_from_mapping({"context_prefix": "path", "join_under_chars": 150, "footnote_sentence": True})
    assert (knobs.context_prefix, knobs.join_under_chars, knobs.footnote_sentence) == ("path", 150, True)


def test_a_tiny_chunk_does_not_join_another_section_or_an_atomic_chunk():
    short = chunk("s", "第1条 目的のみ。", path=("規程", "第1条"))
    other_section = chunk("o", "別の条の本文。" * 20, path=("規程", "第2条"))
    formula = chunk("f", "式: S = T + H", (Category.FORMULA,), path=("規程", "第1条"), atomic=True)
    assert [c.id for c in join_small([short, other_section], 50)] == ["s", "o"]
    assert [c.id for c in join_small([short, formula], 50)] == ["s", "f"]


def test_headings_the_chunk_already_opens_with_are_not_repeated_in_the_prefix():
    c = chunk("c", "第1章　総則\n第1条（目的）\n本規程は…", path=("経費精算規程", "第1章 総則", "第1条（目的）"))
    assert add_prefix(c, "path", 60).text.startswith("経費精算規程\n第1章")


def test_section_prefix_leaves_the_document_title_out():
    c = chunk("c", "本文です。", path=("経費精算規程", "第2章 交通費"))
    assert add_prefix(c, "section", 60).text == "第2章 交通費\n本文です。"


# ---- orphan headings: a heading whose section closes before any body text ------------------------
def _orphan_heading_document():
    from chunk_fixtures import doc, el
    body = "多様な背景、価値観又は考え方を持つ人々が多様な幸せを追求し、新たな価値を創造できる社会。" * 3
    return doc([[
        el(1, 1, "section_header", (50, 50, 400, 70), "A. 基本理念"),
        el(1, 2, "text", (50, 80, 500, 140), "人間中心のAI社会原則においては、三つの価値を基本理念として尊重する。" * 3),
        el(1, 3, "section_header", (50, 150, 400, 170), "② 多様な背景を持つ人々が多様な幸せを追求できる社会"),
        el(1, 4, "section_header", (50, 175, 400, 195), "（Diversity and Inclusion）"),
        el(1, 5, "text", (50, 200, 500, 260), body),
    ]])


def test_the_default_policy_keeps_a_heading_that_closed_without_body_in_a_chunk_of_its_own():
    from core.chunks.chunking import build_chunks
    from core.chunks.policy import DEFAULT
    from chunk_fixtures import squash

    document = _orphan_heading_document()
    heading = next(e for e in document.elements() if e.text.startswith("②"))
    chunks = build_chunks(document, DEFAULT)
    holding = [c for c in chunks if squash(heading.text) in squash(c.text)]
    assert len(holding) == 1 and heading.id in {r.record_id for r in holding[0].refs}
    assert "（Diversity and Inclusion）" not in holding[0].text  # the next section's chunk is its own


def test_orphan_headings_drop_and_keep_are_the_policy_choices():
    from core.chunks.chunking import build_chunks
    from core.chunks.policy import DEFAULT
    from chunk_fixtures import squash

    document = _orphan_heading_document()
    words = squash("② 多様な背景を持つ人々が多様な幸せを追求できる社会")
    dropped = build_chunks(document, replace(DEFAULT, orphan_headings="drop"))
    assert not any(words in squash(c.text) for c in dropped)
    kept = [c for c in build_chunks(document, replace(DEFAULT, orphan_headings="keep")) if words in squash(c.text)]
    assert len(kept) == 1 and "（Diversity and Inclusion）" in kept[0].text
    with pytest.raises(PolicyError):
        policy_from_mapping({"orphan_headings": "lose"})


def test_a_run_of_orphan_headings_shares_one_chunk_instead_of_one_tiny_chunk_each():
    from core.chunks.chunking import build_chunks
    from core.chunks.policy import DEFAULT
    from chunk_fixtures import doc, el, squash

    labels = ["Parties", "Issuer", "Co-Issuer", "Collateral Trustee", "Collateral Manager"]
    document = doc([[*(el(1, i, "section_header", (50, 50 + 25 * i, 300, 70 + 25 * i), t) for i, t in enumerate(labels)),
                     el(1, 9, "section_header", (50, 300, 300, 320), "Asset Details"),
                     el(1, 10, "text", (50, 330, 500, 400), "The collateral consists of senior secured loans. " * 4)]])
    holding = [c for c in build_chunks(document, DEFAULT) if any(squash(t) in squash(c.text) for t in labels)]
    assert len(holding) == 1 and all(squash(t) in squash(holding[0].text) for t in labels)
