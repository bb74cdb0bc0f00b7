"""Refine: named rules that fix the category errors a parser makes and a rule can see.

Each rule is a small pure function `Document -> Document`. Every element a rule changes gets the
rule's name in `element.rules`, so a reviewer sees why an element is what it is. The rules only read
the Document (text, boxes, and the font/drawing facts ingest stored in `attrs`), never the PDF.

Order matters a little: check-box glyphs are split off before anything else reads the text, and
running headers/footers are recognised before footnote markers (a "※ 無断転載禁止" repeated in the
margin of every page is a footer, not a footnote).
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Iterable, Sequence

from core.categories import Category
from core.geometry import area, contains, coverage, overlap_area, union
from core.model import BBox, Document, Element, Page, element_id, freeze_attrs, renumber
from core.refine.spread import spreads
from core.text import (AMBIGUOUS_GLYPHS, ARTICLE_HEADING, SELECTION_GLYPHS, digits_masked, is_hiragana,
                       join_lines, nfkc, squash)

C = Category
Rule = Callable[[Document], Document]

TEXTUAL = (C.TEXT, C.LIST_ITEM, C.SECTION_HEADER, C.TITLE, C.CAPTION, C.FOOTNOTE)
CHECK_TEXTS = {"✓", "✔", "x", "X", "×", "✗", "✘", "レ", "v", "V", "■", "●"}


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _map_pages(doc: Document, fn: Callable[[Page], Sequence[Element]]) -> Document:
    pages = []
    changed = False
    for page in doc.pages:
        new = tuple(fn(page))
        # identity, not equality: comparing every element's attrs would cost more than the rule
        if len(new) != len(page.elements) or any(a is not b for a, b in zip(new, page.elements)):
            changed = True
            page = replace(page, elements=renumber(new))
        pages.append(page)
    return doc.with_pages(pages) if changed else doc


def _map_elements(doc: Document, rule: str, fn: Callable[[Element, Page], Element | None]) -> Document:
    """Apply `fn` to every element; a returned element replaces it and is stamped with `rule`."""
    def on_page(page: Page) -> list[Element]:
        out = []
        for e in page.elements:
            new = fn(e, page)
            out.append(e if new is None or new is e else new.touched_by(rule))
        return out
    return _map_pages(doc, on_page)


def relabel(e: Element, category: Category, rule: str, **changes) -> Element:
    return replace(e, category=category, **changes).touched_by(rule)


def body_size(doc: Document) -> float:
    stored = doc.meta_value("body_size")
    if stored:
        return float(stored)
    weights: dict[float, int] = {}
    for e in doc.elements():
        size = e.attr("size")
        if size and e.category in TEXTUAL:
            weights[size] = weights.get(size, 0) + len(e.text)
    return max(weights, key=weights.get) if weights else 10.0


def _lines(e: Element) -> list[tuple[BBox, str]]:
    """The element's text lines with their boxes (one line = the element itself when not stored)."""
    stored = e.attr("lines")
    if stored:
        return [((ln[0], ln[1], ln[2], ln[3]), ln[4]) for ln in stored]
    return [(e.bbox, e.text)]


def _stored_lines(e: Element) -> list[tuple[BBox, str, float, int]]:
    """(bbox, text, size, block) per line, as ingest stored them."""
    size = e.attr("size") or 0.0
    stored = e.attr("lines")
    if not stored:
        return [(e.bbox, e.text, size, 0)]
    return [((ln[0], ln[1], ln[2], ln[3]), ln[4], ln[5] if len(ln) > 5 else size, ln[6] if len(ln) > 6 else 0)
            for ln in stored]


def _child_id(doc_id: str, e: Element, bbox: BBox, text: str, salt: str) -> str:
    """Ids of pieces split from an element derive from its id: stable across runs."""
    return element_id(doc_id, e.page, bbox, text, f"{e.id}:{salt}")


def _text_attrs_only(e: Element) -> dict:
    keep = ("size", "fonts", "bold")
    return {k: v for k, v in e.attrs if k in keep}


# ---------------------------------------------------------------------------------------------
# form_table: a "table" holding AcroForm widgets is a form laid out on a grid → its text lines
# ---------------------------------------------------------------------------------------------
def form_table(doc: Document) -> Document:
    """The layout model reads a form page as one big table; the widgets say it is a form. A table
    box holding a widget, or with fewer than 2 rows × 2 columns of text, is replaced by its text, one
    element per text block (headings by font size); the widgets already carry the values."""
    body = body_size(doc)

    def not_a_table(e: Element, widgets: list[Element]) -> bool:
        if e.category is not C.TABLE or not e.attr("lines"):
            return False
        if e.attr("vertical"):
            return True  # columns of vertical writing (tategaki) look like a table to the model
        if any(coverage(w.bbox, e.bbox) >= 0.5 for w in widgets):
            return True
        rows = e.attr("rows")
        if rows is None:
            return False
        filled_rows = [r for r in rows if any(c.strip() for c in r)]
        filled_cols = {i for r in rows for i, c in enumerate(r) if c.strip()}
        return len(filled_rows) < 2 or len(filled_cols) < 2

    def on_page(page: Page) -> list[Element]:
        widgets = [e for e in page.elements if e.source == "widget"]
        out: list[Element] = []
        for e in page.elements:
            out.extend(_text_blocks(doc.doc_id, e, body, "form_table") if not_a_table(e, widgets) else [e])
        return out
    return _map_pages(doc, on_page)


def _text_blocks(doc_id: str, e: Element, body: float, rule: str) -> list[Element]:
    groups: list[list[tuple[BBox, str, float, int]]] = []
    vertical = bool(e.attr("vertical"))
    stored = _stored_lines(e)  # stored in reading order (right to left for vertical writing)
    if vertical:
        ordered = sorted(stored, key=lambda ln: ln[3])  # stable: keeps that order within a block
    else:
        ordered = sorted(stored, key=lambda ln: (ln[3], ln[0][1], ln[0][0]))
    for line in ordered:
        if groups and groups[-1][-1][3] == line[3] and abs(groups[-1][-1][2] - line[2]) <= 0.6:
            groups[-1].append(line)
        else:
            groups.append([line])
    if vertical:
        groups.sort(key=lambda g: (-round(max(b[2] for b, _, _, _ in g) / 6), g[0][0][1]))
    else:
        groups.sort(key=lambda g: (round(g[0][0][1] / 3), g[0][0][0]))
    out = []
    for n, group in enumerate(groups):
        text = join_lines([t for _, t, _, _ in group])
        if not text:
            continue
        box = union(b for b, _, _, _ in group)
        size = max(s for _, _, s, _ in group)
        category = C.SECTION_HEADER if size >= 1.1 * body and len(text) <= 60 else C.TEXT
        attrs = {"size": size, "fonts": e.attr("fonts") or ()}
        if len(group) > 1:
            attrs["lines"] = tuple((*b, t, s, k) for b, t, s, k in group)
        out.append(Element(_child_id(doc_id, e, box, text, f"{rule}:{n}"), e.page, e.seq, category, box, text,
                           e.source, rules=e.rules + (rule,), attrs=freeze_attrs(attrs)))
    return out


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
    for lbox, ltext in _lines(e):
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
        out.append(Element(_child_id(doc_id, e, box, text, f"selection_glyph:{n}"), e.page, e.seq, cat, box, text,
                           e.source, rules=e.rules + ("selection_glyph",), state=state,
                           attrs=freeze_attrs(attrs)))
    return out


def _holds_other_text(square: Element, page: Page) -> bool:
    """Text (other than a tick) covering a good part of the square: a check box's label sits beside it."""
    for e in page.elements:
        if e.category in TEXTUAL and e.text.strip() and e.text.strip() not in CHECK_TEXTS:
            for box, _ in _lines(e):
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
    return _map_pages(doc, on_page)


# ---------------------------------------------------------------------------------------------
# code_monospace: blocks set in a monospace Latin font → code
# ---------------------------------------------------------------------------------------------
def code_monospace(doc: Document) -> Document:
    def fn(e: Element, page: Page) -> Element | None:
        if e.category not in (C.TEXT, C.LIST_ITEM, C.SECTION_HEADER, C.FORMULA):
            return None
        mono, latin = e.attr("mono") or 0, e.attr("latin") or 0
        if mono >= 0.8 and latin >= 0.5 and len(e.text.strip()) >= 8:
            return replace(e, category=C.CODE)
        return None
    return _map_elements(doc, "code_monospace", fn)


# ---------------------------------------------------------------------------------------------
# repeated_furniture: the same text at the same place on ≥3 pages → page header/footer
# ---------------------------------------------------------------------------------------------
MARGIN = 0.15  # top/bottom share of the page where running heads and feet live
PAGE_NUMBER = re.compile(r"^(?:[-–—‐ー(（\[]|p\.|page|ページ)?\s*(?:#|[ivxlc]{1,6})\s*(?:/\s*#|of\s*#)?\s*"
                         r"(?:[-–—‐ー)）\]]|ページ|頁)?$", re.I)
COPYRIGHT = re.compile(r"^(?:©|\(c\)|copyright)", re.I)


def _band(e: Element, page: Page) -> str | None:
    cy = (e.bbox[1] + e.bbox[3]) / 2
    if cy <= MARGIN * page.height:
        return "top"
    if cy >= (1 - MARGIN) * page.height:
        return "bottom"
    return None


def _small_print_in_margin(doc: Document) -> dict[str, str]:
    """Small print at the very top or bottom edge (a form number "様式第3号" above a one-page form)."""
    body = body_size(doc)
    found = {}
    for page in doc.pages:
        for e in page.elements:
            if e.category not in (C.TEXT, C.SECTION_HEADER) or not (0 < len(e.text.strip()) <= 60):
                continue
            cy = (e.bbox[1] + e.bbox[3]) / 2
            small = (e.attr("size") or body) <= 0.92 * body
            if not small or FOOTNOTE_START.match(nfkc(e.text.strip())):
                continue
            if cy <= 0.06 * page.height:
                found[e.id] = "top"
            elif cy >= 0.94 * page.height:
                found[e.id] = "bottom"
    return found


def repeated_furniture(doc: Document) -> Document:
    """Running heads/feet: text (digits masked) repeated at about the same height on ≥3 pages, plus
    bare page numbers and copyright lines in the top/bottom margin."""
    candidates: dict[tuple[str, str], list[tuple[float, int, str]]] = {}
    for page in doc.pages:
        for e in page.elements:
            if e.category not in TEXTUAL + (C.PAGE_HEADER, C.PAGE_FOOTER) or not e.text.strip():
                continue
            band = _band(e, page)
            if band:
                key = (digits_masked(e.text)[:80], band)
                candidates.setdefault(key, []).append(((e.bbox[1] + e.bbox[3]) / 2, page.number, e.id))
    furniture: dict[str, str] = {}
    for (text, band), hits in candidates.items():
        hits.sort()
        cluster: list[tuple[float, int, str]] = []
        for hit in hits + [(float("inf"), 0, "")]:
            if cluster and hit[0] - cluster[0][0] > 15:
                if len({p for _, p, _ in cluster}) >= 3:
                    furniture.update({eid: band for _, _, eid in cluster})
                cluster = []
            cluster.append(hit)
        for _, _, eid in hits:
            if PAGE_NUMBER.match(text) or COPYRIGHT.match(nfkc(text)):
                furniture.setdefault(eid, band)
    furniture.update(_small_print_in_margin(doc))

    def fn(e: Element, page: Page) -> Element | None:
        band = furniture.get(e.id)
        if band is None:
            return None
        target = C.PAGE_HEADER if band == "top" else C.PAGE_FOOTER
        return None if e.category is target else replace(e, category=target)
    return _map_elements(doc, "repeated_furniture", fn)


# ---------------------------------------------------------------------------------------------
# footnote_marker: ※, 注, *1, ¹ at the start of small or bottom-of-page text → footnote
# ---------------------------------------------------------------------------------------------
FOOTNOTE_START = re.compile(r"^(?:※|\*+\s*\d*|注\s*\d*\s*[:：.)）]|注\s*\d+|注\s+|[(〔\[]注\s*\d*[)〕\]])")
SUPERSCRIPT_START = re.compile(r"^[¹²³⁴⁵⁶⁷⁸⁹⁰]+")
NUMBERED_NOTE = re.compile(r"^(?:※\s*\d+|\*\s*\d+|注\s*\d+)")


def _inline(e: Element, page: Page) -> bool:
    """`e` continues a line of another element (a note reference "＊16した…" cut off by the parser)."""
    for other in page.elements:
        if other is e or other.category not in TEXTUAL:
            continue
        for box, _ in _lines(other):
            height = min(box[3] - box[1], e.bbox[3] - e.bbox[1])
            same_row = min(box[3], e.bbox[3]) - max(box[1], e.bbox[1]) >= 0.5 * height
            if same_row and -4.0 <= e.bbox[0] - box[2] <= 4.0:
                return True
    return False


def footnote_marker(doc: Document) -> Document:
    body = body_size(doc)

    def fn(e: Element, page: Page) -> Element | None:
        if e.category is C.PAGE_FOOTER and "repeated_furniture" not in e.rules:
            # the model files a numbered note at the page foot ("*1: AI RMF 1.0") as a footer
            numbered = NUMBERED_NOTE.match(nfkc(e.text.lstrip()))
            return replace(e, category=C.FOOTNOTE) if numbered else None
        if e.category not in (C.TEXT, C.LIST_ITEM):
            return None
        text = e.text.lstrip()
        marked = bool(FOOTNOTE_START.match(nfkc(text)) or SUPERSCRIPT_START.match(text) or e.attr("sup_start"))
        if not marked:
            return None
        marker = FOOTNOTE_START.match(nfkc(text))
        if marker and not nfkc(text)[marker.end():].strip():
            return None  # the mark alone ("＊4") is the reference in the body, not the note
        if _inline(e, page):
            return None
        size = e.attr("size") or body
        small = size <= 0.92 * body
        low = e.bbox[1] >= 0.66 * page.height
        if e.attr("sup_start") and not FOOTNOTE_START.match(nfkc(text)):
            ok = small and low  # "1 Available at…" is only a footnote in small print at the bottom
        else:
            ok = small or low
        return replace(e, category=C.FOOTNOTE) if ok else None
    return _map_elements(doc, "footnote_marker", fn)


# ---------------------------------------------------------------------------------------------
# caption_prefix: 図/表/Figure/Table + number at the start → caption
# ---------------------------------------------------------------------------------------------
CAPTION_START = re.compile(
    r"^(?:図表|図|表|写真|グラフ|Figure|Fig\.?|Table|Chart|Exhibit)\s*"
    r"(?:[0-9]+(?:[-‐.．][0-9]+)*|[IVX]+)(?P<after>.?)", re.I)


def looks_like_caption(raw: str) -> bool:
    text = nfkc(raw.strip())
    m = CAPTION_START.match(text)
    if not m or len(text) > 150:
        return False
    after = m.group("after")
    if after and is_hiragana(after):
        return False  # "表1に示すとおり…": a sentence that mentions the table
    rest = text[m.end("after") - len(after):].lstrip()
    if rest[:1].islower() and rest.split(" ", 1)[0].isalpha():
        return False  # "Table 1 shows…"
    if text.endswith(("。", ".")) and len(text) > 60:
        return False
    return True


def caption_prefix(doc: Document) -> Document:
    """Text starting 図1/表2/Figure 3… → caption; a caption line the model drew inside its picture or
    table box (at the box's top or bottom edge) is split out of it."""
    def on_page(page: Page) -> list[Element]:
        out: list[Element] = []
        for e in page.elements:
            if e.category in (C.TEXT, C.SECTION_HEADER, C.LIST_ITEM, C.TITLE) and looks_like_caption(e.text):
                out.append(relabel(e, C.CAPTION, "caption_prefix"))
            elif e.category in (C.PICTURE, C.TABLE):
                out.extend(_split_edge_caption(doc.doc_id, e))
            else:
                out.append(e)
        return out
    return _map_pages(doc, on_page)


def _split_edge_caption(doc_id: str, e: Element) -> list[Element]:
    lines = _stored_lines(e)
    if len(lines) < 2 and e.category is C.TABLE:
        return [e]
    ordered = sorted(lines, key=lambda ln: (ln[0][1], ln[0][0]))
    for position, line in (("top", ordered[0]), ("bottom", ordered[-1])):
        box, text = line[0], line[1]
        at_edge = box[1] <= e.bbox[1] + 3 if position == "top" else box[3] >= e.bbox[3] - 3
        if not (at_edge and looks_like_caption(text)):
            continue
        rest = [ln for ln in lines if ln is not line]
        if position == "top":
            new_box = (e.bbox[0], min(box[3] + 1, e.bbox[3]), e.bbox[2], e.bbox[3])
        else:
            new_box = (e.bbox[0], e.bbox[1], e.bbox[2], max(box[1] - 1, e.bbox[1]))
        attrs = dict(e.attrs)
        attrs["lines"] = tuple((*b, t, s, k) for b, t, s, k in rest)
        rows = attrs.get("rows")
        if rows and squash(" ".join(rows[0 if position == "top" else -1])) == squash(text):
            rows = rows[1:] if position == "top" else rows[:-1]
            attrs.update(rows=rows, n_rows=len(rows))
        body_text = ("\n".join(" | ".join(r) for r in rows) if e.category is C.TABLE and rows
                     else join_lines([t for _, t, _, _ in sorted(rest, key=lambda ln: (ln[0][1], ln[0][0]))]))
        shrunk = replace(e, bbox=new_box, text=body_text, attrs=freeze_attrs(attrs)).touched_by("caption_prefix")
        caption = Element(_child_id(doc_id, e, box, text, "caption_prefix"), e.page, e.seq, C.CAPTION, box,
                          text.strip(), e.source, rules=e.rules + ("caption_prefix",),
                          attrs=freeze_attrs({"size": line[2]}))
        return [caption, shrunk] if position == "top" else [shrunk, caption]
    return [e]


# ---------------------------------------------------------------------------------------------
# document_index: dot leaders + page numbers → document index (table of contents)
# ---------------------------------------------------------------------------------------------
LEADER_LINE = re.compile(r"(?:\.{3,}|…+|‥+|・{3,}|·{3,}|_{3,}|-{4,}|─{3,}|—{3,}|\s{3,})\s*(?:p\.?\s*)?\d{1,4}\s*$")
ENDS_WITH_PAGE = re.compile(r"\D\s*\d{1,4}\s*$")
def _ends_in_digit(text: str) -> bool:
    tail = text.rstrip()[-1:]
    return tail.isdigit()


INDEX_HEADING = re.compile(r"^(?:目次|Contents|TableofContents|CONTENTS|もくじ)$", re.I)


def document_index(doc: Document) -> Document:
    def leader_share(e: Element) -> float:
        if e.category is C.TABLE:
            rows = e.attr("rows") or ()
            lines = [" ... ".join(c for c in r if c) for r in rows] or [e.text]
        else:
            lines = [t for _, t in _lines(e)]
        lines = [t.rstrip() for t in lines if t.strip()]
        if not lines:
            return 0.0
        # only lines ending in a digit can end in a page number: skip the regex for the rest
        hits = sum(1 for t in lines if _ends_in_digit(t) and LEADER_LINE.search(nfkc(t).replace("|", " ")))
        return hits / len(lines)

    def on_page(page: Page) -> list[Element]:
        out = []
        after_heading = False
        for e in page.elements:
            if (e.category in (C.SECTION_HEADER, C.TITLE, C.TEXT) and len(e.text) <= 24
                    and INDEX_HEADING.match(squash(e.text))):
                after_heading = True
                out.append(e)
                continue
            if e.category in (C.TEXT, C.LIST_ITEM, C.SECTION_HEADER, C.TABLE, C.TITLE) and (
                    after_heading or _ends_in_digit(e.text) or e.category is C.TABLE or e.attr("lines")):
                share = leader_share(e)
                listed = after_heading and e.category is not C.TABLE and all(
                    ENDS_WITH_PAGE.search(nfkc(t).rstrip()) for _, t in _lines(e) if t.strip())
                if share >= 0.5 or listed:
                    out.append(relabel(e, C.DOCUMENT_INDEX, "document_index"))
                    continue
            out.append(e)
        return out
    return _map_pages(doc, on_page)


# ---------------------------------------------------------------------------------------------
# references: [1]-style items under a 参考文献/References heading → reference
# ---------------------------------------------------------------------------------------------
REFERENCE_HEADING = re.compile(r"^(?:[0-9.]+|第[0-9一二三四五六七八九十]+[章節])?(?:参考文献|引用文献|参照文献|文献|"
                               r"References|Bibliography|WorksCited)$", re.I)
REFERENCE_ITEM = re.compile(r"^\s*(?:\[\s*\d+\s*\]|\(\s*\d+\s*\)|\d+[.)]\s|[A-Z][A-Za-z'\-]+,\s)")


def references(doc: Document) -> Document:
    inside = False
    targets: set[str] = set()
    item_left: float | None = None  # left edge of the last numbered item: indented lines continue it
    for page in doc.pages:
        for e in page.elements:
            if e.category in (C.PAGE_HEADER, C.PAGE_FOOTER, C.DECORATIVE, C.PICTURE):
                continue
            heading_like = e.category in (C.SECTION_HEADER, C.TITLE) or (
                e.category is C.TEXT and len(e.text.strip()) <= 24)
            if heading_like and REFERENCE_HEADING.match(squash(e.text)):
                inside = True
                continue
            if inside and e.category in (C.SECTION_HEADER, C.TITLE):
                inside = False
                continue
            if inside and e.category in (C.TEXT, C.LIST_ITEM, C.FOOTNOTE):
                if REFERENCE_ITEM.match(nfkc(e.text)):
                    targets.add(e.id)
                    item_left = e.bbox[0]
                elif item_left is not None and e.bbox[0] >= item_left + 8:
                    targets.add(e.id)

    def fn(e: Element, page: Page) -> Element | None:
        return replace(e, category=C.REFERENCE) if e.id in targets else None
    return _map_elements(doc, "references", fn)


# ---------------------------------------------------------------------------------------------
# formula: a short line with "=" and operators, set apart from the text column → formula
# ---------------------------------------------------------------------------------------------
OPERATORS = set("+-−×÷/*^√Σ∑∫≤≥·⋅")


def formula(doc: Document) -> Document:
    def on_page(page: Page) -> list[Element]:
        lefts = sorted(e.bbox[0] for e in page.elements if e.category is C.TEXT and len(e.text) > 40)
        column_left = lefts[len(lefts) // 2] if lefts else None
        out = []
        for e in page.elements:
            out.append(_maybe_formula(e, page, column_left) or e)
        return out
    return _map_pages(doc, on_page)


def _maybe_formula(e: Element, page: Page, column_left: float | None) -> Element | None:
    if e.category not in (C.TEXT, C.SECTION_HEADER, C.LIST_ITEM):
        return None
    text = nfkc(e.text.strip())
    if not (3 <= len(text) <= 120) or "=" not in text or text.endswith(("。", ".", "、")):
        return None
    if not any(ch in OPERATORS for ch in text.replace("=", "", 1)):
        return None
    if len(_lines(e)) > 3:
        return None
    kana = sum(1 for ch in text if is_hiragana(ch))
    if kana > 0.2 * len(text):
        return None
    cx = (e.bbox[0] + e.bbox[2]) / 2
    centred = abs(cx - page.width / 2) <= 0.12 * page.width and (e.bbox[2] - e.bbox[0]) <= 0.7 * page.width
    indented = column_left is not None and e.bbox[0] >= column_left + 15
    if not (centred or indented):
        return None
    return relabel(e, C.FORMULA, "formula")


# ---------------------------------------------------------------------------------------------
# decorative: tiny or repeated images, separator lines → decorative
# ---------------------------------------------------------------------------------------------
def decorative(doc: Document) -> Document:
    seen: dict[str, set[int]] = {}
    for page in doc.pages:
        for e in page.elements:
            if e.category is C.PICTURE:
                for key in _picture_keys(e):
                    seen.setdefault(key, set()).add(page.number)
    repeated = {k for k, pages in seen.items() if len(pages) >= 3}

    def fn(e: Element, page: Page) -> Element | None:
        if e.category is not C.PICTURE:
            return None
        w, h = e.bbox[2] - e.bbox[0], e.bbox[3] - e.bbox[1]
        thin = e.attr("kind") == "rule" or min(w, h) < 4 or _stretched_pixel_line(e.attr("image"))
        tiny = area(e.bbox) < 0.001 * page.width * page.height and not e.text.strip()
        if thin or tiny or any(k in repeated for k in _picture_keys(e)):
            return replace(e, category=C.DECORATIVE)
        return None
    return _map_elements(doc, "decorative", fn)


def _stretched_pixel_line(image: str | None) -> bool:
    """An image one or two pixels high or wide is a bar or gradient stretched over the page."""
    m = re.match(r"i(\d+)x(\d+)", image or "")
    return bool(m) and min(int(m.group(1)), int(m.group(2))) <= 2


def _picture_keys(e: Element) -> list[str]:
    """The same image object, or any picture at the same place and size, marks a page ornament."""
    keys = [f"at:{round(e.bbox[0] / 6)},{round(e.bbox[1] / 6)},{round(e.bbox[2] / 6)},{round(e.bbox[3] / 6)}"]
    image = e.attr("image")
    if image:
        keys.append(f"img:{image}")
    return keys


# ---------------------------------------------------------------------------------------------
# heading_split: a model box that swallowed its heading (a large first line) → heading + body
# ---------------------------------------------------------------------------------------------
def heading_split(doc: Document) -> Document:
    """The model sometimes draws one box over a slide title and the bullets under it. When the
    first line of a text/list box is set ≥1.3× larger than the rest, it is split off as a heading."""
    def on_page(page: Page) -> list[Element]:
        out: list[Element] = []
        for e in page.elements:
            out.extend(_split_heading(doc.doc_id, e) or [e])
        return out
    return _map_pages(doc, on_page)


def _split_heading(doc_id: str, e: Element) -> list[Element] | None:
    if e.category not in (C.TEXT, C.LIST_ITEM) or not e.attr("lines"):
        return None
    lines = sorted(_stored_lines(e), key=lambda ln: (ln[0][1], ln[0][0]))
    head, rest = lines[:1], lines[1:]
    if not rest or not head[0][1].strip() or len(head[0][1]) > 60:
        return None
    rest_size = max(ln[2] for ln in rest)
    if not rest_size or head[0][2] < 1.3 * rest_size:
        return None
    if head[0][0][3] > min(ln[0][1] for ln in rest) + 2:
        return None  # the large line is not above the rest
    (hbox, htext, hsize, _), = head
    body_box = union(ln[0] for ln in rest)
    body_text = join_lines([t for _, t, _, _ in rest])
    heading = Element(_child_id(doc_id, e, hbox, htext, "heading_split"), e.page, e.seq, C.SECTION_HEADER,
                      hbox, htext.strip(), e.source, rules=e.rules + ("heading_split",),
                      attrs=freeze_attrs({"size": hsize, "fonts": e.attr("fonts") or ()}))
    attrs = dict(e.attrs)
    attrs["lines"] = tuple((*b, t, s, k) for b, t, s, k in rest)
    attrs["size"] = rest_size
    body = replace(e, bbox=body_box, text=body_text, attrs=freeze_attrs(attrs)).touched_by("heading_split")
    return [heading, body]


# ---------------------------------------------------------------------------------------------
# article_heading: "第3条（定義）" on a line of its own → section header
# ---------------------------------------------------------------------------------------------
def article_heading(doc: Document) -> Document:
    """Japanese regulations head each article "第N条（見出し）"; the model calls some of them text."""
    def fn(e: Element, page: Page) -> Element | None:
        if e.category in (C.TEXT, C.LIST_ITEM) and len(_lines(e)) == 1 and ARTICLE_HEADING.match(nfkc(e.text.strip())):
            return replace(e, category=C.SECTION_HEADER)
        return None
    return _map_elements(doc, "article_heading", fn)


# ---------------------------------------------------------------------------------------------
# document_title: no title found → the one largest heading in the top half of the first page
# ---------------------------------------------------------------------------------------------
def document_title(doc: Document) -> Document:
    if not doc.pages or any(e.category is C.TITLE for e in doc.elements()):
        return doc
    body = body_size(doc)
    first = next((p for p in doc.pages if p.elements), None)
    if first is None:
        return doc
    sized = [e for e in first.elements if e.category in (C.SECTION_HEADER, C.TEXT) and e.attr("size")
             and len(e.text.strip()) <= 60 and e.bbox[3] <= 0.5 * first.height]
    if not sized:
        return doc
    largest = max(e.attr("size") for e in sized)
    top = [e for e in sized if e.attr("size") >= largest - 0.25]
    if len(top) != 1 or largest < 1.5 * body:
        return doc  # two equal headlines (a spread) or nothing standing out: no title
    target = top[0].id

    def fn(e: Element, page: Page) -> Element | None:
        return replace(e, category=C.TITLE) if e.id == target else None
    return _map_elements(doc, "document_title", fn)


# ---------------------------------------------------------------------------------------------
RULES: tuple[tuple[str, Rule], ...] = (
    ("form_table", form_table),
    ("heading_split", heading_split),
    ("selection_glyph", selection_glyph),
    ("code_monospace", code_monospace),
    ("repeated_furniture", repeated_furniture),
    ("footnote_marker", footnote_marker),
    ("caption_prefix", caption_prefix),
    ("document_index", document_index),
    ("references", references),
    ("article_heading", article_heading),
    ("document_title", document_title),
    ("formula", formula),
    ("decorative", decorative),
    ("spread", spreads),  # last: reading order half by half on landscape spreads, once categories are settled
)
RULE_NAMES = tuple(name for name, _ in RULES)


def refine(doc: Document, rules: Iterable[str] | None = None) -> Document:
    """Run the rules (all, in order, unless a subset is named) and return the refined Document."""
    chosen = RULE_NAMES if rules is None else tuple(rules)
    unknown = [r for r in chosen if r not in RULE_NAMES]
    if unknown:
        raise ValueError(f"unknown refine rule(s) {unknown}; known: {', '.join(RULE_NAMES)}")
    for name, rule in RULES:
        if name in chosen:
            doc = rule(doc)
    return doc
