"""Batch and parallel-layout speed, on the same PDFs in one run.

    nice -n 10 python bench/batch.py [PDF or FOLDER ...] [--workers 2] [--every N] [--layout-pages N]

Prints:
  1. fast batch ingest (parse + refine + store) in pages per second: serial (one process), with
     N worker processes, and through Ray (local, num_cpus=N); the ratios against serial (goal ≥ 1.7×
     with 2 workers on 2 cores). Each run ingests into a fresh workspace, so every file is parsed.
  2. layout ingest with a pool of N model processes (core.ingest.layout_worker.LayoutPool) against a
     serial loop of the raw `page.get_layout()` on the same pages (pages with a text layer), wall
     time: on documents of at least 2N pages (goal ≤ 0.65× with 2), and on every file.
  3. the peak memory (VmHWM) of every worker process each run used.
The sample documents are always included; a folder is searched for PDFs (every Nth with --every).
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

from core.batch.executors import make_executor  # noqa: E402
from core.batch.ingest import batch_ingest  # noqa: E402
from core.batch.plan import pdf_files  # noqa: E402
from core.ingest.layout_worker import layout_pool, load_layout_model  # noqa: E402
from core.ingest.ocr import is_scanned  # noqa: E402
from core.ingest.pdf import parse_pdf  # noqa: E402
from core.refine.rules import refine  # noqa: E402
from core.store.records import doc_id_for, sha256_of  # noqa: E402
from core.store.workspace import Workspace  # noqa: E402


def descendants(pid: int = os.getpid()) -> list[int]:
    """Every process below `pid` (Ray's raylet and workers, pool processes, layout children)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(children.get(pid, []))
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def peak_memory(pids: list[int], wanted: tuple[str, ...]) -> list[tuple[str, float]]:
    """(short command, peak resident MiB) of the processes whose command line contains one of `wanted`."""
    out = []
    for pid in pids:
        try:
            cmd = (Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")).strip()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if any(w in cmd for w in wanted):
            hwm = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)
            out.append((cmd[:60], hwm / 1024))
    return out


WORKER_MARKS = ("ray::", "multiprocessing", "serve_layout")


def fast_batch(pdfs: list[Path], executor) -> tuple[float, int]:
    """(seconds, pages) of one batch ingest into a fresh workspace."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(tmp)
        report = batch_ingest(ws, pdfs, engine="fast", executor=executor, stream=open(os.devnull, "w"))
        ws.close()
    if report.count("failed"):
        print(f"  ({executor.name}: {report.count('failed')} file(s) failed; they count no pages)")
    return report.seconds, report.pages_done()


def fast_section(pdfs: list[Path], workers: int, repeat: int, ray: bool) -> None:
    """Every runner started (and warmed) first, then the runs interleaved, the median of each taken:
    the load of a shared machine changes from minute to minute and must hit all of them alike."""
    runs = [("serial", 1), ("processes", workers)] + ([("ray", workers)] if ray else [])
    executors = {runner: make_executor(runner, n) for runner, n in runs}
    for executor in executors.values():
        with tempfile.TemporaryDirectory() as tmp:  # start-up is paid once per batch, not per file
            batch_ingest(Workspace(tmp), pdfs[:workers], engine="fast", executor=executor,
                         stream=open(os.devnull, "w"))
    times: dict[str, list[float]] = {r: [] for r, _ in runs}
    pages = 0
    for _ in range(repeat):
        for runner, _n in runs:
            seconds, pages = fast_batch(pdfs, executors[runner])
            times[runner].append(seconds)
    memory = peak_memory(descendants(), WORKER_MARKS)
    for executor in executors.values():
        executor.close()
    base = pages / statistics.median(times["serial"])
    for runner, n in runs:
        seconds = statistics.median(times[runner])
        rate = pages / seconds
        print(f"  {runner:10s} x{n}: {pages:5d} pages in {seconds:7.2f} s = {rate:7.1f} pages/s  "
              f"({rate / base:.2f}x serial; runs {', '.join(f'{t:.1f}' for t in times[runner])} s)")
    print_memory("workers", memory)


def layout_pages(pdfs: list[Path], max_pages: int, min_pages: int) -> list[tuple[Path, list[int]]]:
    """The pages both sides of the layout comparison read: pages with a text layer (a scanned page is
    OCR'd by our ingest, which the raw loop does not do: bench/ocr.py measures OCR), taken from
    documents with at least `min_pages` such pages (`min_pages` 1: every file), `max_pages` in all."""
    chosen, total = [], 0
    for pdf in pdfs:
        if total >= max_pages:
            break
        doc = pymupdf.open(pdf)
        text_pages = [i for i in range(doc.page_count) if not is_scanned(doc.load_page(i))]
        if len(text_pages) < min_pages:
            continue
        keep = text_pages[:max_pages - total]
        chosen.append((pdf, keep))
        total += len(keep)
    return chosen


def raw_layout_loop(pages: list[tuple[Path, list[int]]]) -> tuple[float, int]:
    load_layout_model()
    pymupdf.open(pages[0][0])[0].get_layout()  # the model's first call builds its session: not timed
    count, start = 0, time.perf_counter()
    for pdf, indexes in pages:
        doc = pymupdf.open(pdf)
        for index in indexes:
            doc.load_page(index).get_layout()
            count += 1
    return time.perf_counter() - start, count


def pooled_layout(pages: list[tuple[Path, list[int]]], workers: int) -> tuple[float, int]:
    """Our layout ingest (parse + refine) with `workers` model processes, on the pages the raw loop read."""
    pool = layout_pool(workers)
    if not pool.pids():
        with pool.lock:
            pool.ensure_started()
        parse_pdf(pages[0][0].read_bytes(), doc_id="warm", sha256="0" * 64, filename="w.pdf", workers=workers)
    blobs = [(pdf, selected(pdf, indexes)) for pdf, indexes in pages]  # cut before the clock starts
    count, start = 0, time.perf_counter()
    for pdf, data in blobs:
        sha = sha256_of(data)
        doc = refine(parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename=pdf.name, workers=workers).document)
        count += doc.page_count
    return time.perf_counter() - start, count


def selected(pdf: Path, indexes: list[int]) -> bytes:
    doc = pymupdf.open(pdf)
    if indexes == list(range(doc.page_count)):
        return pdf.read_bytes()
    doc.select(indexes)
    return doc.tobytes()


def layout_section(pdfs: list[Path], workers: int, max_pages: int, repeat: int) -> None:
    print(f"\n2. layout ingest, {workers} model processes vs a serial page.get_layout() loop "
          f"(same pages, wall time, median of {repeat} interleaved runs; pages with a text layer)")
    # the pool runs the pages of one document in parallel: the goal is on documents of several pages;
    # files of one page each have nothing to run side by side (a corpus of them is `batch ingest`'s job)
    for label, min_pages in ((f"documents of >= {2 * workers} pages", 2 * workers), ("every file", 1)):
        pages = layout_pages(pdfs, max_pages, min_pages)
        if not pages:
            print(f"  {label}: no such documents")
            continue
        raw, ours = [], []
        for _ in range(repeat):
            raw.append(raw_layout_loop(pages))
            ours.append(pooled_layout(pages, workers))
        raw_s, ours_s = statistics.median(t for t, _ in raw), statistics.median(t for t, _ in ours)
        goal = "  (goal <= 0.65x)" if min_pages > 1 else ""
        print(f"  {label} ({len(pages)} files, {raw[0][1]} pages):")
        print(f"    raw get_layout loop : {raw_s:7.2f} s  (runs {', '.join(f'{t:.1f}' for t, _ in raw)})")
        print(f"    ours, pool of {workers}     : {ours_s:7.2f} s  (runs {', '.join(f'{t:.1f}' for t, _ in ours)})")
        print(f"    ratio ours / raw    : {ours_s / raw_s:.2f}x{goal}")
    print_memory("layout", peak_memory(descendants(), ("serve_layout",)))


def openable(paths: list[Path]) -> list[Path]:
    good = []
    for p in paths:
        try:
            if pymupdf.open(p).page_count and not pymupdf.open(p).needs_pass:
                good.append(p)
        except Exception:
            pass
    return good


def print_memory(label: str, memory: list[tuple[str, float]]) -> None:
    for cmd, mib in sorted(memory, key=lambda m: -m[1])[:6]:
        print(f"    {label:10s} peak {mib:7.1f} MiB  {cmd}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--every", type=int, default=1, help="take every Nth PDF found")
    parser.add_argument("--layout-pages", type=int, default=60, help="pages for the layout comparison")
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--skip-fast", action="store_true", help="only the layout comparison")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs of each fast batch")
    args = parser.parse_args(argv)
    found = sorted((ROOT / "sample_docs").glob("*.pdf")) + list(pdf_files(args.paths))[::args.every]
    pdfs = openable(found)
    print(f"{len(pdfs)} PDFs, {sum(pymupdf.open(p).page_count for p in pdfs)} pages; {args.workers} workers; "
          f"{os.cpu_count()} cores")
    if not args.skip_fast:
        print(f"\n1. fast batch ingest (parse + refine + store), wall time, median of {args.repeat}")
        fast_section(pdfs, args.workers, args.repeat, not args.skip_ray)
    if args.layout_pages < 1:
        return 0
    layout_section(pdfs, args.workers, args.layout_pages, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
