"""The correction log on a 300-page document: replay, incremental replay, undo, review status.

    python bench/corrections.py [--pages 300] [--events 1000]

Builds a 300-page PDF by repeating the sample 経費精算規程, ingests it (fast engine) into a temporary
workspace, appends `--events` reviewer corrections (relabels, moves, added boxes, links, page
marks) and times, with the in-process replay cache cleared or warm:
- full replay of the whole log (first open after a restart);
- the view after one more event (what every save costs): replayed from the cached head;
- the view after an undo of that event, and after undoing an event deep in the log;
- a rerun with nothing new (cached);
- review progress for the Documents page; the audit log.
Prints each time and its ratio to the full replay: the budget is that one correction costs in
proportion to the page it touches, not to the log or the document.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from core.categories import Category  # noqa: E402
from core.ingest.pipeline import ingest_path  # noqa: E402
from core.review import corrections  # noqa: E402
from core.review.corrections import corrected_view, record_events  # noqa: E402
from core.review.status import audit_log, review_progress  # noqa: E402
from core.store.workspace import Workspace  # noqa: E402
from long_document import long_pdf  # noqa: E402  (bench/ is on sys.path when run as a script)



def timed(label: str, fn, baseline: float | None = None):
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    ratio = f"  ({seconds / baseline:.3f}× full replay)" if baseline else ""
    print(f"{label:<48} {seconds * 1000:9.1f} ms{ratio}")
    return result, seconds


def some_events(doc, count: int, rng: random.Random) -> list[dict]:
    elements = [e for e in doc.elements() if e.text]
    events = []
    for i in range(count):
        e = rng.choice(elements)
        kind = i % 5
        if kind == 0:
            events.append({"kind": "relabel", "target": e.id, "category": rng.choice(["text", "list_item", "section_header"])})
        elif kind == 1:
            x0, y0, x1, y1 = e.bbox
            events.append({"kind": "move_bbox", "target": e.id, "bbox": [x0, y0, x1 + 1, y1]})
        elif kind == 2:
            events.append({"kind": "add_element", "page": e.page, "bbox": [60, 700, 300, 720], "category": "text"})
        elif kind == 3:
            events.append({"kind": "mark_reviewed", "page": e.page, "status": "reviewed"})
        else:
            events.append({"kind": "relabel", "target": e.id, "category": e.category.value})
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--events", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "long.pdf"
        long_pdf(pdf, args.pages)
        ws = Workspace(Path(tmp) / "ws")
        doc_id = ingest_path(ws, pdf, engine="fast").record.doc_id
        doc = ws.load_machine_document(doc_id)
        rng = random.Random(7)
        for start in range(0, args.events, 100):  # saved in actions of 100, like a busy review day
            record_events(ws, doc_id, some_events(doc, min(100, args.events - start), rng), "bench")
        print(f"{args.pages} pages, {sum(len(p.elements) for p in doc.pages)} elements, "
              f"{len(ws.events(doc_id))} events")

        corrections.clear_cache()
        _, full = timed("full replay (cold cache)", lambda: corrected_view(ws, doc_id))
        timed("rerun, nothing new (cached)", lambda: corrected_view(ws, doc_id), full)
        target = next(e for e in doc.page(args.pages // 2).elements if e.text)
        [event] = record_events(ws, doc_id, [{"kind": "relabel", "target": target.id,
                                             "category": Category.LIST_ITEM.value}], "bench")
        timed("one more event (incremental)", lambda: corrected_view(ws, doc_id), full)
        record_events(ws, doc_id, [{"kind": "undo", "event": event.event_id}], "bench")
        timed("undo of that event (from a cached snapshot)", lambda: corrected_view(ws, doc_id), full)
        deep = ws.events(doc_id)[len(ws.events(doc_id)) // 2]
        record_events(ws, doc_id, [{"kind": "undo", "event": deep.event_id}], "bench")
        timed("undo of an event mid-log (replays from there)", lambda: corrected_view(ws, doc_id), full)
        timed("review progress (Documents page)", lambda: review_progress(ws, doc_id), full)
        timed("audit log (Audit page)", lambda: audit_log(ws, doc_id), full)
        ws.close()


if __name__ == "__main__":
    main()
