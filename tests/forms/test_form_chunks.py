"""Retrieval text of fields and form chunks: states and empty values in words, phrasings by
policy, refs, redaction and the size limit."""
from __future__ import annotations

import json
from dataclasses import replace

from core.chunks.policy import DEFAULT
from core.forms.form_chunks import field_text, form_chunks, query_phrasings
from core.forms.form_field import FormField
from core.forms.redaction import REDACTED


def _field(**kw) -> FormField:
    base = dict(id="f1", page=1, key="対象", value="", selection_state="selected", value_type="selection_mark",
                key_bbox=(10, 10, 40, 20), value_bbox=(0, 10, 8, 20), source_element_ids=("a", "b"))
    base.update(kw)
    return FormField(**base)


def test_retrieval_text_says_states_and_empty_values_in_words():
    assert "状態: 対象 は 選択されている" in field_text(_field())
    assert "状態: 対象 は 選択されていない" in field_text(_field(selection_state="unselected"))
    empty = _field(key="承認日", value_type="empty_value", selection_state="unknown")
    assert field_text(empty) == "項目: 承認日\n値: 空欄"
    assert query_phrasings(empty) == ("承認日 が空欄", "承認日 未入力")
    assert query_phrasings(_field()) == ("対象 を選択", "対象 がチェック済み")
    assert "対象 が未チェック" in query_phrasings(_field(selection_state="unselected"))


def test_form_chunks_carry_fields_and_refs_and_add_phrasings_only_when_the_policy_says_so(flat_fields):
    doc, fields, _ = flat_fields
    on = form_chunks(doc, fields, replace(DEFAULT, form_query_phrasings=True))
    off = form_chunks(doc, fields, replace(DEFAULT, form_query_phrasings=False))
    def fields_of(chunks):
        return [f["field_id"] for c in chunks for f in c.to_record()["metadata"]["form_fields"]]
    assert fields_of(on) == fields_of(off) == [f.id for f in fields]
    text_on = "\n".join(c.text for c in on)
    text_off = "\n".join(c.text for c in off)
    assert "交通費 がチェック済み" in text_on and "交通費 がチェック済み" not in text_off
    assert "会議費 が未チェック" in text_on
    for chunk in off:
        record = chunk.to_record()
        meta = record["metadata"]
        assert meta["form_fields"] and meta["source_record_refs"] and meta["atomic"]
        assert isinstance(meta["form_query_phrasings"], list)
        ids = {e.id for e in doc.elements()}
        assert all(r["record_id"] in ids for r in meta["source_record_refs"])
    section_paths = [c.section_path for c in off]
    assert any(p and p[-1].startswith("1.") for p in section_paths)
    dumped = json.dumps([c.to_record() for c in on], ensure_ascii=False)
    for secret in ("山田 太郎", "03-1234-5678", "taro.yamada@example.co.jp"):
        assert secret not in dumped
    assert REDACTED in dumped


def test_form_chunks_respect_the_size_limit_by_splitting_between_fields(flat_fields):
    doc, fields, _ = flat_fields
    small = form_chunks(doc, fields, replace(DEFAULT, max_chars=120))
    assert len(small) > len(form_chunks(doc, fields, DEFAULT))
    assert sum(len(c.extra_value("form_fields")) for c in small) == len(fields)
