"""Sections (core/chunks/sections.py): section paths by each document's numbering, and the
document index mapping section titles to physical pages."""
import pytest

from core.chunks.sections import index_entries, section_page_map, section_paths
from chunk_fixtures import doc, el, truth_document


# ---- section paths, document index -----------------------------------------------------------
@pytest.mark.parametrize("headings, expected_last", [
    # a regulation: front matter beside the chapters, articles under chapters
    (["規程", "目次", "第1章 総則", "第1条（目的）", "第2条（定義）", "第2章 交通費", "第4条（支給）"],
     ("規程", "第2章 交通費", "第4条（支給）")),
    # a white paper: 節 then circled-number subsections read as "1", then ア, then （ア）
    (["第4章 課題", "第1 節 AIの進化", "1 生成AIの課題", "ア 概要", "（ア）欧州", "（イ）米国", "2 著作権"],
     ("第4章 課題", "第1 節 AIの進化", "2 著作権")),
    # a report: dotted numbering, front matter before it, an appendix after it
    (["NIST SP", "Table of Contents", "List of Figures", "1. Introduction", "2. Architecture",
      "2.1. Components", "2.1.2. Storage", "4. Posture", "4.6. Challenges"],
     ("NIST SP", "4. Posture", "4.6. Challenges")),
    (["NIST SP", "5. Conclusions", "References", "Appendix A. Variants", "A.1. Diskless"],
     ("NIST SP", "Appendix A. Variants", "A.1. Diskless")),
    # unnumbered headings are siblings of the heading before them
    (["Title", "1. Scope", "Background", "Motivation"], ("Title", "Motivation")),
    # a bullet-led heading heads a part of the section above it (the guideline's 第３部 > ● AI 開発後),
    # and the next part closes it
    (["ガイドライン", "第３部 AI 開発者に関する事項", "● AI 開発時", "● AI 開発後"],
     ("ガイドライン", "第３部 AI 開発者に関する事項", "● AI 開発後")),
    (["ガイドライン", "第３部 AI 開発者に関する事項", "● AI 開発後", "第４部 AI 提供者に関する事項"],
     ("ガイドライン", "第４部 AI 提供者に関する事項")),
])
def test_section_paths_follow_each_documents_numbering(headings, expected_last):
    elements = [el(1, i, "title" if i == 0 else "section_header", (60, 20 * i, 300, 20 * i + 15), t)
                for i, t in enumerate(headings)]
    paths = section_paths(doc([elements]))
    assert paths[elements[-1].id] == expected_last


def _sized_headings(*headings: tuple[str, float]):
    elements = [el(1, 0, "title", (60, 0, 300, 15), "概要", attrs=(("size", 30.0),))]
    elements += [el(1, i, "section_header", (60, 20 * i, 300, 20 * i + 15), t, attrs=(("size", size),))
                 for i, (t, size) in enumerate(headings, start=1)]
    return elements, section_paths(doc([elements]))


def test_unnumbered_headings_nest_by_their_size():
    # a slide deck: a 24 pt slide title, a roman-numbered item under it, then the next slide's 26 pt
    # title, which closes both, and its 18 pt parts under it
    elements, paths = _sized_headings(("高度なAIシステムの指針", 24.0), ("XI. データ対策", 14.0),
                                      ("AIガバナンスの構築", 26.0), ("複数主体間の連携確保", 18.0),
                                      ("適切なデータ流通", 18.0), ("AI提供者に関する事項", 26.0))
    assert paths[elements[3].id] == ("概要", "AIガバナンスの構築")
    assert paths[elements[4].id] == ("概要", "AIガバナンスの構築", "複数主体間の連携確保")
    assert paths[elements[5].id] == ("概要", "AIガバナンスの構築", "適切なデータ流通")
    assert paths[elements[6].id] == ("概要", "AI提供者に関する事項")


def test_an_unnumbered_heading_of_unknown_size_stays_the_sibling_of_the_one_before():
    elements = [el(1, 0, "title", (60, 0, 300, 15), "Title", attrs=(("size", 30.0),)),
                el(1, 1, "section_header", (60, 20, 300, 35), "Background", attrs=(("size", 20.0),)),
                el(1, 2, "section_header", (60, 40, 300, 55), "Motivation")]
    assert section_paths(doc([elements]))[elements[-1].id] == ("Title", "Motivation")


def test_the_document_index_maps_section_titles_to_physical_pages():
    document = truth_document("keihi_seisan_kitei")
    assert ("第2章\u3000交通費".replace("\u3000", " "), "2") in index_entries(document)
    pages = section_page_map(document)
    assert pages["第2章 交通費"][0] == 2
    assert pages["第4章 精算手続"][0] == 4
    assert pages["改定履歴"] == (6,)
