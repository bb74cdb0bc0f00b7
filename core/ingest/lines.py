"""A page's text lines and their spans: font traits (size, bold, monospace, CJK), superscript
note marks, check-box glyph boxes, vertical writing, reading order inside a block, and the font
facts (`text_attrs`) an element carries to refine."""
from __future__ import annotations

import functools
import re
from typing import Any, Sequence

import pymupdf

from core.geometry import contains, union
from core.ingest.display import Display
from core.model import BBox
from core.text import SELECTION_GLYPHS

_LATIN = re.compile(r"[!-~]")
# a body's reference to a note set as a raised number: "1", "12", "1,2" (not "2023", not "1.5")
_SUP_NUMBER = re.compile(r"\d{1,3}(?:[,，]\s*\d{1,3})*")
SUPERSCRIPT, ITALIC, SERIF, MONO, BOLD = 1, 2, 4, 8, 16
# Monospace Latin fonts (code); CJK "monospace" fonts such as MS Gothic/Mincho set body text, not code.
_MONO_NAME = re.compile(r"courier|cour\b|mono|consol|menlo|inconsolata|source ?code|lucida ?console|fixed", re.I)
_CJK_FONT_NAME = re.compile(r"gothic|mincho|ming|song|hei|kai|明朝|ゴシック|meiryo|yu ?goth|hiragino|noto ?sans ?cjk|noto ?serif ?cjk", re.I)


class Span:
    __slots__ = ("bbox", "text", "size", "font", "flags")

    def __init__(self, bbox: BBox, text: str, size: float, font: str, flags: int):
        self.bbox, self.text, self.size, self.font, self.flags = bbox, text, size, font, flags


@functools.lru_cache(maxsize=512)
def _font_traits(font: str) -> tuple[bool, bool, bool]:
    """(bold by name, monospace Latin by name, CJK font) — a page has a handful of fonts, many spans."""
    return "bold" in font.lower(), bool(_MONO_NAME.search(font)), bool(_CJK_FONT_NAME.search(font))


class Line:
    __slots__ = ("bbox", "text", "size", "bold", "fonts", "font", "mono", "latin", "chars", "sup_start", "sup_marks",
                 "block", "vertical", "spans", "glyphs", "dropped", "recovered", "overprinted")

    def __init__(self, bbox: BBox, spans: list[Span], block: int):
        self.bbox = bbox
        self.spans = spans
        self.block = block
        self.text = "".join(s.text for s in spans)
        weights: dict[float, int] = {}
        font_chars: dict[str, int] = {}
        bold = mono = latin = chars = 0
        fonts: list[str] = []
        for s in spans:
            n = len(s.text) - s.text.count(" ") - s.text.count("\u3000")
            if n <= 0:
                continue
            chars += n
            key = round(s.size * 2) / 2
            weights[key] = weights.get(key, 0) + n
            named_bold, named_mono, cjk_font = _font_traits(s.font)
            if s.flags & BOLD or named_bold:
                bold += n
            if s.font not in fonts:
                fonts.append(s.font)
            font_chars[s.font] = font_chars.get(s.font, 0) + n
            n_latin = n if s.text.isascii() else len(_LATIN.findall(s.text))
            latin += n_latin
            if (s.flags & MONO or named_mono) and not cjk_font:
                mono += n_latin
        self.size = max(weights, key=weights.get) if weights else (spans[0].size if spans else 0.0)
        self.bold = chars > 0 and bold * 2 >= chars
        self.fonts = tuple(fonts)
        # the line's main font: a form's filled-in value is told from a printed caption by it
        self.font = max(font_chars, key=font_chars.get) if font_chars else ""
        self.mono, self.latin, self.chars = mono, latin, chars
        first = next((s for s in spans if s.text.strip()), None)
        self.sup_start = bool(first is not None and first is not spans[-1] and len(first.text.strip()) <= 3
                              and (first.flags & SUPERSCRIPT or first.size < self.size * 0.8))
        self.sup_marks = self._sup_marks(first) if len(spans) > 1 else ()
        self.glyphs: tuple[tuple[str, BBox], ...] = ()
        self.vertical = False
        self.dropped = 0  # U+FFFD / control characters removed from the spans (core.text.clean_text)
        self.recovered = 0  # characters the dict output lacked, taken back from the words (recover_words)
        self.overprinted = 0  # copies of this line printed at the same place, not read again (page_facts)

    def _sup_marks(self, first: Span | None) -> tuple[str, ...]:
        """Numbers set as superscript inside the line: the body's references to its footnotes. A
        span counts when flagged superscript, or smaller and raised (a subscript sits low). The
        line's own leading mark (a footnote's "¹ …", see `sup_start`) is not a reference."""
        marks: list[str] = []
        bottom = self.bbox[3] - 0.1 * self.size
        for s in self.spans:
            if s.size >= self.size or (s is first and self.sup_start):
                continue
            if not (s.flags & SUPERSCRIPT or (s.size < self.size * 0.8 and s.bbox[3] < bottom)):
                continue
            text = s.text.strip()
            if text and _SUP_NUMBER.fullmatch(text):
                marks.extend(re.findall(r"\d+", text))
        return tuple(marks)


def locate_glyphs(page: pymupdf.Page, lines: list[Line], show: Display) -> None:
    """Boxes of check-box glyphs, so refine can split "☑ 会議費" into a mark and its label."""
    hits: dict[str, list[BBox]] = {}
    for line in lines:
        found: list[tuple[str, BBox]] = []
        for s in line.spans:
            stripped = s.text.strip()
            for ch in dict.fromkeys(c for c in stripped if c in SELECTION_GLYPHS):
                if stripped == ch:
                    found.append((ch, s.bbox))
                    continue
                if ch not in hits:
                    hits[ch] = [show(r) for r in page.search_for(ch)]
                found.extend((ch, b) for b in hits[ch] if contains(s.bbox, b, tolerance=1.0))
        line.glyphs = tuple(sorted(found, key=lambda g: (g[1][0], g[1][1])))


def is_vertical(lines: Sequence[Line]) -> bool:
    return bool(lines) and sum(1 for ln in lines if ln.vertical) * 2 > len(lines)


def ordered_lines(lines: Sequence[Line], keep_wraps: bool = True) -> list[Line]:
    """Reading order of a block's lines: top to bottom, or right to left for vertical writing.
    A table's lines stay row by row (`keep_wraps` False): a column of like values ("California Weekly
    Feedstuffs" on every row) ends at one margin as a wrapped sentence does, and its row is its meaning."""
    if is_vertical(lines):
        return [lines[i] for i in vertical_order([ln.bbox for ln in lines])]
    rows = sorted(lines, key=line_order)
    return wraps_kept_whole(rows) if keep_wraps else rows


def wraps_kept_whole(order: list[Line]) -> list[Line]:
    """Lines of a left column read before the wrapped sentence they stand beside, not inside it.
    Read row by row, a table's row label ("3) 公平性", a header stacked "各主体が / 取り組む事項") set
    beside a cell's sentence that wraps onto a second line lands between its two lines: the 概要
    deck's "…を理由とした不当各主体がで有害な偏見". A line that carries on the wrap of an earlier
    line of its column takes back the lines read between them, when all of those stand wholly left
    of it; they move before the start of that wrapped run."""
    out = list(order)
    for k in range(1, len(out)):
        line = out[k]
        j = k - 1
        while j >= 0 and out[j].bbox[2] <= line.bbox[0] - 1.0:
            j -= 1
        if j < 0 or j == k - 1 or not _wraps_into(out[j], line, out) or _marks_an_item(out[j + 1:k], line):
            continue
        start = j
        while start > 0 and _wraps_into(out[start - 1], out[start], out):
            start -= 1
        out[start:k] = out[j + 1:k] + out[start:j + 1]
    return out


def _marks_an_item(between: Sequence[Line], line: Line) -> bool:
    """A bullet set as a line of its own on `line`'s row: `line` opens an item, it wraps nothing."""
    top, bottom = line.bbox[1], line.bbox[3]
    return any(_OPENS_ITEM.fullmatch(ln.text.strip()) and ln.bbox[1] < bottom and ln.bbox[3] > top for ln in between)


def _wraps_into(upper: Line, lower: Line, lines: Sequence[Line]) -> bool:
    """`lower` goes on with `upper`'s sentence: same size, just under it, starting where it starts (or
    a hanging indent in), not opening on a bullet or a number, and `upper` is a line of running text
    (WRAPPED_LINE_SIZES wide at least: a diagram's short labels stacked and centred do not wrap) that
    runs out to its column's right margin (where the lines starting in that column end)."""
    size = max(upper.size, lower.size, 1.0)
    if abs(upper.size - lower.size) > 0.15 * size or not -size <= lower.bbox[0] - upper.bbox[0] <= 2.5 * size:
        return False
    if upper.bbox[2] - upper.bbox[0] < WRAPPED_LINE_SIZES * size:
        return False
    height = upper.bbox[3] - upper.bbox[1]
    if not -0.3 * height <= lower.bbox[1] - upper.bbox[3] <= 0.8 * height:
        return False
    if _OPENS_ITEM.match(lower.text.strip()):
        return False
    column = [ln for ln in lines if abs(ln.bbox[0] - upper.bbox[0]) <= 2.5 * size]
    right = max(ln.bbox[2] for ln in column)
    at_the_margin = [ln for ln in column if ln is not upper and ln.bbox[2] >= right - 2.0 * size]
    # two more lines end there too: a margin the column's text wraps at, not the end of its longest
    # value (a spec sheet's "draaistroom-asynchroon-motor" over "0,18 kW" wraps nothing)
    return upper.bbox[2] >= right - 2.0 * size and len(at_the_margin) >= 2


WRAPPED_LINE_SIZES = 8  # font sizes: the width of a line that wraps, at least (eight CJK characters)
# a line that opens an item of its own: a bullet or check mark (the private-use glyphs of Wingdings
# included), a note's mark ("＊2", "※"), a circled or bracketed number, "1)", "(2)", "3."
_OPENS_ITEM = re.compile(r"[\uE000-\uF8FF•・●○◆◇■□▶▷➢✓✔⁃\-–—]|[＊*※]\s*[0-9０-９]{0,3}|[①-⑳]"
                         r"|[（(]?[0-9０-９]{1,3}[)）.．、]")


def block_ordered_groups(lines: Sequence[Line]) -> list[list[Line]]:
    """A figure's labels: PyMuPDF's blocks in its order, each block's lines top to bottom, so labels
    standing side by side ("H28FY補正 / 約50億円", "R1FY補正 / 20億円") are not interleaved by height.
    A chart's numbers are the exception: they read after the label of their row (`_values_by_row`)."""
    if is_vertical(lines):
        return [ordered_lines(lines)]
    blocks: dict[int, list[Line]] = {}
    for ln in lines:
        blocks.setdefault(ln.block, []).append(ln)
    ordered = [sorted(blocks[block], key=line_order) for block in sorted(blocks)]
    return _values_by_row(ordered)


# a chart's value label: "27", "5,400", "12.5%", "▲3" (one line, nothing else on it)
_CHART_VALUE = re.compile(r"[-+−▲△]?[0-9０-９][0-9０-９,，.．]*\s*[%％]?")
MIN_CHART_VALUES = 3  # fewer numbers are a figure's stray labels, not a column of values


def _values_by_row(blocks: list[list[Line]]) -> list[list[Line]]:
    """A bar chart's producer often draws every bar's value, then every bar's name (the white paper's
    図表Ⅰ-4-1-2: "27 70 70 … 5,400" and only then "Microsoft「Phi」…"), so stream order parts each
    number from its name. A number alone in its block follows its row's label: the nearest block on
    its left whose height holds the number's middle, if that block is a label of a line or two, not
    another number (a grid of numbers keeps its order)."""
    boxes = [union(ln.bbox for ln in block) for block in blocks]
    values = {k for k, block in enumerate(blocks) if len(block) == 1 and _CHART_VALUE.fullmatch(block[0].text.strip())}
    if len(values) < MIN_CHART_VALUES:
        return blocks
    followers: dict[int, list[int]] = {}
    for k in sorted(values):
        label = _nearest_on_the_left(boxes[k], boxes)
        if label is not None and label not in values and _reads_as_a_row_label(blocks[label], boxes[label], boxes[k]):
            followers.setdefault(label, []).append(k)
    moved = {k for ks in followers.values() for k in ks}
    out: list[list[Line]] = []
    for k, block in enumerate(blocks):
        if k in moved:
            continue
        out.append(block)
        out.extend(blocks[v] for v in sorted(followers.get(k, ()), key=lambda v: boxes[v][0]))
    return out


def _nearest_on_the_left(value: BBox, boxes: Sequence[BBox]) -> int | None:
    middle = (value[1] + value[3]) / 2
    on_the_left = [k for k, box in enumerate(boxes)
                   if box != value and box[1] <= middle <= box[3] and box[2] <= value[0] + 1.0]
    return max(on_the_left, key=lambda k: boxes[k][2]) if on_the_left else None


def _reads_as_a_row_label(block: Sequence[Line], box: BBox, value: BBox) -> bool:
    """Words set across, a line or two high: not a rotated axis title ("$/gal" beside the ticks),
    not a grid of digits, not a tall block beside many rows. A row may be named by a dash alone
    (the white paper's リコー「‐」), so a label needs a letter or no digit at all."""
    width, height = box[2] - box[0], box[3] - box[1]
    return (width >= height and height <= 3 * (value[3] - value[1])
            and any(_LETTER.search(ln.text) or not _DIGIT.search(ln.text) for ln in block))


_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")


def vertical_order(boxes: Sequence[BBox]) -> list[int]:
    """Tategaki order: columns right to left, each top to bottom. A column is the boxes standing
    under one another (a horizontal "4" set inside a vertical "第4章" belongs to that column), not
    a bucket of right edges, which a narrower glyph falls out of."""
    columns: list[tuple[BBox, list[int]]] = []
    for i in sorted(range(len(boxes)), key=lambda i: -(boxes[i][0] + boxes[i][2]) / 2):
        box = boxes[i]
        centre = (box[0] + box[2]) / 2
        for seed, members in columns:
            seed_centre = (seed[0] + seed[2]) / 2
            narrow = box[2] - box[0] <= 2 * max(seed[2] - seed[0], 1.0)
            if narrow and (seed[0] <= centre <= seed[2] or box[0] <= seed_centre <= box[2]):
                members.append(i)
                break
        else:
            columns.append((box, [i]))
    return [i for _, members in columns for i in sorted(members, key=lambda i: boxes[i][1])]


def line_order(line: Line) -> tuple[float, float]:
    return (round(printed_top(line) / 3), line.bbox[0])


def printed_top(line: Line) -> float:
    """Where the line's text is printed: the top of its box, unless the box is over twice as tall
    as the span holding most of its characters, and then that span's top. MuPDF sizes a span by
    its font's box, and a blank or a note number set in a font with a tall one (Cambria in a Meiryo
    footnote: 44 pt for a 12 pt line) starts the line two lines up, so it was read before the lines
    above it. A line of a few spans alike ("第" "4" "章", the 4 set large) keeps its box's top."""
    printed = sum(len(s.text.strip()) for s in line.spans)
    main = max(line.spans, key=lambda s: len(s.text.strip()), default=None)
    if main is None or len(main.text.strip()) * 2 <= printed:
        return line.bbox[1]
    tall = line.bbox[3] - line.bbox[1] > 2 * (main.bbox[3] - main.bbox[1])
    return main.bbox[1] if tall else line.bbox[1]


def text_attrs(lines: Sequence[Line], keep_lines: bool = False, keep_wraps: bool = True) -> dict[str, Any]:
    """Font facts refine needs: dominant size, fonts, bold, monospace share, and the line boxes
    `(x0, y0, x1, y1, text, size, block, font)` when there is more than one line (or `keep_lines`),
    in the order `ordered_lines(lines, keep_wraps)` reads them."""
    if not lines:
        return {}
    weights: dict[float, int] = {}
    fonts: list[str] = []
    bold = chars = mono = latin = 0
    for ln in lines:
        weights[ln.size] = weights.get(ln.size, 0) + max(ln.chars, 1)
        chars += ln.chars
        bold += ln.chars if ln.bold else 0
        mono += ln.mono
        latin += ln.latin
        for f in ln.fonts:
            if f not in fonts:
                fonts.append(f)
    attrs: dict[str, Any] = {
        "size": max(weights, key=weights.get),
        "fonts": tuple(fonts[:4]),
        "bold": chars > 0 and bold * 2 >= chars,
    }
    if latin:
        attrs["mono"] = round(mono / latin, 2)
        attrs["latin"] = round(latin / max(chars, 1), 2)
    ordered = ordered_lines(lines, keep_wraps)
    if is_vertical(ordered):
        attrs["vertical"] = True
    dropped = sum(ln.dropped for ln in lines)
    if dropped:
        attrs["dropped_glyphs"] = dropped
    recovered = sum(ln.recovered for ln in lines)
    if recovered:
        attrs["recovered_chars"] = recovered
    if ordered[0].sup_start:
        attrs["sup_start"] = True
    marks = [m for ln in ordered for m in ln.sup_marks]
    if marks:
        attrs["sup_marks"] = tuple(dict.fromkeys(marks))
    glyphs = [(ch, *map(_r1, b)) for ln in ordered for ch, b in ln.glyphs]
    if glyphs:
        attrs["glyphs"] = tuple(glyphs)
    if len(ordered) > 1 or glyphs or keep_lines:
        attrs["lines"] = tuple((*map(_r1, ln.bbox), ln.text, ln.size, ln.block, ln.font) for ln in ordered)
    return attrs


def _r1(v: float) -> float:
    return round(float(v), 1)
