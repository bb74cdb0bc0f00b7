"""Narrow post-corrections of OCR text: misreads that cannot be Japanese, mended where the context
says what was printed. Each rule names itself on the words it changed (`OcrWord.fixes`), and the
elements made of them record it (`attrs["ocr_fixes"]`), so a reviewer sees the text was mended.

Only OCR text goes through here; a born-digital text layer is never changed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Sequence


@dataclass(frozen=True)
class Confusion:
    name: str  # what the element records
    pattern: re.Pattern  # group "bad" is the misread character
    right: str


# Tesseract's jpn model reads the 条 of an article heading "第3条（定義）" as 奈, 祭, 打 or 休 (on
# the scanned 経費精算規程, 12 of 15 headings). No word follows 第<number> with those: 第N打席 has a
# kanji after it, so a kanji after the character leaves it alone.
CONFUSIONS = (
    Confusion("第N条 (read 第N奈/祭/打/休)",
              re.compile(r"第[0-9０-９]{1,3}(?P<bad>[奈祭打休])(?![\u4e00-\u9fff])"), "条"),
)


def fixed_line(words: Sequence, confusions: Sequence[Confusion] = CONFUSIONS) -> list:
    """The words of one OCR line (left to right), each character a confusion names replaced;
    a changed word lists the confusion in its `fixes`. One character for one keeps every word's
    length, so the boxes stay true."""
    text = "".join(w.text for w in words)
    starts, at = [], 0
    for w in words:
        starts.append(at)
        at += len(w.text)
    out = list(words)
    for confusion in confusions:
        for match in confusion.pattern.finditer(text):
            pos = match.start("bad")
            i = max(k for k, s in enumerate(starts) if s <= pos)
            w, offset = out[i], pos - starts[i]
            out[i] = replace(w, text=w.text[:offset] + confusion.right + w.text[offset + 1:],
                             fixes=tuple(dict.fromkeys((*w.fixes, confusion.name))))
    return out


def fixed_words(words: Sequence) -> list:
    """Every OCR line of `words` through `fixed_line`, the words' order kept."""
    lines: dict[int, list[int]] = {}
    for i, w in enumerate(words):
        lines.setdefault(w.line, []).append(i)
    out = list(words)
    for members in lines.values():
        members.sort(key=lambda i: words[i].bbox[0])
        for i, w in zip(members, fixed_line([words[i] for i in members])):
            out[i] = w
    return out
