"""Imports never overwrite a stored output, numbers are numbers, and nesting is bounded: each bad
file is refused with the item's path and the workspace is left as it was."""
from __future__ import annotations

import json

import pytest

from core.cli import main
from core.errors import BadInput, MalformedImport
from core.ingest.importers import import_file
from core.store.workspace import Workspace
from core.store.opening import open_workspace
from importer_support import FIXTURES, pdf_with_texts

DOCLING = FIXTURES / "docling_small.json"
TEXTRACT = FIXTURES / "textract_small.json"


def snapshot(ws: Workspace) -> tuple:
    rows = ws._conn.execute("SELECT doc_id, engine, payload FROM machine_docs ORDER BY doc_id, engine").fetchall()
    return (tuple(rows), tuple((r.doc_id, r.source, r.engine) for r in ws.documents()),
            tuple(sorted(p.name for p in ws.pdf_dir.iterdir())))


def docling_with(mutate) -> bytes:
    data = json.loads(DOCLING.read_text(encoding="utf-8"))
    mutate(data)
    return json.dumps(data, allow_nan=True).encode("utf-8")


def first_box(data) -> dict:
    return data["texts"][0]["prov"][0]["bbox"]


@pytest.mark.parametrize("key, value, says", [
    ("l", float("nan"), "NaN"), ("r", float("inf"), "Infinity"), ("t", 1e300, "beyond"),
    ("b", -2e6, "beyond"),
])
def test_non_finite_or_absurd_coordinates_are_refused_with_the_items_path(workspace, key, value, says):
    def mutate(data):
        first_box(data)[key] = value
    before = snapshot(workspace)
    with pytest.raises(MalformedImport, match=says) as err:
        import_file(workspace, docling_with(mutate), "docling")
    assert "#/texts/0" in str(err.value)
    assert snapshot(workspace) == before


def test_an_inverted_box_is_refused_with_the_items_path(workspace):
    def mutate(data):
        box = first_box(data)
        box["l"], box["r"] = box["r"], box["l"]
    with pytest.raises(MalformedImport, match=r"#/texts/0.*inverted"):
        import_file(workspace, docling_with(mutate), "docling")
    assert workspace.documents() == []


def test_a_negative_textract_width_is_refused_as_inverted(workspace):
    data = json.loads(TEXTRACT.read_text(encoding="utf-8"))
    block = next(b for b in data["Blocks"] if b["BlockType"] == "LINE")
    block["Geometry"]["BoundingBox"]["Width"] = -0.2
    with pytest.raises(MalformedImport, match=r"Blocks\[\d+\]\.Geometry\.BoundingBox\.Width.*inverted"):
        import_file(workspace, json.dumps(data).encode(), "textract")
    assert workspace.documents() == []


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize("levels", [200, 100_000])
def test_deep_nesting_is_refused_by_import_correct_and_gold_import(tmp_path, capsys, levels, sample_docs):
    root = tmp_path / "ws"
    assert main(["ingest", str(sample_docs / "shinseisho_flat.pdf"), "--engine", "fast", "--workspace", str(root)]) == 0
    doc_id = json.loads(capsys.readouterr().out)["doc_id"]
    bomb = tmp_path / "bomb.json"
    bomb.write_text('{"schema_name": "DoclingDocument", "x": ' + deep(levels) + "}", encoding="utf-8")
    line = tmp_path / "bomb.jsonl"
    line.write_text('{"kind": "relabel", "x": ' + deep(levels) + "}\n", encoding="utf-8")
    ws = open_workspace(root)
    before = (snapshot(ws), ws.head(doc_id), ws.gold_items())
    ws.close()
    for argv in (["import", str(bomb), "--format", "docling"], ["correct", doc_id, "--events", str(line)],
                 ["gold", "import", str(line)]):
        assert main([*argv, "--workspace", str(root)]) == 2, argv
        assert "nested deeper than" in capsys.readouterr().err
    ws = open_workspace(root)
    assert (snapshot(ws), ws.head(doc_id), ws.gold_items()) == before
    ws.close()


def test_nan_literals_are_refused_in_events_and_gold_lines(workspace, sample_docs):
    from core.evaluation.gold import parse_gold_jsonl
    from core.review.events import parse_jsonl

    with pytest.raises(BadInput, match="line 1.*NaN"):
        parse_jsonl('{"kind": "move_bbox", "target": "x", "bbox": [NaN, 0, 1, 1]}', "e.jsonl")
    with pytest.raises(BadInput, match="line 1.*Infinity"):
        parse_gold_jsonl('{"question": "q", "doc_id": "d", "evidence": [{"page": 1, "bbox": [0, 0, Infinity, 1]}]}')


def test_a_second_output_of_the_same_parser_for_a_stored_document_is_refused_without_replace(workspace):
    pdf = pdf_with_texts((595, 842), [], pages=2)
    first = import_file(workspace, DOCLING, "docling", pdf=pdf)
    before = snapshot(workspace)

    def mutate(data):
        data["texts"][0]["text"] = data["texts"][0]["orig"] = "another parse"
    other = docling_with(mutate)
    with pytest.raises(BadInput, match="--replace"):
        import_file(workspace, other, "docling", pdf=pdf, name="other.json")
    assert snapshot(workspace) == before, "the reviewed document's output is untouched"
    replaced = import_file(workspace, other, "docling", pdf=pdf, name="other.json", replace=True)
    assert replaced.record.doc_id == first.record.doc_id
    texts = [e.text for e in workspace.load_machine_document(first.record.doc_id).elements()]
    assert "another parse" in texts


def test_replacing_on_purpose_keeps_the_events_and_reports_the_unmatched(workspace):
    from core.review.corrections import corrected_view, record_events

    pdf = pdf_with_texts((595, 842), [], pages=2)
    doc_id = import_file(workspace, DOCLING, "docling", pdf=pdf).record.doc_id
    machine = workspace.load_machine_document(doc_id)
    by_ref = {e.attr("source_ref"): e for e in machine.elements()}
    dropped, kept = by_ref["#/texts/0"], by_ref["#/texts/1"]
    record_events(workspace, doc_id, [{"kind": "relabel", "target": kept.id, "category": "footnote"},
                                      {"kind": "relabel", "target": dropped.id, "category": "footnote"}], actor="t")

    def mutate(data):
        data["texts"][0]["text"] = data["texts"][0]["orig"] = "a different parse"
        data["texts"][0]["prov"][0]["bbox"].update(l=400.0, r=590.0)
    import_file(workspace, docling_with(mutate), "docling", pdf=pdf, name="other.json", replace=True)
    view = corrected_view(workspace, doc_id)
    assert len(workspace.events(doc_id)) == 2, "no event is lost"
    relabelled = [e for e in view.doc.elements() if e.category.value == "footnote" and e.text == kept.text]
    assert relabelled, "the event on the unchanged element still applies"
    assert [u.old_id for u in view.unanchored] == [dropped.id], "the event that lost its element is reported"
