"""Evaluation results as files (the CLI's --json, the Evaluate page's downloads): every export
says how many questions there were, how many anchored and how many were scored, and no personal
value of the documents leaves unmasked (per-question rows repeat the gold quotes)."""
from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from core.evaluation.scoring import EvaluationReport


def _masker(ws, report: EvaluationReport):
    from core.forms.masking import workspace_masker

    return workspace_masker(ws, sorted({r.question.doc_id for r in report.results}))


def report_json(ws, report: EvaluationReport,
                unanchored: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """`report.to_json()`, masked; `unanchored` replaces the id list with ids and reasons."""
    out = report.to_json()
    if unanchored is not None:
        out["unanchored"] = list(unanchored)
    return _masker(ws, report).json(out)


def report_json_text(ws, report: EvaluationReport) -> str:
    return json.dumps(report_json(ws, report), ensure_ascii=False, indent=1)


def report_csv(ws, report: EvaluationReport) -> str:
    return _masker(ws, report)(report.to_csv())
