"""`python -m core check-corpus`: the corpus check (issue 10), on built files and on a small fixed
sample of the real third-party PDFs (skipped where ../shared/realdata is absent)."""
from __future__ import annotations

import contextlib
import io
import json

from core.cli import main as cli_main
from core.corpus_check import check, is_bad_char
from pdf_builders import build_pdf, control_char_pdf, text

REAL_SAMPLE = (
    "pdfs/ja/yomitoku_demo_sample_R6_joho_tsushin_hakusho_excerpt.pdf",  # \x01 bullets
    "pdfs/forms/pdf_form_example_all_widget_types.pdf",
    "pdfs/forms/cms1490s_filled.pdf",  # ruled form areas the fast engine took for pictures
    "wild/pdfjs__test_pdfs_issue12823.pdf",
    "wild/camelot__tests_files_tabula_icdar2013-dataset_competition-dataset-us_us-038.pdf",
)


def run_cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(list(args))
    return code, out.getvalue()


def test_bad_characters_are_recognised():
    assert is_bad_char("\ufffd") and is_bad_char("\x01") and is_bad_char("\x85")
    assert not is_bad_char("\n") and not is_bad_char("\t") and not is_bad_char("あ")


def test_check_corpus_counts_ingested_refused_and_added_characters(tmp_path):
    (tmp_path / "broken.pdf").write_bytes(control_char_pdf())
    (tmp_path / "plain.pdf").write_bytes(build_pdf(lambda p: text(p, 72, 100, "本文の一行です。")))
    (tmp_path / "not_a_pdf.pdf").write_bytes(b"hello, I am text")
    code, out = run_cli("check-corpus", str(tmp_path), "--engine", "fast", "--json",
                        "--workspace", str(tmp_path / "ws"))
    report = json.loads(out)
    assert code == 0
    assert (report["files"], report["ingested"], report["refused"], report["tracebacks"]) == (3, 2, 1, 0)
    assert report["bad_chars_added"] == 0 and report["bad_chars_in_chunks"] == 0
    assert report["coverage"] == 1.0 and report["picture_share"] == 0.0


def test_check_corpus_on_a_small_real_sample(realdata):
    files = [realdata / f for f in REAL_SAMPLE if (realdata / f).exists()]
    summary = check(files, "fast", timeout=120, jobs=2)
    counts = summary.counts()
    assert counts["ingested"] == len(files), summary.worst()
    assert counts["bad_chars_added"] == 0 and counts["bad_chars_in_chunks"] == 0, summary.worst()
    assert counts["coverage"] >= 0.995 and counts["files_under_0.98"] == 0
    forms = [r for r in summary.results if "/forms/" in r["file"]]
    assert all(r["in_pictures"] <= 0.2 * r["chars"] for r in forms), forms
