"""Heading depth from numbering: how deep in the section tree a title or section header sits.

On the ground floor so any stage may ask it: the form fields' section paths (core/forms/units.py)
nest by it, and the chunker's numbering styles (core/chunks/sections.py) share its numerals.
"""
from __future__ import annotations

import re

from core.categories import Category
from core.model import Element
from core.text import normalise

KANJI_NUMERALS = "0-9一二三四五六七八九十百〇零"  # a regex character class body: 第3条, 第十二章
_LEVEL_PATTERNS = (
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*[部編]"), 1),
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*章"), 2),
    # front/back matter sits beside the chapters, not above them
    (re.compile(r"^(?:目次|はじめに|おわりに|まえがき|あとがき|附則|付則|別表|別紙|参考文献|改定履歴|索引|用語集|"
                r"(?:table of )?contents|list of (?:figures|tables)|abstract|executive summary|foreword|preface|"
                r"acknowledge?ments?|appendix|annex|references|bibliography|glossary|index)(?:\s|$|[:：.])", re.I), 2),
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*節"), 3),
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*款"), 4),
    (re.compile(rf"^第\s*[{KANJI_NUMERALS}]+\s*条"), 5),
    # 1 / 1. (chapter) > 1.1 > 1.1.1, with or without a closing dot
    (re.compile(r"^\d+\.\d+\.\d+\.?(?!\d)"), 4),
    (re.compile(r"^\d+\.\d+\.?(?!\d)"), 3),
    (re.compile(r"^(?:\d+\.?|[A-Z]\.)(?=\s|[^\d.])"), 2),
    (re.compile(r"^[(（]\s*\d+\s*[)）]"), 6),
    (re.compile(r"^[①-⑳]"), 7),
)


def heading_level(element: Element) -> int | None:
    """Depth in the section tree: attr `level` when the source gave one, else the numbering
    (第N部 1 > 第N章 2 > 第N節 3 > 第N条 5; 1. 2 > 1.1 3 > 1.1.1 4). None: same depth as the
    heading before it."""
    if element.category is Category.TITLE:
        return 0
    level = element.attr("level")
    if isinstance(level, int) and not isinstance(level, bool):
        return max(1, level)
    text = normalise(element.text)
    for pattern, depth in _LEVEL_PATTERNS:
        if pattern.match(text):
            return depth
    return None
