"""`python -m core ingest PDF... [--engine] [--password]`: one JSON line per document, errors on
stderr, the other files still processed, a non-zero exit when any failed."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pymupdf

from core.cli import main
from core.store.records import doc_id_for, sha256_of
from core.store.opening import open_workspace
from pdf_builders import build_pdf, paragraph

ROOT = Path(__file__).resolve().parents[2]


def write_pdf(path: Path, body: str) -> Path:
    path.write_bytes(build_pdf(lambda p: paragraph(p, 72, 90, [body])))
    return path


def run(capsys, *argv) -> tuple[int, list[dict], str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, [json.loads(x) for x in captured.out.splitlines() if x.strip()], captured.err


def test_ingest_prints_one_json_line_per_document(tmp_path, capsys):
    a = write_pdf(tmp_path / "a.pdf", "一つ目の文書です。")
    b = write_pdf(tmp_path / "b.pdf", "二つ目の文書です。")
    code, lines, err = run(capsys, "ingest", str(a), str(b), "--engine", "fast", "--workspace", str(tmp_path / "ws"))
    assert code == 0 and err == ""
    assert lines == [
        {"doc_id": doc_id_for(sha256_of(a.read_bytes())), "source": "a.pdf", "pages": 1, "engine": "fast", "created": True},
        {"doc_id": doc_id_for(sha256_of(b.read_bytes())), "source": "b.pdf", "pages": 1, "engine": "fast", "created": True},
    ]
    code, again, _ = run(capsys, "ingest", str(a), "--engine", "fast", "--workspace", str(tmp_path / "ws"))
    assert code == 0 and again[0]["created"] is False and again[0]["doc_id"] == lines[0]["doc_id"]


def test_a_bad_file_is_reported_on_stderr_and_the_others_are_still_ingested(tmp_path, capsys):
    good = write_pdf(tmp_path / "good.pdf", "正常な文書です。")
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    missing = tmp_path / "missing.pdf"
    code, lines, err = run(capsys, "ingest", str(empty), str(missing), str(good), "--engine", "fast",
                           "--workspace", str(tmp_path / "ws"))
    assert code == 2
    assert [line["source"] for line in lines] == ["good.pdf"]
    assert "error: empty.pdf is empty" in err
    assert "error: cannot read" in err and "missing.pdf" in err
    assert [r.source for r in open_workspace(tmp_path / "ws").documents()] == ["good.pdf"]


def test_password_option_opens_an_encrypted_pdf(tmp_path, capsys):
    plain = build_pdf(lambda p: paragraph(p, 72, 90, ["機密の文書です。"]))
    secret = tmp_path / "secret.pdf"
    secret.write_bytes(pymupdf.open(stream=plain).tobytes(
        encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw123", owner_pw="owner"))
    code, _, err = run(capsys, "ingest", str(secret), "--engine", "fast", "--workspace", str(tmp_path / "ws"))
    assert code == 2 and "give its password (--password" in err
    code, lines, _ = run(capsys, "ingest", str(secret), "--engine", "fast", "--password", "pw123",
                         "--workspace", str(tmp_path / "ws"))
    assert code == 0 and lines[0]["pages"] == 1


def test_python_dash_m_core_ingest_then_elements_works_end_to_end(tmp_path):
    pdf = write_pdf(tmp_path / "doc.pdf", "本文の一行目です。")
    ws = tmp_path / "ws"
    ingest = subprocess.run([sys.executable, "-m", "core", "ingest", str(pdf), "--engine", "fast",
                             "--workspace", str(ws)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert ingest.returncode == 0, ingest.stderr
    doc_id = json.loads(ingest.stdout)["doc_id"]
    elements = subprocess.run([sys.executable, "-m", "core", "elements", doc_id, "--machine",
                               "--workspace", str(ws)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert elements.returncode == 0, elements.stderr
    rows = [json.loads(x) for x in elements.stdout.splitlines()]
    assert rows and rows[0]["doc_id"] == doc_id and rows[0]["text"] == "本文の一行目です。"
    assert {"id", "page", "seq", "category", "bbox", "text", "source", "rules"} <= set(rows[0])
