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
from core.ingest.image_cap import oversized_image, oversized_mask
from core.ingest.fast_engine import body_size, fast_drafts, keep_one_title
from core.ingest.layout_engine import layout_drafts
from core.ingest.layout_worker import LayoutCrashed, LayoutPool, LayoutWorker, layout_pool
from core.ingest.lines import is_vertical
from core.ingest.ocr import OcrOutcome, OcrSettings, element_ocr_attrs, ocr_document, without_page_scan
from core.ingest.opening import OpenedPdf, open_pdf
from core.ingest.page_facts import PageFacts, read_page
from core.ingest.recover_words import RECOVERED_RULE
from core.ingest.reading_order import insert_in_order, xy_cut_order
from core.ingest.version import code_digest
from core.ingest.widgets import widget_drafts
from core.model import Document, Element, FrozenMap, Page, element_id, make_bbox
from core.text import DROPPED_GLYPHS_RULE, SYMBOL_GLYPHS_RULE, clean_text, map_symbol_glyphs

ENGINES = ("layout", "fast")
OVERPRINT_RULE = "overprinted_duplicates"  # lines printed twice at one place, read once (page_facts)
# pages waiting on each layout process: with two, the next page is already in the child's pipe when it
# answers, instead of waiting for this process to finish reading the page before
PAGES_QUEUED = 2

ProgressFn = Callable[[int, int], None]
ModelDrafts = tuple[list[Draft], list[Draft]]  # (the model's boxes in its order, extras to place among them)


def build_page(doc_id: str, engine: str, facts: PageFacts, drafts: list[Draft]) -> Page:
    used: set[str] = set()
    elements = []
    for seq, d in enumerate(drafts):
        bbox = make_bbox(d.bbox)
        text, attrs, rules = _text_and_marks(d)
        salt, n = engine, 0
        eid = element_id(doc_id, facts.number, bbox, text, salt)
        while eid in used:
            n += 1
            eid = element_id(doc_id, facts.number, bbox, text, f"{salt}#{n}")
        used.add(eid)
        # every attr value ingest makes is already immutable (tuples, str, numbers): no deep freeze
        elements.append(Element(eid, facts.number, seq, d.category, bbox, text, d.source,
                                rules=rules, state=d.state, attrs=FrozenMap(sorted(attrs.items()))))
    notice = f"widgets read by PyMuPDF's reader: {facts.widget_fallback}" if facts.widget_fallback else None
    return Page(facts.number, round(facts.width, 2), round(facts.height, 2), facts.rotation, facts.label,
                tuple(elements), notice)


def _text_and_marks(d: Draft) -> tuple[str, dict, tuple[str, ...]]:
    """The draft's final text, clean, and the attrs and rules that record what ingest did to its
    characters (a draft without text attrs, e.g. the layout engine's loose lines, reads its lines)."""
    text, dropped = clean_text(d.final_text())
    attrs = dict(d.attrs)
    rules = d.rules
    dropped = max(dropped, attrs.get("dropped_glyphs", 0), sum(ln.dropped for ln in d.lines))
    if dropped:
        attrs["dropped_glyphs"] = dropped
        rules += (DROPPED_GLYPHS_RULE,)
    recovered = attrs.get("recovered_chars") or sum(ln.recovered for ln in d.lines)
    if recovered:
        attrs["recovered_chars"] = recovered
        rules += () if RECOVERED_RULE in rules else (RECOVERED_RULE,)
    overprinted = sum(ln.overprinted for ln in d.lines)
    if overprinted:
        attrs["overprinted_lines"] = overprinted
        rules += (OVERPRINT_RULE,)
    fonts = attrs.get("fonts") or tuple(dict.fromkeys(f for ln in d.lines for f in ln.fonts))
    text, symbols = map_symbol_glyphs(text, fonts)
    if symbols:
        attrs["symbol_glyphs"] = symbols  # what the reviewer (and the corpus check) can trace back
        rules += (SYMBOL_GLYPHS_RULE,)
    return text, attrs, rules


@dataclass(frozen=True)
class Parsed:
    document: Document
    pdf_bytes: bytes


def engine_version(engine: str) -> str:
    version = f"{engine}/{code_digest()} pymupdf-{pymupdf.VersionBind}"
    if engine == "layout":
        # The model ships inside the pymupdf wheel: its version is the wheel's, and asking the
        # metadata keeps the model out of this process (it runs in the layout worker).
        version += f" layout-{importlib.metadata.version('pymupdf')}"
    return version


@dataclass(frozen=True)
class PageReads:
    """What reading a run of pages gathered: each page's facts and, with the layout engine, the
    model's drafts. Picklable, so a batch task can read a page range and the driver assemble them."""
    facts: list[PageFacts]
    model: list[ModelDrafts | None]  # None: the model crashed there (or the engine is fast)
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
    ocr_settings: OcrSettings | None = None,
    workers: int | None = None,
) -> Parsed:
    """Parse every page with the chosen engine; scanned pages are OCR'd first (core.ingest.ocr).
    Raises a BadInput subclass for unusable files. The layout model runs in a pool of `workers`
    processes (default: one per core, or RLI_LAYOUT_WORKERS)."""
    _check_engine(engine)
    started = time.perf_counter()
    opened, ocr = _with_ocr_layers(open_pdf(data, filename, password), ocr_settings)
    reads = _read_with_pool(opened, sha256, filename, engine, range(opened.doc.page_count), workers, progress,
                            set(ocr.sources))
    return assemble(opened, reads, doc_id=doc_id, sha256=sha256, filename=filename, engine=engine, started=started,
                    ocr=ocr)


def read_page_range(data: bytes, *, sha256: str, filename: str, engine: str, start: int, stop: int,
                    password: str | None = None, workers: int | None = None) -> PageReads:
    """Pages [start, stop) of a PDF (0-based), read as parse_pdf reads them, for a batch task; the
    layout model runs in this process's pool of `workers` processes. No OCR: OCR rewrites the PDF
    itself, so a file with scanned pages is parsed whole (core.batch.ingest)."""
    _check_engine(engine)
    opened = open_pdf(data, filename, password)
    return _read_with_pool(opened, sha256, filename, engine, range(start, min(stop, opened.doc.page_count)),
                           workers, None, set())


def merge_reads(parts: Sequence[PageReads]) -> PageReads:
    """Consecutive page ranges' reads as one, in the order given."""
    return PageReads([f for p in parts for f in p.facts], [m for p in parts for m in p.model],
                     {n: why for p in parts for n, why in p.crashed.items()})


def assemble(opened: OpenedPdf, reads: PageReads, *, doc_id: str, sha256: str, filename: str, engine: str,
             started: float, ocr: OcrOutcome | None = None) -> Parsed:
    """The Document from every page's reads: what needs the whole document (body size, one title,
    reading order) is decided here, once all pages are read."""
    ocr = ocr or OcrOutcome()
    body = body_size(reads.facts)
    fast_pages = _fast_pages(engine, reads, body)
    pages = [_mark_ocr(_ordered_page(doc_id, engine, facts, fast_pages[i], reads, i), ocr)
             for i, facts in enumerate(reads.facts)]
    meta = _document_meta(opened, reads, body, started, ocr)
    document = Document(doc_id, filename, sha256, engine, tuple(pages), engine_version(engine), meta)
    return Parsed(document, opened.pdf_bytes)


def _with_ocr_layers(opened: OpenedPdf, settings: OcrSettings | None) -> tuple[OpenedPdf, OcrOutcome]:
    """The PDF with an invisible OCR text layer on each scanned page: what the engines read and
    the workspace stores (the pages look the same; their text can now be read and selected)."""
    ocr = ocr_document(opened.doc, settings)
    if ocr.pdf_bytes is None:
        return opened, ocr
    return OpenedPdf(pymupdf.open(stream=ocr.pdf_bytes, filetype="pdf"), ocr.pdf_bytes, opened.encrypted), ocr


def _mark_ocr(page: Page, ocr: OcrOutcome) -> Page:
    """A scanned page says so, and each element read from its OCR text records what read it."""
    notice = ocr.notices.get(page.number)
    if notice is None:
        return page
    source = ocr.sources.get(page.number)
    elements = page.elements
    if source:
        words = ocr.words.get(page.number, ())
        elements = tuple(replace(e, attrs=FrozenMap(sorted({**dict(e.attrs), **element_ocr_attrs(e.bbox, source, words)}.items())))
                         if e.text else e for e in elements)
    return replace(page, elements=elements, notice="; ".join(n for n in (notice, page.notice) if n))


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")


def _read_with_pool(opened: OpenedPdf, sha256: str, filename: str, engine: str, indices: range,
                    workers: int | None, progress: ProgressFn | None, ocr_pages: set[int]) -> PageReads:
    pool = layout_pool(workers) if engine == "layout" else None
    with pool.lock if pool else contextlib.nullcontext():
        return _read_pages(opened, sha256, filename, pool, indices, progress, ocr_pages)


def _read_pages(opened: OpenedPdf, sha256: str, filename: str, pool: LayoutPool | None,
                indices: range, progress: ProgressFn | None, ocr_pages: set[int]) -> PageReads:
    """Keep PAGES_QUEUED pages queued on every layout process while this process reads the pages'
    text and drawings; collect the model's answers in page order. Whether the document has page-label
    rules is asked once (see read_page); `ocr_pages`: the page numbers given an OCR text layer."""
    doc = opened.doc
    labels = bool(doc.get_page_labels())
    reads = PageReads([], [], {})
    requested: dict[int, bool] = {}
    oversized: dict[int, str | None] = {}  # pages asked ahead: the image check is not made twice
    ahead = iter(indices)
    try:
        for index in indices:
            while pool and len(requested) < pool.size * PAGES_QUEUED and (nxt := next(ahead, None)) is not None:
                # an image over the pixel cap is never decoded, so the model is not asked for its page
                oversized[nxt] = oversized_image(doc.load_page(nxt))
                requested[nxt] = (not oversized[nxt]
                                  and _request_model_boxes(pool.for_page(nxt), sha256, opened.pdf_bytes, nxt))
            page = doc.load_page(index)
            # checked from the image dictionaries, before anything decodes
            too_big = oversized.pop(index) if index in oversized else oversized_image(page)
            facts = read_page(page, labels=labels, images=not (too_big or oversized_mask(page)))
            if facts.number in ocr_pages:
                facts.images = without_page_scan(facts.images, facts.width, facts.height)
            reads.facts.append(facts)
            if pool:
                _collect_model_drafts(pool.for_page(index), requested.pop(index), page, facts, index, reads,
                                      skipped=too_big)
            else:
                reads.model.append(None)
            if progress:
                progress(len(reads.facts), len(indices))
    except BadInput:
        raise
    except Exception as err:  # noqa: BLE001 - MuPDF raises many kinds on a damaged page: a refusal, not a traceback
        raise CorruptPdf(f"{filename}: page {indices.start + len(reads.facts) + 1} cannot be read ({err}); "
                         "the file is damaged — get a fresh copy or re-save it from a PDF viewer") from err
    finally:
        for index in requested:  # an answer nobody will collect would be read as the next page's
            pool.for_page(index).reset()
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
                          index: int, reads: PageReads, skipped: str | None = None) -> None:
    try:
        if skipped:
            raise LayoutCrashed(skipped)
        if not requested:
            raise LayoutCrashed("the layout process could not be reached")
        reads.model.append(layout_drafts(page, facts, worker.result(index)))
    except LayoutCrashed as err:
        reads.crashed[index + 1] = str(err)
        reads.model.append(None)


def _fast_pages(engine: str, reads: PageReads, body: float) -> list[list[Draft] | None]:
    """The fast engine's drafts of every page it reads: all of them, or the layout pages the model crashed on."""
    largest = max((ln.size for f in reads.facts for ln in f.lines), default=body)
    fast_pages = [fast_drafts(facts, body, largest) if engine == "fast" or reads.model[i] is None else None
                  for i, facts in enumerate(reads.facts)]
    if engine == "fast":
        keep_one_title(fast_pages)
    return fast_pages


def _ordered_page(doc_id: str, engine: str, facts: PageFacts, fast: list[Draft] | None, reads: PageReads,
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
    if notice and page_obj.notice:
        notice = f"{notice}; {page_obj.notice}"
    return replace(page_obj, notice=notice) if notice else page_obj


def _fast_reading_order(facts: PageFacts, drafts: list[Draft]) -> list[Draft]:
    if is_vertical(facts.lines):  # a tategaki page reads right to left, top to bottom
        order = sorted(range(len(drafts)), key=lambda j: (-round(drafts[j].bbox[2] / 6), drafts[j].bbox[1]))
    else:
        order = xy_cut_order([d.bbox for d in drafts], facts.width)
    return insert_in_order([drafts[j] for j in order], widget_drafts(facts.widgets))


def _document_meta(opened: OpenedPdf, reads: PageReads, body: float, started: float, ocr: OcrOutcome) -> FrozenMap:
    meta = {
        "ocr_pages": tuple(sorted(ocr.sources)),  # scanned pages given an OCR text layer
        "scanned_pages": tuple(sorted(ocr.notices)),
        "body_size": body,
        "fallback_pages": tuple(sorted(reads.crashed)),
        "widget_fallback_pages": tuple(f.number for f in reads.facts if f.widget_fallback),
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
