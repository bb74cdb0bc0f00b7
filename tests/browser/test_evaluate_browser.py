"""In Chromium: the Evaluate page, run on the white paper and its questions from the team's gold
set, shows the same figures as `python -m core evaluate --json` on the same workspace: first with
the page's defaults, then with modes side by side and fusion weights set on the page."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.steps import FIRST_VISIT_TIMEOUT_MS, settle

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
GOLD = REPO / "sample_docs" / "gold_ja_realdata.jsonl"
WHITE_PAPER = "yomitoku_demo_sample_R6_joho_tsushin_hakusho_excerpt.pdf"
_spec = importlib.util.spec_from_file_location("retrieval_quality", REPO / "bench" / "retrieval_quality.py")
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)


def white_paper_questions() -> list[str]:
    """The white paper's rows of the gold set (its own, not a row of another document whose quote the
    white paper prints too: that document is not in the workspace), but those of a hold-out set nobody
    has read yet: a failing assertion here prints figures, and an unread set's are printed once, by the bench."""
    rows = [line for line in GOLD.read_text(encoding="utf-8").splitlines()
            if line.strip() and json.loads(line)["source"] == WHITE_PAPER]
    return [line for line in rows
            if not any(_bench.in_half(json.loads(line)["tags"], half) for half in _bench.UNREAD)]


def cli(workspace: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "core", *args, "--workspace", str(workspace)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def headline_figures(page) -> dict[str, str]:
    labels = page.locator('[data-testid="stMetricLabel"]').all_inner_texts()
    values = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    return {label.strip(): value.strip() for label, value in zip(labels, values)}


def cli_headlines(workspace: Path, gold: Path, *args: str) -> tuple[dict[str, str], dict]:
    figures = json.loads(cli(workspace, "evaluate", "--gold", str(gold), *args, "--json"))
    return ({f"{r['policy']} · {r['retriever']}": f"{r['budget_recall@1000']:.1%}"
             for r in figures["results"] if r["level"] == "element"}, figures["questions"])


def pick(page, label: str, option: str) -> None:
    """Add one option to a Streamlit multiselect, as a user does: open it, click the option."""
    page.locator('[data-testid="stMultiSelect"]').filter(has_text=label).locator("input").click()
    page.get_by_role("option", name=option).click()
    page.keyboard.press("Escape")
    settle(page, max_wait_ms=150_000)


def type_number(page, label: str, value: str) -> None:
    box = page.get_by_label(label)
    box.fill(value)
    box.press("Enter")
    settle(page, max_wait_ms=150_000)


def test_the_evaluate_page_shows_the_cli_figures_on_the_white_paper(app_server, browser_page, realdata, tmp_path):
    page = browser_page
    page.goto(app_server.url)
    page.get_by_text("Inspect", exact=False).first.wait_for(timeout=FIRST_VISIT_TIMEOUT_MS)
    settle(page, max_wait_ms=150_000)  # the first visit's sample ingest is over before the CLI writes
    cli(app_server.workspace, "ingest", str(realdata / "pdfs" / "ja" / WHITE_PAPER), "--engine", "fast")
    questions = white_paper_questions()
    gold = tmp_path / "white_paper.jsonl"
    gold.write_text("\n".join(questions) + "\n", encoding="utf-8")
    cli(app_server.workspace, "gold", "import", str(gold))
    expected, counts = cli_headlines(app_server.workspace, gold)

    page.goto(f"{app_server.url}/evaluate")
    page.get_by_role("button", name="Run evaluation").click(timeout=60_000)
    page.get_by_text("Evidence found within 1,000 characters").wait_for(timeout=300_000)
    settle(page, max_wait_ms=150_000)
    shown = headline_figures(page)
    assert shown == expected and len(shown) == 2
    assert counts["total"] == len(questions)
    page.get_by_text(f"Questions: {counts['total']} total · {counts['anchored']} anchored · "
                     f"{counts['scored']} scored").wait_for(timeout=10_000)

    # modes side by side and the fusion weights, chosen on the page, against the same CLI run
    expected, counts = cli_headlines(app_server.workspace, gold, "--retriever", "bm25", "--retriever", "fusion",
                                     "--fusion-weights", "bm25=0.7,tfidf=0.3", "--modes", "plain,routed,pages")
    pick(page, "Retrievers", "fusion")
    pick(page, "Retrieval modes", "routed: one index per document, the question routed by the document it names (or its best)")
    pick(page, "Retrieval modes", "page expansion: a small first hit hands up its whole page")
    type_number(page, "Fusion weight: bm25", "0.7")
    type_number(page, "Fusion weight: tfidf", "0.3")
    page.get_by_role("button", name="Run evaluation").click(timeout=60_000)
    page.get_by_text("modes plain, routed, pages").wait_for(timeout=300_000)
    settle(page, max_wait_ms=150_000)
    shown = headline_figures(page)
    assert len(expected) == 2 * 2 * 3 and shown == expected
