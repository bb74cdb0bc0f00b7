"""Zero tracebacks: a fixed set of mutated PDFs and mutated JSON (made here from the samples and
the importer fixtures, seed 15) through every command. Each ends with status 0 or 2, prints no
NaN, and a refusal leaves the workspace as it was. The figures over more files are bench/fuzz.py's."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from fuzz_corpus import Outcome, mutated_json_text, mutated_pdfs, run_cli, targeted_pdfs, workspace_state
from importer_support import FIXTURES

SAMPLE_DOCS = Path(__file__).resolve().parents[2] / "sample_docs"  # not `from conftest`: several conftest modules share that name

SEED = 15
N_PDFS = 36
N_JSON = 60
IMPORTS = (("docling", "docling_small.json"), ("azure", "azure_v4_small.json"), ("azure", "azure_v21_small.json"),
           ("textract", "textract_small.json"))


@pytest.fixture(scope="module")
def seeded(tmp_path_factory, sample_docs) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("fuzz") / "ws"
    ids = {}
    for pdf in sorted(sample_docs.glob("*.pdf")):
        done = run_cli(["ingest", str(pdf), "--engine", "fast", "--workspace", str(root)])
        assert done.code == 0, done.stderr
        ids[pdf.name] = json.loads(done.stdout)["doc_id"]
    return root, ids


def check(outcome: Outcome, argv: list[str], root: Path, before: tuple | None) -> None:
    assert outcome.code is not None, f"{argv}: traceback\n{outcome.traceback}"
    assert outcome.code in (0, 2), (argv, outcome.code, outcome.stderr)
    assert not outcome.holds_nan, (argv, outcome.stdout[:300])
    if outcome.code == 2 and before is not None:
        assert workspace_state(root) == before, f"{argv} was refused but changed the workspace"
    if outcome.code == 2:
        assert outcome.stderr.strip().startswith("error:"), (argv, outcome.stderr[:300])


def run(root: Path, argv: list[str]) -> Outcome:
    before = workspace_state(root)
    outcome = run_cli([*argv, "--workspace", str(root)])
    check(outcome, argv, root, before)
    return outcome


def test_mutated_pdfs_through_ingest_import_and_the_commands_that_read_them(seeded, tmp_path):
    root, _ = seeded
    sources = [(p.name, p.read_bytes()) for p in sorted(SAMPLE_DOCS.glob("*.pdf"))]
    counts = {0: 0, 2: 0}
    for i, (name, data) in enumerate(targeted_pdfs(sources) + mutated_pdfs(sources, N_PDFS, SEED)):
        path = tmp_path / name
        path.write_bytes(data)
        done = run(root, ["ingest", str(path), "--engine", "fast"])
        counts[done.code] += 1
        if done.code == 0:
            doc_id = json.loads(done.stdout)["doc_id"]
            for argv in (["elements", doc_id], ["forms", doc_id], ["chunks", doc_id]):
                run(root, argv)
        if i % 4 == 0:  # the same PDF as the page source of an import
            run(root, ["import", str(FIXTURES / "docling_small.json"), "--format", "docling", "--pdf", str(path)])
    assert counts[0] and counts[2], f"the set holds both readable and refused files: {counts}"


def _events_file(root: Path, doc_id: str) -> str:
    from core.forms.fields import document_fields
    from core.review.corrections import corrected_document
    from core.store.opening import open_workspace

    ws = open_workspace(root)
    doc = corrected_document(ws, doc_id)
    fields = document_fields(ws, doc_id)
    ws.close()
    elements = list(doc.elements())
    lines = [{"kind": "relabel", "target": elements[3].id, "category": "footnote"},
             {"kind": "move_bbox", "target": elements[4].id, "bbox": list(elements[4].bbox)},
             {"kind": "add_element", "page": 1, "bbox": [10.0, 10.0, 120.0, 30.0], "category": "text"},
             {"kind": "redact", "field": fields[0].id}, {"kind": "mark_reviewed", "page": 1, "status": "reviewed"}]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def _gold_file(ids: dict[str, str]) -> str:
    lines = (SAMPLE_DOCS / "gold_ja.jsonl").read_text(encoding="utf-8").splitlines()
    wanted = set(ids.values())
    return "".join(line + "\n" for line in lines if json.loads(line)["doc_id"] in wanted)[:20000]


def test_mutated_json_through_import_correct_gold_import_and_evaluate(seeded, tmp_path):
    root, ids = seeded
    form_doc = ids["shinseisho_flat.pdf"]
    texts = {f"import:{fmt}:{name}": (FIXTURES / name).read_text(encoding="utf-8") for fmt, name in IMPORTS}
    texts["events"] = _events_file(root, form_doc)
    texts["gold"] = _gold_file(ids)
    rng = random.Random(SEED)
    kinds = sorted(texts)
    for i in range(N_JSON):
        kind = kinds[i % len(kinds)]
        path = tmp_path / f"{i:03d}.json"
        text = mutated_json_text(rng, texts[kind], lines=kind in ("events", "gold"))
        path.write_bytes(text.encode("utf-8", "surrogatepass") if i % 11 else text.encode("utf-8")[:-1] + b"\xff")
        if kind.startswith("import:"):
            run(root, ["import", str(path), "--format", kind.split(":")[1]])
        elif kind == "events":
            run(root, ["correct", form_doc, "--events", str(path)])
        else:
            run(root, ["gold", "import", str(path)])
            if i % 3 == 0:
                run(root, ["evaluate", "--gold", str(path), "--json"])
    # the seeded documents still read after everything that was accepted
    for doc_id in ids.values():
        run(root, ["chunks", doc_id])
