"""No personal value leaves the tool: every output of every command and every download, on the
申請書 samples, searched for the values their truth lists as personal (氏名, 電話, メール, 住所)."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from core.cli import main

SAMPLE_DOCS = Path(__file__).resolve().parents[1] / "sample_docs"  # not `from conftest`: several conftest modules share that name

FORMS = ("shinseisho_form.pdf", "shinseisho_flat.pdf")


def personal_values() -> list[str]:
    values: set[str] = set()
    for name in FORMS:
        truth = json.loads((SAMPLE_DOCS / name.replace(".pdf", ".truth.json")).read_text(encoding="utf-8"))
        values.update(truth["personal_values"])
    return sorted(values)


def leaks(text: str) -> list[str]:
    """The personal values found in `text`, spaced any way (a line wrap or OCR changes spacing)."""
    squeezed = re.sub(r"\s+", "", text)
    found = []
    for value in personal_values():
        # the address is also caught by its distinctive middle, in case only part of it is printed
        probes = [re.sub(r"\s+", "", value)] + (["丸の内一丁目"] if "丸の内" in value else [])
        if any(p in squeezed for p in probes):
            found.append(value)
    return found


class Run:
    """`python -m core …` in-process; every stdout and stderr kept for the search."""

    def __init__(self, root: Path, capsys):
        self.root, self.capsys, self.outputs = root, capsys, {}

    def __call__(self, *argv: str, ok: bool = True) -> str:
        code = main([*argv, "--workspace", str(self.root)])
        out, err = self.capsys.readouterr()
        self.outputs[" ".join(argv)] = out + err
        assert code == 0 or not ok, (argv, err)
        return out


@pytest.fixture
def seeded(tmp_path, capsys, sample_docs):
    run = Run(tmp_path / "ws", capsys)
    for name in FORMS:
        run("ingest", str(sample_docs / name), "--engine", "fast")
    return run


def _ids(run: Run) -> list[str]:
    from core.store.opening import open_workspace

    ws = open_workspace(run.root)
    try:
        return [r.doc_id for r in ws.documents()]
    finally:
        ws.close()


def _gold_on_the_personal_elements(run: Run, tmp_path: Path) -> Path:
    """Gold items whose evidence is the element holding each personal value, as the Gold page makes them
    (a click takes the element's whole text as the quote)."""
    from core.evaluation.gold import evidence_from_element, new_gold_item, to_jsonl
    from core.review.corrections import corrected_document
    from core.store.opening import open_workspace

    ws = open_workspace(run.root)
    items = []
    for doc_id in _ids(run):
        doc = corrected_document(ws, doc_id)
        for e in doc.elements():
            if leaks(e.text):
                items.append(new_gold_item(f"{e.text}は？", e.text, doc, [evidence_from_element(e)]))
    ws.close()
    assert items, "the samples hold personal values in element text"
    path = tmp_path / "gold.jsonl"
    path.write_text(to_jsonl(items), encoding="utf-8")
    return path


def _events_on_the_personal_elements(run: Run, doc_id: str, tmp_path: Path) -> Path:
    from core.review.corrections import corrected_document
    from core.store.opening import open_workspace

    ws = open_workspace(run.root)
    doc = corrected_document(ws, doc_id)
    ws.close()
    # a relabel to the same category: the event carries the element's text as its anchor, and the
    # fields (which decide what is personal) stay as they are
    targets = [e for e in doc.elements() if leaks(e.text)]
    path = tmp_path / f"{doc_id}.events.jsonl"
    path.write_text("".join(json.dumps({"kind": "relabel", "target": e.id, "category": e.category.value}) + "\n"
                            for e in targets), encoding="utf-8")
    return path


def _downloads(run: Run) -> dict[str, str]:
    """What the pages offer to download, built by the same core calls the pages make."""
    from core.chunks.pipeline import chunks_for
    from core.chunks.policy import load_policy
    from core.evaluation.gold import load_items
    from core.evaluation.gold_export import export_gold
    from core.export.docling import docling_export_for
    from core.export.formats import export
    from core.forms.masking import masked_log_jsonl
    from core.store.opening import open_workspace

    ws = open_workspace(run.root)
    out = {}
    for doc_id in _ids(run):
        out[f"audit {doc_id}"] = masked_log_jsonl(ws, doc_id)
        out[f"docling {doc_id}"] = json.dumps(docling_export_for(ws, doc_id), ensure_ascii=False)
        chunks = chunks_for(ws, doc_id, load_policy("default"))
        for fmt in ("jsonl", "langchain", "llamaindex"):
            out[f"chunks {fmt} {doc_id}"] = export(chunks, fmt)
    for fmt in ("gold", "llamaindex", "ragas"):
        out[f"gold page {fmt}"] = export_gold(ws, load_items(ws), fmt).text
    ws.close()
    return out


def test_no_command_output_or_download_holds_a_personal_value(seeded, tmp_path):
    run = seeded
    gold = _gold_on_the_personal_elements(run, tmp_path)
    for doc_id in _ids(run):
        run("correct", doc_id, "--events", str(_events_on_the_personal_elements(run, doc_id, tmp_path)))
        run("elements", doc_id)
        run("elements", doc_id, "--machine")
        run("forms", doc_id)
        for fmt in ("jsonl", "langchain", "llamaindex"):
            run("chunks", doc_id, "--format", fmt)
            run("chunks", doc_id, "--format", fmt, "--policy", "naive")
    run("gold", "import", str(gold))
    for fmt in ("gold", "llamaindex", "ragas"):
        run("gold", "export", "-", "--format", fmt)
    run("evaluate", "--gold", str(gold), "--json")
    run("evaluate", "--gold", str(gold))
    outputs = {**run.outputs, **_downloads(run)}
    leaked = {name: leaks(text) for name, text in outputs.items() if leaks(text)}
    assert not leaked, "\n".join(f"{k[:60]}: {v}" for k, v in leaked.items())


def test_the_owner_sees_the_values_with_unredacted(seeded):
    doc_id = _ids(seeded)[0]
    out = seeded("elements", doc_id, "--unredacted")
    assert leaks(out), "--unredacted prints the document as parsed"


def test_a_crop_over_a_redacted_value_is_blacked_out(tmp_path, sample_docs):
    """A table crop that covers a redacted value shows a black box where the value was."""
    from PIL import Image

    from core.chunks.crops import CropPlan, render_crop
    from core.forms.fields import extract_fields
    from core.ingest.pipeline import ingest_path
    from core.model import Element, make_bbox
    from core.categories import Category
    from core.review.corrections import corrected_document
    from core.store.opening import open_workspace

    ws = open_workspace(tmp_path / "ws")
    record = ingest_path(ws, sample_docs / "shinseisho_flat.pdf", engine="fast").record
    doc = corrected_document(ws, record.doc_id)
    name = next(f for f in extract_fields(doc) if f.redacted and f.value_bbox and "山田" in f.value)
    x0, y0, x1, y1 = name.value_bbox
    region = Element("t", name.page, 0, Category.TABLE, make_bbox((x0 - 20, y0 - 20, x1 + 20, y1 + 20)), "", "fast")
    plan = CropPlan(region, (), ())
    png = render_crop(ws.document_pdf(record.doc_id), plan, fields=extract_fields(doc))
    image = Image.open(io.BytesIO(png)).convert("L")
    zoom = 2.0
    cx, cy = int((20 + 2 + (x1 - x0) / 2) * zoom), int((20 + 2 + (y1 - y0) / 2) * zoom)
    box = image.crop((cx - 10, cy - 3, cx + 10, cy + 3))
    assert max(box.getdata()) < 30, "the value's box is black in the crop"
    plain = Image.open(io.BytesIO(render_crop(ws.document_pdf(record.doc_id), plan))).convert("L")
    assert max(plain.crop((cx - 10, cy - 3, cx + 10, cy + 3)).getdata()) > 200, "without fields the box shows"
    ws.close()
