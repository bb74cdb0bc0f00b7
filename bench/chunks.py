"""Chunk building on a 300-page document, and the rebuild after one page's correction.

    python bench/chunks.py [--pages 300] [--engine fast]

Builds a 300-page PDF by repeating the sample 経費精算規程 (6 pages × 50), ingests it into a
temporary workspace, then times `chunks_for` (corrected Document → evidence → chunks):
- cold: nothing cached (first open of the Chunks page);
- warm: same log head and policy (a rerun of the page) — served from the chunk cache;
- after one correction on the middle page — only that page's evidence is rebuilt;
- the same correction with every cache cleared, to show what the per-page cache saves.
DESIGN.md budget: one correction → updated chunks in time proportional to the page, not the document.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from core.categories import Category  # noqa: E402
from core.chunks import cache, chunking  # noqa: E402
from core.chunks.pipeline import chunks_for  # noqa: E402
from core.chunks.policy import DEFAULT  # noqa: E402
from core.ingest.pipeline import ingest_path  # noqa: E402
from core.review import corrections  # noqa: E402
from core.store.workspace import Workspace  # noqa: E402
from long_document import long_pdf  # noqa: E402  (bench/ is on sys.path when run as a script)



def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--engine", default="fast", choices=("fast", "layout"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "long.pdf"
        long_pdf(pdf, args.pages)
        ws = Workspace(Path(tmp) / "ws")
        (record, ingest_s) = timed(lambda: ingest_path(ws, pdf, engine=args.engine).record)
        doc_id = record.doc_id
        print(f"document: {record.page_count} pages ({args.engine} ingest {ingest_s:.2f} s)")

        cache.clear_cache()
        corrections.clear_cache()
        from core.chunks.crops import attach_crops  # chunks_for names figure/table crops (core.chunks.crops)
        _, crops_s = timed(lambda: attach_crops(ws, corrections.corrected_document(ws, doc_id), DEFAULT))
        cache.clear_cache()
        corrections.clear_cache()
        cold, cold_s = timed(lambda: chunks_for(ws, doc_id, DEFAULT))
        built_cold = cache.cache_stats()["page_evidence_built"]
        _, warm_s = timed(lambda: chunks_for(ws, doc_id, DEFAULT))
        doc = corrections.corrected_document(ws, doc_id)
        _, replay_only_s = timed(lambda: corrections.corrected_document(ws, doc_id))

        middle = doc.page(record.page_count // 2 + 1)
        target = next(e for e in middle.elements if e.category is Category.TEXT and e.text.strip())
        ws.append_events(doc_id, [{"kind": "relabel", "target": target.id, "category": "decorative"}], "bench")
        (after, rebuild_s) = timed(lambda: chunks_for(ws, doc_id, DEFAULT))
        rebuilt = cache.cache_stats()["page_evidence_built"] - built_cold
        changed = len({c.id for c in after} ^ {c.id for c in cold})

        corrected = corrections.corrected_document(ws, doc_id)
        split, forms_s = timed(lambda: chunking.form_split(corrected, DEFAULT))
        _, layout_warm_s = timed(lambda: chunking.layout_chunks(split.masked, DEFAULT, split.skip))  # pages cached
        cache.clear_cache()
        _, layout_cold_s = timed(lambda: chunking.layout_chunks(split.masked, DEFAULT, split.skip))  # none cached
        _, naive_s = timed(lambda: chunking.build_chunks(corrected, "naive"))

        print(f"chunks: {len(cold)} (default policy), page evidence built cold: {built_cold}")
        print(f"first crops of every figure/table (core.chunks.crops, once): {crops_s * 1000:8.1f} ms")
        print(f"cold chunks_for (replay + forms + evidence + assembly): {cold_s * 1000:8.1f} ms")
        print(f"warm chunks_for (same head, served from cache):        {warm_s * 1000:8.1f} ms")
        print(f"chunks_for after 1 correction on page {middle.number:>3}:            {rebuild_s * 1000:8.1f} ms"
              f"  (pages re-evidenced: {rebuilt}, chunk ids changed: {changed})")
        print("  parts of a rebuild:")
        print(f"    core.forms.fields fields + form chunks (whole document):   {forms_s * 1000:8.1f} ms")
        print(f"    evidence + assembly, 1 page re-evidenced:           {layout_warm_s * 1000:8.1f} ms")
        print(f"    evidence + assembly, all {record.page_count} pages re-evidenced:     {layout_cold_s * 1000:8.1f} ms")
        print(f"    corrected_document (replay cache hit):              {replay_only_s * 1000:8.1f} ms")
        print(f"naive baseline build:                                  {naive_s * 1000:8.1f} ms")
        print(f"ratio rebuild-after-correction / cold chunks_for:      {rebuild_s / cold_s:.2f}")
        print(f"ratio evidence+assembly, 1 page / all pages:           {layout_warm_s / layout_cold_s:.2f}")
        ws.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
