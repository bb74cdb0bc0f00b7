"""One figure drawn as several picture elements, its labels read as text between them (a slide's
diagram): the pictures within the policy's `figure_gap` of each other are one chunk, with the labels
inside their box, up to max_chars (issue 11, rj-figure-11)."""
import pytest

from core.categories import Category
from core.chunks.chunking import build_chunks
from core.chunks.policy import DEFAULT, policy_from_mapping
from core.errors import PolicyError
from chunk_fixtures import doc, el

GAP = DEFAULT.param(Category.PICTURE, "figure_gap")


def with_gap(gap: int, **settings):
    return policy_from_mapping({"categories": {"picture": {"params": {"figure_gap": gap}}}, **settings})


def slide(second_picture_top: float = 481, label_box=(380, 251, 495, 265)):
    """The 概要's p12 shape: a picture of source documents, a label read as text, a picture below."""
    return doc([[
        el(1, 0, "section_header", (308, 16, 534, 41), "各主体に共通の指針"),
        el(1, 1, "picture", (42, 233, 354, 434), "人間中心のAI社会原則AI権利章典の青写真共通要素を抽出・整理"),
        el(1, 2, "text", label_box, "1) 人間中心2) 安全性3) 公平性"),
        el(1, 3, "picture", (168, second_picture_top, 501, second_picture_top + 72), "AI RMF 1.0広島AIプロセス"),
    ]])


def holding(chunks, text):
    return [c for c in chunks if text in c.text]


def test_the_default_gap_joins_a_figure_s_pictures_and_the_label_between_them():
    chunks = build_chunks(slide(), DEFAULT)
    [chunk] = holding(chunks, "AI権利章典の青写真")
    assert "AI RMF 1.0" in chunk.text and "1) 人間中心" in chunk.text
    assert chunk.atomic
    assert [r.category for r in chunk.refs if r.category is not Category.SECTION_HEADER] == [
        Category.PICTURE, Category.TEXT, Category.PICTURE]


def test_switched_off_each_picture_is_its_own_chunk():
    chunks = build_chunks(slide(), with_gap(-1))
    assert not holding(chunks, "AI権利章典の青写真")[0].text.count("AI RMF")
    assert len(holding(chunks, "AI RMF 1.0")) == 1


def test_pictures_farther_apart_than_the_gap_stay_apart():
    chunks = build_chunks(slide(second_picture_top=434 + GAP + 1), DEFAULT)
    assert "AI RMF 1.0" not in holding(chunks, "AI権利章典の青写真")[0].text


def test_text_outside_the_figure_s_box_ends_the_figure():
    # a body paragraph in the right margin, read between the two pictures, is not a label
    chunks = build_chunks(slide(label_box=(560, 600, 800, 640)), DEFAULT)
    first = holding(chunks, "AI権利章典の青写真")[0]
    assert "AI RMF 1.0" not in first.text and "1) 人間中心" not in first.text


def test_a_figure_stops_growing_at_max_chars():
    chunks = build_chunks(slide(), with_gap(GAP, max_chars=40))
    assert "AI RMF 1.0" not in holding(chunks, "AI権利章典の青写真")[0].text
    assert holding(chunks, "AI RMF 1.0")


def test_a_gap_below_minus_one_is_refused():
    with pytest.raises(PolicyError, match="figure_gap = -2: must be -1 or more"):
        with_gap(-2)


def test_a_title_between_two_stacked_figures_keeps_them_apart():
    # a wild UML file: two diagrams 62 pt apart, "3.1.6.2 Object Metadata" read as text between them,
    # inside the box around both but in a band that neither picture reaches
    document = doc([[
        el(1, 0, "picture", (74, 148, 538, 314), "cd Polygon MD Polygon Metadata «type»"),
        el(1, 1, "text", (80, 330, 200, 345), "3.1.6.2"),
        el(1, 2, "text", (80, 350, 300, 365), "Object Metadata"),
        el(1, 3, "picture", (75, 376, 360, 563), "cd NHN LRS Profile Global Model"),
    ]])
    chunks = build_chunks(document, DEFAULT)
    first = holding(chunks, "Polygon Metadata")[0]
    assert "Object Metadata" not in first.text and "LRS Profile" not in first.text
