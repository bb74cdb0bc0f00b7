"""Figure and table crops for multimodal RAG (seed 003): the element's page region at 2× zoom, its
caption drawn above and its footnotes below.

Captions and footnotes are drawn by rendering their own PDF regions as image strips, so no font is
needed and the text looks exactly as printed (Japanese included). A crop is stored in the
workspace as a PNG blob under a key made from the document, the element, its box and the boxes of
what is drawn with it, so a moved box or a relinked caption gives a new crop, and the same state
always gives the same key.

    crop_ref_for(doc_id, element, attached=()) -> str       the blob key (pure)
    crop_plan(doc, attachments) -> dict[id, CropPlan]       what each crop shows (pure)
    ensure_crops(ws, doc) -> dict[element_id, ref]          render what is missing, store, return keys
    with_image_refs(doc, refs) -> Document                  attr `image_ref` on each cropped element
    attach_crops(ws, doc, policy) -> Document               both: what chunking reads as `image_ref`
"""
from __future__ import annotations

import hashlib
import io
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pymupdf
from PIL import Image, ImageDraw

from core.categories import Category
from core.chunks.chunking import document_evidence
from core.chunks.policy import load_policy
from core.memo import Same, page_memo
from core.model import Document, Element, Page

ZOOM = 2.0
PAD = 2.0  # points of margin around each region
GAP = 8  # pixels between the caption strip, the crop and the footnote strip
MIME = "image/png"
CROPPED = (Category.PICTURE, Category.TABLE)
_LOCK = threading.Lock()  # pymupdf documents are not thread-safe; Streamlit serves sessions from threads


@dataclass(frozen=True)
class CropPlan:
    element: Element
    captions: tuple[Element, ...]  # drawn above, top to bottom
    footnotes: tuple[Element, ...]  # drawn below

    @property
    def attached(self) -> tuple[Element, ...]:
        return self.captions + self.footnotes


def crop_ref_for(doc_id: str, element: Element, attached: Sequence[Element] = (),
                 hidden: Sequence[tuple[int, tuple]] = ()) -> str:
    """The blob key of an element's crop: stable for the same box, the same caption/footnote boxes
    and the same redacted boxes on its pages (a redact or unredact gives a new crop)."""
    pages = {element.page, *(a.page for a in attached)}
    parts = [f"{element.page}:{element.bbox}"] + [f"{a.id}:{a.page}:{a.bbox}" for a in attached]
    parts += [f"hidden:{p}:{box}" for p, box in hidden if p in pages]
    digest = hashlib.sha1("|".join(parts).encode("utf-8")).hexdigest()[:10]
    return f"crop/{doc_id}/{element.id}-{digest}.png"


def crop_plan(doc: Document, attachments: Iterable[tuple[str, str]] = ()) -> dict[str, CropPlan]:
    """Every picture and table with its captions and footnotes.

    Those are the elements linked to it (`Element.links`: importers, reviewers) and, for captions
    and footnotes without a link, the `(source, target)` pairs chunking attached by its policy.
    """
    facts = [_CROP_FACTS.get(page, None, lambda page=page: _crop_facts(page)) for page in doc.pages]
    attached: dict[str, list[Element]] = {}
    linked_sources = set()
    for e in (e for _, linked, _ in facts for e in linked):
        linked_sources.add(e.id)
        for target in e.links:
            attached.setdefault(target, []).append(e)
    attachments = list(attachments)
    index = {e.id: e for _, _, notes in facts for e in notes} if attachments else {}
    for source, target in attachments:
        e = index.get(source)
        if e is not None and source not in linked_sources:
            attached.setdefault(target, []).append(e)
    plans = {}
    for e in (e for cropped, _, _ in facts for e in cropped):
        linked = sorted(attached.get(e.id, []), key=lambda a: (a.page, a.bbox[1], a.bbox[0]))
        plans[e.id] = CropPlan(e, tuple(a for a in linked if a.category is Category.CAPTION),
                               tuple(a for a in linked if a.category is Category.FOOTNOTE))
    return plans


_CROP_FACTS, _CROP_REFS = page_memo(), page_memo(20000)


def _crop_facts(page: Page) -> tuple[tuple[Element, ...], tuple[Element, ...], tuple[Element, ...]]:
    """What `crop_plan` reads of a page, memoised by page (core.memo): its pictures and tables
    with a box, its linked captions and footnotes, and all its captions and footnotes."""
    notes = tuple(e for e in page.elements if e.category in (Category.CAPTION, Category.FOOTNOTE))
    return (tuple(e for e in page.elements if e.category in CROPPED and e.bbox[2] > e.bbox[0] and e.bbox[3] > e.bbox[1]),
            tuple(e for e in notes if e.links), notes)


def hidden_boxes(fields: Iterable[Any]) -> tuple[tuple[int, tuple[float, ...]], ...]:
    """(page, box) of every redacted value: a crop paints these black, the pixels would show the value."""
    return tuple(sorted((f.page, tuple(f.value_bbox)) for f in fields
                        if getattr(f, "redacted", False) and not getattr(f, "is_selection", False)
                        and getattr(f, "value_bbox", None) and getattr(f, "value", "")))


def render_crop(pdf_path: str | Path, plan: CropPlan, zoom: float = ZOOM, fields: Iterable[Any] = ()) -> bytes:
    """PNG of the element's region with its caption strips above and footnote strips below; the
    boxes of redacted form values (`fields`) are blacked out."""
    hidden = hidden_boxes(fields)
    with _LOCK:
        pdf = pymupdf.open(str(pdf_path))
        try:
            body = _region(pdf, plan.element, zoom, hidden)
            above = [_region(pdf, c, zoom, hidden) for c in plan.captions]
            below = [_region(pdf, f, zoom, hidden) for f in plan.footnotes]
        finally:
            pdf.close()
    strips = [*above, body, *below]
    width = max(s.width for s in strips)
    height = sum(s.height for s in strips) + GAP * (len(strips) - 1)
    canvas = Image.new("RGB", (width, height), "white")
    y = 0
    for strip in strips:
        canvas.paste(strip, (0, y))
        y += strip.height + GAP
    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _region(pdf: pymupdf.Document, e: Element, zoom: float, hidden: Sequence[tuple[int, tuple]] = ()) -> Image.Image:
    page = pdf[e.page - 1]
    clip = pymupdf.Rect(e.bbox[0] - PAD, e.bbox[1] - PAD, e.bbox[2] + PAD, e.bbox[3] + PAD) & page.rect
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip, alpha=False)
    image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    draw = ImageDraw.Draw(image)
    for number, box in hidden:
        cut = pymupdf.Rect(box) & clip
        if number == e.page and not cut.is_empty:
            draw.rectangle([(cut.x0 - clip.x0) * zoom, (cut.y0 - clip.y0) * zoom,
                            (cut.x1 - clip.x0) * zoom, (cut.y1 - clip.y0) * zoom], fill="black")
    return image


def policy_attachments(doc: Document, policy: Any = "default") -> list[tuple[str, str]]:
    """(caption/footnote id, picture/table id) as chunking attaches them, so a crop shows what its chunk says."""
    return [(a.source, a.target) for ev in document_evidence(doc, load_policy(policy)) for a in ev.attachments
            if a.target]


def ensure_crops(ws: Any, doc: Document, attachments: Iterable[tuple[str, str]] | None = None,
                 fields: Sequence[Any] | None = None) -> dict[str, str]:
    """Render and store every crop not stored yet; element id → blob key. {} when there is no PDF.

    `attachments` default to the default policy's caption/footnote attachments; `fields` (whose
    redacted values are blacked out) to the document's form fields, read when not given.
    """
    pdf_path = ws.document_pdf(doc.doc_id) if ws.find_document(doc.doc_id) else None
    if pdf_path is None:
        return {}
    if attachments is None:
        attachments = policy_attachments(doc)
    if fields is None:
        from core.forms.fields import extract_fields

        fields = extract_fields(doc)
    hidden = hidden_boxes(fields)
    refs = {}
    stored = _stored_refs(ws)
    for element_id, plan in crop_plan(doc, attachments).items():
        if _blank(doc.page(plan.element.page)):
            continue
        ref = _CROP_REFS.get(plan.element, (doc.doc_id, tuple(Same(a) for a in plan.attached), hidden),
                             lambda plan=plan: crop_ref_for(doc.doc_id, plan.element, plan.attached, hidden))
        if ref not in stored and ws.get_blob(ref) is None:
            ws.put_blob(ref, render_crop(pdf_path, plan, fields=fields), MIME)
        stored.add(ref)
        refs[element_id] = ref
    return refs


# Crop keys this process has seen stored, per workspace object. Blobs are never deleted and a key
# names its content, so a key once stored stays good; asking the store again read every crop's
# PNG bytes on every rebuild (most of a rebuild's time on a 300-page document).
_STORED: "weakref.WeakKeyDictionary[Any, set[str]]" = weakref.WeakKeyDictionary()


def _stored_refs(ws: Any) -> set[str]:
    try:
        return _STORED.setdefault(ws, set())
    except TypeError:  # a store that cannot be weakly referenced: ask it every time
        return set()


def _blank(page: Page) -> bool:
    """Imported pages without a source image have nothing to crop."""
    return bool(page.notice and page.notice.startswith("no source PDF"))


def with_image_refs(doc: Document, refs: Mapping[str, str]) -> Document:
    """The document with attr `image_ref` on each cropped element (what chunk metadata carries)."""
    if not refs:
        return doc
    pages = []
    for page in doc.pages:
        mine = tuple((e.id, refs[e.id]) for e in page.elements if e.id in refs)
        if mine:
            # the same page with the same crops is the same new Page object on every rebuild, so
            # the page memos downstream (evidence, core.memo) find it again
            page = _WITH_REFS.get(page, mine, lambda page=page, mine=mine: _page_with_refs(page, dict(mine)))
        pages.append(page)
    return doc.with_pages(pages)


_WITH_REFS = page_memo()


def _page_with_refs(page: Page, refs: Mapping[str, str]) -> Page:
    return Page(page.number, page.width, page.height, page.rotation, page.label,
                tuple(e.with_attrs(image_ref=refs[e.id]) if e.id in refs and e.attr("image_ref") != refs[e.id]
                      else e for e in page.elements), page.notice)


def attach_crops(ws: Any, doc: Document, policy: Any = "default", fields: Sequence[Any] | None = None) -> Document:
    """`doc` with `image_ref` on every picture/table whose crop (under `policy`'s attachments) is stored.

    The naive baseline has no figures to point at, so it is returned as is. `fields`: the form
    fields the caller already has (the forms pass is the costliest step of a rebuild).
    """
    policy = load_policy(policy)
    if policy.mode == "naive":
        return doc
    return with_image_refs(doc, ensure_crops(ws, doc, policy_attachments(doc, policy), fields))


def crop_png(ws: Any, ref: str) -> bytes | None:
    blob = ws.get_blob(ref)
    return blob[0] if blob else None
