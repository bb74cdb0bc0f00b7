"""`python -m core check-corpus DIR...`: ingest every PDF under the folders and measure how faithful
the text is, per engine (issue 10).

Per file, in a child process of its own with a hard timeout (one hang or segfault cannot stall the
run): ingested / refused cleanly (a `BadInput` message) / traceback / over 60 s; character coverage
(the page's own non-space characters from `page.get_text("words")`, as a multiset, a word printed
twice at the same place counted once, found in the text of the elements on the same page); the share of those characters inside `picture` elements;
U+FFFD and control characters the elements and the default chunks hold beyond those the page
itself yields; widgets found against `page.widgets()`.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

SLOW_SECONDS = 60.0
WORST_SHOWN = 10


def is_bad_char(ch: str) -> bool:
    """U+FFFD and C0/C1 control characters other than newline and tab."""
    code = ord(ch)
    return ch == "\ufffd" or ((code < 0x20 or 0x7F <= code <= 0x9F) and ch not in "\n\t")


def _chars(text: str) -> Counter:
    return Counter(ch for ch in text if not ch.isspace())


def page_figures(page: Any, elements: Sequence[Any]) -> dict[str, int]:
    """One page's counts: its own characters, those found in elements / in pictures, bad ones added."""
    source_all = Counter()
    # a word printed twice at one place (two text layers, fake bold) is one word to a reader
    words = {(w[4], round(w[0]), round(w[1]), round(w[2]), round(w[3])): w for w in page.get_text("words")}
    for word in words.values():
        source_all.update(_chars(word[4]))
    source_bad = sum(n for ch, n in source_all.items() if is_bad_char(ch))
    source = Counter({ch: n for ch, n in source_all.items() if not is_bad_char(ch)})
    found, pictures = Counter(), Counter()
    for el in elements:
        own = _chars(el.text)
        for private, look, n in el.attr("symbol_glyphs") or ():  # a mapped Wingdings glyph is the page's character
            own[look] -= n
            own[private] += n
        found.update(own)
        if el.category.value == "picture":
            pictures.update(own)
    bad = sum(n for ch, n in found.items() if is_bad_char(ch))
    return {
        "chars": sum(source.values()),
        "covered": sum(min(n, found[ch]) for ch, n in source.items()),
        "in_pictures": sum(min(n, pictures[ch]) for ch, n in source.items()),
        "bad_added": max(0, bad - source_bad),
        "widgets_expected": sum(1 for _ in page.widgets()),
        "widgets_found": sum(1 for el in elements if el.source == "widget"),
    }


class _OverBudget(Exception):
    pass


def _chunk_figures(document: Any) -> dict[str, Any]:
    """Bad characters in the default chunks, and how long building them took; building stops after
    SLOW_SECONDS (an alarm in this child process), so a slow chunker is reported, not a hang."""
    from core.chunks.chunking import build_chunks

    def over(signum: int, frame: Any) -> None:
        raise _OverBudget()

    started = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, over)
    signal.alarm(int(SLOW_SECONDS))
    try:
        chunks = build_chunks(document, "default")
    except _OverBudget:
        return {"chunk_seconds": time.perf_counter() - started, "chunks_slow": 1}
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return {"chunk_seconds": round(time.perf_counter() - started, 2), "chunks_slow": 0,
            "chunk_bad": sum(1 for chunk in chunks for ch in chunk.text if is_bad_char(ch))}


def measure_file(path: str, engine: str) -> dict[str, Any]:
    """Ingest one PDF (parse + refine, no workspace) and measure it; runs in the child process."""
    import pymupdf

    from core.errors import BadInput
    from core.ingest.pdf import parse_pdf
    from core.refine.rules import refine
    from core.store.records import doc_id_for, sha256_of

    started, cpu = time.perf_counter(), time.process_time()
    data = Path(path).read_bytes()
    sha = sha256_of(data)
    try:
        parsed = parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename=Path(path).name, engine=engine)
        document = refine(parsed.document)
    except BadInput as err:
        return {"status": "refused", "message": str(err)[:200], "seconds": time.perf_counter() - started}
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    totals: Counter = Counter()
    with pymupdf.open(stream=parsed.pdf_bytes, filetype="pdf") as pdf:
        for page_obj, page in zip(document.pages, pdf):
            totals.update(page_figures(page, page_obj.elements))
    return {"status": "ok", "seconds": seconds, "cpu_seconds": round(cpu, 2), "pages": len(document.pages), **totals, **_chunk_figures(document)}


def _child_main(path: str, engine: str) -> int:
    """`python -m core.corpus_check --one PATH --engine E`: one file's figures as a JSON line."""
    try:
        os.nice(10)
    except OSError:
        pass
    try:
        result = measure_file(path, engine)
    except Exception:  # the point of the check: a traceback is counted, not raised
        result = {"status": "traceback", "message": traceback.format_exc()[-600:]}
    print(json.dumps(result))
    return 0


def run_one(path: Path, engine: str, timeout: float) -> dict[str, Any]:
    """One file in a child process (and its own process group, the layout worker included)."""
    started = time.perf_counter()
    cmd = [sys.executable, "-m", "core.corpus_check", "--one", str(path), "--engine", engine]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=Path(__file__).resolve().parents[1])
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"file": str(path), "status": "timeout", "seconds": time.perf_counter() - started}
    finally:
        _kill_group(proc.pid)
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    if not lines:
        return {"file": str(path), "status": "traceback", "seconds": time.perf_counter() - started,
                "message": f"child exited {proc.returncode}: {err[-600:]}"}
    return {"file": str(path), **json.loads(lines[-1])}


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)  # a layout worker the child left behind
    except (ProcessLookupError, PermissionError):
        pass


def pdf_files(dirs: Iterable[str], every: int) -> list[Path]:
    files: list[Path] = []
    for d in dirs:
        p = Path(d)
        found = [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.suffix.lower() == ".pdf")
        files.extend(found[::max(every, 1)])
    return list(dict.fromkeys(files))


@dataclass
class Summary:
    engine: str
    results: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, Any]:
        ok = [r for r in self.results if r["status"] == "ok"]
        total: Counter = Counter()
        for r in ok:
            total.update({k: r.get(k, 0) for k in ("chars", "covered", "in_pictures", "bad_added", "chunk_bad",
                                                   "widgets_expected", "widgets_found", "chunks_slow")})
        return {
            "engine": self.engine,
            "files": len(self.results),
            "ingested": len(ok),
            "refused": sum(r["status"] == "refused" for r in self.results),
            "tracebacks": sum(r["status"] == "traceback" for r in self.results),
            "timeouts": sum(r["status"] == "timeout" for r in self.results),
            "over_60s": sum(r.get("seconds", 0) > SLOW_SECONDS or r["status"] == "timeout" for r in self.results),
            # the wall clock on a shared machine counts other people's work; CPU time is this file's
            "over_60s_cpu": sum(r.get("cpu_seconds", 0) > SLOW_SECONDS for r in self.results),
            "coverage": round(total["covered"] / total["chars"], 5) if total["chars"] else 1.0,
            "files_under_0.98": sum(_coverage(r) < 0.98 for r in ok),
            "picture_share": round(total["in_pictures"] / total["chars"], 5) if total["chars"] else 0.0,
            "bad_chars_added": total["bad_added"],
            "bad_chars_in_chunks": total["chunk_bad"],
            "chunks_over_60s": total["chunks_slow"],
            "widgets_found": total["widgets_found"],
            "widgets_expected": total["widgets_expected"],
        }

    def worst(self) -> list[dict[str, Any]]:
        problems = [r for r in self.results if r["status"] in ("traceback", "timeout")]
        problems += sorted((r for r in self.results if r["status"] == "ok" and r.get("seconds", 0) > SLOW_SECONDS),
                           key=lambda r: -r["seconds"])
        ok = [r for r in self.results if r["status"] == "ok" and r.get("chars")]
        problems += sorted((r for r in ok if _coverage(r) < 0.995), key=_coverage)[:WORST_SHOWN]
        problems += sorted((r for r in ok if _picture_share(r) > 0.2), key=lambda r: -_picture_share(r))[:WORST_SHOWN]
        problems += [r for r in ok if r.get("bad_added") or r.get("chunk_bad")][:WORST_SHOWN]
        problems += [r for r in ok if r.get("chunks_slow")]
        return problems


def _coverage(r: dict[str, Any]) -> float:
    return r["covered"] / r["chars"] if r.get("chars") else 1.0


def _picture_share(r: dict[str, Any]) -> float:
    return r["in_pictures"] / r["chars"] if r.get("chars") else 0.0


def _describe(r: dict[str, Any]) -> str:
    name = Path(r["file"]).name
    if r["status"] != "ok":
        return f"  {r['status']:9} {name}: {r.get('message', '').strip().splitlines()[-1:] or ''}"
    return (f"  ok        {name}: coverage {_coverage(r):.4f}, pictures {_picture_share(r):.3f}, "
            f"bad added {r.get('bad_added', 0)}/{r.get('chunk_bad', 0)} (elements/chunks), "
            f"widgets {r.get('widgets_found', 0)}/{r.get('widgets_expected', 0)}, {r.get('seconds', 0):.1f} s"
            + (f" ({r['cpu_seconds']:.1f} s CPU)" if "cpu_seconds" in r else "")
            + (f", chunks {r.get('chunk_seconds', 0):.0f} s" + (" (stopped)" if r.get("chunks_slow") else "")
               if r.get("chunk_seconds", 0) >= 5 else ""))


def check(files: Sequence[Path], engine: str, timeout: float, jobs: int) -> Summary:
    summary = Summary(engine)
    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        summary.results = list(pool.map(lambda f: run_one(f, engine, timeout), files))
    return summary


def print_summary(summary: Summary, as_json: bool) -> None:
    counts = summary.counts()
    if as_json:
        print(json.dumps({**counts, "worst": summary.worst(), "results": summary.results}, ensure_ascii=False))
        return
    print(f"engine {counts['engine']}: {counts['files']} files, {counts['ingested']} ingested, "
          f"{counts['refused']} refused cleanly, {counts['tracebacks']} tracebacks, "
          f"{counts['timeouts']} timeouts, {counts['over_60s']} over 60 s wall ({counts['over_60s_cpu']} over 60 s CPU)")
    print(f"  character coverage {counts['coverage']:.4f} overall, {counts['files_under_0.98']} files under 0.98; "
          f"share inside pictures {counts['picture_share']:.4f}")
    print(f"  U+FFFD/control characters added: {counts['bad_chars_added']} in elements, "
          f"{counts['bad_chars_in_chunks']} in chunks; widgets found {counts['widgets_found']} "
          f"of {counts['widgets_expected']} (page.widgets())")
    print(f"  default chunks stopped after {SLOW_SECONDS:.0f} s: {counts['chunks_over_60s']} files")
    worst = summary.worst()
    if worst:
        print("  worst files:")
        for r in worst:
            print(_describe(r))


def cli_check_corpus(args: argparse.Namespace, ws: Any = None) -> int:
    """The command's handler: exit status 1 when a file broke (traceback or timeout), else 0."""
    files = pdf_files(args.dirs, args.every)
    if not files:
        print("error: no PDF files under " + ", ".join(args.dirs), file=sys.stderr)
        return 2
    broke = False
    for engine in args.engine or ["fast", "layout"]:
        summary = check(files, engine, args.timeout, args.jobs)
        print_summary(summary, args.json)
        c = summary.counts()
        broke = broke or bool(c["tracebacks"] or c["timeouts"])
    return 1 if broke else 0


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("check-corpus", parents=[common], help="ingest every PDF under DIRs; text faithfulness figures")
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p.add_argument("--engine", action="append", choices=("fast", "layout"), help="repeat for both (default: both)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--every", type=int, default=1, help="every Nth file of each folder (sampling)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds before a file is killed")
    p.add_argument("--jobs", type=int, default=2, help="files checked at once")


if __name__ == "__main__":
    cli = argparse.ArgumentParser()
    cli.add_argument("--one", required=True)
    cli.add_argument("--engine", default="fast")
    ns = cli.parse_args()
    sys.exit(_child_main(ns.one, ns.engine))
