"""`python -m core …`: the headless face of the same core (see DESIGN.md, "Command line").

This module only parses arguments and translates domain errors into a message and an exit code;
each command's handler is in `core.commands`.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

from core import commands, corpus_check
from core.errors import InspectorError
from core.batch.command import add_batch_parser, cli_batch
from core.store.migrate import cli_migrate, source_workspace
from core.store.opening import open_workspace
from core.store.workspace import Workspace

# command name -> its handler; each takes (args, workspace) and returns an exit code
HANDLERS: dict[str, Callable[[argparse.Namespace, Workspace], int]] = {
    "ingest": commands.cli_ingest,
    "import": commands.cli_import,
    "elements": commands.cli_elements,
    "forms": commands.cli_forms,
    "correct": commands.cli_correct,
    "chunks": commands.cli_chunks,
    "gold": commands.cli_gold,
    "evaluate": commands.cli_evaluate,
    "check-corpus": corpus_check.cli_check_corpus,
    "migrate": cli_migrate,
    "batch": cli_batch,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description="RAG Layout Inspector, headless")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--workspace", help="workspace folder (default ./workspace or $RLI_WORKSPACE)")
    common.add_argument("--database-url", help="a shared PostgreSQL workspace, postgresql://… "
                        "(default $RLI_DATABASE_URL; without one, the SQLite workspace folder)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", parents=[common], help="ingest PDFs; one JSON line per document")
    p.add_argument("pdfs", nargs="+", metavar="PDF")
    p.add_argument("--engine", choices=("layout", "fast"), default="layout")
    p.add_argument("--password", help="password of an encrypted PDF")

    p = sub.add_parser("import", parents=[common], help="import a parser's output (Docling/Azure/Textract)")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--format", required=True, choices=("docling", "azure", "textract"))
    p.add_argument("--pdf", help="the source PDF or image, for the page image and text checks")
    p.add_argument("--replace", action="store_true",
                   help="replace this parser's stored output of the same document (refused without it)")

    p = sub.add_parser("elements", parents=[common], help="JSONL of a document's elements (corrected view)")
    p.add_argument("doc_id", metavar="DOC_ID")
    p.add_argument("--machine", action="store_true", help="the machine output, without corrections")
    p.add_argument("--unredacted", action="store_true",
                   help="show personal values (redacted form values are masked by default; for the owner)")

    p = sub.add_parser("forms", parents=[common], help="JSONL of a document's form fields")
    p.add_argument("doc_id", metavar="DOC_ID")

    p = sub.add_parser("correct", parents=[common], help="append correction events from a JSONL file")
    p.add_argument("doc_id", metavar="DOC_ID")
    p.add_argument("--events", required=True, metavar="FILE.jsonl")
    p.add_argument("--actor", default="cli", help="who made these corrections (when a line has no actor)")

    p = sub.add_parser("chunks", parents=[common], help="build and export chunks")
    p.add_argument("doc_id", metavar="DOC_ID")
    p.add_argument("--policy", default="default", help="default | naive | FILE.toml")
    p.add_argument("--format", default="jsonl", choices=("jsonl", "langchain", "llamaindex", "docling"),
                   help="docling: the corrected Document as DoclingDocument JSON (no policy)")
    p.add_argument("--metadata", default="nested", choices=("nested", "flat"),
                   help="flat: scalar values only (JSON strings), for stores such as Chroma")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout")

    p = sub.add_parser("gold", parents=[common], help="import or export a gold set (gold/v1 JSONL)")
    p.add_argument("action", choices=("import", "export"))
    p.add_argument("file", metavar="FILE")
    p.add_argument("--doc", dest="doc_id", help="only this document's items (export)")
    p.add_argument("--format", default="gold", choices=("gold", "llamaindex", "ragas"),
                   help="export shape (llamaindex/ragas are built from --policy's chunks)")
    p.add_argument("--policy", default="default", help="policy for llamaindex/ragas exports")
    p.add_argument("--retriever", choices=("bm25", "tfidf", "fusion"),
                   help="ragas: add retrieved_contexts from this retriever's top --k chunks")
    p.add_argument("--k", type=int, default=5, help="ragas: how many retrieved contexts per question")

    p = sub.add_parser("evaluate", parents=[common], help="score policies and retrievers on a gold set")
    p.add_argument("--gold", required=True, metavar="FILE")
    p.add_argument("--policy", action="append", dest="policies", metavar="P",
                   help="default | naive | pymupdf4llm | FILE.toml; repeat to compare (default: default and naive)")
    p.add_argument("--retriever", action="append", dest="retrievers",
                   choices=("bm25", "tfidf", "fusion", "dense"), help="repeat to compare (default: bm25)")
    p.add_argument("--k", default="1,3,5,10", help="comma-separated cut-offs")
    p.add_argument("--budget", default="500,1000,2000,4000", help="context budgets in characters")
    p.add_argument("--scope", choices=("corpus", "routed"), default="corpus",
                   help="routed: one index per document, the question routed by the document it names or its best")
    p.add_argument("--expand-pages", type=int, metavar="CHARS", default=0,
                   help="page expansion: a first hit shorter than CHARS hands up its whole page")
    p.add_argument("--neighbours", type=int, default=0, help="with --expand-pages: pages either side as well")
    p.add_argument("--fusion-weights", default="bm25=0.5,tfidf=0.5", help="fusion retriever: NAME=WEIGHT,...")
    p.add_argument("--modes", default="", help="run side by side, comma-separated: plain,routed,pages,window "
                   "(pages uses --expand-pages CHARS, else 400); overrides --scope")
    p.add_argument("--json", action="store_true")

    corpus_check.add_parser(sub, common)
    p = sub.add_parser("migrate", parents=[common], help="copy a SQLite workspace into an empty PostgreSQL database")
    p.add_argument("--to", required=True, metavar="postgresql://…", help="the target database's URL")
    add_batch_parser(sub, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        ws = (source_workspace(args.workspace, args.database_url) if args.command == "migrate"
              else open_workspace(args.workspace, args.database_url))
        return HANDLERS[args.command](args, ws)
    except InspectorError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `… | head`: the reader has all it wants; not an error
        sys.stdout = open(os.devnull, "w")
        return 0
    except (FileNotFoundError, IsADirectoryError, PermissionError) as err:
        print(f"error: cannot read {err.filename}: {err.strerror}", file=sys.stderr)
        return 2
