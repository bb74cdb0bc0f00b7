"""The README's example of our Sudachi tokenizer inside LangChain's and LlamaIndex's BM25 retrievers,
run as written on the CLI's exports of the sample rules."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main as cli_main
from core.store.opening import open_workspace

pytest.importorskip("langchain_community.retrievers")
pytest.importorskip("llama_index.retrievers.bm25")
pytest.importorskip("rank_bm25")

ROOT = Path(__file__).resolve().parents[2]


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- example:bm25 .*?-->\n```python\n(.*?)```", text, re.S)
    assert found, "README.md lost its example:bm25 block"
    return found.group(1)


def test_the_readme_example_runs_and_finds_the_table_of_limits(fast_samples_root, tmp_path, capsys):
    ws = open_workspace(fast_samples_root)
    doc_id = next(d.doc_id for d in ws.documents() if d.source == "keihi_seisan_kitei.pdf")
    ws.close()
    for fmt, extra in (("langchain", ["--metadata", "flat"]), ("llamaindex", [])):
        out = tmp_path / f"kitei.{fmt}.jsonl"
        assert cli_main(["chunks", doc_id, "--format", fmt, *extra, "--out", str(out),
                         "--workspace", str(fast_samples_root)]) == 0
    script = tmp_path / "example.py"
    script.write_text(readme_example(), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-2000:]
    lines = dict(line.split(":", 1) for line in run.stdout.splitlines())
    assert set(lines) == {"LangChain", "LlamaIndex"}
    # both put the table of limits (表1 交通費の上限額, where タクシー's row is) first
    assert "表1 交通費の上限額" in lines["LangChain"] and "表1 交通費の上限額" in lines["LlamaIndex"], run.stdout
    assert lines["LangChain"].split()[0] == lines["LlamaIndex"].split()[0]  # the same start page
