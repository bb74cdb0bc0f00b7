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
# kanji after it, so a kanji after the character leaves it alone; 奈 begins no word but 奈良 and
# 奈落, so "第10奈関係" (a 様式's "第10条関係") is mended too.
_AMOUNT_TAIL = r"\d{3}(?:[.,]\d{3})*(?=円)"
CONFUSIONS = (
    Confusion("第N条 (read 第N奈/祭/打/休)",
              re.compile(r"第[0-9０-９]{1,3}(?:(?P<bad>奈)(?![良落])|(?P<bad2>[祭打休])(?![\u4e00-\u9fff]))"), "条"),
    # 円 read as 由 right after a number: no word begins 由 after a digit (理由, 自由 have a kanji
    # first) but 由来 and 由緒; the next cell's text may follow on the line ("11.500由精算額")
    Confusion("N円 (read N由)", re.compile(r"[0-9](?P<bad>由)(?![来緒])"), "円"),
    # a yen amount's thousands comma read as a full stop: "23.800円" is no decimal (a yen
    # amount has none, and a decimal in 3-digit groups is none either), while "23.800 kg" is
    # left alone; the groups must be whole (1-3 digits, then threes) and the amount end at 円
    Confusion("N,NNN円 (read N.NNN円)",
              re.compile(r"(?<![0-9.,])[0-9]{1,3}(?:,[0-9]{3})*(?P<bad>\.)" + _AMOUNT_TAIL), ","),
)
MAX_PASSES = 4  # an amount of several groups is mended one separator per pass


def fixed_line(words: Sequence, confusions: Sequence[Confusion] = CONFUSIONS) -> list:
    """The words of one OCR line (left to right), each character a confusion names replaced;
    a changed word lists the confusion in its `fixes`. One character for one keeps every word's
    length, so the boxes stay true."""
    starts, at = [], 0
    for w in words:
        starts.append(at)
        at += len(w.text)
    out = list(words)
    for _ in range(MAX_PASSES):
        changed = _one_pass(out, starts, confusions)
        if not changed:
            break
    return out


def _one_pass(out: list, starts: list[int], confusions: Sequence[Confusion]) -> bool:
    """Mend, in place, each character a confusion names in the line's current text; True when any was."""
    text = "".join(w.text for w in out)
    changed = False
    for confusion in confusions:
        for match in confusion.pattern.finditer(text):
            group = "bad" if match.start("bad") >= 0 else "bad2"
            pos = match.start(group)
            i = max(k for k, s in enumerate(starts) if s <= pos)
            w, offset = out[i], pos - starts[i]
            out[i] = replace(w, text=w.text[:offset] + confusion.right + w.text[offset + 1:],
                             fixes=tuple(dict.fromkeys((*w.fixes, confusion.name))))
            changed = True
    return changed


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
