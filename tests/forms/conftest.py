"""Fixtures of the form tests: the AcroForm built in code, ingested once per module, and the
flattened sample form with its fields and truth."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.forms.fields import extract_fields
from core.ingest.pipeline import ingest_bytes, ingest_path
from core.review.corrections import corrected_document
from form_fixtures import acroform_pdf

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def acro_bytes() -> bytes:
    return acroform_pdf()


@pytest.fixture(scope="module")
def acro(tmp_path_factory, acro_bytes):
    from core.store.opening import open_workspace

    ws = open_workspace(tmp_path_factory.mktemp("acro"))
    record = ingest_bytes(ws, acro_bytes, "shinsei.pdf", engine="fast").record
    yield ws, record.doc_id
    ws.close()


@pytest.fixture(scope="module")
def flat_fields(tmp_path_factory):
    from core.store.opening import open_workspace

    path = ROOT / "sample_docs" / "shinseisho_flat.pdf"
    if not path.exists():
        pytest.skip("sample_docs/shinseisho_flat.pdf missing: run python sample_docs/generate.py")
    ws = open_workspace(tmp_path_factory.mktemp("flat"))
    record = ingest_path(ws, path, engine="fast").record
    doc = corrected_document(ws, record.doc_id)
    yield doc, extract_fields(doc), json.loads(path.with_suffix(".truth.json").read_text(encoding="utf-8"))
    ws.close()
