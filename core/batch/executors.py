"""Where the page-range tasks run: Ray (local `ray.init(num_cpus=N)` or a cluster's address), or a
local process pool (the app, and the 2-worker line of bench/batch.py). Both take the same task and
hand back ("ok", PageReads) or ("error", message): a PDF that fails inside a task, or a worker that
dies, is a failed row, never a crashed batch."""
from __future__ import annotations

import concurrent.futures as futures
import multiprocessing
import os
from pathlib import Path
from typing import Any

from core.errors import InspectorError
from core.settings import CORES_ENV, share_of_cores

REPO = str(Path(__file__).resolve().parents[2])
TaskResult = tuple[str, Any]


def read_range_task(data: bytes, sha256: str, filename: str, engine: str, start: int, stop: int) -> TaskResult:
    """Pages [start, stop) of one PDF, as ("ok", PageReads); a range that is the whole PDF comes
    back parsed and refined, as ("whole", Parsed), so the driver only stores it. With the layout
    engine the model runs in this worker's one layout process (one model per worker, loaded once
    and kept for the next task)."""
    from core.ingest.pdf import Parsed, parse_pdf, read_page_range
    from core.refine.rules import refine
    from core.store.records import doc_id_for

    try:
        if start == 0 and stop >= _page_count(data):
            parsed = parse_pdf(data, doc_id=doc_id_for(sha256), sha256=sha256, filename=filename, engine=engine,
                               workers=1)
            return "whole", Parsed(refine(parsed.document), parsed.pdf_bytes)
        return "ok", read_page_range(data, sha256=sha256, filename=filename, engine=engine,
                                     start=start, stop=stop, workers=1)
    except InspectorError as err:
        return "error", str(err)
    except Exception as err:  # any failure of one file must stay that file's
        return "error", f"{type(err).__name__}: {err}"


def _use_cores(cores: int) -> None:
    """A worker's start: the OCR and layout-model threads it starts fit in its share of the cores."""
    os.environ[CORES_ENV] = str(cores)


def _page_count(data: bytes) -> int:
    import pymupdf

    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return doc.page_count


class RayUnavailable(InspectorError):
    """Ray did not start (an overloaded machine) or the cluster at --address did not answer."""


def _first_line(err: Exception) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0][:200]


class SerialExecutor:
    """Every task in this process, one after another, when it is waited for: the baseline of
    bench/batch.py and a batch without any worker to start."""

    name = "serial"
    workers = 1

    def put(self, data: bytes) -> bytes:
        return data

    def submit(self, data: bytes, *args) -> tuple:
        return (data, *args)

    def next_done(self, pending: list) -> tuple[Any, TaskResult]:
        handle = pending[0]
        return handle, read_range_task(*handle)

    def close(self) -> None:
        pass


class ProcessExecutor:
    """A pool of `workers` local processes (spawned: the app's threads must not be forked)."""

    name = "processes"

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_use_cores, initargs=(share_of_cores(workers),))

    def put(self, data: bytes) -> bytes:
        return data

    def submit(self, data: bytes, *args) -> futures.Future:
        return self._pool.submit(read_range_task, data, *args)

    def next_done(self, pending: list) -> tuple[Any, TaskResult]:
        done, _ = futures.wait(pending, return_when=futures.FIRST_COMPLETED)
        handle = next(iter(done))
        try:
            return handle, handle.result()
        except Exception as err:  # BrokenProcessPool: a worker died (a segfault in MuPDF)
            return handle, ("error", f"the worker process died on this file ({type(err).__name__})")

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


class RayExecutor:
    """Ray tasks: `address` None starts Ray locally with `workers` CPUs; "auto" or ray://HOST:PORT
    joins a running cluster (whose workers get this checkout's code through the runtime env)."""

    name = "ray"

    def __init__(self, workers: int, address: str | None = None):
        import ray

        self.workers = workers
        self._ray = ray
        # a task takes one CPU of Ray's (num_cpus=1): its OCR and model threads keep to one core
        env_vars = {CORES_ENV: "1"}
        try:
            if address:
                ray.init(address=address, log_to_driver=False,
                         runtime_env={"working_dir": REPO, "excludes": ["workspace", ".git"], "env_vars": env_vars})
            else:
                # local workers inherit the driver's environment: make `core` importable there
                os.environ["PYTHONPATH"] = REPO + os.pathsep + os.environ.get("PYTHONPATH", "")
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                         runtime_env={"env_vars": env_vars})
        except Exception as err:  # Ray raises plain Exception / ConnectionError when it cannot start or connect
            raise RayUnavailable(
                f"Ray could not {'connect to ' + address if address else 'start locally'} "
                f"({_first_line(err)}); retry, or use --runner processes") from None
        self._task = ray.remote(max_retries=0)(read_range_task)

    def put(self, data: bytes):
        return self._ray.put(data)

    def submit(self, data_ref, *args):
        return self._task.remote(data_ref, *args)

    def next_done(self, pending: list) -> tuple[Any, TaskResult]:
        [handle], _ = self._ray.wait(pending, num_returns=1)
        try:
            return handle, self._ray.get(handle)
        except Exception as err:  # RayTaskError / WorkerCrashedError: the task's process died
            return handle, ("error", f"the Ray task failed on this file: {type(err).__name__}: {str(err)[:200]}")

    def close(self) -> None:
        self._ray.shutdown()


def make_executor(runner: str, workers: int, address: str | None = None):
    if runner == "ray":
        return RayExecutor(workers, address)
    if runner == "processes":
        return ProcessExecutor(workers)
    if runner == "serial":
        return SerialExecutor()
    raise ValueError(f"unknown runner {runner!r}; expected ray, processes or serial")
