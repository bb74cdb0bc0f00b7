"""The forms CLI: one redacted JSON line per field, and an unknown document named."""
from __future__ import annotations

import json

from core.cli import main as cli_main
from core.forms.fields import extract_fields
from core.review.corrections import corrected_document


def test_forms_cli_prints_one_redacted_json_line_per_field(acro, capsys):
    ws, doc_id = acro
    assert cli_main(["forms", doc_id, "--workspace", str(ws.root)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == len(extract_fields(corrected_document(ws, doc_id)))
    required = {"id", "page", "key", "value", "selection_state", "value_type", "key_bbox", "value_bbox",
                "source", "redacted"}
    assert all(required <= set(r) for r in rows)
    assert "山田 花子" not in json.dumps(rows, ensure_ascii=False)


def test_forms_cli_names_an_unknown_document(tmp_path, capsys):
    assert cli_main(["forms", "nope", "--workspace", str(tmp_path)]) == 2
    assert "nope" in capsys.readouterr().err
