"""Text normalisation shared by ingest, refine and matching.

Japanese PDFs mix full-width and half-width forms (`１` / `1`, `（` / `(`); rules compare the
NFKC form so one pattern covers both. The element text itself is kept as extracted.
"""
from __future__ import annotations

import re
import unicodedata

# Check-box and radio glyphs and the state each one shows. □ ■ ○ ◯ ● are also bullets and table
# marks, so refine counts those only in a form-like context.
SELECTION_GLYPHS = {"☐": "unselected", "□": "unselected", "☑": "selected", "☒": "selected",
                    "■": "selected", "✓": "selected", "✔": "selected", "◉": "selected", "○": "unselected",
                    "◯": "unselected", "●": "selected"}
AMBIGUOUS_GLYPHS = frozenset("□■○◯●")

# "第3条（定義）", "第2章 総則": article and chapter headings of Japanese rules and regulations.
ARTICLE_HEADING = re.compile(r"^第[0-9０-９一二三四五六七八九十百]+[条章節款](?:[（(].{1,30}[)）]|\s+\S.{0,30})?\s*$")

_SPACE = re.compile(r"\s+")
# U+FFFD (a glyph PyMuPDF could not map) and C0/C1 control characters other than tab and newline:
# never what is printed on the page, and an export shows them as "�"
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd]")
DROPPED_GLYPHS_RULE = "dropped_unmappable_glyphs"
_DIGITS = re.compile(r"\d+")

# Wingdings draws its symbols at byte codes, which PyMuPDF gives as Private Use characters
# (U+F000 + code): shown as tofu, searched for by nobody. The bullets, arrows and marks business
# documents set in it, as their Unicode look-alikes (the Wingdings chart, e.g. alanwood.net/demos/wingdings.html).
SYMBOL_GLYPHS_RULE = "mapped_symbol_glyphs"
_WINGDINGS = {0x6C: "●", 0x6E: "■", 0x6F: "□", 0x71: "❑", 0x75: "◆", 0x76: "❖", 0x77: "⬥", 0x9E: "·", 0x9F: "•",
              0xA0: "▪", 0xA1: "○", 0xA7: "▪", 0xA8: "◻", 0xAA: "✦", 0xAB: "★", 0xB2: "⟡", 0xD8: "➢", 0xDC: "➲",
              0xE8: "➔", 0xEF: "⇦", 0xF0: "⇨", 0xF1: "⇧", 0xF2: "⇩", 0xFB: "✗", 0xFC: "✓", 0xFD: "☒", 0xFE: "☑"}
_WINGDINGS_FONT = re.compile(r"wingdings(?![ _-]?[23])", re.I)


def clean_text(text: str) -> tuple[str, int]:
    """The text without U+FFFD and control characters (tab and newline kept), and how many went."""
    cleaned, dropped = _UNPRINTABLE.subn("", text)
    return cleaned, dropped


def map_symbol_glyphs(text: str, fonts: tuple[str, ...] | list[str]) -> tuple[str, tuple[tuple[str, str, int], ...]]:
    """The text with Wingdings' Private Use characters as their Unicode look-alikes, when one of
    the text's fonts is Wingdings, and what was mapped: (private character, look-alike, count)."""
    if not any("\uf020" <= ch <= "\uf0ff" for ch in text) or not any(_WINGDINGS_FONT.search(f) for f in fonts):
        return text, ()
    mapped: dict[str, int] = {}
    out = []
    for ch in text:
        look = _WINGDINGS.get(ord(ch) - 0xF000) if "\uf020" <= ch <= "\uf0ff" else None
        if look:
            mapped[ch] = mapped.get(ch, 0) + 1
        out.append(look or ch)
    return "".join(out), tuple((ch, _WINGDINGS[ord(ch) - 0xF000], n) for ch, n in mapped.items())


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def normalise(text: str) -> str:
    """NFKC, whitespace runs collapsed to one space, trimmed."""
    return _SPACE.sub(" ", nfkc(text)).strip()


def squash(text: str) -> str:
    """NFKC with all whitespace removed: for comparing text whose spacing varies (CJK)."""
    return _SPACE.sub("", nfkc(text))


def digits_masked(text: str) -> str:
    """`squash` with every digit run replaced by `#`, so "- 3 -" and "- 12 -" compare equal."""
    return _DIGITS.sub("#", squash(text))


def is_cjk(ch: str) -> bool:
    """Han, kana, CJK punctuation and full-width forms: scripts written without spaces."""
    code = ord(ch)
    return (
        0x3000 <= code <= 0x30FF  # CJK punctuation, hiragana, katakana
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xF900 <= code <= 0xFAFF
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
    )


def is_hiragana(ch: str) -> bool:
    return 0x3041 <= ord(ch) <= 0x309F


def join_lines(lines: list[str]) -> str:
    """Join a block's lines: no space between CJK neighbours, one space elsewhere.

    A Latin word hyphenated at a line end ("docu-" + "ment") is re-joined.
    """
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and line[0].islower():
            out = out[:-1] + line
        elif is_cjk(out[-1]) or is_cjk(line[0]):
            out += line
        else:
            out += " " + line
    return out


def join_labels(labels: list[str]) -> str:
    """Join a figure's labels, each already one string: as `join_lines`, but a number never touches
    the label beside it ("27" then "サイバーエージェント" is "27 サイバーエージェント"), because two
    labels are two things on the page, and a number glued to a word reads as a part of it."""
    out = ""
    for label in (raw.strip() for raw in labels):
        if not label:
            continue
        if out and (out[-1].isdecimal() or label[0].isdecimal()):
            out += " " + label
        else:
            out = join_lines([out, label]) if out else label
    return out


MAX_LABEL_CHARS = 120


def file_label(name: str | None, default: str) -> str:
    """What the tool shows and stores as a file's name: its base name only (a path, POSIX or
    Windows, is never kept), control characters removed, at most MAX_LABEL_CHARS (the end kept,
    so the extension stays)."""
    base = str(name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C").strip()
    if base in ("", ".", ".."):
        return default
    if len(base) > MAX_LABEL_CHARS:
        base = "…" + base[-(MAX_LABEL_CHARS - 1):]
    return base
