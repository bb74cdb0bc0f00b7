"""`python -m core batch ingest PATH… | batch export --format F --out DIR`: the handlers and their
arguments (core/cli.py only registers them)."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from core.errors import BadInput


def add_batch_parser(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("batch", help="ingest or export a whole corpus (Ray)")
    actions = p.add_subparsers(dest="batch_action", required=True)
    i = actions.add_parser("ingest", parents=[common], help="ingest every PDF under PATHs, in parallel")
    i.add_argument("paths", nargs="+", metavar="PATH", help="PDF files or folders (searched recursively)")
    i.add_argument("--engine", choices=("layout", "fast"), default="layout")
    i.add_argument("--address", help="a running Ray cluster: auto | ray://HOST:PORT (default: local Ray)")
    i.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="parallel tasks (default: cores)")
    i.add_argument("--runner", choices=("ray", "processes", "serial"), default="ray",
                   help="Ray (default), a local process pool, or one process")
    i.add_argument("--report", metavar="FILE.json", help="where the JSON report goes "
                   "(default WORKSPACE/batch-reports/ingest-TIME.json)")
    e = actions.add_parser("export", parents=[common], help="every document's chunks as shards + manifest")
    e.add_argument("--format", required=True, choices=("jsonl", "langchain", "llamaindex", "parquet"))
    e.add_argument("--out", required=True, metavar="DIR")
    e.add_argument("--policy", default="default", help="default | naive | FILE.toml")
    e.add_argument("--shard-size", type=int, default=10_000, help="records per shard file")


def cli_batch(args: argparse.Namespace, ws) -> int:
    return (_ingest if args.batch_action == "ingest" else _export)(args, ws)


def _ingest(args: argparse.Namespace, ws) -> int:
    from core.batch.executors import make_executor
    from core.batch.ingest import batch_ingest

    if args.workers < 1:
        raise BadInput(f"--workers must be at least 1, got {args.workers}")
    if args.address and args.runner != "ray":
        raise BadInput("--address names a Ray cluster; it cannot be used with --runner processes")
    executor = make_executor(args.runner, args.workers, args.address)
    try:
        report = batch_ingest(ws, args.paths, engine=args.engine, executor=executor)
    finally:
        executor.close()
    path = Path(args.report) if args.report else ws.root / "batch-reports" / f"ingest-{time.strftime('%Y%m%dT%H%M%S')}.json"
    report.write(path)
    for row in report.outcomes:
        if row.status == "failed":
            print(f"failed: {row.path}: {row.message}", file=sys.stderr)
    print(json.dumps({**report.summary(), "report": str(path)}, ensure_ascii=False))
    return 1 if report.count("failed") else 0


def _export(args: argparse.Namespace, ws) -> int:
    from core.batch.export import batch_export
    from core.chunks.policy import load_policy

    manifest = batch_export(ws, Path(args.out), args.format, load_policy(args.policy), args.shard_size)
    print(json.dumps({k: manifest[k] for k in ("format", "policy", "documents", "records")}
                     | {"shards": len(manifest["shards"]), "out": args.out}, ensure_ascii=False))
    return 0
