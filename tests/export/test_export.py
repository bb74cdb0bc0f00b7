import json

import pytest
from hypothesis import given, settings, strategies as st

from core import cli
from core.categories import Category
from core.chunks.chunking import build_chunks
from core.chunks.policy import DEFAULT
from core.export.formats import FORMATS, export, file_name, llamaindex_records, to_jsonl, to_langchain, to_llamaindex
from core.ingest.pipeline import ingest_path
from core.model import Chunk, SourceRef
from core.store.opening import open_workspace
from chunk_fixtures import SAMPLES, squash, truth_document

# What LlamaIndex's TextNode.to_dict() writes (llama-index-core schema.py: BaseNode + TextNode fields
# + class_name); keys beyond these would be refused or lost by TextNode.from_dict.
TEXTNODE_KEYS = {"id_", "embedding", "metadata", "excluded_embed_metadata_keys", "excluded_llm_metadata_keys",
                 "relationships", "metadata_template", "metadata_separator", "text", "mimetype",
                 "start_char_idx", "end_char_idx", "text_template", "class_name"}


@pytest.fixture(scope="module")
def chunks():
    return build_chunks(truth_document("keihi_seisan_kitei"), DEFAULT)


def lines(text):
    return [json.loads(line) for line in text.splitlines()]


def test_jsonl_is_one_chunk_v1_record_per_line(chunks):
    records = lines(to_jsonl(chunks))
    assert records == [c.to_record() for c in chunks]
    for r in records:
        assert set(r) == {"id", "text", "metadata"}
        m = r["metadata"]
        assert m["schema"] == "chunk/v1" and m["policy"] == "default"
        assert {"doc_id", "source", "start_page", "end_page", "section_path", "source_categories", "atomic",
                "source_record_refs"} <= set(m)
        assert all(set(ref) == {"record_id", "page", "bbox", "category"} for ref in m["source_record_refs"])


def test_langchain_lines_are_documents_with_page_content_and_metadata(chunks):
    records = lines(to_langchain(chunks))
    assert [r["page_content"] for r in records] == [c.text for c in chunks]
    assert [r["metadata"] for r in records] == [c.to_record()["metadata"] for c in chunks]
    assert all(set(r) == {"id", "page_content", "metadata"} for r in records)


def test_llamaindex_lines_are_textnodes_linked_in_order(chunks):
    records = lines(to_llamaindex(chunks))
    assert all(set(r) == TEXTNODE_KEYS and r["class_name"] == "TextNode" for r in records)
    assert [r["id_"] for r in records] == [c.id for c in chunks]
    first, second, last = records[0], records[1], records[-1]
    assert first["relationships"]["1"]["node_id"] == chunks[0].doc_id  # SOURCE: the document
    assert "2" not in first["relationships"] and first["relationships"]["3"]["node_id"] == second["id_"]
    assert second["relationships"]["2"]["node_id"] == first["id_"] and "3" not in last["relationships"]
    for r in records:
        assert "source_record_refs" in r["excluded_embed_metadata_keys"]
        assert "start_page" not in r["excluded_llm_metadata_keys"]
        assert r["start_char_idx"] is None and r["end_char_idx"] is None


def test_unknown_formats_are_refused_with_the_choices(chunks):
    from core.errors import BadInput
    with pytest.raises(BadInput, match="jsonl, langchain, llamaindex"):
        export(chunks, "csv")


def test_download_names_never_carry_path_parts():
    assert file_name("../../etc/規程 v1.pdf", "team/a", "jsonl") == "規程_v1.team_a.jsonl"
    assert file_name("a.pdf", "naive", "llamaindex") == "a.naive.llamaindex.jsonl"


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
boxes = st.tuples(*[st.floats(0, 1000, allow_nan=False, allow_infinity=False)] * 4).map(
    lambda t: (round(min(t[0], t[2]), 2), round(min(t[1], t[3]), 2), round(max(t[0], t[2]), 2), round(max(t[1], t[3]), 2)))
refs = st.builds(SourceRef, record_id=texts, page=st.integers(1, 5), bbox=boxes,
                 category=st.sampled_from(list(Category)))


@st.composite
def chunk_values(draw):
    start = draw(st.integers(1, 5))
    return Chunk(
        id=draw(texts), text=draw(texts), doc_id="0123456789abcdef", source=draw(texts), start_page=start,
        end_page=start + draw(st.integers(0, 3)), section_path=tuple(draw(st.lists(texts, max_size=3))),
        source_categories=tuple(draw(st.lists(st.sampled_from(list(Category)), max_size=3))),
        atomic=draw(st.booleans()), refs=tuple(draw(st.lists(refs, max_size=4))), policy="default",
        extra=(("page_footers", tuple(draw(st.lists(texts, max_size=2)))),),
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(chunk_values(), max_size=4))
def test_every_format_round_trips_the_record(values):
    records = [c.to_record() for c in values]
    assert lines(to_jsonl(values)) == records
    assert [{"id": r["id"], "text": r["page_content"], "metadata": r["metadata"]}
            for r in lines(to_langchain(values))] == records
    assert [{"id": r["id_"], "text": r["text"], "metadata": r["metadata"]}
            for r in lines(to_llamaindex(values))] == records
    assert lines(to_llamaindex(values)) == llamaindex_records(values)


# ---- the CLI ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def flat_form(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    ws = open_workspace(root / "ws")
    doc_id = ingest_path(ws, SAMPLES / "shinseisho_flat.pdf", engine="fast").record.doc_id
    ws.close()
    return root, doc_id


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_exports_every_format_without_personal_values(flat_form, fmt, capsys):
    root, doc_id = flat_form
    out = root / f"out.{fmt}.jsonl"
    assert cli.main(["chunks", doc_id, "--workspace", str(root / "ws"), "--format", fmt, "--out", str(out)]) == 0
    body = out.read_text(encoding="utf-8")
    assert body and all(json.loads(line) for line in body.splitlines())
    personal = json.loads((SAMPLES / "shinseisho_flat.truth.json").read_text("utf-8"))["personal_values"]
    for value in personal:
        assert squash(value) not in squash(body)
    assert "[REDACTED]" in body


def test_cli_prints_to_stdout_and_takes_naive_and_toml_policies(flat_form, capsys, tmp_path):
    root, doc_id = flat_form
    assert cli.main(["chunks", doc_id, "--workspace", str(root / "ws"), "--policy", "naive"]) == 0
    naive = lines(capsys.readouterr().out)
    assert naive and {r["metadata"]["policy"] for r in naive} == {"naive"}
    team = tmp_path / "team.toml"
    team.write_text('name = "team"\nmax_chars = 200\n', encoding="utf-8")
    assert cli.main(["chunks", doc_id, "--workspace", str(root / "ws"), "--policy", str(team)]) == 0
    assert {r["metadata"]["policy"] for r in lines(capsys.readouterr().out)} == {"team"}


def test_cli_errors_name_the_problem_and_exit_non_zero(flat_form, capsys, tmp_path):
    root, doc_id = flat_form
    bad = tmp_path / "bad.toml"
    bad.write_text('[categories.caption]\naction = "glue"\n', encoding="utf-8")
    assert cli.main(["chunks", doc_id, "--workspace", str(root / "ws"), "--policy", str(bad)]) == 2
    assert "categories.caption.action = 'glue'" in capsys.readouterr().err
    assert cli.main(["chunks", "nosuchdoc", "--workspace", str(root / "ws")]) == 2
    assert "nosuchdoc" in capsys.readouterr().err
