import pytest
from hypothesis import given, strategies as st

from core import geometry
from core.categories import Category, COLOURS, LABEL_MAPS, category_from_label, parse_category
from core.model import Document, Element, Page, element_id


def test_every_category_has_a_colour_and_a_japanese_label():
    assert len(Category) == 17
    assert set(COLOURS) == set(Category)
    assert all(c.label_ja for c in Category)


def test_every_label_source_maps_onto_the_vocabulary():
    for source, table in LABEL_MAPS.items():
        assert table, source
        assert all(isinstance(c, Category) for c in table.values())
    assert category_from_label("pymupdf_layout", "section-header") is Category.SECTION_HEADER
    assert category_from_label("docling", "checkbox_selected") is Category.SELECTION_MARK
    assert category_from_label("azure", "pageNumber") is Category.PAGE_FOOTER
    assert category_from_label("textract", "LAYOUT_HEADER") is Category.PAGE_HEADER


def test_unknown_labels_are_refused_with_the_bad_value_quoted():
    with pytest.raises(KeyError, match="'sidebar'"):
        category_from_label("pymupdf_layout", "sidebar")
    with pytest.raises(ValueError, match="'headline'"):
        parse_category("headline")


def test_element_ids_are_deterministic_and_depend_on_box_and_text():
    a = element_id("0123456789abcdef", 2, (1, 2, 3, 4), "本文")
    assert a == element_id("0123456789abcdef", 2, (1, 2, 3, 4), "本文")
    assert a != element_id("0123456789abcdef", 2, (1, 2, 3, 5), "本文")


def test_element_rejects_inverted_boxes_and_bad_states():
    with pytest.raises(ValueError):
        Element("x", 1, 0, Category.TEXT, (10, 0, 5, 5), "", "fast")
    with pytest.raises(ValueError):
        Element("x", 1, 0, Category.SELECTION_MARK, (0, 0, 5, 5), "", "fast", state="ticked")


boxes = st.tuples(*[st.floats(0, 1000, allow_nan=False)] * 4).map(
    lambda t: (min(t[0], t[2]), min(t[1], t[3]), max(t[0], t[2]), max(t[1], t[3])))


@given(boxes, boxes)
def test_bbox_algebra_is_symmetric_and_bounded(a, b):
    assert geometry.overlap_area(a, b) == pytest.approx(geometry.overlap_area(b, a))
    assert 0.0 <= geometry.iou(a, b) <= 1.0 + 1e-9
    u = geometry.union([a, b])
    assert geometry.contains(u, a) and geometry.contains(u, b)


@given(st.lists(st.tuples(boxes, st.text(max_size=20), st.sampled_from(list(Category))), max_size=8))
def test_document_round_trips_through_json(items):
    elements = tuple(
        Element(element_id("d" * 16, 1, b, t, str(i)), 1, i, c, b, t, "fast", attrs=(("rows", (("a", "b"),)),))
        for i, (b, t, c) in enumerate(items)
    )
    doc = Document("d" * 16, "x.pdf", "0" * 64, "fast", (Page(1, 595, 842, elements=elements),))
    assert Document.from_json(doc.to_json()) == doc
