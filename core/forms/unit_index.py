"""The empty input boxes of a page and the index of every addressable unit of a document.

A closed rectangle with no text in it, sized like an input area (core.forms.rulings finds the
rectangles), is a unit of its own: an empty value's place. `unit_index` gathers those with the
elements and their lines, so a field's key or value can be named by id.
"""
from __future__ import annotations

from core.categories import Category
from core.forms.rulings import Rulings, page_rulings
from core.forms.units import Unit, box_id, mark_unit, page_units
from core.geometry import overlap_area
from core.model import Document, Page

C = Category


# Wall pairs input_boxes tests on one page at most: a form page needs a few thousand (irs f7004:
# 17k); a slide of drawn grids (wild nlp2004slides p12: 600 h × 600 v strokes) needs millions and
# would take minutes. Past the budget the page keeps the boxes found so far (top to bottom).
INPUT_BOX_BUDGET = 200_000


def input_boxes(doc: Document, page: Page) -> tuple[Unit, ...]:
    """Closed rectangles with no text in them, sized like an input area: empty values' places."""
    r = page_rulings(doc, page)
    texts = [e.bbox for e in page.elements if e.text.strip() and e.category not in (C.PICTURE, C.DECORATIVE)]
    out: dict[str, Unit] = {}
    hs = sorted({round(y, 1) for y, _, _ in r.h})
    budget = [INPUT_BOX_BUDGET]
    for i, top in enumerate(hs):
        for bottom in hs[i + 1:]:
            if bottom - top > 120 or budget[0] <= 0:
                break
            if bottom - top < 8:
                continue
            for x0, x1 in _spans_closed(r, top, bottom, budget):
                box = (x0, top, x1, bottom)
                if x1 - x0 < 20 or any(overlap_area(t, box) > 0.3 * max(overlap_area(t, t), 1e-6) for t in texts):
                    continue
                uid = box_id(doc.doc_id, page.number, box)
                out.setdefault(uid, Unit(uid, page.number, box, "", None, C.FORM_FIELD, kind="box"))
    return tuple(out.values())


def _spans_closed(r: Rulings, top: float, bottom: float, budget: list[int]) -> list[tuple[float, float]]:
    walls = sorted(x for x, a, b in r.v if a <= top + 2.5 and b >= bottom - 2.5)
    budget[0] -= max(len(walls) - 1, 0)
    inner = sorted({y for y, _, _ in r.h_between(top + 2, bottom - 2)})
    out = []
    for a, b in zip(walls, walls[1:]):
        if r.covers_h(top, a, b) and r.covers_h(bottom, a, b):
            # only the tightest box: no rule in between that closes a smaller one
            if not any(r.covers_h(y, a, b) for y in inner):
                out.append((a, b))
    return out


def unit_index(doc: Document) -> dict[str, Unit]:
    """Every addressable unit by id: elements, their lines, and empty input areas."""
    index: dict[str, Unit] = {}
    for page in doc.pages:
        for e in page.elements:
            cat = e.category
            kind = "mark" if cat is C.SELECTION_MARK else ("widget" if e.source == "widget" else "text")
            index[e.id] = mark_unit(e) if kind == "mark" else Unit(
                e.id, e.page, e.bbox, e.text, e.id, cat, kind=kind, source=e.source)
        for u in page_units(doc, page):
            index.setdefault(u.id, u)
        for box in input_boxes(doc, page):
            index.setdefault(box.id, box)
    return index
