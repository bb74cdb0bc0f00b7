"""Caption and footnote attachment (core/chunks/attachment.py): nearest visual by reading order,
footnote markers, the preceding block, reviewer links and unlinks."""
from dataclasses import replace

import pytest

from core.chunks.attachment import footnote_marker
from core.chunks.chunking import document_evidence
from core.chunks.policy import DEFAULT
from chunk_fixtures import doc, el


def attachments(document, policy=DEFAULT):
    return {a.source: a for ev in document_evidence(document, policy) for a in ev.attachments}


# ---- captions -------------------------------------------------------------------------------
def test_a_caption_attaches_to_the_nearest_visual_in_reading_order_above_or_below():
    table = el(1, 0, "table", (60, 100, 500, 200), "a b\n1 2")
    below = el(1, 1, "caption", (60, 205, 300, 220), "表1 上限額")
    text = el(1, 2, "text", (60, 240, 500, 260), "本文です。")
    above = el(1, 3, "caption", (60, 300, 300, 315), "図1 流れ")
    picture = el(1, 4, "picture", (60, 320, 500, 500))
    found = attachments(doc([[table, below, text, above, picture]]))
    assert found[below.id].target == table.id
    assert found[above.id].target == picture.id


def test_reading_order_distance_beats_bbox_distance_for_captions():
    near_in_order = el(1, 0, "picture", (60, 100, 500, 300))
    caption = el(1, 1, "caption", (60, 600, 300, 615), "図2 遠い")
    near_in_space = el(1, 3, "picture", (60, 620, 500, 800))
    filler = el(1, 2, "text", (60, 400, 500, 420), "本文。")
    found = attachments(doc([[near_in_order, caption, filler, near_in_space]]))
    assert found[caption.id].target == near_in_order.id


def test_a_caption_never_attaches_across_pages_and_stays_in_the_text():
    picture = el(1, 0, "picture", (60, 600, 500, 800))
    caption = el(2, 0, "caption", (60, 40, 300, 55), "図3 前ページの図")
    body = el(2, 1, "text", (60, 80, 500, 100), "続きの本文。")
    document = doc([[picture], [caption, body]])
    found = attachments(document)
    assert found[caption.id].target is None
    blocks = document_evidence(document, DEFAULT)[1].blocks
    assert any(caption in b.elements for b in blocks)  # never dropped


# ---- footnotes ------------------------------------------------------------------------------
@pytest.mark.parametrize("marker_in_body, note", [
    ("※2", "※2 ただし書き。"), ("※２", "※2 全角の番号。"), ("*2", "*2 注記。"), ("注2", "注2 補足。"),
    ("²", "² 上付き。"), ("(2)", "(2) 括弧の番号。"),
])
def test_a_footnote_joins_the_block_holding_its_marker_anywhere_on_the_page(marker_in_body, note):
    referencing = el(1, 0, "text", (60, 100, 500, 120), f"上限額は別に定める{marker_in_body}。")
    other = el(1, 1, "text", (60, 140, 500, 160), "関係のない本文。")
    footnote = el(1, 2, "footnote", (60, 760, 500, 775), note)
    found = attachments(doc([[referencing, other, footnote]]))
    assert found[footnote.id].target == referencing.id
    assert found[footnote.id].how == "marker"


def test_a_footnote_without_a_marker_joins_the_nearest_preceding_body_block():
    first = el(1, 0, "text", (60, 100, 500, 120), "一つ目。")
    second = el(1, 1, "list_item", (60, 140, 500, 160), "(a) 二つ目。")
    footnote = el(1, 2, "footnote", (60, 760, 500, 775), "注: 例外がある。")
    found = attachments(doc([[first, second, footnote]]))
    assert found[footnote.id].target == second.id and found[footnote.id].how == "preceding"


def test_a_marker_that_merely_numbers_a_list_is_a_weaker_match_than_one_inside_a_sentence():
    numbered = el(1, 0, "list_item", (60, 100, 500, 120), "(1) 申請者は入力する。")
    citing = el(1, 1, "text", (60, 140, 500, 160), "この規定は例外がある(1)。")
    footnote = el(1, 2, "footnote", (60, 760, 500, 775), "(1) 例外の内容。")
    assert attachments(doc([[numbered, citing, footnote]]))[footnote.id].target == citing.id


def test_footnote_marker_patterns():
    assert footnote_marker("※1 ただし") .search("認める※1。")
    assert not footnote_marker("※1 ただし").search("認める※10。")
    assert footnote_marker("注 書き") is None
    assert footnote_marker("1 https://example") is None  # a bare number is too ambiguous to search


# ---- reviewer links win ------------------------------------------------------------------------
def test_a_reviewer_link_overrides_the_automatic_caption_choice():
    near = el(1, 0, "picture", (60, 100, 500, 300))
    caption = el(1, 1, "caption", (60, 305, 300, 320), "図1 本当は下の表")
    far = el(1, 2, "table", (60, 500, 500, 700), "x y")
    linked = replace(caption, links=(far.id,), rules=("reviewer:link",))
    found = attachments(doc([[near, linked, far]]))
    assert found[caption.id].target == far.id and found[caption.id].how == "link"


def test_an_unlinked_caption_stays_in_the_text_flow():
    picture = el(1, 0, "picture", (60, 100, 500, 300))
    caption = replace(el(1, 1, "caption", (60, 305, 300, 320), "図1 独立"), rules=("reviewer:unlink",))
    found = attachments(doc([[picture, caption]]))
    assert found[caption.id].target is None and found[caption.id].how == "unlinked"


def test_a_link_to_an_element_on_another_page_carries_the_caption_there():
    table = el(1, 0, "table", (60, 600, 500, 800), "a b")
    caption = el(2, 0, "caption", (60, 40, 300, 55), "表1 (前ページ)")
    linked = replace(caption, links=(table.id,), rules=("reviewer:link",))
    document = doc([[table], [linked]])
    found = attachments(document)
    assert found[caption.id].target == table.id
    table_block = next(b for b in document_evidence(document, DEFAULT)[0].blocks if table in b.elements)
    assert linked in table_block.elements


def test_a_footnote_whose_marker_is_in_a_figures_caption_joins_the_figure():
    body = el(1, 0, "text", (60, 60, 500, 90), "本文です。")
    picture = el(1, 1, "picture", (60, 100, 500, 300))
    source = el(1, 2, "caption", (300, 305, 500, 315), "（出典）研究センター＊32")
    later = el(1, 3, "text", (60, 400, 500, 500), "関係のない後の本文。")
    note = el(1, 4, "footnote", (60, 760, 500, 770), "＊32 https://example.org/")
    found = attachments(doc([[body, picture, source, later, note]]))
    assert found[source.id].target == picture.id
    assert found[note.id].target == picture.id and found[note.id].how == "marker"
