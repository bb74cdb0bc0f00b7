"""Pieces: how an element's text is written for the chunker: split into sentences (never inside
brackets or a decimal number), a formula as `$$…$$` or `式: …`, code fenced with a language guess,
a table row by row."""
from __future__ import annotations

import json
import math
import re
from typing import Any

from core.chunks.blocks import Piece
from core.chunks.policy import Policy
from core.model import Element


# ---- formula and code ---------------------------------------------------------------------------
_LATEX = re.compile(r"\\[A-Za-z]+|[\^_]\{|\\\(|\\\[")


def normalise_formula(text: str) -> str:
    body = text.strip()
    if body.startswith("$$") and body.endswith("$$") and len(body) > 4:
        return "$$" + body[2:-2].strip() + "$$"
    if body.startswith("$") and body.endswith("$") and len(body) > 2:
        return "$$" + body.strip("$").strip() + "$$"
    if _LATEX.search(body):
        return f"$${body}$$"
    return f"式: {body}"


def guess_code_language(text: str) -> str:
    body = text.strip()
    upper = body.upper()
    if re.search(r"^\s*(def |class |import |from \S+ import |print\()", body, re.MULTILINE):
        return "python"
    if (re.search(r"\bSELECT\b", upper) and re.search(r"\bFROM\b", upper)) or re.search(
            r"^\s*(INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|VIEW|INDEX))", upper,
            re.MULTILINE):
        return "sql"
    if body[:1] in "{[":
        try:
            json.loads(body)
            return "json"
        except ValueError:
            if re.search(r'"[^"]+"\s*:', body):
                return "json"
    if body.startswith("<") and re.search(r"</\w|/>", body):
        return "xml"
    return ""


def fenced(text: str, language: str) -> str:
    return f"```{language}\n{text.strip()}\n```"


# ---- sentences ----------------------------------------------------------------------------------
_OPENERS, _CLOSERS = "（(「『【〔［[“‘", "）)」』】〕］]”’"


def split_sentences(text: str, ends: str) -> list[str]:
    """Split after a sentence end (keeping trailing closing brackets with it). An end inside
    brackets, e.g. 「以下「会社」という。」, is not a sentence end."""
    out, start, depth, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth = max(0, depth - 1)
        elif ch in ends and depth == 0:
            j = i + 1
            while j < len(text) and (text[j] in _CLOSERS or text[j] in ends):
                j += 1
            # a full stop between digits (3.5, 1．2) is a decimal point, not a sentence end
            if not (ch in ".．" and i > 0 and j < len(text) and text[i - 1].isdigit() and text[j].isdigit()):
                out.append(text[start:j])
                start = j
            i = j
            continue
        i += 1
    if start < len(text):
        out.append(text[start:])
    return [s for s in out if s]


# Bullet glyphs a slide's run-on text item starts with: where no sentence end or line break is
_BULLET_START = re.compile(r"(?=[•✓⟡➢●■◆▶⁃](?!$))")


def split_long(sentence: str, max_chars: int) -> list[str]:
    """A sentence over the limit is cut at its line ends (the last-resort split point); one with no
    line end, before its bullets: a slide's list read as one text with no 。 ("• 各主体は…✓AI が…✓…",
    1030 characters on the 概要's p13) is its items, one after another."""
    if len(sentence) <= max_chars:
        return [sentence]
    if "\n" in sentence:
        return _packed(sentence.splitlines(keepends=True), max_chars)
    items = [part for part in _BULLET_START.split(sentence) if part]
    if len(items) < 2:
        return [sentence]
    return _shared_out(items, max_chars)


def _shared_out(items: list[str], max_chars: int) -> list[str]:
    """Items packed in order into as many parts as the limit needs, each cut where the items
    placed pass its even share: a last part of one item (76 characters) would be a chunk of its
    own, outranking its slide by its shortness."""
    share = sum(map(len, items)) / math.ceil(sum(map(len, items)) / max_chars)
    out, cur, done = [], "", 0
    for item in items:
        if cur and (len(cur) + len(item) > max_chars or done + len(item) / 2 > share * (len(out) + 1)):
            out.append(cur)
            cur = ""
        cur += item
        done += len(item)
    return out + [cur] if cur else out


def _packed(lines: list[str], max_chars: int) -> list[str]:
    out, cur = [], ""
    for line in lines:
        if cur and len(cur) + len(line) > max_chars:
            out.append(cur)
            cur = ""
        cur += line
    if cur:
        out.append(cur)
    return out


def sentence_pieces(element: Element, text: str, policy: Policy) -> list[Piece]:
    parts: list[str] = []
    for sentence in split_sentences(text, policy.sentence_ends):
        parts.extend(split_long(sentence, policy.max_chars))
    return [Piece(p, (element,), joins_previous=i > 0) for i, p in enumerate(parts)] or [Piece("", (element,))]


# ---- tables -------------------------------------------------------------------------------------
def table_rows(e: Element) -> list[str]:
    """Row by row: `| a | b |` from the source's cells when it gave them, else its text lines."""
    rows = e.attr("rows")
    if rows:
        out = []
        for row in rows:
            cells = row if isinstance(row, (list, tuple)) else (row,)
            out.append("| " + " | ".join(_cell_text(c) for c in cells) + " |")
        return out
    return [line.strip() for line in e.text.splitlines() if line.strip()]


# A header cell names a column ("年月", "第3部. AI開発者（D）", "「共通の指針」に加えて主体毎に重要となる事項");
# a longer one says something. A slide's table with no header row starts with a row of content
# ("U -2) i. | 安全を考慮した適正利用 | ⁃ AI提供者が定めた利用上の留意点を遵守して…", 96 characters), and
# repeated as a header it filled half of every part of its table.
HEADER_CELL_CHARS = 30


def is_header_row(row: str) -> bool:
    """The row (as `table_rows` writes it) can be a header: none of its cells is longer than a label."""
    cells = row.strip().strip("|").split("|")
    return all(len(cell.strip()) <= HEADER_CELL_CHARS for cell in cells)


def row_groups(rows: list[str], max_chars: int) -> list[list[str]]:
    """Rows that a table's split must keep together. A row with its first cell empty and text in
    its later cells holds cells the source centred in a merged row and wrote above their label (the
    本編's 表1: "|  |  | ⅰ.適切なデータの学習… |" above "| 2） | ①人間の生命… |" and "| 安全性 | … |");
    the rows after it with nothing past their first half (that label, wrapped over rows) go with
    it, up to max_chars. Cut between them, a part held 安全性's cells and the next its name."""
    groups: list[list[str]] = []
    opened = False
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        trailing = cells[len(cells) // 2:]
        label_only = len(cells) >= 3 and any(cells) and not any(trailing)
        if groups and opened and label_only and len("\n".join([*groups[-1], row])) <= max_chars:
            groups[-1].append(row)
            continue
        groups.append([row])
        opened = len(cells) >= 3 and not cells[0] and any(trailing)
    return groups


def _cell_text(cell: Any) -> str:
    if cell is None:
        return ""
    if isinstance(cell, tuple) and cell and all(isinstance(p, tuple) and len(p) == 2 for p in cell):
        cell = dict(cell).get("text", "")
    return " ".join(str(cell).split()).replace("|", "｜")
