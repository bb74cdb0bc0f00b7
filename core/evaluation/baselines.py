"""pymupdf4llm's own chunker as a baseline policy beside naive: `pymupdf4llm.to_chunks()` on the
stored PDF, its chunks citing the corrected Document's elements their boxes cover.

`to_chunks()` runs PyMuPDF's layout model, which this project never loads in its own process
(core/__init__.py), so it runs in a child process; its output is kept as a workspace blob per PDF,
so a second evaluation costs nothing. Its text (markdown tables, `<br>` inside cells) is used as
given: that is what a user of that chunker would retrieve.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from core.categories import Category
from core.errors import InspectorError
from core.geometry import coverage
from core.model import Chunk, Document, SourceRef

PYMUPDF4LLM = "pymupdf4llm"
MIN_COVERAGE = 0.5  # an element at least half inside one of a chunk's boxes is cited by it
CHILD_TIMEOUT = 1800  # seconds; the layout model takes about a CPU-second a page
_CHILD = r"""
import json, sys, pymupdf, pymupdf4llm
doc = pymupdf.open(sys.argv[1])
out = [{"text": c.text, "page_start": c.metadata.page_start, "page_end": c.metadata.page_end,
        "bboxes": [list(b) for b in c.metadata.bboxes]} for c in pymupdf4llm.to_chunks(doc)]
json.dump(out, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
"""


class BaselineUnavailable(InspectorError):
    """pymupdf4llm could not chunk this PDF here."""


def pymupdf4llm_chunks(ws, doc_id: str) -> list[Chunk]:
    from core.review.corrections import corrected_document

    record = ws.document(doc_id)
    key = f"pymupdf4llm-chunks/{record.sha256}"
    cached = ws.get_blob(key)
    if cached is None:
        raw = _run_child(ws.document_pdf(doc_id), record.source)
        ws.put_blob(key, raw, "application/json")
    else:
        raw = cached[0]
    return chunks_from_output(json.loads(raw.decode("utf-8")), corrected_document(ws, doc_id))


def _run_child(pdf: Path | None, source: str) -> bytes:
    if pdf is None or not Path(pdf).is_file():
        raise BaselineUnavailable(f"the PDF of {source} is not in the workspace; re-ingest it")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "chunks.json"
        try:
            done = subprocess.run([sys.executable, "-c", _CHILD, str(pdf), str(out)], cwd=tmp,
                                  capture_output=True, text=True, timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise BaselineUnavailable(f"pymupdf4llm took over {CHILD_TIMEOUT}s on {source}") from None
        if done.returncode != 0 or not out.exists():
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise BaselineUnavailable(f"pymupdf4llm.to_chunks() failed on {source}: {last} "
                                      "(is pymupdf4llm with PyMuPDF-Layout installed?)")
        return out.read_bytes()


def chunks_from_output(raw: list[dict], doc: Document) -> list[Chunk]:
    chunks = []
    for i, item in enumerate(raw):
        boxes = [(int(b[0]), tuple(b[1:5])) for b in item.get("bboxes") or () if 1 <= int(b[0]) <= doc.page_count]
        refs = tuple(dict.fromkeys(SourceRef(e.id, e.page, e.bbox, e.category) for page, box in boxes
                                   for e in doc.page(page).elements if coverage(e.bbox, box) >= MIN_COVERAGE))
        first = max(1, min(int(item.get("page_start") or 1), doc.page_count))
        last = max(first, min(int(item.get("page_end") or first), doc.page_count))
        categories = tuple(dict.fromkeys(r.category for r in refs)) or (Category.TEXT,)
        chunks.append(Chunk(f"{doc.doc_id}-p4llm-{i}", str(item.get("text") or ""), doc.doc_id, doc.source,
                            first, last, (), categories, False, refs, PYMUPDF4LLM))
    return chunks
