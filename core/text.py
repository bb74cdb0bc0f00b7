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


def clean_text(text: str) -> tuple[str, int]:
    """The text without U+FFFD and control characters (tab and newline kept), and how many went."""
    cleaned, dropped = _UNPRINTABLE.subn("", text)
    return cleaned, dropped


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
