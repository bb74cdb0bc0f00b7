"""Ingest speed against the raw PyMuPDF calls it builds on, on the same pages in one run.

    python bench/ingest.py [PDF...] [--repeat N] [--engine layout|fast|both]

Prints, per PDF and in total:
  layout ratio = our layout engine (parse + refine) / the model's own page.get_layout()
                 (our model calls run in the layout worker process; the cpu clock adds its time)
  fast ratio   = our fast engine (parse + refine)   / raw page.get_text("dict")
and, for information, the whole ingest including the workspace write (SQLite commit with fsync,
PDF file) as a second ratio. Both sides open the PDF and load each page. Runs are interleaved (raw,
ours, raw, ours, …) and the median of each side is taken, because this machine is noisy. Budgets
(DESIGN.md): layout ≤ 1.1, fast ≤ 3.0. The sample documents are always included.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402

from core.ingest.layout_worker import layout_worker_pid, load_layout_model, start_layout_worker  # noqa: E402
from core.ingest.pdf import parse_pdf  # noqa: E402
from core.ingest.pipeline import ingest_bytes  # noqa: E402
from core.refine.rules import refine  # noqa: E402
from core.store.records import doc_id_for, sha256_of  # noqa: E402
from core.store.workspace import Workspace  # noqa: E402

BUDGETS = {"layout": 1.1, "fast": 3.0}


def raw_layout(data: bytes) -> None:
    doc = pymupdf.open(stream=data, filetype="pdf")
    for page in doc:
        page.get_layout()


def raw_dict(data: bytes) -> None:
    doc = pymupdf.open(stream=data, filetype="pdf")
    for page in doc:
        page.get_text("dict")


def engine_only(engine: str):
    def run(data: bytes) -> None:
        sha = sha256_of(data)
        refine(parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="bench.pdf", engine=engine).document)
    return run


def full_ingest(engine: str):
    def run(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as tmp:  # a fresh workspace: the ingest really parses
            ws = Workspace(tmp)
            result = ingest_bytes(ws, data, "bench.pdf", engine=engine)
            assert result.created
            ws.close()
    return run


def cpu_time() -> float:
    """This process's CPU time plus the layout worker's: the layout model runs in a child process."""
    total = time.process_time()
    pid = layout_worker_pid()
    if pid:
        try:  # Linux: utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total


CLOCKS = {"wall": time.perf_counter, "cpu": cpu_time}


def timed(fn, data: bytes, clock) -> float:
    start = clock()
    fn(data)
    return clock() - start


def measure(data: bytes, fns, repeat: int, clock) -> list[float]:
    """Median time of each function, the runs interleaved so noise hits all of them alike."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for slot, fn in zip(times, fns):
            slot.append(timed(fn, data, clock))
    return [statistics.median(t) for t in times]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pdfs", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, help="runs per measurement (default: 9 fast, 3 layout)")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="cpu",
                        help="cpu (process time: steadier when other jobs share the machine) or wall")
    parser.add_argument("--engine", choices=("layout", "fast", "both"), default="both")
    args = parser.parse_args(argv)

    pdfs = sorted((ROOT / "sample_docs").glob("*.pdf")) + list(args.pdfs)
    engines = ("layout", "fast") if args.engine == "both" else (args.engine,)
    if "layout" in engines:
        load_layout_model()  # load the model before timing anything…
        raw_layout(pdfs[0].read_bytes())
        start_layout_worker()  # …in this process and in the layout worker
        engine_only("layout")(pdfs[0].read_bytes())
    raw_of = {"layout": raw_layout, "fast": raw_dict}
    label = {"layout": "page.get_layout()", "fast": 'page.get_text("dict")'}

    exit_code = 0
    clock = CLOCKS[args.clock]
    for engine in engines:
        repeat = args.repeat or (3 if engine == "layout" else 9)
        print(f"\n{engine} engine / {label[engine]}  (median of {repeat}, {args.clock} time, same pages, one run)")
        print(f"{'file':50s} {'pages':>5s} {'raw s':>8s} {'engine s':>8s} {'ratio':>6s} {'+store s':>8s} {'ratio':>6s}")
        total = [0.0, 0.0, 0.0]
        for pdf in pdfs:
            data = pdf.read_bytes()
            pages = pymupdf.open(stream=data, filetype="pdf").page_count
            times = measure(data, [raw_of[engine], engine_only(engine), full_ingest(engine)], repeat, clock)
            total = [a + b for a, b in zip(total, times)]
            raw_s, eng_s, full_s = times
            print(f"{pdf.name[:50]:50s} {pages:5d} {raw_s:8.3f} {eng_s:8.3f} {eng_s / raw_s:6.2f} "
                  f"{full_s:8.3f} {full_s / raw_s:6.2f}")
        raw_s, eng_s, full_s = total
        ratio = eng_s / raw_s
        verdict = "within" if ratio <= BUDGETS[engine] else "OVER"
        print(f"{'total':50s} {'':5s} {raw_s:8.3f} {eng_s:8.3f} {ratio:6.2f} {full_s:8.3f} {full_s / raw_s:6.2f}")
        print(f"{engine} engine: {ratio:.2f}x {label[engine]} ({verdict} the {BUDGETS[engine]}x budget); "
              f"with the workspace write {full_s / raw_s:.2f}x")
        if ratio > BUDGETS[engine]:
            exit_code = 1
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
