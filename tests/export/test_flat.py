"""Flat (scalar-only) chunk metadata: nothing dropped, and back to the nested chunk/v1 form exactly."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from core.chunks.chunking import build_chunks
from core.chunks.policy import DEFAULT
from core.export.flat import JSON_KEYS, PATH_JSON, flatten_metadata, unflatten_metadata
from core.export.formats import FORMATS, export, file_name
from chunk_fixtures import truth_document

SCALARS = (str, int, float, bool)


@pytest.fixture(scope="module")
def chunks():
    return build_chunks(truth_document("keihi_seisan_kitei"), DEFAULT)


def test_flat_metadata_is_scalar_only_and_keeps_every_key(chunks):
    for c in chunks:
        nested = c.to_record()["metadata"]
        flat = flatten_metadata(nested)
        assert all(isinstance(v, SCALARS) for v in flat.values())
        assert set(nested) <= set(flat)
        assert flat["start_page"] == nested["start_page"] and flat["end_page"] == nested["end_page"]
        assert flat["section_path"] == " > ".join(nested["section_path"])
        assert json.loads(flat["source_record_refs"]) == nested["source_record_refs"]
        assert unflatten_metadata(flat) == nested


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_chunk_format_writes_flat_metadata_on_request(chunks, fmt):
    lines = [json.loads(line) for line in export(chunks, fmt, "flat").splitlines()]
    assert len(lines) == len(chunks)
    for line, chunk in zip(lines, chunks):
        assert unflatten_metadata(line["metadata"]) == chunk.to_record()["metadata"]
    assert file_name("a.pdf", "default", fmt, "flat").endswith(".flat.jsonl")


def test_a_heading_holding_the_separator_still_round_trips():
    nested = {"section_path": ["第1章 A > B", ""], "start_page": 1, "note": None, "flag": False}
    flat = flatten_metadata(nested)
    assert PATH_JSON in flat and flat[JSON_KEYS] == '["note"]'
    assert unflatten_metadata(flat) == nested
    assert PATH_JSON not in flatten_metadata({"section_path": ["第1章", "1.1 目的"]})


def test_flat_metadata_is_refused_a_second_time_and_nested_is_not_unflattened():
    flat = flatten_metadata({"section_path": ["x"]})
    with pytest.raises(ValueError, match="flat already"):
        flatten_metadata(flat)
    with pytest.raises(ValueError, match="not flat"):
        unflatten_metadata({"section_path": ["x"]})


def test_an_unknown_metadata_shape_is_refused(chunks):
    from core.errors import BadInput
    with pytest.raises(BadInput, match="nested, flat"):
        export(chunks, "jsonl", "deep")


values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                      max_leaves=8)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(max_size=10).filter(lambda k: k not in (JSON_KEYS, PATH_JSON)), values, max_size=6),
       st.lists(st.text(max_size=8), max_size=3))
def test_any_metadata_round_trips(metadata, path):
    nested = {**metadata, "section_path": path}
    assert unflatten_metadata(flatten_metadata(nested)) == nested
