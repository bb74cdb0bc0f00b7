"""The layout model's child process: it loads PyMuPDF's ONNX layout model once and answers one page
per request with the model's boxes. MuPDF can segfault inside the model; in a child that costs a
page (it falls back to the fast engine), not the app or the CLI."""
from __future__ import annotations

import atexit
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

import pymupdf

from core.ingest.image_cap import drop_oversized_masks
from core.settings import positive_number, share_of_cores, usable_cores


def load_layout_model() -> None:
    """`import pymupdf.layout` activates the ONNX model inside PyMuPDF (offline, loaded once).

    core/__init__.py declines that import in every other process; lift the block here first."""
    if sys.modules.get("pymupdf.layout", ...) is None:
        del sys.modules["pymupdf.layout"]
    _set_up_model_sessions(os.environ.get("RLI_MODEL_THREADS", ""))
    import pymupdf.layout  # noqa: F401


PAGE_SECONDS_ENV = "RLI_LAYOUT_PAGE_SECONDS"
DEFAULT_PAGE_SECONDS = 20.0  # a dense A4 page takes the model about a second; twenty is a runaway page


def page_seconds_cap() -> float:
    """The most the model may spend on one page: RLI_LAYOUT_PAGE_SECONDS when set (a positive number),
    else DEFAULT_PAGE_SECONDS. A page over the cap is read by the fast engine, with a notice."""
    return positive_number(PAGE_SECONDS_ENV, DEFAULT_PAGE_SECONDS, "seconds")


def _set_up_model_sessions(threads: str) -> None:
    """Set up the model's ONNX sessions before the model is imported: pymupdf.layout builds them
    from `onnxruntime.SessionOptions()` (onnx/common_util.make_session), so the class is wrapped.

    - Threads: ONNX Runtime takes every core by default, right for one model process, but the N
      processes of a pool would each start a thread per core and fight over them; `threads` (a
      whole number) gives each session that many intra-op threads.
    - Memory arena: make_session turns ONNX's CPU arena off so a long-lived process gives memory
      back after a large page. Without it every page's allocations cost about 15 % more model CPU
      (15 guideline pages, one thread: 4.1 → 3.5 CPU-s). It is kept on here; the parent restarts a
      model process whose memory grew past RLI_LAYOUT_WORKER_MB, between documents
      (LayoutWorker.open)."""
    import onnxruntime

    limit = int(threads) if threads.isdigit() and int(threads) >= 1 else None

    class ModelOptions(onnxruntime.SessionOptions):
        def __init__(self) -> None:
            super().__init__()
            if limit:
                self.intra_op_num_threads = limit
                self.inter_op_num_threads = 1

        def __setattr__(self, name, value) -> None:
            super().__setattr__(name, True if name == "enable_cpu_mem_arena" else value)

    onnxruntime.SessionOptions = ModelOptions


WORKER_MB_ENV = "RLI_LAYOUT_WORKER_MB"
DEFAULT_WORKER_MB = 1500.0  # the model's arena holds its largest page's memory; a fresh process starts near 450 MiB


def worker_memory_cap() -> float:
    """The resident memory (MiB) past which a model process is restarted before its next document."""
    return positive_number(WORKER_MB_ENV, DEFAULT_WORKER_MB, "MiB")


def resident_mb(pid: int) -> float:
    """Resident memory of process `pid` in MiB (0 when it cannot be read)."""
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


class LayoutCrashed(Exception):
    """The model's process died (or hung) on a page; that page falls back to the fast engine."""


class LayoutWorker:
    """A long-lived child process that runs the layout model, one page per request.

    MuPDF segfaults inside the model's text extraction on some real PDFs (page 22 of the AI事業者
    ガイドライン本編, for one); in-process that would kill the Streamlit server or the CLI. The child
    loads the model once and keeps the current PDF open; the parent reads the page's text and
    drawings while the child runs the model on it, so the two overlap on two cores. When the child
    dies, the page is reported as crashed and a fresh child continues with the next page.
    """

    def __init__(self, model_threads: int | None = None) -> None:
        self._proc: subprocess.Popen | None = None
        self._doc_key: str | None = None
        self._asked: deque[tuple[int, float]] = deque()  # (page, when requested) of each page still to answer
        self._answered_at = 0.0  # when the last answer came: the next queued page started then at the latest
        self.model_threads = model_threads  # None: ONNX Runtime's default (every core)
        self.lock = threading.Lock()  # one document at a time per worker

    def _start(self) -> subprocess.Popen:
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        if self.model_threads:
            env["RLI_MODEL_THREADS"] = str(self.model_threads)
        proc = subprocess.Popen(
            [sys.executable, "-c", "from core.ingest.layout_worker import serve_layout; serve_layout()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=root)
        self._proc, self._doc_key = proc, None
        self._asked.clear()
        atexit.register(self.close)
        return proc

    def reset(self) -> None:
        proc, self._proc = self._proc, None
        self._asked.clear()  # the pages queued on the dead child are answered by nobody
        if proc is not None:
            proc.kill()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            try:
                proc.stdin.close()
                proc.wait(timeout=5)
            except Exception:
                proc.kill()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self.running else None

    def ensure_started(self) -> None:
        if not self.running:
            self._start()

    def open(self, key: str, pdf_bytes: bytes) -> None:
        """Make `pdf_bytes` the child's current document (skipped when it already is). A child
        whose memory grew past the cap (worker_memory_cap) is replaced first, between documents."""
        if self._doc_key != key and self.running and resident_mb(self._proc.pid) > worker_memory_cap():
            self.close()
        self.ensure_started()
        if self._doc_key != key:
            _send(self._proc.stdin, ("open", pdf_bytes))
            self._doc_key = key

    def request(self, index: int) -> None:
        """Queue page `index`: the child answers its requests in order, so a second page waiting in
        its pipe starts the moment the first is answered, not when the parent next comes round."""
        _send(self._proc.stdin, ("page", index))
        self._asked.append((index, time.monotonic()))

    def result(self, index: int) -> list[ModelBox]:
        """The answer for page `index`, the oldest request; LayoutCrashed (and a fresh child) when
        the child died or took longer than the per-page cap, counted from when it could start on
        the page (the parent reads the page meanwhile). A page queued on a child that was then
        restarted (a crash on the page before it) is LayoutCrashed too: the new child never had it."""
        proc = self._proc
        if proc is None or not self._asked or self._asked[0][0] != index:
            raise LayoutCrashed("the layout process was restarted after a crash on an earlier page")
        cap = page_seconds_cap()
        started = max(self._asked.popleft()[1], self._answered_at)
        try:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, started + cap - time.monotonic()))
            if not ready:
                raise TimeoutError(f"the layout model took over {cap:g} s on this page "
                                   f"(the cap; raise it with {PAGE_SECONDS_ENV})")
            status, payload = _recv(_Pipe(proc.stdout.fileno()))
            self._answered_at = time.monotonic()
        except (EOFError, OSError, TimeoutError, pickle.UnpicklingError) as err:
            self.reset()
            raise LayoutCrashed(str(err) or type(err).__name__) from None
        if status != "ok":
            raise LayoutCrashed(payload)
        return payload


def _send(stream, message) -> None:
    blob = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(blob)) + blob)
    stream.flush()


class _Pipe:
    """The child's answers read straight from the pipe, exactly as many bytes as asked. A buffered
    reader reads ahead: with two pages queued it would pull the next answer into its buffer, and
    the select() on the empty pipe would then wait out the page cap for an answer already here."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self, size: int) -> bytes:
        parts, got = [], 0
        while got < size:
            part = os.read(self.fd, size - got)
            if not part:
                break
            parts.append(part)
            got += len(part)
        return b"".join(parts)


def _recv(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the layout process crashed")
    (size,) = struct.unpack("<Q", head)
    blob = stream.read(size)
    if len(blob) < size:
        raise EOFError("the layout process ended mid-answer")
    return pickle.loads(blob)


def serve_layout() -> None:
    """The child's loop: ("open", pdf bytes) → keep it; ("page", i) → ("ok", boxes) | ("error", msg)."""
    out = os.fdopen(os.dup(1), "wb")  # the protocol channel; stray prints go to stderr instead
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    load_layout_model()
    doc = None
    while True:
        try:
            kind, payload = _recv(inp)
        except EOFError:
            return  # the parent is gone
        if kind == "open":
            doc = pymupdf.open(stream=payload, filetype="pdf")
            continue
        try:
            page = doc.load_page(payload)
            drop_oversized_masks(page)
            _send(out, ("ok", model_boxes(page)))
        except Exception as err:  # a Python-level failure of the model: report, keep serving
            _send(out, ("error", f"{type(err).__name__}: {err}"))


def default_pool_size() -> int:
    """RLI_LAYOUT_WORKERS when set (a positive integer), else one model process per core."""
    raw = os.environ.get("RLI_LAYOUT_WORKERS", "").strip()
    if raw:
        try:
            size = int(raw)
        except ValueError:
            raise ValueError(f"RLI_LAYOUT_WORKERS must be a whole number of processes, got {raw!r}") from None
        if size < 1:
            raise ValueError(f"RLI_LAYOUT_WORKERS must be at least 1, got {raw!r}")
        return size
    return usable_cores()


class LayoutPool:
    """Several layout processes (one model each), so the pages of one PDF run on every core.

    Page i goes to worker i % size; each worker has up to PAGES_QUEUED (core.ingest.pdf) pages
    queued, and the caller collects them in page order, so results come back in page order without
    reordering. Each worker keeps its own crash handling: a crash costs that page, and the page
    queued behind it on the same worker.
    """

    def __init__(self, size: int | None = None) -> None:
        size = size or default_pool_size()
        # the cores shared out: one pool of N on C cores gives each model C // N threads
        whole_machine = size == 1 and usable_cores() >= (os.cpu_count() or 1)
        threads = None if whole_machine else share_of_cores(size)
        self.workers = [LayoutWorker(threads) for _ in range(size)]
        self.lock = threading.Lock()  # one document at a time per pool

    @property
    def size(self) -> int:
        return len(self.workers)

    def for_page(self, index: int) -> LayoutWorker:
        return self.workers[index % len(self.workers)]

    def ensure_started(self) -> None:
        for worker in self.workers:
            worker.ensure_started()

    def pids(self) -> list[int]:
        return [w.pid for w in self.workers if w.pid is not None]

    def close(self) -> None:
        for worker in self.workers:
            worker.close()


_POOLS: dict[int, LayoutPool] = {}  # the process's pools by size; parse_pdf and the functions below share them
_POOLS_LOCK = threading.Lock()


def layout_pool(size: int | None = None) -> LayoutPool:
    """The process's pool of `size` layout processes (default: default_pool_size()), started lazily."""
    size = size or default_pool_size()
    with _POOLS_LOCK:
        if size not in _POOLS:
            _POOLS[size] = LayoutPool(size)
        return _POOLS[size]


def start_layout_worker() -> None:
    """Start the layout processes now (each loads the model at once), so the first upload does not
    wait for them. Optional: the first layout ingest starts them anyway."""
    pool = layout_pool()
    with pool.lock:
        pool.ensure_started()


def layout_worker_pid() -> int | None:
    """The first layout process's pid, None when not running (see layout_worker_pids)."""
    pids = layout_worker_pids()
    return pids[0] if pids else None


def layout_worker_pids() -> list[int]:
    """The running layout processes' pids (for benchmarks that count their CPU time and memory)."""
    with _POOLS_LOCK:
        return [pid for pool in _POOLS.values() for pid in pool.pids()]


ModelBox = tuple[float, float, float, float, str, tuple]  # x0, y0, x1, y1, class, ((row, col, text, row_end), ...)


def model_boxes(page: pymupdf.Page) -> list[ModelBox]:
    """The layout model's boxes for one page, in its reading order, with its table cells.

    Runs inside the layout worker process (see LayoutWorker): MuPDF can crash on a page while the
    model builds its text page, and a crash must not take the app down with it."""
    page.get_layout(return_raw=True)  # raw groups also carry the model's table cells
    out: list[ModelBox] = []
    for g in page.layout_information or []:
        if isinstance(g, dict):
            cells = tuple((int(c.row_start), int(c.col_start), str(getattr(c, "text", "") or ""),
                           int(getattr(c, "row_end", c.row_start + 1) or c.row_start + 1))
                          for c in (g.get("table_cells") or ()))
            out.append((*map(float, g["group_bbox"][:4]), str(g["class_name"]), cells))
        else:  # plain form [x0, y0, x1, y1, class]
            out.append((*map(float, g[:4]), str(g[4]), ()))
    return out
