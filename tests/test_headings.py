"""core/headings.py: heading depth from numbering."""
from core.headings import heading_level
from chunk_fixtures import el


def test_heading_levels_follow_japanese_and_dotted_numbering():
    levels = [heading_level(el(1, i, "section_header", (0, 0, 1, 1), t)) for i, t in enumerate(
        ["第1章 総則", "第1節 目的", "第3条（定義）", "1.2 範囲", "2 概要", "目次", "その他", "4.6. Challenges",
         "2.1.2. Components", "List of Figures", "1. Introduction"])]
    assert levels == [2, 3, 5, 3, 2, 2, None, 3, 4, 2, 2]
    assert heading_level(el(1, 0, "title", (0, 0, 1, 1), "規程")) == 0
