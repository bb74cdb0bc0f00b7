"""The committed sample PDFs are fresh, and their ground truth matches the pages."""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pymupdf
import pytest

from core.categories import Category

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_docs"
SAMPLES = ["keihi_seisan_kitei", "shinseisho_form", "shinseisho_flat", "spread_a3"]
ALL_CATEGORIES = {
    "title", "section_header", "text", "list_item", "table", "picture", "caption", "footnote",
    "page_header", "page_footer", "formula", "code", "reference", "document_index",
    "form_field", "selection_mark", "decorative",
}
CHECK_GLYPHS = {"selected": "☑", "unselected": "☐"}
RADIO_GLYPHS = {"selected": "◉", "unselected": "○"}


def load_generator():
    spec = importlib.util.spec_from_file_location("sample_docs_generate", SAMPLE_DIR / "generate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file executes
    spec.loader.exec_module(module)
    return module


def truth_of(name: str) -> dict:
    return json.loads((SAMPLE_DIR / f"{name}.truth.json").read_text(encoding="utf-8"))


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sample_docs")
    load_generator().generate(out)
    return out


@pytest.mark.parametrize("suffix", [".pdf", ".truth.json"])
@pytest.mark.parametrize("name", SAMPLES)
def test_committed_file_is_byte_identical_to_a_fresh_build(regenerated, name, suffix):
    fresh = (regenerated / f"{name}{suffix}").read_bytes()
    committed = (SAMPLE_DIR / f"{name}{suffix}").read_bytes()
    assert fresh == committed, (
        f"sample_docs/{name}{suffix} is stale (or PyMuPDF {pymupdf.VersionBind} builds it differently): "
        "run `python sample_docs/generate.py` and commit the result"
    )


def test_generator_is_deterministic_within_one_process(regenerated, tmp_path):
    """A second build in the same process (shared scratch state) gives the same bytes."""
    load_generator().generate(tmp_path)
    for name in SAMPLES:
        for suffix in (".pdf", ".truth.json"):
            assert (tmp_path / f"{name}{suffix}").read_bytes() == (regenerated / f"{name}{suffix}").read_bytes()


@pytest.mark.parametrize("name", SAMPLES)
def test_truth_pages_match_the_pdf(name):
    truth = truth_of(name)
    assert truth["schema"] == "truth/v1"
    assert truth["file"] == f"{name}.pdf"
    with pymupdf.open(SAMPLE_DIR / f"{name}.pdf") as doc:
        assert [p["page"] for p in truth["pages"]] == list(range(1, doc.page_count + 1))
        for entry, page in zip(truth["pages"], doc):
            assert entry["width"] == pytest.approx(page.rect.width, abs=0.01)
            assert entry["height"] == pytest.approx(page.rect.height, abs=0.01)


@pytest.mark.parametrize("name", SAMPLES)
def test_every_element_lies_inside_its_page_and_its_text_is_under_its_bbox(name):
    truth = truth_of(name)
    with pymupdf.open(SAMPLE_DIR / f"{name}.pdf") as doc:
        for index, element in enumerate(truth["elements"]):
            assert element["category"] in ALL_CATEGORIES
            page = doc[element["page"] - 1]
            bbox = pymupdf.Rect(element["bbox"])
            assert bbox.is_valid and not bbox.is_empty, (index, element)
            assert page.rect.contains(bbox), (index, element)
            if element["text"]:
                found = squash(page.get_text("text", clip=bbox))
                assert squash(element["text"]) in found, (index, element["text"], found)


def test_all_seventeen_categories_appear_across_the_samples():
    seen = {element["category"] for name in SAMPLES for element in truth_of(name)["elements"]}
    assert seen == ALL_CATEGORIES == {category.value for category in Category}


@pytest.mark.parametrize("name", SAMPLES)
def test_links_join_captions_to_figures_and_footnotes_to_their_markers(name):
    elements = truth_of(name)["elements"]
    for link in truth_of(name)["links"]:
        source, target = elements[link["source"]], elements[link["target"]]
        assert source["page"] == target["page"]
        if link["kind"] == "caption":
            assert source["category"] == "caption"
            assert target["category"] in {"table", "picture"}
            assert source["text"][0] == ("表" if target["category"] == "table" else "図")
        else:
            assert link["kind"] == "footnote"
            assert source["category"] == "footnote"
            marker = source["text"].split()[0]  # "※1"
            assert marker in target["text"]


def test_regulation_has_running_furniture_on_every_page_and_printed_labels():
    truth = truth_of("keihi_seisan_kitei")
    assert 5 <= len(truth["pages"]) <= 7
    for page in truth["pages"]:
        on_page = [e for e in truth["elements"] if e["page"] == page["page"]]
        categories = [e["category"] for e in on_page]
        assert "page_header" in categories and "decorative" in categories
        footers = {e["text"] for e in on_page if e["category"] == "page_footer"}
        assert footers == {f"- {page['label']} -", "© 2026 株式会社サンプル"}
    footnotes = [e["text"] for e in truth["elements"] if e["category"] == "footnote"]
    assert [f[:2] for f in footnotes] == ["※1", "※2"] and all("ただし" in f for f in footnotes)


def test_regulation_code_block_is_set_in_a_monospace_font():
    truth = truth_of("keihi_seisan_kitei")
    code = next(e for e in truth["elements"] if e["category"] == "code")
    assert code["text"].startswith("SELECT") and "FROM expenses" in code["text"]
    with pymupdf.open(SAMPLE_DIR / "keihi_seisan_kitei.pdf") as doc:
        page = doc[code["page"] - 1]
        spans = [
            span
            for block in page.get_text("dict", clip=pymupdf.Rect(code["bbox"]))["blocks"]
            for line in block.get("lines", [])
            for span in line["spans"]
            if span["text"].strip()
        ]
    assert spans and all(span["flags"] & pymupdf.TEXT_FONT_MONOSPACED for span in spans)


def test_form_widgets_hold_exactly_the_truth_values():
    truth = truth_of("shinseisho_form")
    doc = pymupdf.open(SAMPLE_DIR / "shinseisho_form.pdf")  # widgets need their document open
    page = doc[0]
    widgets = list(page.widgets())
    assert widgets
    by_name: dict[str, list] = {}
    for widget in widgets:
        by_name.setdefault(widget.field_name, []).append(widget)

    for field in truth["form_fields"]:
        group = by_name[field["field_name"]]
        if field["value_type"] == "selection_mark" and "on_state" in field:  # one radio option
            widget = next(w for w in group if w.on_state() == field["on_state"])
            is_on = widget.field_value == field["on_state"]
            assert is_on == (field["selection_state"] == "selected"), field
        elif field["value_type"] == "selection_mark":  # a check box
            (widget,) = group
            assert widget.field_type == pymupdf.PDF_WIDGET_TYPE_CHECKBOX
            assert (widget.field_value != "Off") == (field["selection_state"] == "selected"), field
        elif field["value_type"] == "radio":
            chosen = [w for w in group if w.field_value not in ("Off", False)]
            assert [w.on_state() for w in chosen] == [field["on_state"]], field
        else:
            (widget,) = group
            assert widget.field_type == pymupdf.PDF_WIDGET_TYPE_TEXT
            assert widget.field_value == field["value"], field
            assert widget.field_label == field["key"]
            assert (field["value_type"] == "empty_value") == (field["value"] == "")
            assert pymupdf.Rect(field["value_bbox"]).contains(widget.rect)

    assert {f["key"] for f in truth["form_fields"]} >= {"氏名", "住所", "電話番号", "メールアドレス"}
    values = {f["key"]: f["value"] for f in truth["form_fields"]}
    assert set(truth["personal_values"]) == {values[k] for k in ("氏名", "住所", "電話番号", "メールアドレス")}


def test_form_and_flat_form_share_keys_values_and_states():
    def fields(name):
        return [
            (f["key"], f["value"], f["selection_state"], f["value_type"])
            for f in truth_of(name)["form_fields"]
        ]

    assert fields("shinseisho_form") == fields("shinseisho_flat")
    kinds = {f[3] for f in fields("shinseisho_form")}
    assert kinds >= {"text", "empty_value", "selection_mark", "radio", "date", "number"}


def test_flat_form_has_no_widgets_and_draws_marks_as_glyphs():
    truth = truth_of("shinseisho_flat")
    with pymupdf.open(SAMPLE_DIR / "shinseisho_flat.pdf") as doc:
        page = doc[0]
        assert list(page.widgets()) == []
        text = page.get_text()
        assert "☐" in text and "☑" in text
        radio_keys = {f["key"] for f in truth["form_fields"] if f.get("group") == "支払方法"}
        for field in truth["form_fields"]:
            if field["value_type"] != "selection_mark":
                continue
            glyphs = RADIO_GLYPHS if field["key"] in radio_keys else CHECK_GLYPHS
            found = page.get_text("text", clip=pymupdf.Rect(field["value_bbox"])).strip()
            assert found == glyphs[field["selection_state"]], field


def test_spread_is_one_a3_landscape_page_with_a_numbered_half_each_side_of_the_gutter():
    truth = truth_of("spread_a3")
    with pymupdf.open(SAMPLE_DIR / "spread_a3.pdf") as doc:
        assert doc.page_count == 1
        assert doc[0].rect.width == pytest.approx(1190.55, abs=0.1)
        assert doc[0].rect.height == pytest.approx(841.89, abs=0.1)
    gutter = truth["spread"]["gutter_x"]
    assert gutter == pytest.approx(1190.55 / 2, abs=0.01)
    footers = {e["text"]: e["bbox"] for e in truth["elements"] if e["category"] == "page_footer"}
    left, right = truth["spread"]["halves"]
    assert (left["side"], right["side"]) == ("left", "right")
    assert footers[left["label"]][2] < gutter < footers[right["label"]][0]
    for element in truth["elements"]:  # nothing straddles the gutter
        x0, _, x1, _ = element["bbox"]
        assert x1 < gutter or x0 > gutter, element
