"""PDF bytes → machine `Document`, with the `layout` (PyMuPDF's layout model) or `fast` (rules only) engine.

Per page the facts both engines need are read once (`core.ingest.page_facts`); the fast engine
(`core.ingest.fast_engine`) or the model (run in the child process of `core.ingest.layout_worker`,
its boxes filled by `core.ingest.layout_engine`) turns them into drafts; this module puts each
page's drafts in reading order and assembles the Document. A page the model crashed on is read by
the fast engine instead, with a notice.
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import time
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import pymupdf

from core.categories import Category
from core.errors import BadInput, CorruptPdf
from core.ingest.draft import Draft
from core.ingest.image_cap import oversized_image
from core.ingest.fast_engine import body_size, fast_drafts, keep_one_title
from core.ingest.layout_engine import layout_drafts
from core.ingest.layout_worker import WORKER, LayoutCrashed, LayoutWorker
from core.ingest.lines import is_vertical
from core.ingest.opening import OpenedPdf, open_pdf
from core.ingest.page_facts import PageFacts, read_page
from core.ingest.reading_order import insert_in_order, xy_cut_order
from core.ingest.widgets import widget_drafts
from core.model import Document, Element, FrozenMap, Page, element_id, make_bbox

ENGINES = ("layout", "fast")
INGEST_VERSION = "1"  # bump when the elements an engine emits change, so stored outputs can be told apart

ProgressFn = Callable[[int, int], None]
ModelDrafts = tuple[list[Draft], list[Draft]]  # (the model's boxes in its order, extras to place among them)


def build_page(doc_id: str, engine: str, facts: PageFacts, drafts: list[Draft]) -> Page:
    used: set[str] = set()
    elements = []
    for seq, d in enumerate(drafts):
        bbox = make_bbox(d.bbox)
        text = d.final_text()
        attrs = dict(d.attrs)
        salt, n = engine, 0
        eid = element_id(doc_id, facts.number, bbox, text, salt)
        while eid in used:
            n += 1
            eid = element_id(doc_id, facts.number, bbox, text, f"{salt}#{n}")
        used.add(eid)
        # every attr value ingest makes is already immutable (tuples, str, numbers): no deep freeze
        elements.append(Element(eid, facts.number, seq, d.category, bbox, text, d.source,
                                state=d.state, attrs=FrozenMap(sorted(attrs.items()))))
    return Page(facts.number, round(facts.width, 2), round(facts.height, 2), facts.rotation, facts.label,
                tuple(elements))


@dataclass(frozen=True)
class Parsed:
    document: Document
    pdf_bytes: bytes


def engine_version(engine: str) -> str:
    version = f"{engine}/{INGEST_VERSION} pymupdf-{pymupdf.VersionBind}"
    if engine == "layout":
        # The model ships inside the pymupdf wheel: its version is the wheel's, and asking the
        # metadata keeps the model out of this process (it runs in the layout worker).
        version += f" layout-{importlib.metadata.version('pymupdf')}"
    return version


@dataclass(frozen=True)
class _PageReads:
    """What reading the pages gathered: every page's facts and, with the layout engine, the model's drafts."""
    facts: list[PageFacts]
    model: list[ModelDrafts | None]  # None: the model crashed there
    crashed: dict[int, str]  # page number → why the model failed on it


def parse_pdf(
    data: bytes,
    *,
    doc_id: str,
    sha256: str,
    filename: str,
    engine: str = "layout",
    password: str | None = None,
    progress: ProgressFn | None = None,
) -> Parsed:
    """Parse every page with the chosen engine. Raises a BadInput subclass for unusable files."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    opened = open_pdf(data, filename, password)
    labels, widgets = bool(opened.doc.get_page_labels()), bool(opened.doc.is_form_pdf)
    started = time.perf_counter()
    worker = WORKER if engine == "layout" else None
    with worker.lock if worker else contextlib.nullcontext():
        reads = _read_pages(opened, sha256, filename, worker, labels, widgets, progress)
    body = body_size(reads.facts)
    fast_pages = _fast_pages(engine, reads, body)
    pages = [_ordered_page(doc_id, engine, facts, fast_pages[i], reads, i) for i, facts in enumerate(reads.facts)]
    meta = _document_meta(opened, reads, body, started)
    document = Document(doc_id, filename, sha256, engine, tuple(pages), engine_version(engine), meta)
    return Parsed(document, opened.pdf_bytes)


def _read_pages(opened: OpenedPdf, sha256: str, filename: str, worker: LayoutWorker | None,
                labels: bool, widgets: bool, progress: ProgressFn | None) -> _PageReads:
    """`labels` / `widgets`: whether the document has page-label rules / an AcroForm (see read_page)."""
    doc = opened.doc
    total = doc.page_count
    reads = _PageReads([], [], {})
    try:
        for index in range(total):
            page = doc.load_page(index)
            too_big = oversized_image(page)  # checked from the image dictionaries, before anything decodes
            requested = bool(worker) and not too_big and _request_model_boxes(worker, sha256, opened.pdf_bytes, index)
            facts = read_page(page, labels=labels, widgets=widgets, images=not too_big)
            reads.facts.append(facts)
            if worker:
                _collect_model_drafts(worker, requested, page, facts, index, reads, skipped=too_big)
            if progress:
                progress(index + 1, total)
    except BadInput:
        raise
    except Exception as err:  # noqa: BLE001 - MuPDF raises many kinds on a damaged page: a refusal, not a traceback
        raise CorruptPdf(f"{filename}: page {len(reads.facts) + 1} cannot be read ({err}); "
                         "the file is damaged — get a fresh copy or re-save it from a PDF viewer") from err
    return reads


def _request_model_boxes(worker: LayoutWorker, key: str, pdf_bytes: bytes, index: int) -> bool:
    """Ask the worker for page `index`; False when its child could not be reached."""
    try:
        worker.open(key, pdf_bytes)
        worker.request(index)  # the model runs while this process reads the page
        return True
    except OSError:  # the child died between pages: the next page gets a new one
        worker.reset()
        return False


def _collect_model_drafts(worker: LayoutWorker, requested: bool, page: pymupdf.Page, facts: PageFacts,
                          index: int, reads: _PageReads, skipped: str | None = None) -> None:
    try:
        if skipped:
            raise LayoutCrashed(skipped)
        if not requested:
            raise LayoutCrashed("the layout process could not be reached")
        reads.model.append(layout_drafts(page, facts, worker.result()))
    except LayoutCrashed as err:
        reads.crashed[index + 1] = str(err)
        reads.model.append(None)


def _fast_pages(engine: str, reads: _PageReads, body: float) -> list[list[Draft] | None]:
    """The fast engine's drafts of every page it reads: all of them, or the layout pages the model crashed on."""
    largest = max((ln.size for f in reads.facts for ln in f.lines), default=body)
    fast_pages = [fast_drafts(facts, body, largest) if engine == "fast" or reads.model[i] is None else None
                  for i, facts in enumerate(reads.facts)]
    if engine == "fast":
        keep_one_title(fast_pages)
    return fast_pages


def _ordered_page(doc_id: str, engine: str, facts: PageFacts, fast: list[Draft] | None, reads: _PageReads,
                  index: int) -> Page:
    """The page with its drafts in reading order; a layout page the model crashed on carries a notice."""
    notice = None
    if fast is not None:
        ordered = _fast_reading_order(facts, fast)
        if engine == "layout":
            notice = ("the layout model failed on this page (" + reads.crashed[facts.number][:120] +
                      "); its elements come from the fast engine")
            for d in ordered:
                d.category = Category.SECTION_HEADER if d.category is Category.TITLE else d.category
    else:
        model, extras = reads.model[index]
        ordered = insert_in_order(model, extras)
    page_obj = build_page(doc_id, engine, facts, ordered)
    return replace(page_obj, notice=notice) if notice else page_obj


def _fast_reading_order(facts: PageFacts, drafts: list[Draft]) -> list[Draft]:
    if is_vertical(facts.lines):  # a tategaki page reads right to left, top to bottom
        order = sorted(range(len(drafts)), key=lambda j: (-round(drafts[j].bbox[2] / 6), drafts[j].bbox[1]))
    else:
        order = xy_cut_order([d.bbox for d in drafts], facts.width)
    return insert_in_order([drafts[j] for j in order], widget_drafts(facts.widgets))


def _document_meta(opened: OpenedPdf, reads: _PageReads, body: float, started: float) -> FrozenMap:
    meta = {
        "body_size": body,
        "fallback_pages": tuple(sorted(reads.crashed)),
        "encrypted": opened.encrypted,
        "pdf_title": (opened.doc.metadata or {}).get("title") or "",
        "parse_seconds": round(time.perf_counter() - started, 3),
        "rulings": _rulings(reads.facts),
    }
    return FrozenMap(sorted(meta.items()))


def _rulings(facts_list: Sequence[PageFacts]) -> FrozenMap:
    # horizontal (y, x0, x1) and vertical (x, y0, y1) strokes per page: boxes, cells and
    # underlines that locate a flattened form's values, empty ones included (core.forms.rulings)
    rulings = {str(f.number): {"h": tuple((round(y, 1), round(a, 1), round(b, 1)) for y, a, b, _ in f.vectors.hsegs[:4000]),
                               "v": tuple((round(x, 1), round(a, 1), round(b, 1)) for x, a, b, _ in f.vectors.vsegs[:4000])}
               for f in facts_list if f.vectors.hsegs or f.vectors.vsegs}
    # frozen by hand: the values are tuples already, and freeze_attrs' generic walk over thousands
    # of ruling segments costs more than reading them
    return FrozenMap(sorted((page, FrozenMap(sorted(hv.items()))) for page, hv in rulings.items()))
