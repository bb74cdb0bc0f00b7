"""Fields from imported key/value pairs, `field_from_pair`, and value types inferred from values."""
from __future__ import annotations

import pytest

from core.categories import Category
from core.forms.fields import extract_fields
from core.forms.form_field import infer_value_type
from core.forms.pair_fields import field_from_pair
from core.model import Document, Element, Page


def test_imported_key_value_pairs_become_fields_including_empty_ones_and_marks():
    key = Element("k1", 1, 0, Category.FORM_FIELD, (50, 50, 100, 62), "氏名:", "azure",
                  attrs=(("kv_confidence", 0.9), ("kv_value_id", "v1"), ("kv_pair", "p1"), ("kv_role", "key")))
    value = Element("v1", 1, 1, Category.FORM_FIELD, (120, 50, 220, 62), "田中 一郎", "azure",
                    attrs=(("kv_pair", "p1"), ("kv_role", "value")))
    blank = Element("k2", 1, 2, Category.FORM_FIELD, (50, 80, 100, 92), "承認日", "azure",
                    attrs=(("kv_empty", True), ("kv_value_id", ""), ("kv_role", "key")))
    box_key = Element("k3", 1, 3, Category.FORM_FIELD, (50, 110, 100, 122), "同意する", "textract",
                      attrs=(("kv_value_id", "m1"), ("kv_role", "key")))
    mark = Element("m1", 1, 4, Category.SELECTION_MARK, (120, 110, 130, 120), "", "textract", state="selected")
    doc = Document("0123456789abcdef", "x.json", "0" * 64, "azure",
                   (Page(1, 595, 842, elements=(key, value, blank, box_key, mark)),))
    fields = {f.key: f for f in extract_fields(doc)}
    assert (fields["氏名"].value, fields["氏名"].source, fields["氏名"].confidence) == ("田中 一郎", "import", 0.9)
    assert fields["承認日"].value_type == "empty_value"
    assert (fields["同意する"].value_type, fields["同意する"].selection_state) == ("selection_mark", "selected")
    assert len(fields) == 3  # geometry does not pair the imported elements a second time


def test_field_from_pair_is_what_importers_and_reviewers_build():
    k = Element("k", 2, 0, Category.TEXT, (10, 10, 40, 20), "金額：", "docling")
    v = Element("v", 2, 1, Category.TEXT, (50, 10, 90, 20), "12,000円", "docling")
    f = field_from_pair("0123456789abcdef", k, v, confidence=0.7)
    assert (f.page, f.key, f.value, f.value_type, f.source_element_ids) == (2, "金額", "12,000円", "number", ("k", "v"))
    assert f.id == field_from_pair("0123456789abcdef", k, v).id


@pytest.mark.parametrize("value,kind", [("", "empty_value"), ("  ", "empty_value"), ("2026年4月15日", "date"),
                                        ("令和6年4月1日", "date"), ("04/15/2026", "date"), ("23,800", "number"),
                                        ("¥1,200", "number"), ("大阪支店", "text")])
def test_value_types_are_inferred_from_the_value(value, kind):
    assert infer_value_type(value) == kind
