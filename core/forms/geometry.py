"""Geometry of form evidence: text units, rulings, cells, labels and key/value pairing on a page.

Everything here reads the Document only (element boxes, the text lines ingest keeps in `attrs`,
the page rulings ingest keeps in the Document's meta), never the PDF.

Vocabulary:
- a *unit* is the smallest addressable piece: an element, one line of a multi-line element
  (id `<element id>:<n>`), a check-box glyph split from its label, or an empty input area found
  by rulings (id `<doc>-p<page>-box-<hash>`).
- *rulings* are the horizontal and vertical strokes of the page (table rules, box edges,
  underlines); a *cell* is a rectangle closed by them.

Pairing rules (issue 4, seed 001), in the order they are tried for a key:
1. a key at the top of a ruled cell with room below it (US-style "Name" over a blank) takes the
   area below it; a key that fills its cell takes the cell to its right (申請書 key|value grid);
2. a key outside any cell takes the box to its right, else the underline to its right, else the
   text to its right on the same row, else (a key ending in ：) the text directly below;
3. a selection mark (☐☑, a small square, or a round radio glyph) takes the nearest label to its
   right on the same line, to its left when there is none on the right; the row's leading label
   (経費区分 ☑交通費 ☐会議費) becomes the marks' group, and round marks under one group form a
   radio field.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from typing import Iterable, Mapping, Sequence

from core.categories import Category
from core.geometry import center, contains, overlap_area, vertical_overlap
from core.headings import heading_level
from core.model import BBox, Document, Element, Page, thaw

C = Category

# glyph -> state; round ones are radio buttons
MARK_GLYPHS = {"☐": "unselected", "□": "unselected", "☑": "selected", "☒": "selected", "■": "selected",
               "✓": "selected", "✔": "selected", "○": "unselected", "◯": "unselected", "◉": "selected",
               "●": "selected", "◎": "selected", "⦿": "selected"}
ROUND_GLYPHS = set("○◯◉●◎⦿")
# a glyph only counts as a mark at a line start or after a space/bracket (not "□を付ける")
_MARK_AT = re.compile(r"(?:(?<=^)|(?<=[\s(（\[［:：、,]))([☐□☑☒■✓✔○◯◉●◎⦿])(?![ぁ-ゟ])")
TEXT_CATEGORIES = (C.TEXT, C.LIST_ITEM, C.FORM_FIELD, C.TABLE, C.CAPTION, C.SECTION_HEADER, C.TITLE,
                   C.FOOTNOTE, C.DOCUMENT_INDEX, C.REFERENCE, C.PICTURE)  # a form region read as a figure
# categories whose units can be a key (a heading or a footnote is not a field label)
KEY_CATEGORIES = (C.TEXT, C.LIST_ITEM, C.FORM_FIELD, C.TABLE)
LOOSE_KEY_CATEGORIES = (C.TEXT, C.LIST_ITEM, C.FORM_FIELD)
MAX_KEY_CHARS = 40
LONG_KEY_CHARS = 110  # ×1.6 for Latin text: a US form's "Number, street, and room or suite no. (If …)"


@dataclass(frozen=True)
class Unit:
    id: str
    page: int
    bbox: BBox
    text: str
    element_id: str | None  # the element it belongs to; None for an empty area found by rulings
    category: Category | None
    kind: str = "text"  # text | mark | widget | box
    state: str | None = None  # marks
    round: bool = False  # a round mark (radio option)
    source: str = ""
    rows: tuple[BBox, ...] = ()  # a paragraph unit's line boxes (a label is often its last line)

    @property
    def height(self) -> float:
        return max(self.bbox[3] - self.bbox[1], 1.0)


@dataclass(frozen=True)
class Pair:
    kind: str  # text | mark | radio
    key: Unit | None
    value: Unit | None
    confidence: float
    group: Unit | None = None
    options: tuple[tuple[Unit, Unit | None], ...] = ()  # radio: (mark, label)


# ---- small helpers ------------------------------------------------------------------------------
def union_box(boxes: Iterable[BBox]) -> BBox:
    boxes = [b for b in boxes if b is not None]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def strip_mark_glyphs(text: str) -> str:
    return "".join(ch for ch in text if ch not in MARK_GLYPHS).strip()


def _same_row(a: BBox, b: BBox) -> bool:
    if vertical_overlap(a, b) >= 0.5:
        return True
    ca, cb = (a[1] + a[3]) / 2, (b[1] + b[3]) / 2
    return abs(ca - cb) <= 0.35 * max(a[3] - a[1], b[3] - b[1], 1.0)


def _box_id(doc_id: str, page: int, bbox: BBox) -> str:
    key = f"{page}|{bbox[0]:.0f},{bbox[1]:.0f},{bbox[2]:.0f},{bbox[3]:.0f}"
    return f"{doc_id[:8]}-p{page}-box-{hashlib.sha1(key.encode()).hexdigest()[:8]}"


# ---- units --------------------------------------------------------------------------------------
def _stored_lines(e: Element) -> list[tuple[BBox, str, float]]:
    out = []
    for ln in e.attr("lines") or ():
        ln = thaw(ln)
        if isinstance(ln, Mapping):
            box, text, size = ln.get("bbox"), ln.get("text", ""), ln.get("size", 0)
        elif len(ln) >= 5:
            box, text, size = ln[:4], ln[4], (ln[5] if len(ln) > 5 else 0)
        else:
            continue
        if box and str(text).strip():
            out.append(((float(box[0]), float(box[1]), float(box[2]), float(box[3])), str(text), float(size or 0)))
    return out


def _is_paragraph(lines: Sequence[tuple[BBox, str, float]]) -> bool:
    """Lines that read as running text stay one unit; a form's labels and values are split."""
    if len(lines) < 2:
        return True
    if any(_same_row(a[0], b[0]) for i, a in enumerate(lines) for b in lines[i + 1:]):
        return False
    return sum(len(t) for _, t, _ in lines) / len(lines) > 28


def _glyph_units(e: Element, uid: str, box: BBox, text: str, size: float,
                 marks: Sequence[BBox]) -> list[Unit] | None:
    """A line starting with (or holding) check/radio glyphs the refine step left in the text:
    split into mark units and label units. Glyph boxes are estimated from the character positions."""
    hits = [m for m in _MARK_AT.finditer(text)]
    if not hits:
        return None
    width = box[2] - box[0]
    n = max(len(text), 1)
    glyph_w = min(size or (box[3] - box[1]), width / n * 1.6) if width > 0 else (box[3] - box[1])
    out: list[Unit] = []
    cursor = 0
    for k, m in enumerate(hits):
        x = box[0] + width * m.start() / n
        gbox = (x, box[1], min(x + glyph_w, box[2]), box[3])
        before = text[cursor:m.start()].strip()
        if before:
            out.append(Unit(f"{uid}~{k}t", e.page, (box[0] + width * cursor / n, box[1], x, box[3]), before,
                            e.id, e.category, source=e.source))
        if not any(overlap_area(gbox, mb) > 0.3 * max(overlap_area(gbox, gbox), 1e-6) for mb in marks):
            ch = m.group(1)
            out.append(Unit(f"{uid}~{k}m", e.page, gbox, ch, e.id, C.SELECTION_MARK, kind="mark",
                            state=MARK_GLYPHS[ch], round=ch in ROUND_GLYPHS, source=e.source))
        cursor = m.end()
    rest = text[cursor:].strip()
    if rest:
        x = box[0] + width * cursor / n
        out.append(Unit(f"{uid}~r", e.page, (x, box[1], box[2], box[3]), rest, e.id, e.category, source=e.source))
    return out


def _mark_unit(e: Element) -> Unit:
    glyph = str(e.attr("glyph") or e.text or "").strip()
    round_ = glyph in ROUND_GLYPHS or e.attr("shape") in ("circle", "round") or \
        str(e.attr("field_type", "")).lower() in ("radiobutton", "radio")
    state = e.state if e.state else MARK_GLYPHS.get(glyph, "unknown")
    return Unit(e.id, e.page, e.bbox, glyph, e.id, C.SELECTION_MARK, kind="mark", state=state, round=round_,
                source=e.source)


def page_units(doc: Document, page: Page) -> tuple[Unit, ...]:
    """Every unit of the page, in element order."""
    marks = [e.bbox for e in page.elements if e.category is C.SELECTION_MARK or e.attr("kind") == "square"]
    out: list[Unit] = []
    for e in page.elements:
        if e.source == "widget":
            kind = "mark" if e.category is C.SELECTION_MARK else "widget"
            unit = _mark_unit(e) if kind == "mark" else Unit(e.id, e.page, e.bbox, e.text, e.id, e.category,
                                                             kind="widget", source="widget")
            out.append(unit)
            continue
        if e.category is C.SELECTION_MARK or (e.attr("kind") == "square" and e.category in (C.PICTURE, C.DECORATIVE)):
            out.append(_mark_unit(e))
            continue
        if e.category not in TEXT_CATEGORIES or not e.text.strip():
            continue
        lines = _stored_lines(e)
        whole = _is_paragraph(lines) and e.category is not C.TABLE
        pieces = [(e.id, e.bbox, e.text, float(e.attr("size") or 0))] if whole else \
            [(f"{e.id}:{i}", b, t, s) for i, (b, t, s) in enumerate(lines)]
        rows = tuple(b for b, _, _ in lines) if whole and len(lines) > 1 else ()
        for uid, box, text, size in pieces:
            split = _glyph_units(e, uid, box, text, size, marks) if any(ch in MARK_GLYPHS for ch in text) else None
            if split:
                out.extend(split)
            else:
                out.append(Unit(uid, e.page, box, text, e.id, e.category, source=e.source, rows=rows))
    reviewed = {e.id for e in page.elements if "reviewer:set_selection" in e.rules}
    dingbats = {e.id for e in page.elements if any("dingbat" in str(f).lower() for f in (e.attr("fonts") or ()))}
    return _ticks_inside(out, reviewed, dingbats)


def _ticks_inside(units: list[Unit], reviewed: set[str], dingbats: set[str] = frozenset()) -> tuple[Unit, ...]:
    """A glyph drawn inside a box (a flattened check box's ✓, ×, or a ZapfDingbats mark the refine
    step did not know) means the box is checked; the glyph itself is not a label."""
    marks = [u for u in units if u.kind == "mark" and u.source != "widget"]
    if not marks:
        return tuple(units)
    ticks: dict[str, str] = {}
    for u in units:
        if u.kind != "text" or len(u.text.strip()) > 2:
            continue
        for m in marks:
            if contains(m.bbox, u.bbox, tolerance=1.5) or (
                    overlap_area(u.bbox, m.bbox) >= 0.6 * max(overlap_area(u.bbox, u.bbox), 1e-6)):
                ticks[u.id] = m.id
                break
    if not ticks:
        return tuple(units)
    ticked = set(ticks.values())
    # a box of unknown state (the refine step took it for an ornament) is checked only by a real
    # tick: a symbol or a dingbat-font glyph ("G" in ZapfDingbats), not a letter or a number
    symbol_ticked = {m for t, m in ticks.items()
                     if next(u for u in units if u.id == t).element_id in dingbats
                     or not any(ch.isalnum() for ch in next(u for u in units if u.id == t).text)}
    out = []
    for u in units:
        if u.id in ticks:
            continue
        if u.id in ticked and u.element_id not in reviewed and (
                u.state == "unselected" or (u.state == "unknown" and u.id in symbol_ticked)):
            u = replace(u, state="selected")
        out.append(u)
    return tuple(out)


def unit_index(doc: Document) -> dict[str, Unit]:
    """Every addressable unit by id: elements, their lines, and empty input areas."""
    index: dict[str, Unit] = {}
    for page in doc.pages:
        for e in page.elements:
            cat = e.category
            kind = "mark" if cat is C.SELECTION_MARK else ("widget" if e.source == "widget" else "text")
            index[e.id] = _mark_unit(e) if kind == "mark" else Unit(
                e.id, e.page, e.bbox, e.text, e.id, cat, kind=kind, source=e.source)
        for u in page_units(doc, page):
            index.setdefault(u.id, u)
        for box in input_boxes(doc, page):
            index.setdefault(box.id, box)
    return index


# ---- sections -----------------------------------------------------------------------------------
def section_paths(doc: Document) -> dict[str, tuple[str, ...]]:
    """Element id → the headings above it (title, then section headers by level)."""
    stack: list[tuple[int, str]] = []
    out: dict[str, tuple[str, ...]] = {}
    previous = 1
    under_widgets = {e.id for p in doc.pages for e in widget_shadows(p)}
    for e in doc.elements():
        if e.category in (C.TITLE, C.SECTION_HEADER) and e.text.strip() and e.id not in under_widgets:
            level = heading_level(e)
            level = previous if level is None else level
            previous = level
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, " ".join(e.text.split())))
        out[e.id] = tuple(t for _, t in stack)
    return out


def widget_shadows(page: Page) -> list[Element]:
    """Text elements printed inside a widget's rectangle: its value (or check glyph) drawn into the
    page as well. They belong to the widget's field, never to headings or flow text."""
    widgets = [e.bbox for e in page.elements if e.source == "widget"]
    if not widgets:
        return []
    from core.geometry import coverage

    return [e for e in page.elements if e.source != "widget" and e.text.strip()
            and any(coverage(e.bbox, w) >= 0.6 for w in widgets)]


# ---- rulings and cells --------------------------------------------------------------------------
@dataclass(frozen=True)
class Rulings:
    h: tuple[tuple[float, float, float], ...]  # (y, x0, x1)
    v: tuple[tuple[float, float, float], ...]  # (x, y0, y1)

    def covers_h(self, y: float, x0: float, x1: float, tol: float = 2.5) -> bool:
        return any(abs(sy - y) <= tol and a <= x0 + tol and b >= x1 - tol for sy, a, b in self.h)

    def covers_v(self, x: float, y0: float, y1: float, tol: float = 2.5) -> bool:
        return any(abs(sx - x) <= tol and a <= y0 + tol and b >= y1 - tol for sx, a, b in self.v)


def _merge(segs: Iterable[tuple[float, float, float]], tol: float = 1.2) -> tuple[tuple[float, float, float], ...]:
    """Collinear pieces (a rule drawn in several strokes, box edges that meet) become one segment."""
    out: list[list[float]] = []
    for pos, a, b in sorted((round(p, 1), min(a, b), max(a, b)) for p, a, b in segs):
        for seg in reversed(out[-8:]):
            if abs(seg[0] - pos) <= tol and a <= seg[2] + 1.5 and b >= seg[1] - 1.5:
                seg[1], seg[2] = min(seg[1], a), max(seg[2], b)
                break
        else:
            out.append([pos, a, b])
    return tuple((p, a, b) for p, a, b in out if b - a >= 4)


_RULINGS_CACHE: dict[tuple[str, int, int], Rulings] = {}


def page_rulings(doc: Document, page: Page) -> Rulings:
    """The page's strokes: from the Document's meta `rulings` (ingest), plus rule-like elements."""
    key = (doc.doc_id, page.number, id(page))
    cached = _RULINGS_CACHE.get(key)
    if cached is not None:
        return cached
    h: list[tuple[float, float, float]] = []
    v: list[tuple[float, float, float]] = []
    stored = thaw(doc.meta_value("rulings") or {})
    mine = stored.get(str(page.number)) if isinstance(stored, Mapping) else None
    if isinstance(mine, Mapping):
        h += [tuple(map(float, s[:3])) for s in mine.get("h", ()) if len(s) >= 3]
        v += [tuple(map(float, s[:3])) for s in mine.get("v", ()) if len(s) >= 3]
    for e in page.elements:
        if e.attr("kind") == "rule" or (e.category is C.DECORATIVE and not e.text.strip()):
            x0, y0, x1, y1 = e.bbox
            if y1 - y0 <= 3 and x1 - x0 > 6:
                h.append(((y0 + y1) / 2, x0, x1))
            elif x1 - x0 <= 3 and y1 - y0 > 6:
                v.append(((x0 + x1) / 2, y0, y1))
        elif e.attr("kind") == "box" or (e.category is C.FORM_FIELD and e.source != "widget" and not e.text.strip()):
            x0, y0, x1, y1 = e.bbox
            h += [(y0, x0, x1), (y1, x0, x1)]
            v += [(x0, y0, y1), (x1, y0, y1)]
    result = Rulings(_merge(h), _merge(v))
    if len(_RULINGS_CACHE) > 256:
        _RULINGS_CACHE.clear()
    _RULINGS_CACHE[key] = result
    return result


def cell_at(r: Rulings, x: float, y: float, max_w: float = 600, max_h: float = 260) -> BBox | None:
    """The smallest rectangle around (x, y) closed on all four sides by rulings."""
    tops = sorted((y - sy, sy) for sy, a, b in r.h if sy < y and a - 1 <= x <= b + 1 and y - sy <= max_h)[:4]
    bottoms = sorted((sy - y, sy) for sy, a, b in r.h if sy > y and a - 1 <= x <= b + 1 and sy - y <= max_h)[:4]
    lefts = sorted((x - sx, sx) for sx, a, b in r.v if sx < x and a - 1 <= y <= b + 1 and x - sx <= max_w)[:4]
    rights = sorted((sx - x, sx) for sx, a, b in r.v if sx > x and a - 1 <= y <= b + 1 and sx - x <= max_w)[:4]
    best: tuple[float, BBox] | None = None
    for _, t in tops:
        for _, b in bottoms:
            for _, l in lefts:
                for _, rr in rights:
                    if not (r.covers_h(t, l, rr) and r.covers_h(b, l, rr)
                            and r.covers_v(l, t, b) and r.covers_v(rr, t, b)):
                        continue
                    a = (rr - l) * (b - t)
                    if best is None or a < best[0]:
                        best = (a, (l, t, rr, b))
    return best[1] if best else None


def open_row_at(r: Rulings, x: float, y: float, max_h: float = 70) -> BBox | None:
    """A band between two horizontal rules around (x, y) with no side walls (a US form's row)."""
    tops = [(sy, a, b) for sy, a, b in r.h if sy < y and a - 1 <= x <= b + 1 and y - sy <= max_h]
    bottoms = [(sy, a, b) for sy, a, b in r.h if sy > y and a - 1 <= x <= b + 1 and sy - y <= max_h]
    if not tops or not bottoms:
        return None
    t = max(tops)
    b = min(bottoms)
    left = max(t[1], b[1])
    right = min(t[2], b[2])
    walls = [sx for sx, a, bb in r.v if a - 1 <= y <= bb + 1 and left < sx < right]
    lw = max([sx for sx in walls if sx < x], default=left)
    rw = min([sx for sx in walls if sx > x], default=right)
    return (lw, t[0], rw, b[0])


def input_boxes(doc: Document, page: Page) -> tuple[Unit, ...]:
    """Closed rectangles with no text in them, sized like an input area: empty values' places."""
    r = page_rulings(doc, page)
    texts = [e.bbox for e in page.elements if e.text.strip() and e.category not in (C.PICTURE, C.DECORATIVE)]
    out: dict[str, Unit] = {}
    hs = sorted({round(y, 1) for y, _, _ in r.h})
    for i, top in enumerate(hs):
        for bottom in hs[i + 1:]:
            if bottom - top > 120:
                break
            if bottom - top < 8:
                continue
            for x0, x1 in _spans_closed(r, top, bottom):
                box = (x0, top, x1, bottom)
                if x1 - x0 < 20 or any(overlap_area(t, box) > 0.3 * max(overlap_area(t, t), 1e-6) for t in texts):
                    continue
                uid = _box_id(doc.doc_id, page.number, box)
                out.setdefault(uid, Unit(uid, page.number, box, "", None, C.FORM_FIELD, kind="box"))
    return tuple(out.values())


def _spans_closed(r: Rulings, top: float, bottom: float) -> list[tuple[float, float]]:
    walls = sorted(x for x, a, b in r.v if a <= top + 2.5 and b >= bottom - 2.5)
    out = []
    for a, b in zip(walls, walls[1:]):
        if r.covers_h(top, a, b) and r.covers_h(bottom, a, b):
            # only the tightest box: no rule in between that closes a smaller one
            if not any(top + 2 < y < bottom - 2 and r.covers_h(y, a, b) for y, _, _ in r.h):
                out.append((a, b))
    return out


# ---- labels for widgets and marks ---------------------------------------------------------------
_WORDY = re.compile(r"[^\W\d_]", re.UNICODE)


def row_box(u: Unit, target: BBox) -> BBox:
    """The box of `u` on `target`'s row: its line there when it is a paragraph, else its box."""
    for box in u.rows:
        if _same_row(box, target):
            return box
    return u.bbox


def label_candidates(units: Sequence[Unit], exclude: Sequence[BBox] = ()) -> list[Unit]:
    out = []
    for u in units:
        if u.kind != "text" or not _WORDY.search(strip_mark_glyphs(u.text)):
            continue
        if any(overlap_area(u.bbox, b) > 0.6 * max(overlap_area(u.bbox, u.bbox), 1e-6) for b in exclude):
            continue
        out.append(u)
    return out


def fillers_of(units: Sequence[Unit]) -> list[Unit]:
    """Text with no letters (dot leaders, ▶ arrows): bridges between a label and its box."""
    return [u for u in units if u.kind == "text" and not _WORDY.search(strip_mark_glyphs(u.text))]


def _bridged(x0: float, x1: float, row: BBox, fillers: Sequence[Unit], step: float = 22.0) -> bool:
    """True when dot leaders / arrows run (with gaps under `step`) from x0 to x1 on `row`'s line."""
    xs = sorted((u.bbox[0], u.bbox[2]) for u in fillers
                if _same_row(u.bbox, row) and u.bbox[2] > x0 - 1 and u.bbox[0] < x1 + 1)
    reach = x0
    for a, b in xs:
        if a - reach > step:
            return False
        reach = max(reach, b)
    return x1 - reach <= step


def mark_label(mark: BBox, labels: Sequence[Unit], used: set[str], marks: Sequence[BBox] = (),
               fillers: Sequence[Unit] = ()) -> Unit | None:
    """Nearest label to the right on the same line; to the left when there is none on the right
    (across dot leaders: "check here . . . . ▶ ☐")."""
    right, left = [], []
    for u in labels:
        box = row_box(u, mark)
        if u.id in used or not _same_row(box, mark):
            continue
        middle = (mark[0] + mark[2]) / 2  # a label's box may start with spaces over the mark
        if box[0] >= middle:
            gap = max(0.0, box[0] - mark[2])
            if gap <= 60 and not _mark_between(mark[2], box[0], mark, marks):
                right.append((gap, u.id, u))
        elif box[2] <= middle:
            gap = max(0.0, mark[0] - box[2])
            if _mark_between(box[2], mark[0], mark, marks):
                continue
            if gap <= 320 or _bridged(box[2], mark[0], mark, fillers):
                left.append((gap, u.id, u))
    if right:
        return min(right)[2]
    return min(left)[2] if left else None


def _mark_between(x0: float, x1: float, row: BBox, marks: Sequence[BBox]) -> bool:
    return any(x0 - 0.5 <= (m[0] + m[2]) / 2 <= x1 + 0.5 and _same_row(m, row) for m in marks)


def widget_label(box: BBox, labels: Sequence[Unit], used: set[str], fillers: Sequence[Unit] = ()) -> Unit | None:
    """The visible label of a text widget: left of it on the same row (across dot leaders), or
    just above its left part. A label another widget took is still allowed, at a cost, so one
    greedy choice does not push every later widget onto the wrong text."""
    best: tuple[float, str, Unit] | None = None
    for u in labels:
        h = u.height
        line = row_box(u, box)
        slack = max(2.0, 0.25 * (line[3] - line[1]))
        if line[2] <= box[0] + slack and _same_row(line, box):
            score = max(0.0, box[0] - line[2])
            if score > 250 and not _bridged(line[2], box[0], box, fillers):
                continue
            if score > 60 and _bridged(line[2], box[0], box, fillers):
                score = 30.0
        elif u.bbox[3] <= box[1] + 0.5 * h and box[1] - u.bbox[3] <= max(2.2 * h, 14) \
                and box[0] - 8 <= u.bbox[0] <= box[2] - 4:
            score = 2.0 * max(0.0, box[1] - u.bbox[3]) + 0.05 * abs(u.bbox[0] - box[0]) + 2
        elif contains(box, u.bbox, 1.0) and u.bbox[0] - box[0] < 0.3 * (box[2] - box[0]):
            score = 30.0  # a label printed inside the field's own box
        else:
            continue
        if u.id in used:
            score += 60.0
        if best is None or (score, u.id) < best[:2]:
            best = (score, u.id, u)
    return best[2] if best else None


def group_label(area: BBox, labels: Sequence[Unit], used: set[str]) -> Unit | None:
    """A radio group's heading: left of its first row, or just above it."""
    first_row = (area[0], area[1], area[2], area[1] + 14)
    best: tuple[float, str, Unit] | None = None
    for u in labels:
        if u.id in used:
            continue
        h = u.height
        if u.bbox[2] <= area[0] + 2 and _same_row(u.bbox, first_row) and area[0] - u.bbox[2] <= 200:
            score = area[0] - u.bbox[2]
        elif u.bbox[3] <= area[1] + 1 and area[1] - u.bbox[3] <= 2.5 * h and abs(u.bbox[0] - area[0]) <= 40:
            score = 3.0 * (area[1] - u.bbox[3]) + abs(u.bbox[0] - area[0])
        else:
            continue
        if best is None or (score, u.id) < best[:2]:
            best = (score, u.id, u)
    return best[2] if best else None


# ---- key candidates -----------------------------------------------------------------------------
_SENTENCE_END = re.compile(r"[。．]$|[a-z]{3,}\.$")
_NUMBERISH = re.compile(r"^[\d\s,.\-/:¥￥$%円年月日()（）]+$")
_COLON_END = re.compile(r"[:：]\s*$")
_YEAR_PREFIX = re.compile(r"^[,，、]\s*(?:19|20)$")  # "…, 20" before a two-digit year blank
_LINE_NUMBER = re.compile(r"^\d{1,2}[a-z]?$")


def _key_like(u: Unit, form_page: bool = True, max_chars: int = MAX_KEY_CHARS) -> bool:
    """Could this unit be a field's key? On a page that looks like a form, text inside a region the
    parser called a picture counts too (a ruled form block is often read as a vector figure)."""
    text = strip_mark_glyphs(u.text)
    # on a form page, text the parser called a picture or a table of contents (dot leaders) counts
    categories = KEY_CATEGORIES + ((C.PICTURE, C.DOCUMENT_INDEX) if form_page else ())
    if not text or u.category not in categories or u.kind != "text":
        return False
    if not _WORDY.search(text) and not _YEAR_PREFIX.match(text.strip()):
        return False
    latin = not any(0x3000 <= ord(ch) <= 0x9FFF or 0xFF00 <= ord(ch) <= 0xFFEF for ch in text)
    if len(text) > max_chars * (1.6 if latin else 1) or "\n" in text.strip():
        return False
    if _YEAR_PREFIX.match(text.strip()):
        return True  # "…, 20__": the printed century of a year to complete labels the blank after it
    if _NUMBERISH.match(_COLON_END.sub("", text)):
        return False  # "2019年3月:" or "23,800" is a value or a date, not a label
    if _COLON_END.search(text):
        return True
    return not _SENTENCE_END.search(text)


def _bullet(mark: Unit, label: Unit) -> bool:
    """A drawn ring or dot (not a square box) whose label on the right is a whole sentence."""
    if mark.source == "widget" or label.bbox[0] < (mark.bbox[0] + mark.bbox[2]) / 2:
        return False
    text = strip_mark_glyphs(label.text).strip()
    latin = not any(0x3000 <= ord(ch) <= 0x9FFF for ch in text)
    sentence = text.endswith(("。", "．")) or len(text) > (200 if latin else 40)
    return sentence and (mark.round or mark.text.strip() in ("●", "○", "◯", "") or len(label.rows) > 1)


def _data_table(table: Element, page: Page, form_page: bool) -> bool:
    """A printed table (a caption names it, or it has more columns than a key|value grid on a page
    with no other form signal) is data: its cells are not keys and values."""
    caption = any(e.category is C.CAPTION and e.text.strip()[:1] in ("表", "T", "t")
                  and (abs(e.bbox[3] - table.bbox[1]) <= 30 or abs(e.bbox[1] - table.bbox[3]) <= 30)
                  and e.bbox[0] < table.bbox[2] and e.bbox[2] > table.bbox[0] for e in page.elements)
    columns = int(table.attr("n_cols") or 0)
    return caption or (columns > 2 and not form_page)


def form_signal(page: Page, units: Sequence[Unit]) -> bool:
    """Strong evidence that a page is a form: a check box with a short label of its own (not a
    bullet before a sentence), or three short labels ending in a colon."""
    texts = [u for u in units if u.kind == "text"]
    colon_keys = sum(1 for u in texts if _COLON_END.search(u.text) and len(u.text.strip()) <= 40
                     and _key_like(u, False))  # "2019年3月:" in a timeline is a date, not a label
    if colon_keys >= 3:
        return True
    labels = label_candidates(texts)
    marks = [u for u in units if u.kind == "mark" and u.source != "widget"]
    boxes = [m.bbox for m in marks]
    fillers = fillers_of(texts)
    for m in marks:
        label = mark_label(m.bbox, labels, set(), boxes, fillers)
        if label is None or _bullet(m, label):
            continue
        text = strip_mark_glyphs(label.text).strip()
        latin = not any(0x3000 <= ord(ch) <= 0x9FFF for ch in text)
        if len(text) <= (40 if latin else 16):
            return True
    return False


def page_looks_like_form(units: Sequence[Unit], rulings: Rulings, boxes: Sequence[Unit]) -> bool:
    colon_keys = sum(1 for u in units if u.kind == "text" and _COLON_END.search(u.text) and len(u.text) <= 40)
    marks = sum(1 for u in units if u.kind == "mark")
    return marks >= 1 or colon_keys >= 3 or len(boxes) >= 2


# ---- pairing ------------------------------------------------------------------------------------
def pair_page(page: Page, units: Sequence[Unit], taken: set[str], doc_id: str,
              doc: Document | None = None) -> list[Pair]:
    """Key/value pairs and labelled marks of one flattened or scanned form page."""
    doc = doc or Document(doc_id, "", "", "", ())
    rulings = page_rulings(doc, page) if doc.pages else Rulings((), ())
    boxes = input_boxes(doc, page) if doc.pages else ()
    free = [u for u in units if u.id not in taken and (u.element_id is None or u.element_id not in taken)]
    texts = [u for u in free if u.kind == "text"]
    marks = [u for u in free if u.kind == "mark"]
    pairs: list[Pair] = []
    used: set[str] = set()

    # 1. marks and their labels, then the row label as group
    mark_boxes = [m.bbox for m in marks]
    labels = label_candidates(texts)
    fillers = fillers_of(texts)
    labelled: list[tuple[Unit, Unit | None]] = []
    for m in sorted(marks, key=lambda m: (round(m.bbox[1] / 4), m.bbox[0])):
        label = mark_label(m.bbox, labels, used, mark_boxes, fillers)
        if label is not None and _bullet(m, label):
            continue  # a ring or dot in front of a sentence is a bullet, not a check box
        if label is not None:
            used.add(label.id)
        labelled.append((m, label))
    marks = [m for m, _ in labelled]
    groups = _mark_groups(labelled, texts, used, rulings)
    for m, label in labelled:
        pairs.append(Pair("mark", label, m, 0.9 if label else 0.5, group=groups.get(m.id)))
    by_group: dict[str, list[tuple[Unit, Unit | None]]] = {}
    heads: dict[str, Unit] = {}
    for m, label in labelled:
        g = groups.get(m.id)
        if g is not None and m.round:
            by_group.setdefault(g.id, []).append((m, label))
            heads[g.id] = g
    for gid, options in by_group.items():
        if len(options) >= 2:
            pairs.append(Pair("radio", heads[gid], None, 0.85, options=tuple(options)))

    # 2. key/value pairs; the looser rules (text beside or below a key) only on a page that looks
    # like a form, so a report's two-column prose is not read as pairs
    tables = [e for e in page.elements if e.category is C.TABLE]
    loose_boxes = [b for b in boxes if not any(contains(t.bbox, b.bbox, 2.0) for t in tables)]
    form_page = page_looks_like_form([u for u in free if u.kind != "mark"] + marks, rulings, loose_boxes)
    data_tables = {t.id for t in tables if _data_table(t, page, form_page)}
    texts = [u for u in texts if u.element_id not in data_tables]
    value_used: set[str] = set()
    stacked = _stacked_words(texts)
    ordered = sorted((u for u in texts if u.id not in used and u.id not in stacked),
                     key=lambda u: (round(u.bbox[1] / 4), u.bbox[0]))
    for key in ordered:
        # a label over a ruled blank may be long (US forms); the looser rules want a short key
        if key.id in used or key.id in value_used or not _key_like(key, True, max_chars=LONG_KEY_CHARS):
            continue
        found = _value_for(key, texts, rulings, boxes, used | value_used, doc_id, page.number, form_page)
        if found is None:
            continue
        value, confidence = found
        used.add(key.id)
        for uid in value.id.split("+"):
            value_used.add(uid)
        pairs.append(Pair("text", key, value, confidence))
    codes = _code_columns(pairs)
    return [p for i, p in enumerate(pairs) if i not in codes]


def _mark_groups(labelled: Sequence[tuple[Unit, Unit | None]], texts: Sequence[Unit],
                 used: set[str], rulings: Rulings | None = None) -> dict[str, Unit]:
    """Mark id → the row's leading label (left of the row's first mark); aligned marks in the rows
    below without a label of their own share it (確認事項 ☑… / ☐… on the next line)."""
    rows: list[list[tuple[Unit, Unit | None]]] = []
    for m, label in sorted(labelled, key=lambda ml: (ml[0].bbox[1], ml[0].bbox[0])):
        if rows and _same_row(rows[-1][0][0].bbox, m.bbox):
            rows[-1].append((m, label))
        else:
            rows.append([(m, label)])
    out: dict[str, Unit] = {}
    previous: tuple[Unit, float, float] | None = None  # (group, first mark x, row bottom)
    for row in rows:
        first = min(row, key=lambda ml: ml[0].bbox[0])[0]
        row_left = min(min(m.bbox[0], l.bbox[0] if l else m.bbox[0]) for m, l in row)
        cy = (first.bbox[1] + first.bbox[3]) / 2
        heads = [u for u in texts if u.id not in used and _same_row(u.bbox, first.bbox)
                 and u.bbox[2] <= row_left + 2 and row_left - u.bbox[2] <= 120 and _key_like(u)
                 and not _wall_between(rulings, u.bbox[2], row_left, cy)]
        head = max(heads, key=lambda u: u.bbox[2]) if heads else None
        if head is None and previous is not None:
            group, x, bottom = previous
            if abs(first.bbox[0] - x) <= 4 and first.bbox[1] - bottom <= 2.2 * first.height:
                head = group
        if head is not None:
            used.add(head.id)
            for m, _ in row:
                out[m.id] = head
            previous = (head, first.bbox[0], max(m.bbox[3] for m, _ in row))
        else:
            previous = None
    return out


def _wall_between(r: Rulings | None, x0: float, x1: float, y: float) -> bool:
    """A vertical rule between x0 and x1 at height y: the two sides are different cells."""
    return r is not None and any(x0 + 1 < x < x1 - 1 and a - 1 <= y <= b + 1 for x, a, b in r.v)


def _inside(units: Sequence[Unit], area: BBox, exclude: set[str]) -> list[Unit]:
    out = []
    for u in units:
        if u.id in exclude:
            continue
        cx, cy = center(u.bbox)
        if area[0] - 1 <= cx <= area[2] + 1 and area[1] - 1 <= cy <= area[3] + 1:
            out.append(u)
    return sorted(out, key=lambda u: (round(u.bbox[1] / 4), u.bbox[0]))


def _value_unit(inside: Sequence[Unit], area: BBox, doc_id: str, page: int) -> Unit:
    """One unit for what fills a value area: the single text there, several joined, or the empty area."""
    if len(inside) == 1:
        return inside[0]
    if inside:
        text = " ".join(u.text.strip() for u in inside)
        first = inside[0]
        return Unit("+".join(u.id for u in inside), page, union_box([u.bbox for u in inside]), text,
                    first.element_id, first.category, source=first.source)
    uid = _box_id(doc_id, page, area)
    return Unit(uid, page, area, "", None, C.FORM_FIELD, kind="box")


def _value_for(key: Unit, texts: Sequence[Unit], r: Rulings, boxes: Sequence[Unit], used: set[str],
               doc_id: str, page: int, form_page: bool = True) -> tuple[Unit, float] | None:
    kb, h = key.bbox, key.height
    cx, cy = center(kb)
    exclude = used | {key.id}
    cell = cell_at(r, cx, cy)
    if cell is not None and contains(cell, kb, 2.0):
        room_below = cell[3] - kb[3]
        at_top = kb[1] - cell[1] <= max(6.0, 1.2 * h)
        if at_top and room_below >= max(8.0, 0.8 * h):
            area = (cell[0] + 1, kb[3], cell[2] - 1, cell[3] - 1)
            others = [u for u in _inside(texts, (cell[0], cell[1], cell[2], kb[3]), exclude) if u.bbox[0] > kb[2]]
            below = _inside(texts, area, exclude)
            # a second label beside this one, or this label running on below, is not a filled value
            if not others and not _continues_label(key, below) and not _data_row(texts, cell, kb, exclude):
                return _value_unit(below, area, doc_id, page), 0.75
        if room_below < max(8.0, 0.8 * h):
            right = cell_at(r, cell[2] + 1.5, cy)
            if right is not None and right[1] <= cy <= right[3] and (right[3] - right[1]) <= 2.5 * (cell[3] - cell[1]):
                inside = _inside(texts, right, exclude)
                if not inside or not _key_like_colon(inside[0]):
                    return _value_unit(inside, right, doc_id, page), 0.8
        return None
    row = open_row_at(r, cx, cy) if cell is None else None
    if row is not None and kb[1] - row[1] <= max(6.0, 1.2 * h) and row[3] - kb[3] >= max(8.0, 0.8 * h) \
            and row[0] - 2 <= kb[0] and kb[2] <= row[2] + 2:
        area = (row[0] + 1, kb[3], row[2] - 1, row[3] - 1)
        beside = [u for u in _inside(texts, (row[0], row[1], row[2], kb[3]), exclude) if u.bbox[0] > kb[2]]
        below = _inside(texts, area, exclude)
        if not beside and not _continues_label(key, below) and not _data_row(texts, row, kb, exclude):
            return _value_unit(below, area, doc_id, page), 0.6
    fillers = fillers_of(texts)
    amount = _amount_row(key, texts, r, fillers, exclude)
    if amount is not None:
        return _value_unit(_inside(texts, amount, exclude | _line_number_ids(texts, amount)), amount,
                           doc_id, page), 0.75
    # a box to the right on the same row
    walls = sorted(x for x, a, b in r.v if x >= kb[2] - 1 and a - 1 <= cy <= b + 1
                   and (x - kb[2] <= 160 or _bridged(kb[2], x, kb, fillers)))
    for x in walls[:2]:
        box = cell_at(r, x + 1.5, cy)
        if box is not None and box[0] >= kb[2] - 2 and box[3] - box[1] <= max(4.5 * h, 30) \
                and not _text_between(label_candidates(texts), kb[2], box[0], kb, exclude):
            inside = _inside(texts, box, exclude)
            owner = any(_key_like(u) and _labels_own_cell(u, box) for u in _inside(texts, box, {key.id}))
            if not owner and (not inside or not (_key_like_colon(inside[0]) or _labels_own_cell(inside[0], box))):
                return _value_unit(inside, box, doc_id, page), 0.8
    # an underline to the right
    for y, a, b in r.h:
        if kb[3] - 0.5 * h <= y <= kb[3] + 0.8 * h and a >= kb[2] - 3 and a - kb[2] <= 40 and b - a >= 8:
            area = (a, kb[1] - 2, b, y)
            if not _text_between(texts, kb[2], a, kb, exclude):
                return _value_unit(_inside(texts, area, exclude), area, doc_id, page), 0.7
    # a box directly below the key (a label over a multi-line text box)
    for b in _boxes_below(r, kb, h):
        if not _text_between_rows(texts, kb, b, exclude):
            inside = _inside(texts, b, exclude)
            return _value_unit(inside, b, doc_id, page), 0.7
    if _YEAR_PREFIX.match(key.text.strip()):
        return None  # ", 20" labels only a ruled blank, never the printed text beside it
    if not form_page or not _key_like(key, form_page) or (
            key.category not in LOOSE_KEY_CATEGORIES and not _COLON_END.search(key.text)):
        return None  # text beside text inside a table or figure is a row of data, not a filled field
    # text to the right on the same row
    right = [u for u in texts if u.id not in exclude and _same_row(u.bbox, kb) and u.bbox[0] >= kb[2] - 1
             and u.bbox[0] - kb[2] <= max(200.0, 10 * h) and _valueish(u)]
    if right:
        nearest = min(right, key=lambda u: u.bbox[0])
        gap = nearest.bbox[0] - kb[2]
        if not _key_like_colon(nearest) and (_COLON_END.search(key.text) or gap >= 1.5 * h):
            return nearest, 0.6
    # a key ending in ： takes the text directly below
    if _COLON_END.search(key.text):
        below = [u for u in texts if u.id not in exclude and _valueish(u) and u.bbox[1] >= kb[3] - 1
                 and u.bbox[1] - kb[3] <= 1.0 * h and abs(u.bbox[0] - kb[0]) <= 1.5 * h]
        if below:
            nearest = min(below, key=lambda u: u.bbox[1])
            if not _key_like_colon(nearest):
                return nearest, 0.5
    return None


def _boxes_below(r: Rulings, kb: BBox, h: float) -> list[BBox]:
    """Closed boxes whose top edge lies just under the key and that start near the key's left."""
    out = []
    for y, a, b in r.h:
        if kb[3] - 1 <= y <= kb[3] + 1.6 * h and a <= kb[0] + 2 * h and b >= kb[0] + 4 and a >= kb[0] - 4 * h:
            box = cell_at(r, min(max(kb[0] + 4, a + 2), b - 2), y + 2.5)
            if box is not None and abs(box[1] - y) <= 1.5 and box[3] - box[1] >= 1.2 * h:
                out.append(box)
    return sorted(set(out), key=lambda bx: bx[1])[:1]


def _text_between_rows(texts: Sequence[Unit], kb: BBox, box: BBox, exclude: set[str]) -> bool:
    return any(u.id not in exclude and u.bbox[1] >= kb[3] - 1 and u.bbox[3] <= box[1] + 1
               and u.bbox[0] < box[2] and u.bbox[2] > box[0] for u in texts)


def _valueish(u: Unit) -> bool:
    """Words or digits: a bullet beside a label is not its value, nor an instruction ("▶ Go to …")."""
    text = u.text.strip()
    return bool(_WORDY.search(text) or re.search(r"\d", text)) and not text.startswith(("▶", "►", "→", "•"))


def _data_row(texts: Sequence[Unit], cell: BBox, kb: BBox, exclude: set[str]) -> bool:
    """A ruled band where a neighbouring column holds several lines below the label's line (an
    address table: "Georgia | Palmetto GBA / P.O. Box … / Columbia, SC") is a row of a printed
    table; a form row's neighbours hold a label and at most one filled-in line each."""
    columns: dict[int, int] = {}
    for u in texts:
        if u.id in exclude or not (u.bbox[1] >= cell[1] - 1 and u.bbox[3] <= cell[3] + 1):
            continue
        if cell[0] - 1 <= (u.bbox[0] + u.bbox[2]) / 2 <= cell[2] + 1 or (u.bbox[1] + u.bbox[3]) / 2 <= kb[3]:
            continue
        col = round(u.bbox[0] / 6)
        lines = max(len(u.rows), 2 if u.height > 1.8 * (kb[3] - kb[1]) else 1)
        columns[col] = columns.get(col, 0) + lines
    return any(n >= 2 for n in columns.values())


def _labels_own_cell(u: Unit, box: BBox) -> bool:
    """Text at the top of a box with a blank under it: that box is the field of its own label."""
    return u.bbox[1] - box[1] <= max(4.0, 0.6 * u.height) and box[3] - u.bbox[3] >= max(8.0, 0.8 * u.height)


def _continues_label(key: Unit, below: Sequence[Unit]) -> bool:
    """Text under a label that belongs to the label's own text block (a label on several lines),
    or ends in a colon, continues the label rather than filling the field."""
    return any((u.element_id is not None and u.element_id == key.element_id) or _key_like_colon(u) for u in below)


def _code_columns(pairs: list[Pair]) -> set[int]:
    """Indexes of pairs that form a lookup table: four or more values in one column, all short
    codes of the same shape ("01", "02", …), are a printed table, not filled-in values."""
    columns: dict[int, list[int]] = {}
    for i, p in enumerate(pairs):
        if p.kind == "text" and p.value is not None and p.value.text.strip():
            columns.setdefault(round(p.value.bbox[0] / 4), []).append(i)
    drop: set[int] = set()
    for idx in columns.values():
        shapes = [re.sub(r"[A-Za-z]", "a", re.sub(r"\d", "9", pairs[i].value.text.strip())) for i in idx]
        common = max(set(shapes), key=shapes.count) if shapes else ""
        if len(idx) >= 4 and len(common) <= 4 and shapes.count(common) >= 0.8 * len(idx):
            drop.update(idx)
            drop.update(_column_header(pairs, [pairs[i].value.bbox for i in idx]))
    return drop


def _column_header(pairs: list[Pair], column: Sequence[BBox]) -> set[int]:
    """The pair whose value sits right above a dropped code column, centred on it, is that
    table's header row ("Application Is For:" | "Code"), not a filled field."""
    top = min(b[1] for b in column)
    cx = sorted((b[0] + b[2]) / 2 for b in column)[len(column) // 2]
    height = max(b[3] - b[1] for b in column)
    return {i for i, p in enumerate(pairs) if p.kind == "text" and p.value is not None and p.value.text.strip()
            and abs((p.value.bbox[0] + p.value.bbox[2]) / 2 - cx) <= 6
            and 0 <= top - p.value.bbox[3] <= 2.5 * height}


def _stacked_words(texts: Sequence[Unit]) -> set[str]:
    """Single short words stacked three or more high at one left edge, line under line ("Print /
    or / Type" beside an address block), are a vertical heading, not keys of the rows they sit on."""
    words = sorted((u for u in texts if re.fullmatch(r"[^\W\d_]{1,8}", strip_mark_glyphs(u.text).strip())),
                   key=lambda u: u.bbox[1])
    out: set[str] = set()
    for i, u in enumerate(words):
        chain = [u]
        for v in words[i + 1:]:
            last = chain[-1]
            if abs(v.bbox[0] - last.bbox[0]) <= 3 and -0.3 * last.height <= v.bbox[1] - last.bbox[3] <= 0.8 * last.height \
                    and v.bbox[1] > last.bbox[1]:
                chain.append(v)
        if len(chain) >= 3:
            out.update(c.id for c in chain)
    return out


def _key_like_colon(u: Unit) -> bool:
    return bool(_COLON_END.search(u.text))


def _text_between(texts: Sequence[Unit], x0: float, x1: float, row: BBox, exclude: set[str]) -> bool:
    return any(u.id not in exclude and _same_row(u.bbox, row) and u.bbox[0] >= x0 - 1 and u.bbox[2] <= x1 + 1
               for u in texts)


def _line_number_ids(texts: Sequence[Unit], area: BBox) -> set[str]:
    return {u.id for u in _inside(texts, area, set()) if _LINE_NUMBER.match(u.text.strip())}


def _amount_row(key: Unit, texts: Sequence[Unit], r: Rulings, fillers: Sequence[Unit],
                exclude: set[str]) -> BBox | None:
    """A row of adjacent boxes on a rule under the key's line, reached across dot leaders (a US
    form's "Tentative total tax . . . . 6 [dollars][cents]"): a leading box holding only the line
    number is not the value, the first other box is, and the boxes right after it (cents, a second
    code digit) continue the same field."""
    kb, h = key.bbox, key.height
    cy = (kb[1] + kb[3]) / 2
    rules = [(y, a, b) for y, a, b in r.h if kb[3] - 0.5 * h <= y <= kb[3] + 0.8 * h and b > kb[2]]
    walls = sorted(x for x, a, b in r.v if x >= kb[2] - 1 and a - 1 <= cy <= b + 1)
    if not rules or len(walls) < 2:
        return None
    first = walls[0]
    if first - kb[2] > 40 and not _bridged(kb[2], first, kb, fillers):
        return None
    if _text_between(label_candidates(texts), kb[2], first, kb, exclude):
        return None
    cells: list[BBox] = []
    for x0, x1 in zip(walls, walls[1:]):
        bottom = next((y for y, a, b in rules if a <= x0 + 2.5 and b >= x1 - 2.5), None)
        if bottom is None or x1 - x0 < 6:
            break
        top = max([a for x, a, b in r.v if abs(x - x0) <= 1.5 and a - 1 <= cy <= b + 1] + [kb[1] - 2])
        cells.append((x0, min(top, kb[1] - 1), x1, bottom))
    if cells:  # the rule may run on past the last wall: an open-ended last box (cents at the margin)
        x0 = cells[-1][2]
        tail = [b for y, a, b in rules if abs(y - cells[-1][3]) <= 1 and a <= x0 + 2.5]
        if tail and 8 <= max(tail) - x0 <= cells[-1][2] - cells[-1][0]:
            cells.append((x0, cells[-1][1], max(tail), cells[-1][3]))
    if len(cells) < 2:
        return None  # one box: the plain box and underline rules decide
    inside = [_inside(texts, c, exclude) for c in cells]
    start = 0
    while start < len(cells) - 1 and inside[start] and all(_LINE_NUMBER.match(u.text.strip()) for u in inside[start]):
        start += 1
    if cells[start][2] - cells[start][0] > 160 or any(
            _key_like(u) or not _valueish(u) or len(u.text.strip()) > 30 for u in inside[start]):
        return None  # an amount or code box is narrow and holds a short value, not a line of print
    end = start
    while end + 1 < len(cells) and not any(_key_like(u) or _LINE_NUMBER.match(u.text.strip()) for u in inside[end + 1]) \
            and cells[end + 1][2] - cells[end + 1][0] <= cells[start][2] - cells[start][0]:
        end += 1
    return union_box(cells[start:end + 1])
