"""Text units of a form page: the pieces keys, values and marks are made of.

Everything in core/forms reads the Document only (element boxes, the text lines ingest keeps in
`attrs`, the page rulings ingest keeps in the Document's meta), never the PDF.

A *unit* is the smallest addressable piece: an element, one line of a multi-line element
(id `<element id>:<n>`), a check-box glyph split from its label, or an empty input area found
by rulings (id `<doc>-p<page>-box-<hash>`, core.forms.rulings). This module also gives each
element the headings above it (its section path) and finds the text printed inside widgets.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from typing import Iterable, Mapping, Sequence

from core.categories import Category
from core.forms.rulings import Rulings, cell_at, open_row_at, page_rulings
from core.geometry import contains, overlap_area, vertical_overlap
from core.headings import heading_level
from core.memo import page_memo
from core.model import BBox, Document, Element, Page, thaw
from core.text import map_symbol_glyphs

C = Category

# glyph -> state; round ones are radio buttons
MARK_GLYPHS = {"☐": "unselected", "□": "unselected", "☑": "selected", "☒": "selected", "■": "selected",
               "✓": "selected", "✔": "selected", "○": "unselected", "◯": "unselected", "◉": "selected",
               "●": "selected", "◎": "selected", "⦿": "selected", "❑": "unselected"}
ROUND_GLYPHS = set("○◯◉●◎⦿")
# a glyph only counts as a mark at a line start or after a space/bracket (not "□を付ける")
_MARK_AT = re.compile(r"(?:(?<=^)|(?<=[\s(（\[［:：、,]))([☐□☑☒■✓✔○◯◉●◎⦿❑])(?![ぁ-ゟ])")
TEXT_CATEGORIES = (C.TEXT, C.LIST_ITEM, C.FORM_FIELD, C.TABLE, C.CAPTION, C.SECTION_HEADER, C.TITLE,
                   C.FOOTNOTE, C.DOCUMENT_INDEX, C.REFERENCE, C.PICTURE)  # a form region read as a figure


@dataclass(frozen=True)
class Unit:
    id: str
    page: int
    bbox: BBox
    text: str
    element_id: str | None  # the element it belongs to; None for an empty area found by rulings
    category: Category | None
    kind: str = "text"  # text | mark | widget | box | line (a blank printed as underscores)
    state: str | None = None  # marks
    round: bool = False  # a round mark (radio option)
    source: str = ""
    rows: tuple[BBox, ...] = ()  # a paragraph unit's line boxes (a label is often its last line)
    size: float = 0.0  # font size of its text, when known (a filled-in value is set apart from captions)
    font: str = ""  # its text's main font, when known (same purpose)
    comb: bool = False  # characters printed one per equal cell (join_comb_cells): typed into a comb field

    @property
    def height(self) -> float:
        return max(self.bbox[3] - self.bbox[1], 1.0)


# ---- small helpers ------------------------------------------------------------------------------
def union_box(boxes: Iterable[BBox]) -> BBox:
    boxes = [b for b in boxes if b is not None]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def strip_mark_glyphs(text: str) -> str:
    return "".join(ch for ch in text if ch not in MARK_GLYPHS).strip()


def same_row(a: BBox, b: BBox) -> bool:
    if vertical_overlap(a, b) >= 0.5:
        return True
    ca, cb = (a[1] + a[3]) / 2, (b[1] + b[3]) / 2
    return abs(ca - cb) <= 0.35 * max(a[3] - a[1], b[3] - b[1], 1.0)


def same_size(a: Unit, b: Unit) -> bool:
    """Set in one font size (unknown sizes count as the same: nothing tells them apart)."""
    return not (a.size and b.size) or abs(a.size - b.size) <= max(0.5, 0.06 * max(a.size, b.size))


def same_style(a: Unit, b: Unit) -> bool:
    """Set in one size and one font (an unknown font counts as the same)."""
    return same_size(a, b) and (not (a.font and b.font) or a.font == b.font)


def box_id(doc_id: str, page: int, bbox: BBox) -> str:
    key = f"{page}|{bbox[0]:.0f},{bbox[1]:.0f},{bbox[2]:.0f},{bbox[3]:.0f}"
    return f"{doc_id[:8]}-p{page}-box-{hashlib.sha1(key.encode()).hexdigest()[:8]}"


# ---- units --------------------------------------------------------------------------------------
def stored_lines(e: Element) -> list[tuple[BBox, str, float, str]]:
    """(bbox, text, size, font) per stored line; size 0 and font "" where ingest did not keep them."""
    out = []
    for ln in e.attr("lines") or ():
        ln = thaw(ln)
        if isinstance(ln, Mapping):
            box, text, size, font = ln.get("bbox"), ln.get("text", ""), ln.get("size", 0), ln.get("font", "")
        elif len(ln) >= 5:
            box, text = ln[:4], ln[4]
            size, font = (ln[5] if len(ln) > 5 else 0), (ln[7] if len(ln) > 7 else "")
        else:
            continue
        if box and str(text).strip():
            out.append(((float(box[0]), float(box[1]), float(box[2]), float(box[3])), str(text), float(size or 0),
                        str(font or "")))
    return out


def _typed_in_courier(e: Element) -> bool:
    """A line in a monospace face read as code: on a form, a value a filler typed in Courier (a text
    unit, a key only when it ends in a colon: labels.key_like, a form printing its captions in a monospace
    face). Code in any other face is a misread heading or print."""
    return e.category is C.CODE and "\n" not in e.text.strip() and MONOSPACE.search(element_font(e)) is not None


MONOSPACE = re.compile(r"cour|mono", re.IGNORECASE)


def element_font(e: Element) -> str:
    """The element's font when it is set in one font only (else unknown: "")."""
    fonts = tuple(e.attr("fonts") or ())
    return str(fonts[0]) if len(fonts) == 1 else ""


def _glyph_past_first_line(lines: Sequence[tuple[BBox, str, float, str]]) -> bool:
    return any(_MARK_AT.search(t) for _, t, _, _ in lines[1:])


def _is_paragraph(lines: Sequence[tuple[BBox, str, float, str]]) -> bool:
    """Lines that read as running text stay one unit; a form's labels and values are split."""
    if len(lines) < 2:
        return True
    if any(same_row(a[0], b[0]) for i, a in enumerate(lines) for b in lines[i + 1:]):
        return False
    if any(_set_apart(a, b) or _gap_between(a, b) for a, b in zip(lines, lines[1:])):
        return False
    return sum(len(t) for _, t, _, _ in lines) / len(lines) > 28


PARAGRAPH_LEADING = 1.0  # blank space between two lines, in line heights, above which they are not one paragraph


def _gap_between(a: tuple[BBox, str, float, str], b: tuple[BBox, str, float, str]) -> bool:
    """A blank wider than a line between two lines one under the other: a paragraph's lines follow
    at its own spacing; a form's caption rows with a value typed under each (a region of the form a
    page reader took for one figure) leave the rest of each input box empty between them."""
    (box_a, _, _, _), (box_b, _, _, _) = a, b
    height = max(box_a[3] - box_a[1], box_b[3] - box_b[1], 1.0)
    return box_b[1] - box_a[3] > PARAGRAPH_LEADING * height


def _set_apart(a: tuple[BBox, str, float, str], b: tuple[BBox, str, float, str]) -> bool:
    """Two lines one after the other in another font size: a filled-in value under or over the
    form's printed caption (often in the caption's own font), read as one block by
    the page reader, not a paragraph running on (a paragraph keeps its size; an italic or bold word
    changes only the font)."""
    (_, _, size_a, _), (_, _, size_b, _) = a, b
    return bool(size_a and size_b) and abs(size_a - size_b) > max(0.5, 0.06 * max(size_a, size_b))


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


TYPED_LINE = re.compile(r"_{4,}")  # a blank to write on, printed as underscores
DOT_LEADER_END = re.compile(r"(?:\s*[.．・…‥]){3,}\s*$")  # dot leaders to a box: "check here . . . . ▶"


def _typed_line_units(u: Unit) -> list[Unit]:
    """A line holding a blank printed as underscores ("what?______"): the text around it, and the
    blank as a unit of its own (kind "line"), which pairing reads as an underline. Positions are
    estimated from the character positions."""
    width, n = u.bbox[2] - u.bbox[0], max(len(u.text), 1)
    x = lambda i: u.bbox[0] + width * i / n  # noqa: E731
    out: list[Unit] = []
    cursor = 0
    for k, m in enumerate(TYPED_LINE.finditer(u.text)):
        before = u.text[cursor:m.start()].strip()
        if before:
            out.append(replace(u, id=f"{u.id}~{k}t", bbox=(x(cursor), u.bbox[1], x(m.start()), u.bbox[3]), text=before))
        out.append(replace(u, id=f"{u.id}~{k}u", bbox=(x(m.start()), u.bbox[1], x(m.end()), u.bbox[3]), text="",
                           kind="line"))
        cursor = m.end()
    rest = u.text[cursor:].strip()
    if rest:
        out.append(replace(u, id=f"{u.id}~r", bbox=(x(cursor), u.bbox[1], u.bbox[2], u.bbox[3]), text=rest))
    return out


def mark_unit(e: Element) -> Unit:
    glyph = str(e.attr("glyph") or e.text or "").strip()
    round_ = glyph in ROUND_GLYPHS or e.attr("shape") in ("circle", "round") or \
        str(e.attr("field_type", "")).lower() in ("radiobutton", "radio")
    # a drawn box the refine step kept as an ornament (text runs across it: "___" under a radio button)
    # is still ticked when drawn filled (a dark dot in its ring, a filled square)
    drawn_filled = e.attr("kind") == "square" and bool(e.attr("filled"))
    state = e.state if e.state else "selected" if drawn_filled else MARK_GLYPHS.get(glyph, "unknown")
    return Unit(e.id, e.page, e.bbox, glyph, e.id, C.SELECTION_MARK, kind="mark", state=state, round=round_,
                source=e.source)


def page_units(doc: Document, page: Page) -> tuple[Unit, ...]:
    """Every unit of the page, in element order."""
    marks = [e.bbox for e in page.elements if e.category is C.SELECTION_MARK or e.attr("kind") == "square"]
    out: list[Unit] = []
    for e in page.elements:
        if e.source == "widget":
            kind = "mark" if e.category is C.SELECTION_MARK else "widget"
            unit = mark_unit(e) if kind == "mark" else Unit(e.id, e.page, e.bbox, e.text, e.id, e.category,
                                                             kind="widget", source="widget")
            out.append(unit)
            continue
        if e.category is C.SELECTION_MARK or (e.attr("kind") == "square" and e.category in (C.PICTURE, C.DECORATIVE)):
            out.append(mark_unit(e))
            continue
        if e.category in MARGIN_CATEGORIES and e.text.strip() and (
                _in_ruled_box(doc, page, e) or _tick_in_a_box(e, marks)):
            # a value typed into a box at the page's edge, or a check box's tick there, not a running head
            e = replace(e, category=C.FORM_FIELD)
        if (e.category not in TEXT_CATEGORIES and not _typed_in_courier(e)) or not e.text.strip():
            continue
        # a stored line keeps the text as read: Wingdings' boxes become their look-alikes, as in the element's text
        fonts = tuple(e.attr("fonts") or ())
        lines = [(b, map_symbol_glyphs(t, fonts)[0], s, f) for b, t, s, f in stored_lines(e)]
        # a box glyph inside a paragraph is placed on its own line, not along the whole block
        whole = _is_paragraph(lines) and e.category is not C.TABLE and not _glyph_past_first_line(lines)
        pieces = [(e.id, e.bbox, e.text, float(e.attr("size") or 0), element_font(e))] if whole else \
            [(f"{e.id}:{i}", b, t, s, f or element_font(e)) for i, (b, t, s, f) in enumerate(lines)]
        rows = tuple(b for b, _, _, _ in lines) if whole and len(lines) > 1 else ()
        for uid, box, text, size, font in pieces:
            split = _glyph_units(e, uid, box, text, size, marks) if any(ch in MARK_GLYPHS for ch in text) else None
            if split:
                out.extend(split)
            elif TYPED_LINE.search(text) and not rows:
                out.extend(_typed_line_units(Unit(uid, e.page, box, text, e.id, e.category, source=e.source,
                                                  size=size, font=font)))
            else:
                out.append(Unit(uid, e.page, box, text, e.id, e.category, source=e.source, rows=rows, size=size,
                                font=font))
    reviewed = {e.id for e in page.elements if "reviewer:set_selection" in e.rules}
    dingbats = {e.id for e in page.elements if any("dingbat" in str(f).lower() for f in (e.attr("fonts") or ()))}
    rulings = page_rulings(doc, page)
    out = join_comb_cells(out, rulings) if any(_SPACED.match(u.text) for u in out) else out
    out = split_across_combs(out, rulings)
    marks_read = _one_box_drawn_twice(_lone_ticks(_ticks_inside(out, reviewed, dingbats), dingbats), reviewed)
    return _labels_between_marks(_empty_under_a_line(marks_read, reviewed))


# ---- comb fields ---------------------------------------------------------------------------------
# A comb field prints its value one character per equal cell: the page reader sees characters set
# far apart ("1 , 2 3 4 . 5 6") and breaks them into several lines or elements where a narrow glyph
# leaves a wider gap. Joined back, they are the one value typed into the field.
_SPACED = re.compile(r"^\S(?:\s+\S)*$")  # single characters set apart (or one character alone)
COMB_PITCH = 0.9  # cell pitch over font size, at least: wider than a glyph, so the page reader spaced them
COMB_TOLERANCE = 0.25  # how far (share of the pitch) a character's centre may sit off its cell's
COMB_EMPTY_CELLS = 2  # empty cells (spaces typed in the value) allowed between two characters
GLYPH = 0.45  # a glyph's estimated width over the font size (a line keeps its box, not its glyphs')


def _ends(u: Unit) -> tuple[float, float]:
    """Estimated centres of a spaced unit's first and last characters (a glyph's half-width in
    from its box's edges; exact for a unit of one character)."""
    n = len(u.text.split())
    x0, x1 = u.bbox[0], u.bbox[2]
    if n == 1:
        return (x0 + x1) / 2, (x0 + x1) / 2
    glyph = min(GLYPH * (u.size or u.height), (x1 - x0) / n)
    return x0 + glyph / 2, x1 - glyph / 2


def _cells_of(run: Sequence[Unit], size: float) -> tuple[float, list[int]] | None:
    """(cell pitch, cells between each two units) when the run's characters sit one per equal cell
    at least COMB_PITCH font sizes wide; None otherwise. A unit of several characters spans at
    least as many cells as it has characters, a few more when a typed space inside it left a cell
    empty (the page reader keeps one space there either way)."""
    ends = [_ends(u) for u in run]
    counts = [len(u.text.split()) for u in run]
    spans = [(b - a, n - 1) for (a, b), n in zip(ends, counts) if n > 1]  # (distance, characters - 1)
    gaps = [b[0] - a[1] for a, b in zip(ends, ends[1:])]
    steps = gaps + [d / k for d, k in spans]
    if sum(counts) < 3 or min(steps) <= 0:
        return None
    first = min(steps)
    cells = [max(1, round(g / first)) for g in gaps]
    inner = [max(k, round(d / first)) for d, k in spans]
    pitch = (sum(gaps) + sum(d for d, _ in spans)) / (sum(cells) + sum(inner))
    if pitch < COMB_PITCH * size:
        return None
    off = [abs(g / pitch - k) for g, k in zip(gaps, cells)] + [abs(d / pitch - k) for (d, _), k in zip(spans, inner)]
    if max(off) > COMB_TOLERANCE or max(cells) > COMB_EMPTY_CELLS + 1 or any(
            k - n > COMB_EMPTY_CELLS for (_, n), k in zip(spans, inner)):
        return None
    return pitch, cells


COMB_RULE_ROWS = 3.0  # a comb's cell rule is at most this many text heights tall; a table's runs on


def _framed(r: Rulings, box: BBox, run: Sequence[Unit]) -> bool:
    """The characters sit in a box the page prints: one closed box or one ruled row around them
    all, or a cell rule between each two units that stops at the box (a comb's printed cells; the
    rules of a table's grid of one-letter cells run on through its rows)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for frame in (cell_at(r, cx, cy), open_row_at(r, cx, cy)):
        if frame is not None and contains(frame, box, 2.0):
            return True
    tall = COMB_RULE_ROWS * (box[3] - box[1])
    return all(any(a.bbox[2] - 1 < x < b.bbox[0] + 1 and y0 - 1 <= cy <= y1 + 1 and y1 - y0 <= tall for x, y0, y1 in r.v)
               for a, b in zip(run, run[1:]))


GRID_ROW = 1.5  # text heights from row to row below which stacked rows of cells are one grid


def _in_letter_grid(box: BBox, start: float, pitch: float, others: Sequence[Unit]) -> bool:
    """Spaced characters in the row just above or below, on the same cells: a grid of one-letter
    cells (a table of codes, a puzzle), not a field typed one character per cell."""
    height = box[3] - box[1]
    mid = (box[1] + box[3]) / 2
    for u in others:
        step = abs((u.bbox[1] + u.bbox[3]) / 2 - mid)
        if not 0.5 * height < step < GRID_ROW * height or u.bbox[2] < box[0] - pitch or u.bbox[0] > box[2] + pitch:
            continue
        if all(abs(k - round(k)) <= COMB_TOLERANCE for k in ((c - start) / pitch for c in _ends(u))):
            return True
    return False


def _comb_run(first: Unit, spaced: Sequence[Unit], taken: set[str]) -> list[Unit]:
    """The spaced units after `first` on its row, in its size and font, left to right."""
    run = [first]
    for v in sorted((v for v in spaced if v.id not in taken and v.bbox[0] >= first.bbox[2] - 0.5),
                    key=lambda v: v.bbox[0]):
        last = run[-1]
        if v.bbox[0] >= last.bbox[2] - 0.5 and same_row(last.bbox, v.bbox) and same_style(last, v):
            run.append(v)
    return run


def join_comb_cells(units: Sequence[Unit], r: Rulings) -> list[Unit]:
    """Runs of spaced characters on one row, in one size and font, whose characters sit one per
    equal cell inside a printed box: one unit each, its text the characters (an empty cell between
    two units is a space)."""
    spaced = [u for u in units if u.kind == "text" and _SPACED.match(u.text)]
    joined: dict[str, Unit] = {}
    taken: set[str] = set()
    for u in sorted(spaced, key=lambda u: (u.bbox[1], u.bbox[0])):
        if u.id in taken:
            continue
        run = _comb_run(u, spaced, taken | {u.id})
        while len(run) >= 2:  # the longest run from u that is one comb value
            found = _cells_of(run, max(w.size for w in run) or run[0].height)
            box = union_box(w.bbox for w in run)
            if found is not None and _framed(r, box, run) and not _in_letter_grid(
                    box, _ends(run[0])[0], found[0], [w for w in spaced if w not in run]):
                text = "".join(run[0].text.split()) + "".join(
                    (" " if k > 1 else "") + "".join(w.text.split()) for k, w in zip(found[1], run[1:]))
                joined[u.id] = replace(u, id=f"{u.id}~comb", bbox=box, text=text, comb=True)
                taken.update(w.id for w in run)
                break
            run.pop()
    if not joined:
        return list(units)
    return [joined.get(u.id, u) for u in units if u.id in joined or u.id not in taken]


def split_across_combs(units: Sequence[Unit], r: Rulings) -> list[Unit]:
    """A line that runs across several combs printed side by side, one word in each (an SSN's 3, 2
    and 4 cells with a printed dash between them, a date's MM | DD | YYYY), is one value per comb:
    the page reader joined what was typed into separate fields. Each word becomes a unit over its
    comb's cells (`~part` in its id: pairing gives each the key of the whole)."""
    out: list[Unit] = []
    for u in units:
        words = u.text.split()
        groups = _comb_groups(r, u) if u.kind == "text" and 2 <= len(words) <= 6 and not u.rows else []
        if not groups or len(groups) != len(words) or any(len(w) > len(g) for w, g in zip(words, groups)):
            out.append(u)
            continue
        out += [replace(u, id=f"{u.id}~part{i}", bbox=(g[0][0], u.bbox[1], g[-1][2], u.bbox[3]), text=w, comb=True)
                for i, (w, g) in enumerate(zip(words, groups))]
    return out


COMB_CELL = 1.6  # a comb's cell is about as wide as it is tall, at most this many times its height


def _comb_groups(r: Rulings, u: Unit) -> list[list[BBox]]:
    """The printed cells under a line, left to right, grouped where they adjoin: one group per comb.
    Empty when any stretch of the line is in no such cell (a wide box, open paper), when the cells
    are not of one width, or when it is all one comb."""
    cy, h = (u.bbox[1] + u.bbox[3]) / 2, u.bbox[3] - u.bbox[1]
    groups: list[list[BBox]] = []
    x = u.bbox[0] + 0.5
    while x < u.bbox[2] - 0.5:
        cell = cell_at(r, x, cy, max_w=3 * h, max_h=3 * h)
        if cell is None:
            x += 1.0
            continue
        if cell[2] - cell[0] > COMB_CELL * (cell[3] - cell[1]) or not contains(cell, (x, u.bbox[1], x, u.bbox[3]), 2.0):
            return []
        if groups and abs(cell[0] - groups[-1][-1][2]) <= 1.5:
            groups[-1].append(cell)
        else:
            groups.append([cell])
        x = cell[2] + 0.5
    widths = [c[2] - c[0] for g in groups for c in g]
    if len(groups) < 2 or max(widths) > 1.25 * min(widths):
        return []
    return groups


MARGIN_CATEGORIES = (C.PAGE_HEADER, C.PAGE_FOOTER)


def _in_ruled_box(doc: Document, page: Page, e: Element) -> bool:
    """Inside a closed ruled box the size of an input (a form's top or bottom row of boxes, a value
    turned in a tall narrow box): a running head or a page number is printed in the open margin."""
    x0, y0, x1, y1 = e.bbox
    box = cell_at(page_rulings(doc, page), (x0 + x1) / 2, (y0 + y1) / 2)
    return box is not None and contains(box, e.bbox, 2.0) and (box[2] - box[0]) * (box[3] - box[1]) < 0.25 * page.width * page.height


def _tick_in_a_box(e: Element, marks: Sequence[BBox]) -> bool:
    """A glyph or two printed inside a check box, alone or as a line of its own (a ticked box near the
    page's top edge, whose tick, or the tick with its label, a reader of running heads took for one)."""
    lines = [(box, text) for box, text, _, _ in stored_lines(e)] or [(e.bbox, e.text)]
    return any(len(text.strip()) <= 2 and any(contains(m, box, tolerance=1.5) for m in marks) for box, text in lines)


# ZapfDingbats check marks and crosses ("3" ✓, "4" ✔, "5"-"8" ✕✖✗✘): what a flattened check box
# prints when ticked; its bullets ("l" ●, "n" ■, "u" ◆) are not among them
DINGBAT_TICKS = frozenset("345678")


def _lone_ticks(units: tuple[Unit, ...], dingbats: set[str]) -> tuple[Unit, ...]:
    """A dingbat check mark printed on its own, in no box the page reader kept, is a ticked check box:
    a flattened box whose appearance draws no border, or whose square a layout model took into a
    figure. Only a unit that is the glyph alone counts (a bullet shares its line with the text);
    a tick inside a kept box was already taken by that box (_ticks_inside)."""
    def lone_tick(u: Unit) -> bool:
        return u.kind == "text" and u.text.strip() in DINGBAT_TICKS and u.element_id in dingbats and (
            "dingbat" in u.font.lower() or not u.font)

    if not any(lone_tick(u) for u in units):
        return units
    return tuple(replace(u, kind="mark", category=C.SELECTION_MARK, state="selected", text="✓")
                 if lone_tick(u) else u for u in units)


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


def _one_box_drawn_twice(units: tuple[Unit, ...], reviewed: set[str]) -> tuple[Unit, ...]:
    """A check-box glyph the form prints (☐) with a square drawn over it (the check box's own border,
    baked) is one box: the square, its box as drawn, with the state either of them shows (a tick read
    into the glyph or the square); the glyph goes. The refine step kept the square as an ornament
    because the glyph covers it, so two marks stood for one box, one of them of unknown state."""
    squares = [u for u in units if u.kind == "mark" and not u.text.strip() and u.source != "widget"
               and u.element_id not in reviewed]
    glyphs = [u for u in units if u.kind == "mark" and u.text.strip() in MARK_GLYPHS and u.source != "widget"]
    merged: dict[str, Unit] = {}
    gone: set[str] = set()
    for sq in squares:
        inside = [g for g in glyphs if g.id not in gone and _centre_inside(g.bbox, sq.bbox, 1.5)]
        if len(inside) != 1:
            continue
        g = inside[0]
        state = "selected" if "selected" in (sq.state, g.state) else g.state if sq.state == "unknown" else sq.state
        merged[sq.id] = replace(sq, state=state, round=sq.round or g.round)
        gone.add(g.id)
    if not merged:
        return units
    return tuple(merged.get(u.id, u) for u in units if u.id not in gone)


def _centre_inside(inner: BBox, outer: BBox, pad: float) -> bool:
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] - pad <= cx <= outer[2] + pad and outer[1] - pad <= cy <= outer[3] + pad


def _empty_under_a_line(units: tuple[Unit, ...], reviewed: set[str]) -> tuple[Unit, ...]:
    """A box of unknown state (the refine step kept it as an ornament because text covers part of it)
    that no text sits inside, only lines running across or into it from beside (a label set tight
    against its box, a caption the box was drawn over), is an empty check box: unselected. A tick in
    a box was read already; a word or number a box frames lies inside it."""
    def open_box(m: Unit) -> bool:
        if m.kind != "mark" or m.state != "unknown" or m.source == "widget" or m.element_id in reviewed:
            return False
        width = m.bbox[2] - m.bbox[0]
        across = [t for t in units if t.kind == "text" and overlap_area(t.bbox, m.bbox) > 0]
        # a label starts at the box (or a letter or two before it) and runs on to its right; a line of
        # running text crossing the box runs on past it on both sides
        return bool(across) and all(not contains(m.bbox, t.bbox, 1.5) and t.bbox[2] - t.bbox[0] > 2 * width
                                    and t.bbox[0] >= m.bbox[0] - 0.5 * width for t in across)

    opened = [open_box(u) for u in units]
    if not any(opened):
        return units
    return tuple(replace(u, state="unselected") if o else u for u, o in zip(units, opened))


SPACE_RUN = re.compile(r"\s{2,}")  # the room a line leaves for a box drawn into it


def _labels_between_marks(units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    """A line printed with room left in it for the boxes ("   Option 1       Option 2       Option 3",
    a check box drawn in each run of spaces) is one label after each box, and the boxes, which the
    line's box covered, are the form's: an empty one is unselected (a tick in one was read already)."""
    marks = [u for u in units if u.kind == "mark" and u.source != "widget"]
    if not marks:
        return units
    out: list[Unit] = []
    freed: set[str] = set()
    for u in units:
        pieces = _split_at_marks(u, marks) if u.kind == "text" and not u.rows else None
        if pieces is None:
            out.append(u)
            continue
        out.extend(pieces[0])
        freed.update(pieces[1])
    if not freed:
        return units
    return tuple(replace(u, state="unselected") if u.id in freed and u.state == "unknown" else u for u in out)


def _split_at_marks(u: Unit, marks: Sequence[Unit]) -> tuple[list[Unit], set[str]] | None:
    """(the line's pieces, the ids of the marks inside it) when its runs of spaces hold the marks:
    as many pieces of text as stretches of the line's box left between the marks."""
    inside = sorted((m for m in marks if same_row(m.bbox, u.bbox) and u.bbox[0] < (m.bbox[0] + m.bbox[2]) / 2 < u.bbox[2]),
                    key=lambda m: m.bbox[0])
    if not inside:
        return None
    chunks = [c for c in SPACE_RUN.split(u.text.strip()) if c]
    if len(chunks) < 2:
        return None  # no room left in the line: a box drawn over a caption's first letters is no gap of it
    edges = [u.bbox[0]] + [x for m in inside for x in (m.bbox[0], m.bbox[2])] + [u.bbox[2]]
    stretches = [(a, b) for a, b in zip(edges[::2], edges[1::2]) if b - a >= 0.5 * u.height]
    if len(chunks) != len(stretches):
        return None
    pieces = [replace(u, id=f"{u.id}~{k}s", bbox=(a, u.bbox[1], b, u.bbox[3]), text=text)
              for k, (text, (a, b)) in enumerate(zip(chunks, stretches))]
    return pieces, {m.id for m in inside}


# ---- sections -----------------------------------------------------------------------------------
def section_paths(doc: Document) -> dict[str, tuple[str, ...]]:
    """Element id → the headings above it (title, then section headers by level)."""
    out: dict[str, tuple[str, ...]] = {}
    state: tuple[tuple[tuple[int, str], ...], int] = ((), 1)  # (open headings, the level before)
    for page in doc.pages:
        # page by page from the headings open before it: after a correction, a page whose
        # elements and open headings are unchanged is read from the memo (core.memo)
        paths, state = _PAGE_SECTIONS.get(page, state, lambda page=page, state=state: _page_sections(page, state))
        out.update(paths)
    return out


_PAGE_SECTIONS = page_memo()


def _page_sections(page: Page, state: tuple[tuple[tuple[int, str], ...], int]) -> tuple[dict, tuple]:
    stack, previous = list(state[0]), state[1]
    out: dict[str, tuple[str, ...]] = {}
    under_widgets = {e.id for e in widget_shadows(page)}
    for e in page.elements:
        if e.category in (C.TITLE, C.SECTION_HEADER) and e.text.strip() and e.id not in under_widgets:
            level = heading_level(e)
            level = previous if level is None else level
            previous = level
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, " ".join(e.text.split())))
        out[e.id] = tuple(t for _, t in stack)
    return out, (tuple(stack), previous)


def widget_shadows(page: Page) -> list[Element]:
    """Text elements printed inside a widget's rectangle: its value (or check glyph) drawn into the
    page as well. They belong to the widget's field, never to headings or flow text."""
    widgets = [e.bbox for e in page.elements if e.source == "widget"]
    if not widgets:
        return []
    from core.geometry import coverage

    return [e for e in page.elements if e.source != "widget" and e.text.strip()
            and any(coverage(e.bbox, w) >= 0.6 for w in widgets)]
