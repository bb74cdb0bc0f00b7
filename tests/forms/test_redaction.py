"""Redaction: sensitive keys by pattern, per field, and no personal value in any export."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main as cli_main
from core.forms.fields import extract_fields
from core.forms.form_field import FormField
from core.forms.redaction import DEFAULT_RULES, REDACTED, RedactionRules, redact_value, rules_from_policy
from core.ingest.pipeline import ingest_path
from core.review.corrections import corrected_document, record_events

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ("shinseisho_form.pdf", "shinseisho_flat.pdf")


@pytest.mark.parametrize("key", ["氏名", "申請者氏名", "住所", "電話番号", "メールアドレス", "口座番号", "個人番号",
                                 "マイナンバー", "生年月日", "フリガナ", "携帯", "勤務先", "運転免許証番号",
                                 "保険証の記号", "住民票コード", "Name", "Last name", "Street address 1",
                                 "Telephone Number", "E-mail", "Mobile", "Employer", "Account number",
                                 "Driver's license number", "Date of Birth (mm/dd/yyyy)",
                                 "Number, street, and room or suite no. (If P.O. box, see instructions.)",
                                 "City, town or post office", "City, town, state, and ZIP code", "ZIP", "Apt. no.",
                                 "Your social security number", "SSN", "Employer identification number (EIN)",
                                 "EIN", "TIN", "Taxpayer identification number", "Identifying number", "DOB"])
def test_default_patterns_cover_seed_001_the_issues_additions_and_english(key):
    assert DEFAULT_RULES.is_sensitive(key)


@pytest.mark.parametrize("key", ["出張先", "交通費", "申請日", "用務", "Country", "Job description", "備考",
                                 "Total payments and credits", "Balance due", "Initial return", "Final return",
                                 ", or tax year beginning", "Tentative total tax", "Destination", "Continent"])
def test_ordinary_keys_are_not_redacted(key):
    assert not DEFAULT_RULES.is_sensitive(key)


def test_patterns_are_configurable_and_bad_ones_are_refused_with_the_bad_value_quoted():
    rules = RedactionRules(("社員番号",))
    assert rules.is_sensitive("社員番号") and not rules.is_sensitive("氏名")
    assert DEFAULT_RULES.with_extra(["社員番号"]).is_sensitive("社員番号")
    with pytest.raises(ValueError, match=r"'\(unclosed'"):
        RedactionRules(("(unclosed",))
    with pytest.raises(ValueError, match="single string"):
        RedactionRules("氏名")  # type: ignore[arg-type]

    class TeamPolicy:
        sensitive_key_patterns = ("所属",)
    assert rules_from_policy(TeamPolicy()).is_sensitive("所属部署")
    assert rules_from_policy(object()) is DEFAULT_RULES


def test_a_redacted_value_is_replaced_but_an_empty_one_stays_empty():
    assert redact_value("山田") == REDACTED and redact_value("") == ""
    f = FormField("f", 1, "氏名", "山田", redacted=True, key_bbox=(0, 0, 1, 1), value_bbox=(2, 0, 3, 1))
    assert f.to_dict()["value"] == REDACTED and f.to_dict()["key_bbox"] == [0, 0, 1, 1]


# ---- every export format, on the sample forms ------------------------------------------------
def _exports(ws, doc_id: str, tmp_path: Path, capsys) -> dict[str, str]:
    from core.export.docling import docling_export_for

    out: dict[str, str] = {}
    for policy in ("default", "naive"):
        for fmt in ("jsonl", "langchain", "llamaindex"):
            path = tmp_path / f"{doc_id}.{policy}.{fmt}.jsonl"
            args = ["chunks", doc_id, "--policy", policy, "--format", fmt, "--out", str(path),
                    "--workspace", str(ws.root)]
            assert cli_main(args) == 0
            out[f"chunks {policy} {fmt}"] = path.read_text(encoding="utf-8")
    capsys.readouterr()
    assert cli_main(["forms", doc_id, "--workspace", str(ws.root)]) == 0
    out["forms"] = capsys.readouterr().out
    out["docling"] = json.dumps(docling_export_for(ws, doc_id), ensure_ascii=False)
    return out


@pytest.mark.parametrize("name", SAMPLES)
def test_no_export_format_contains_a_personal_value_of_the_sample_forms(name, workspace, tmp_path, capsys):
    path = ROOT / "sample_docs" / name
    if not path.exists():
        pytest.skip(f"{path} missing: run python sample_docs/generate.py")
    personal = json.loads(path.with_suffix(".truth.json").read_text(encoding="utf-8"))["personal_values"]
    assert personal
    record = ingest_path(workspace, path, engine="fast").record
    exports = _exports(workspace, record.doc_id, tmp_path, capsys)
    for fmt, body in exports.items():
        assert body.strip(), f"{fmt} export is empty"
        squashed = "".join(body.split())
        for value in personal:
            assert value not in body and "".join(value.split()) not in squashed, f"{value!r} leaked into {fmt}"
    assert REDACTED in exports["forms"] and REDACTED in exports["chunks default jsonl"]


def test_a_reviewer_redaction_reaches_every_export_and_unredact_brings_the_value_back(workspace, tmp_path, capsys):
    path = ROOT / "sample_docs" / "shinseisho_flat.pdf"
    if not path.exists():
        pytest.skip(f"{path} missing: run python sample_docs/generate.py")
    record = ingest_path(workspace, path, engine="fast").record
    doc_id = record.doc_id
    dept = next(f for f in extract_fields(corrected_document(workspace, doc_id)) if f.key == "所属部署")
    assert not dept.redacted
    secret = dept.value
    record_events(workspace, doc_id, [{"kind": "redact", "field": dept.id}], "reviewer")
    for fmt, body in _exports(workspace, doc_id, tmp_path, capsys).items():
        assert secret not in body and "".join(secret.split()) not in "".join(body.split()), f"leak in {fmt}"
    record_events(workspace, doc_id, [{"kind": "unredact", "field": dept.id}], "reviewer")
    capsys.readouterr()
    assert cli_main(["forms", doc_id, "--workspace", str(workspace.root)]) == 0
    assert secret in capsys.readouterr().out


IRS_PERSONAL = {"f1_01": "Jordan A. Whitfield", "f1_02": "12-3456789",
                "f1_03": "1450 Riverside Drive, Suite 210", "f1_04": "Portland, OR 97205"}


def test_the_irs_forms_name_taxpayer_number_and_address_lines_are_redacted_in_every_export(
        workspace, tmp_path, capsys, realdata):
    """Failed before: "Identifying number" and "Number, street, and room or suite no." were not sensitive."""
    import pymupdf

    pdf = pymupdf.open(realdata / "pdfs" / "forms" / "irs_f7004_fillable.pdf")
    for w in pdf[0].widgets():
        short = w.field_name.split(".")[-1].split("[")[0]
        if short in IRS_PERSONAL or short == "f1_07":
            w.field_value = IRS_PERSONAL.get(short, "25")
            w.update()
    record = ingest_path(workspace, _saved(pdf, tmp_path), engine="fast").record
    fields = {f.field_name.split(".")[-1].split("[")[0]: f for f in extract_fields(corrected_document(
        workspace, record.doc_id))}
    assert {k: fields[k].redacted for k in IRS_PERSONAL} == dict.fromkeys(IRS_PERSONAL, True)
    assert not fields["f1_07"].redacted and fields["f1_07"].value == "25"
    for fmt, body in _exports(workspace, record.doc_id, tmp_path, capsys).items():
        for value in IRS_PERSONAL.values():
            assert value not in body, f"{value!r} leaked into {fmt}"


def _saved(pdf, tmp_path: Path) -> Path:
    path = tmp_path / "irs_f7004_filled.pdf"
    pdf.save(path)
    return path
