"""Rules for text in a notation of its own: code_monospace (blocks set in a monospace Latin font →
code) and formula (a short equation set apart from the text column → formula)."""
from __future__ import annotations

from dataclasses import replace

from core.categories import Category
from core.model import Document, Element, Page
from core.refine.common import map_elements, map_pages, relabel, text_lines
from core.text import is_hiragana, nfkc

C = Category


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
    return map_elements(doc, "code_monospace", fn)


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
    return map_pages(doc, on_page)


def _maybe_formula(e: Element, page: Page, column_left: float | None) -> Element | None:
    if e.category not in (C.TEXT, C.SECTION_HEADER, C.LIST_ITEM):
        return None
    text = nfkc(e.text.strip())
    if not (3 <= len(text) <= 120) or "=" not in text or text.endswith(("。", ".", "、")):
        return None
    if not any(ch in OPERATORS for ch in text.replace("=", "", 1)):
        return None
    if len(text_lines(e)) > 3:
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
