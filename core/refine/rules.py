"""Refine: the ordered list of named rules that fix the category errors a parser makes and a rule can
see, and `refine`, which runs them. The rules live in this package, one module per rule family
(shared helpers in core/refine/common.py).

Each rule is a small pure function `Document -> Document`. Every element a rule changes gets the
rule's name in `element.rules`, so a reviewer sees why an element is what it is. The rules only read
the Document (text, boxes, and the font/drawing facts ingest stored in `attrs`), never the PDF.

Order matters a little: check-box glyphs are split off before anything else reads the text, and
running headers/footers are recognised before footnote markers (a "※ 無断転載禁止" repeated in the
margin of every page is a footer, not a footnote).
"""
from __future__ import annotations

from typing import Callable, Iterable

from core.model import Document
from core.refine.code_and_formula import code_monospace, formula
from core.refine.form_table import form_table
from core.refine.furniture import decorative, repeated_furniture
from core.refine.index_and_references import document_index, references
from core.refine.notes_and_captions import caption_prefix, caption_title, footnote_marker
from core.refine.selection_marks import selection_glyph
from core.refine.spread import spreads
from core.refine.titles_and_headings import article_heading, document_title, heading_split, slide_title

Rule = Callable[[Document], Document]


RULES: tuple[tuple[str, Rule], ...] = (
    ("form_table", form_table),
    ("heading_split", heading_split),
    ("selection_glyph", selection_glyph),
    ("code_monospace", code_monospace),
    ("repeated_furniture", repeated_furniture),
    ("slide_title", slide_title),  # after the running heads are known
    ("footnote_marker", footnote_marker),
    ("caption_prefix", caption_prefix),
    ("caption_title", caption_title),
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
