"""Rules for the text that annotates the body: footnote_marker (※, 注, *1, ¹ at the start of small or
bottom-of-page text → footnote) and caption_prefix (図/表/Figure/Table + number → caption, split out
of a picture or table box that swallowed it)."""
from __future__ import annotations

import re
from dataclasses import replace

from core.categories import Category
from core.model import Document, Element, Page, freeze_attrs
from core.refine.common import (TEXTUAL, body_size, child_id, map_elements, map_pages, relabel, stored_lines,
                                text_lines)
from core.text import is_hiragana, join_lines, nfkc, squash

C = Category


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
        for box, _ in text_lines(other):
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
    return map_elements(doc, "footnote_marker", fn)


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
    return map_pages(doc, on_page)


def _split_edge_caption(doc_id: str, e: Element) -> list[Element]:
    lines = stored_lines(e)
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
        caption = Element(child_id(doc_id, e, box, text, "caption_prefix"), e.page, e.seq, C.CAPTION, box,
                          text.strip(), e.source, rules=e.rules + ("caption_prefix",),
                          attrs=freeze_attrs({"size": line[2]}))
        return [caption, shrunk] if position == "top" else [shrunk, caption]
    return [e]


# ---------------------------------------------------------------------------------------------
# caption_title: a caption box holding only its number takes the title line that continues it
# ---------------------------------------------------------------------------------------------
_NUMBER_ONLY = re.compile(r"^(?:図表|図|表|写真|グラフ|Figure|Fig\.?|Table|Chart|Exhibit)\s*"
                          r"[0-9IVX]+(?:\s*[-‐‑–.．]\s*[0-9IVX]+)*\s*[.:：]?$", re.I)
_TITLE_MAX = 80


def caption_title(doc: Document) -> Document:
    """"図表Ⅰ-4-1-1" alone in its box: the next element in reading order holds its title, as a short
    line of its own or as the first row (line) of the table or figure the model drew around it.
    The caption takes the title; the table or figure no longer repeats it."""
    def on_page(page: Page) -> list[Element]:
        out = list(page.elements)
        k = 0
        while k < len(out) - 1:
            e = out[k]
            if e.category is C.CAPTION and _NUMBER_ONLY.match(nfkc(e.text.strip())):
                taken = _take_title(doc.doc_id, e, out[k + 1])
                if taken is not None:
                    caption, rest = taken
                    out[k:k + 2] = [caption] + ([rest] if rest is not None else [])
            k += 1
        return out
    return map_pages(doc, on_page)


def _short_title(text: str) -> bool:
    text = text.strip()
    return 0 < len(text) <= _TITLE_MAX and not text.endswith(("。", ".")) and not looks_like_caption(text)


def _with_title(e: Element, title: str, box) -> Element:
    bbox = (min(e.bbox[0], box[0]), min(e.bbox[1], box[1]), max(e.bbox[2], box[2]), max(e.bbox[3], box[3]))
    return replace(e, text=f"{e.text.strip()} {title.strip()}", bbox=bbox).touched_by("caption_title")


def _take_title(doc_id: str, caption: Element, nxt: Element) -> tuple[Element, Element | None] | None:
    if nxt.category in (C.TEXT, C.SECTION_HEADER) and _short_title(nxt.text) and "\n" not in nxt.text.strip():
        return _with_title(caption, nxt.text, nxt.bbox), None
    if nxt.category is C.TABLE and nxt.attr("rows"):
        rows = [tuple(r) for r in nxt.attr("rows")]
        number = squash(caption.text)
        cells = [c for c in rows[0] if str(c).strip() and squash(str(c)) != number]
        if len(cells) == 1 and _short_title(str(cells[0])):
            attrs = dict(nxt.attrs)
            attrs.update(rows=tuple(rows[1:]), n_rows=len(rows) - 1)
            text = "\n".join(" | ".join(r) for r in rows[1:])
            table = replace(nxt, text=text, attrs=freeze_attrs(attrs)).touched_by("caption_title")
            return _with_title(caption, str(cells[0]), caption.bbox), table
        return None
    if nxt.category is C.PICTURE and nxt.attr("lines"):
        lines = sorted(stored_lines(nxt), key=lambda ln: (ln[0][1], ln[0][0]))
        box, first = lines[0][0], lines[0][1]
        if squash(first) == squash(caption.text) and len(lines) > 1:
            lines = lines[1:]
            box, first = lines[0][0], lines[0][1]
        if box[1] <= nxt.bbox[1] + 0.25 * (nxt.bbox[3] - nxt.bbox[1]) and _short_title(first):
            rest = [ln for ln in stored_lines(nxt) if ln[0] != box or ln[1] != first]
            attrs = dict(nxt.attrs)
            attrs["lines"] = tuple((*b, t, s, k) for b, t, s, k in rest)
            text = join_lines([t for _, t, _, _ in sorted(rest, key=lambda ln: (ln[0][1], ln[0][0]))])
            picture = replace(nxt, text=text, attrs=freeze_attrs(attrs)).touched_by("caption_title")
            return _with_title(caption, first, box), picture
    return None
