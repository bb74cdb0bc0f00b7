"""One function per `python -m core` command: read the parsed arguments, call the core, write the
result to stdout/stderr, return the exit code.

`core.cli` parses the arguments and turns domain errors into a message and exit status 2; the work
itself lives in the stage packages. Each handler imports its stage inside the function, so that
`python -m core --help` does not load PyMuPDF, Sudachi or the chunker.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from core.errors import BadInput
from core.store.records import DocumentRecord
from core.store.workspace import Workspace

if TYPE_CHECKING:
    from core.evaluation.gold import ImportReport


def print_jsonl(rows: Iterable[dict[str, Any]], out=None) -> None:
    out = out or sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_utf8(path: Path, expected: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{path.name} is not UTF-8 text; expected {expected}") from None


def write_atomically(out: Path, text: str) -> None:
    """Write through a temporary file unique to this call, then rename: two runs writing the same
    file never share a temporary name, and a half-written file never sits under the asked-for one."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cli_ingest(args: argparse.Namespace, ws: Workspace) -> int:
    """One JSON line per document; a bad file is reported on stderr and the others still run."""
    from core.errors import InspectorError
    from core.ingest.pipeline import ingest_path

    failed = 0
    for name in args.pdfs:
        try:
            result = ingest_path(ws, name, engine=args.engine, password=args.password)
        except InspectorError as err:
            print(f"error: {err}", file=sys.stderr)
            failed += 1
            continue
        except (FileNotFoundError, IsADirectoryError, PermissionError) as err:
            print(f"error: cannot read {name}: {err.strerror}", file=sys.stderr)
            failed += 1
            continue
        line = {**_document_line(result.record), "created": result.created}
        if result.replaced_version:
            line["replaced_version"] = result.replaced_version
        print(json.dumps(line, ensure_ascii=False), flush=True)
        _print_scanned_pages(ws, result.record)
    return 2 if failed else 0


def cli_import(args: argparse.Namespace, ws: Workspace) -> int:
    """`python -m core import FILE --format F [--pdf PDF]`: one JSON line, like `ingest`."""
    from core.ingest.importers import import_file

    result = import_file(ws, args.file, args.format, pdf=args.pdf, replace=getattr(args, "replace", False))
    print(json.dumps(_document_line(result.record), ensure_ascii=False))
    return 0


def cli_elements(args: argparse.Namespace, ws: Workspace) -> int:
    """`python -m core elements DOC_ID [--machine] [--unredacted]`: one JSON line per element,
    personal values masked unless the owner asks for them."""
    from core.forms.masking import document_masker, masked_document
    from core.review.corrections import corrected_document

    corrected = corrected_document(ws, args.doc_id)
    doc = ws.load_machine_document(args.doc_id) if args.machine else corrected
    if not getattr(args, "unredacted", False):
        # the corrected view decides what is personal, for the machine output too
        doc = masked_document(doc, document_masker(corrected))
    print_jsonl({"doc_id": doc.doc_id, **e.to_dict()} for e in doc.elements())
    return 0


def cli_forms(args: argparse.Namespace, ws: Workspace) -> int:
    """`python -m core forms DOC_ID`: one JSON line per field, corrected view, values redacted."""
    from core.forms.fields import document_fields

    fields = document_fields(ws, args.doc_id)
    print_jsonl({"doc_id": args.doc_id, **f.to_dict()} for f in fields)
    return 0


def cli_correct(args: argparse.Namespace, ws: Workspace) -> int:
    """`python -m core correct DOC_ID --events FILE.jsonl`: the stored events, one JSON line each."""
    from core.review.corrections import record_events
    from core.review.events import parse_jsonl

    path = Path(args.events)
    text = read_utf8(path, "one JSON event per line")
    events, labels = parse_jsonl(text, path.name)
    if not events:
        print(f"no events in {path.name}; nothing appended", file=sys.stderr)
        return 0
    from core.forms.field_refs import check_field_refs
    from core.review.corrections import corrected_document

    check_field_refs(corrected_document(ws, args.doc_id), events, labels)  # field ids are the forms stage's
    stored = record_events(ws, args.doc_id, events, actor=getattr(args, "actor", None) or "cli", labels=labels)
    from core.forms.masking import workspace_masker

    masker = workspace_masker(ws, [args.doc_id])  # the anchors hold the text the events name
    print_jsonl(masker.json(e.to_dict()) for e in stored)
    return 0


def cli_chunks(args: argparse.Namespace, ws: Workspace) -> int:
    """`python -m core chunks DOC_ID [--policy P] [--format F] [--metadata nested|flat] [--out FILE]`."""
    from core.chunks.pipeline import chunks_for
    from core.chunks.policy import load_policy
    from core.export.formats import export

    metadata = getattr(args, "metadata", "nested")
    if args.format == "docling":
        return _docling_export(args, ws, metadata)
    policy = load_policy(args.policy)
    chunks = chunks_for(ws, args.doc_id, policy)
    body = export(chunks, args.format, metadata)
    _write_output(body, getattr(args, "out", None), f"{len(chunks)} chunks ({args.format}, policy {policy.name})")
    return 0


def _docling_export(args: argparse.Namespace, ws: Workspace, metadata: str) -> int:
    """`chunks DOC_ID --format docling`: the corrected Document, not its chunks, so no policy applies."""
    from core.export.docling import docling_export_for

    if metadata != "nested":
        raise BadInput("--metadata flat applies to chunk exports; a Docling export is one document")
    body = json.dumps(docling_export_for(ws, args.doc_id), ensure_ascii=False) + "\n"
    _write_output(body, getattr(args, "out", None), f"document {args.doc_id} (DoclingDocument JSON)")
    return 0


def _write_output(body: str, out_name: str | None, what: str) -> None:
    """`body` to stdout, or to `out_name` whole (a half-written export never sits under the asked-for name)."""
    if not out_name or out_name == "-":
        sys.stdout.write(body)
        return
    out = Path(out_name)
    write_atomically(out, body)
    print(f"wrote {what} to {out}", file=sys.stderr)


def cli_gold(args: argparse.Namespace, ws: Workspace) -> int:
    """`python -m core gold import|export FILE`: import reports one JSON line per item."""
    from core.evaluation.gold import import_gold, parse_gold_jsonl

    if args.action == "import":
        path = Path(args.file)
        items = parse_gold_jsonl(read_utf8(path, "one gold/v1 JSON object per line"), origin=str(path))
        report = import_gold(ws, items)
        _print_anchor_warnings(report)
        for r in report.items:
            print(json.dumps(r.to_dict(), ensure_ascii=False))
        bad = sum(not r.ok for r in report.items)
        print(f"imported {len(report.items)} item(s); {bad} with evidence not anchored to an element",
              file=sys.stderr)
        return 0
    return _gold_export(args, ws)


def _gold_export(args: argparse.Namespace, ws: Workspace) -> int:
    """`gold export FILE [--format gold|llamaindex|ragas] [--retriever R --k K]`; what is left out, on stderr."""
    from core.evaluation.gold import load_items
    from core.evaluation.gold_export import Run, export_gold

    fmt = getattr(args, "format", "gold")
    retriever = getattr(args, "retriever", None)
    if retriever and fmt != "ragas":
        raise BadInput("--retriever adds retrieved_contexts to a ragas export; use it with --format ragas")
    run = Run(retriever, getattr(args, "k", 5)) if retriever else None
    items = load_items(ws, getattr(args, "doc_id", None))
    result = export_gold(ws, items, fmt, getattr(args, "policy", "default"), run)
    for left in result.left_out:
        print(f"warning: {left.line()}", file=sys.stderr)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    left_out = f"; {len(result.left_out)} left out" if result.left_out else ""
    _write_output(result.text, args.file, f"{result.written} of {len(items)} item(s) ({fmt}{left_out})")
    return 0


def cli_evaluate(args: argparse.Namespace, ws: Workspace) -> int:
    """`python -m core evaluate --gold FILE`: the metric tables, or one JSON object with --json."""
    from core.evaluation.gold import anchor_items, parse_gold_jsonl
    from core.evaluation.retrieval import DENSE_MODEL_ENV, RetrieverOptions
    from core.evaluation.scoring import EvalConfig, evaluate_workspace, render_tables

    ks = _parse_int_list(args.k, "--k")
    budgets = _parse_int_list(getattr(args, "budget", "500,1000,2000,4000"), "--budget")
    policies = args.policies or ["default", "naive"]
    retrievers = args.retrievers or ["bm25"]
    options = RetrieverOptions(dense_model_path=getattr(args, "dense_model", None) or os.environ.get(DENSE_MODEL_ENV),
                               fusion_weights=_fusion_weights(getattr(args, "fusion_weights", "bm25=0.5,tfidf=0.5")))
    config = EvalConfig(ks=ks, budgets=budgets, scope=getattr(args, "scope", "corpus"), options=options,
                        expansion=_expansion(args))
    path = Path(args.gold)
    # anchored against the current corrected documents by the same rules as `gold import`, not stored
    anchored, anchoring = anchor_items(ws, parse_gold_jsonl(read_utf8(path, "one gold/v1 JSON object per line"),
                                                            origin=str(path)))
    _print_anchor_warnings(anchoring)
    modes = [m.strip() for m in getattr(args, "modes", "").split(",") if m.strip()]
    report = evaluate_workspace(ws, anchored, policies, retrievers, config, modes=modes)
    if report.skipped_evidence:
        print(f"warning: {report.skipped_evidence} evidence item(s) could not be anchored; their questions "
              "count as misses", file=sys.stderr)
    if args.json:
        from core.evaluation.report_export import report_json

        reasons = [{"id": r.item_id, "reasons": [res.note for _, res in r.problems]}
                   for r in anchoring.items if not r.ok]
        print(json.dumps(report_json(ws, report, reasons), ensure_ascii=False))
        return 0
    print(render_tables(report))
    return 0


def _fusion_weights(text: str) -> tuple[tuple[str, float], ...]:
    pairs = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, weight = part.partition("=")
        try:
            pairs.append((name.strip(), float(weight)))
        except ValueError:
            raise BadInput(f"--fusion-weights must be NAME=WEIGHT pairs like bm25=0.5,tfidf=0.5, got {text!r}") from None
    bad = [f"{n}={w}" for n, w in pairs if n not in ("bm25", "tfidf", "dense") or w < 0]
    if not pairs or bad:
        raise BadInput(f"--fusion-weights takes bm25, tfidf or dense with weights >= 0, got {text!r}")
    return tuple(pairs)


def _expansion(args: argparse.Namespace):
    from core.evaluation.modes import PageExpansion

    chars, neighbours = getattr(args, "expand_pages", 0) or 0, getattr(args, "neighbours", 0) or 0
    if chars < 0 or neighbours < 0:
        raise BadInput(f"--expand-pages and --neighbours must be >= 0, got {chars} and {neighbours}")
    return PageExpansion(small_below=chars, neighbours=neighbours) if chars else None


def _document_line(record: DocumentRecord) -> dict[str, Any]:
    """What `ingest` and `import` print of a stored document (DESIGN.md's command line)."""
    return {"doc_id": record.doc_id, "source": record.source, "pages": record.page_count, "engine": record.engine}


def _print_scanned_pages(ws: Workspace, record: DocumentRecord) -> None:
    """Scanned pages, OCR'd or not, one note each on stderr (core.ingest.ocr)."""
    from core.ingest.ocr import scanned_page_notes

    for note in scanned_page_notes(ws.load_machine_document(record.doc_id, record.engine)):
        print(note, file=sys.stderr)


def _print_anchor_warnings(report: ImportReport, out=None) -> None:
    """A gold ImportReport's remapped documents and unanchored evidence, one line each (stderr)."""
    out = out or sys.stderr
    for item_id, old, new in report.remapped:
        print(f"note: {item_id}: document {old} is not in this workspace; matched by file name to {new}",
              file=out)
    for r in report.items:
        for i, res in r.problems:
            print(f"warning: {r.item_id} evidence {i}: {res.level}: {res.note}", file=out)


def _parse_int_list(text: str, what: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError as err:
        raise BadInput(f"{what} must be comma-separated whole numbers, got {text!r}") from err
    if not values or any(v < 1 for v in values):
        raise BadInput(f"{what} must be positive whole numbers, got {text!r}")
    return tuple(sorted(set(values)))
