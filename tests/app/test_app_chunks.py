"""The Chunks page (pages/chunks.py) through the real app with AppTest."""
import json

from apptest_helpers import doc_id_of, open_page, sample_workspace, texts  # noqa: F401
from core.chunks.pipeline import chunks_for
from core.chunks.policy import load_policy
from core.store.opening import open_workspace
from chunk_fixtures import SAMPLES, squash

DOC = "keihi_seisan_kitei.pdf"


def chunks_page(sample_workspace, doc=DOC):
    at = open_page("pages/chunks.py", sample_workspace, doc=doc)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_chunks_page_lists_the_default_chunks_with_evidence_counts(sample_workspace):
    at = chunks_page(sample_workspace)
    ws = open_workspace(sample_workspace)
    expected = chunks_for(ws, doc_id_of(sample_workspace, DOC), "default")
    assert f"{len(expected)} of {len(expected)} chunks" in texts(at)
    assert len(at.dataframe[0].value) == len(expected)
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Captions attached"]) >= 2 and int(metrics["Header/footer lines → metadata"]) >= 6
    assert len(at.get("download_button")) == 3
    # the first chunk is selected: its text is shown and its boxes drawn on its page
    assert any(expected[0].text[:20] in c.value for c in at.code)


def test_filtering_by_category_keeps_only_chunks_holding_it(sample_workspace):
    at = chunks_page(sample_workspace)
    doc_id = doc_id_of(sample_workspace, DOC)
    at.multiselect(key=f"rli:chunks:cats:{doc_id}").set_value(["caption"]).run()
    assert not at.exception
    shown = at.dataframe[0].value
    assert len(shown) >= 2 and all("caption" in cats for cats in shown["categories"])
    assert "Attached captions" in texts(at)  # the selected (first) chunk carries its caption


def test_the_naive_policy_and_a_team_policy_can_be_picked(sample_workspace):
    at = chunks_page(sample_workspace)
    ws = open_workspace(sample_workspace)
    doc_id = doc_id_of(sample_workspace, DOC)
    at.selectbox(key="rli:chunks:policy").set_value("naive").run()
    assert not at.exception
    assert len(at.dataframe[0].value) == len(chunks_for(ws, doc_id, "naive"))
    at.selectbox(key="rli:chunks:policy").set_value("policies/team_example.toml").run()
    assert not at.exception
    team = chunks_for(ws, doc_id, load_policy(SAMPLES.parent / "policies" / "team_example.toml"))
    assert len(at.dataframe[0].value) == len(team)
    assert "team\\-small\\-chunks" in texts(at)  # the Policy tab names it (markdown-escaped)


def test_the_comparison_tab_counts_both_policies(sample_workspace):
    at = chunks_page(sample_workspace)
    table = at.table[0].value
    assert list(table.columns) == ["default", "naive"]
    assert table.loc["chunks", "default"] > table.loc["chunks", "naive"]


def test_no_personal_value_of_a_form_is_shown(sample_workspace):
    at = chunks_page(sample_workspace, doc="shinseisho_flat.pdf")
    shown = texts(at) + json.dumps([d.value.to_dict() for d in at.dataframe], ensure_ascii=False, default=str)
    personal = json.loads((SAMPLES / "shinseisho_flat.truth.json").read_text("utf-8"))["personal_values"]
    for value in personal:
        assert squash(value) not in squash(shown)


def test_the_flat_metadata_switch_names_and_builds_the_flat_exports(sample_workspace):
    at = chunks_page(sample_workspace)
    assert ".flat." not in texts(at) and "keihi_seisan_kitei.default.langchain.jsonl" in texts(at)
    at.toggle(key="rli:chunks:flat_metadata").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "keihi_seisan_kitei.default.langchain.flat.jsonl" in texts(at)
    assert len(at.get("download_button")) == 3
