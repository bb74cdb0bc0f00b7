"""The selection_glyph rule: check-box glyphs (☐ ☑ ☒ □ ■ ✓ ✔) and small square drawings become
selection marks with their state, split from the label text they sit in."""
from __future__ import annotations

from core.categories import Category
from core.geometry import area, contains, overlap_area, union
from core.model import BBox, Document, Element, Page, freeze_attrs
from core.refine.common import TEXTUAL, child_id, map_pages, relabel, text_lines
from core.text import AMBIGUOUS_GLYPHS, SELECTION_GLYPHS, is_hiragana, join_lines

C = Category

CHECK_TEXTS = {"✓", "✔", "x", "X", "×", "✗", "✘", "レ", "v", "V", "■", "●"}


# ---------------------------------------------------------------------------------------------
# selection_glyph: ☐ ☑ ☒ □ ■ ✓ ✔ glyphs and small square drawings → selection marks
# ---------------------------------------------------------------------------------------------
def _counted_glyphs(text: str) -> list[int]:
    """Indexes of glyphs that stand as check boxes: at a line start or after a space/bracket, and
    not used as a word in a sentence ("□を付ける"). □/■ are bullets unless the line has two marks or
    a short label."""
    idx = []
    for i, ch in enumerate(text):
        if ch not in SELECTION_GLYPHS:
            continue
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        if not (before.isspace() or before in "(（[［:：、,") or is_hiragana(after):
            continue
        idx.append(i)
    if any(text[i] in AMBIGUOUS_GLYPHS for i in idx) and len(idx) < 2:
        label = text[idx[0] + 1:].strip() if idx else ""
        if len(label) > 16 or label.endswith(("。", ".")):
            idx = [i for i in idx if text[i] not in AMBIGUOUS_GLYPHS]
    return idx


def _split_glyph_line(e: Element, bbox: BBox, text: str, boxes: list[tuple[str, BBox]]):
    """Pieces of one line: [(category, bbox, text, state)], or None when glyph boxes don't line up."""
    counted = _counted_glyphs(text)
    occurrences = [i for i, ch in enumerate(text) if ch in SELECTION_GLYPHS]
    if not counted or len(occurrences) != len(boxes):
        return None
    box_of = dict(zip(occurrences, boxes))
    pieces = []
    cursor_text, cursor_x = 0, bbox[0]
    for i in counted:
        gbox = box_of[i][1]
        before = text[cursor_text:i].strip()
        if before:
            pieces.append((e.category, (cursor_x, bbox[1], max(gbox[0], cursor_x), bbox[3]), before, None))
        pieces.append((C.SELECTION_MARK, gbox, text[i], SELECTION_GLYPHS[text[i]]))
        cursor_text, cursor_x = i + 1, gbox[2]
    rest = text[cursor_text:].strip()
    if rest:
        pieces.append((e.category, (cursor_x, bbox[1], max(bbox[2], cursor_x), bbox[3]), rest, None))
    return pieces


def _text_attrs_only(e: Element) -> dict:
    keep = ("size", "fonts", "bold")
    return {k: v for k, v in e.attrs if k in keep}


def _glyph_pieces(doc_id: str, e: Element) -> list[Element] | None:
    glyphs = e.attr("glyphs") or ()
    if not glyphs or e.category not in TEXTUAL:
        return None
    glyph_boxes = [(g[0], (g[1], g[2], g[3], g[4])) for g in glyphs]
    pieces: list[tuple] = []
    pending: list[tuple[BBox, str]] = []  # glyph-free lines kept together

    def flush():
        if pending:
            pieces.append((e.category, union(b for b, _ in pending), join_lines([t for _, t in pending]), None))
            pending.clear()

    any_split = False
    for lbox, ltext in text_lines(e):
        mine = sorted((g for g in glyph_boxes if contains(lbox, g[1], tolerance=2.0)), key=lambda g: g[1][0])
        split = _split_glyph_line(e, lbox, ltext, mine) if mine else None
        if split is None:
            pending.append((lbox, ltext))
            continue
        any_split = True
        flush()
        pieces.extend(split)
    if not any_split:
        return None
    flush()
    out = []
    base_attrs = _text_attrs_only(e)
    for n, (cat, box, text, state) in enumerate(pieces):
        if cat is C.LIST_ITEM:
            cat = C.TEXT  # the "bullet" that made it a list item was the check box itself
        box = (min(box[0], box[2]), box[1], max(box[0], box[2]), box[3])
        attrs = {"glyph": text} if cat is C.SELECTION_MARK else base_attrs
        out.append(Element(child_id(doc_id, e, box, text, f"selection_glyph:{n}"), e.page, e.seq, cat, box, text,
                           e.source, rules=e.rules + ("selection_glyph",), state=state,
                           attrs=freeze_attrs(attrs)))
    return out


def _holds_other_text(square: Element, page: Page) -> bool:
    """Text (other than a tick) covering a good part of the square: a check box's label sits beside it."""
    for e in page.elements:
        if e.category in TEXTUAL and e.text.strip() and e.text.strip() not in CHECK_TEXTS:
            for box, _ in text_lines(e):
                if overlap_area(box, square.bbox) >= 0.3 * area(square.bbox):
                    return True
    return False


def selection_glyph(doc: Document) -> Document:
    """Check-box glyphs become selection marks with their state, split from their label text;
    small square drawings become marks, selected when filled or holding a ✓/×."""
    def on_page(page: Page) -> list[Element]:
        squares = [e for e in page.elements if e.attr("kind") == "square"]
        ticks: dict[str, Element] = {}
        for sq in squares:
            for e in page.elements:
                if e.category in TEXTUAL and e.text.strip() in CHECK_TEXTS and contains(sq.bbox, e.bbox, 2.5):
                    ticks[sq.id] = e
        swallowed = {t.id for t in ticks.values()}
        out: list[Element] = []
        for e in page.elements:
            if e.id in swallowed:
                continue
            if e.attr("kind") == "square" and _holds_other_text(e, page):
                out.append(e)  # a box framing a number or word (a heading's "1"), not a check box
                continue
            if e.attr("kind") == "square":
                tick = ticks.get(e.id)
                state = "selected" if (e.attr("filled") or tick) else "unselected"
                out.append(relabel(e, C.SELECTION_MARK, "selection_glyph", state=state,
                                   text=tick.text.strip() if tick else e.text))
                continue
            stripped = e.text.strip()
            if e.category in TEXTUAL and stripped in SELECTION_GLYPHS:
                out.append(relabel(e, C.SELECTION_MARK, "selection_glyph", state=SELECTION_GLYPHS[stripped]))
                continue
            pieces = _glyph_pieces(doc.doc_id, e)
            out.extend(pieces if pieces else [e])
        return out
    return map_pages(doc, on_page)
