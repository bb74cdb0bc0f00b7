"""Hostile input figures: mutated PDFs through `python -m core ingest`, one process per file, and
mutated parser JSON through `import` in-process.

    nice -n 10 python bench/fuzz.py [--fast 200] [--layout 40] [--json 300] [--seed 15] [--timeout 180]

The PDFs are the samples and the real files in ../shared/realdata (pdfs/ and wild/, files under
--max-mb), mutated with tests/fuzz_corpus.py (the CI fuzz test's generator: the targeted faults
first, then random ones, fixed seed). Each file runs in its own `python -m core ingest` so a
segfault or a hang counts against that file only. Printed per engine: ingested / refused (exit 2,
a message) / tracebacks (a Python traceback on stderr, or any other exit status, a signal
included) / over 60 s / killed at --timeout. Also the raw PyMuPDF open+text time of the same
mutated files in this process, so the ingest time has its baseline from the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fuzz_corpus import mutated_json_text, mutated_pdfs, run_cli, targeted_pdfs  # noqa: E402

# ../shared/realdata beside the checkout (or beside the folder of worktrees)
REALDATA = next((p for p in (Path(os.environ.get("RLI_REALDATA", ROOT.parent / "shared" / "realdata")),
                            ROOT.parents[1] / "shared" / "realdata") if p.is_dir()), ROOT.parent / "shared" / "realdata")
SLOW = 60.0


def sources(max_mb: float) -> list[tuple[str, bytes]]:
    files = sorted((ROOT / "sample_docs").glob("*.pdf"))
    if REALDATA.is_dir():
        files += sorted(p for p in (REALDATA / "pdfs").rglob("*.pdf")) + sorted((REALDATA / "wild").glob("*.pdf"))
    return [(p.name, p.read_bytes()) for p in files if p.stat().st_size <= max_mb * 2**20]


def corpus(n: int, seed: int, max_mb: float) -> list[tuple[str, bytes]]:
    src = sources(max_mb)
    targeted = targeted_pdfs(src[:4])  # the samples' targeted faults (page_count, xref, boxes)
    rest = src[:4] + random.Random(seed).sample(src[4:], len(src) - 4)  # every kind of real file, not the first folders
    return (targeted + mutated_pdfs(rest, max(n - len(targeted), 0), seed))[:n]


_RAW = ("import sys, time, pymupdf\n"
        "start = time.perf_counter()\n"
        "try:\n"
        "    for page in pymupdf.open(sys.argv[1]):\n"
        "        page.get_text('dict')\n"
        "except Exception:\n"
        "    pass\n"
        "print(time.perf_counter() - start)\n")


def raw_pymupdf_seconds(path: Path, timeout: float) -> float | None:
    """Open + get_text('dict') of every page in bare PyMuPDF, in a child (a mutated file can make
    MuPDF itself spin: issue16263 with flipped bytes did); None when it ran past `timeout`."""
    try:
        done = subprocess.run([sys.executable, "-c", _RAW, str(path)], capture_output=True, text=True, timeout=timeout)
        return float(done.stdout.strip() or "nan")
    except (subprocess.TimeoutExpired, ValueError):
        return None


def ingest_one(path: Path, engine: str, workspace: Path, timeout: float) -> tuple[str, float, str]:
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "core", "ingest", str(path), "--engine", engine,
                               "--workspace", str(workspace)], cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        return "killed", time.perf_counter() - start, ""
    seconds = time.perf_counter() - start
    if "Traceback (most recent call last)" in done.stderr or done.returncode not in (0, 2):
        return "traceback", seconds, done.stderr[-600:] or f"exit status {done.returncode}"
    return ("ingested" if done.returncode == 0 else "refused"), seconds, ""


def run_engine(engine: str, files: list[tuple[str, bytes]], timeout: float, first: int = 0) -> None:
    counts: Counter[str] = Counter()
    slow, raw_total, ingest_total, raw_stuck = [], 0.0, 0.0, []
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for i, (name, data) in enumerate(files):
            if i < first:
                continue
            path = folder / f"{i:03d}.pdf"
            path.write_bytes(data)
            raw = raw_pymupdf_seconds(path, timeout)
            if raw is None:
                raw_stuck.append(name)
            else:
                raw_total += raw
            outcome, seconds, detail = ingest_one(path, engine, folder / "ws", timeout)
            ingest_total += seconds
            counts[outcome] += 1
            if seconds > SLOW:
                slow.append((name, round(seconds, 1)))
            if detail:
                problems.append((name, detail))
            print(f"  [{engine} {i + 1}/{len(files)}] {outcome:9s} {seconds:6.1f} s  {name}", file=sys.stderr, flush=True)
    print(f"{engine}: {len(files) - first} mutated PDFs (from #{first + 1}): ingested {counts['ingested']} / refused {counts['refused']} / "
          f"tracebacks {counts['traceback']} / over {SLOW:.0f} s {len(slow)} (killed at {timeout:.0f} s: "
          f"{counts['killed']})")
    print(f"  time: ingest processes {ingest_total:.0f} s in all; raw PyMuPDF open + get_text('dict') of the "
          f"same files {raw_total:.1f} s (ratio {ingest_total / max(raw_total, 1e-9):.0f}x, process start-up included); "
          f"bare PyMuPDF itself ran past {timeout:.0f} s on {len(raw_stuck)}: {', '.join(raw_stuck) or '-'}")
    for name, seconds in slow:
        print(f"  over {SLOW:.0f} s: {name} ({seconds} s)")
    for name, detail in problems:
        print(f"  traceback: {name}: {detail.strip().splitlines()[-1] if detail.strip() else detail}")


def run_json(n: int, seed: int) -> None:
    fixtures = ROOT / "tests" / "fixtures"
    texts = {("docling", p.name): p.read_text(encoding="utf-8") for p in fixtures.glob("docling*.json")}
    texts.update({("azure", p.name): p.read_text(encoding="utf-8") for p in fixtures.glob("azure*.json")})
    texts.update({("textract", p.name): p.read_text(encoding="utf-8") for p in fixtures.glob("textract*.json")})
    if (REALDATA / "peer_outputs").is_dir():
        for fmt in ("docling", "azure", "textract"):
            for p in sorted((REALDATA / "peer_outputs" / fmt).rglob("*.json")):
                if p.stat().st_size < 3 * 2**20:
                    texts[(fmt, p.name)] = p.read_text(encoding="utf-8")
    rng = random.Random(seed)
    keys = sorted(texts)
    counts: Counter[str] = Counter()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            fmt, name = keys[i % len(keys)]
            path = Path(tmp) / f"{i:03d}.json"
            path.write_text(mutated_json_text(rng, texts[(fmt, name)], lines=False), encoding="utf-8")
            outcome = run_cli(["import", str(path), "--format", fmt, "--workspace", str(Path(tmp) / "ws")])
            kind = ("traceback" if outcome.code is None else "nan printed" if outcome.holds_nan
                    else "imported" if outcome.code == 0 else "refused")
            counts[kind] += 1
            if kind in ("traceback", "nan printed"):
                problems.append((name, outcome.traceback.strip().splitlines()[-1] if outcome.traceback else "NaN"))
    print(f"json: {n} mutated parser outputs through import: imported {counts['imported']} / refused "
          f"{counts['refused']} / tracebacks {counts['traceback']} / NaN printed {counts['nan printed']}")
    for name, detail in problems:
        print(f"  {name}: {detail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fast", type=int, default=200)
    parser.add_argument("--layout", type=int, default=40)
    parser.add_argument("--json", type=int, default=300)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--max-mb", type=float, default=8.0, help="skip source PDFs larger than this")
    parser.add_argument("--fast-from", type=int, default=0, help="resume the fast run at this file index")
    args = parser.parse_args()
    print(f"sources: {len(sources(args.max_mb))} PDFs (samples + realdata pdfs/ and wild/ under {args.max_mb:g} MB), "
          f"seed {args.seed}")
    if args.json:
        run_json(args.json, args.seed)
    if args.fast:
        run_engine("fast", corpus(args.fast, args.seed, args.max_mb), args.timeout, args.fast_from)
    if args.layout:
        run_engine("layout", corpus(args.layout, args.seed + 1, args.max_mb), args.timeout)


if __name__ == "__main__":
    main()
