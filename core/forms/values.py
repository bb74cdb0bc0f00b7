"""Where a key's value lies on a flattened or scanned form page (pairing rules 1 and 2 of
core.forms.pairing): the area below it in its ruled cell or row, the cell or box to its right, a
row of amount boxes, an underline, a box below it; else, on a page that looks like a form, the
text to its right on the same row or (a key ending in ：) the text directly below.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Sequence

from core.categories import Category
from core.forms.labels import (
    COLON_END, LINE_NUMBER, WORDY, YEAR_PREFIX, amount_after, bridged, fillers_of, font_family, key_like,
    label_candidates, numbers_its_row, other_family, short_typed_line,
)
from core.forms.rulings import Rulings, cell_at, comb_run, open_row_at
from core.forms.units import Unit, box_id, same_row, same_size, same_style, union_box
from core.geometry import center, contains
from core.model import BBox

C = Category

LOOSE_KEY_CATEGORIES = (C.TEXT, C.LIST_ITEM, C.FORM_FIELD)


def _inside(units: Sequence[Unit], area: BBox, exclude: set[str]) -> list[Unit]:
    out = []
    for u in units:
        if u.id in exclude:
            continue
        cx, cy = center(u.bbox)
        if area[0] - 1 <= cx <= area[2] + 1 and area[1] - 1 <= cy <= area[3] + 1:
            out.append(u)
    return sorted(out, key=lambda u: (round(u.bbox[1] / 4), u.bbox[0]))


def value_unit(inside: Sequence[Unit], area: BBox, doc_id: str, page: int) -> Unit:
    """One unit for what fills a value area: the single text there, several joined, or the empty area."""
    if len(inside) == 1:
        return inside[0]
    if inside:
        text = " ".join(u.text.strip() for u in inside)
        first = inside[0]
        return Unit("+".join(u.id for u in inside), page, union_box([u.bbox for u in inside]), text,
                    first.element_id, first.category, source=first.source)
    uid = box_id(doc_id, page, area)
    return Unit(uid, page, area, "", None, C.FORM_FIELD, kind="box")


Found = tuple[Unit, float]  # the value's unit and the confidence of the place it was found in


@dataclass(frozen=True)
class _Look:
    """One key's search for its value: what every place to look needs."""
    key: Unit
    texts: Sequence[Unit]
    r: Rulings
    exclude: set[str]
    doc_id: str
    page: int
    fillers: Sequence[Unit] = ()
    typed: frozenset[str] = frozenset()  # font families of the page's typed values (labels.typed_families)
    boxed_typing: bool = False  # the page shows values typed alone into boxes of their own (labels.lone_typed_units)

    @property
    def kb(self) -> BBox:
        return self.key.bbox

    @property
    def h(self) -> float:
        return self.key.height

    def unit(self, inside: Sequence[Unit], area: BBox) -> Unit:
        return value_unit(inside, area, self.doc_id, self.page)


def value_for(key: Unit, texts: Sequence[Unit], r: Rulings, boxes: Sequence[Unit], used: set[str],
              doc_id: str, page: int, form_page: bool = True, typed: frozenset[str] = frozenset(),
              boxed_typing: bool = False) -> Found | None:
    """The unit holding `key`'s value and a confidence, from the places a form prints a value, tried
    in order (see the module docstring); None when no place holds one."""
    look = _Look(key, texts, r, used | {key.id}, doc_id, page, typed=typed, boxed_typing=boxed_typing)
    cx, cy = center(key.bbox)
    cell = cell_at(r, cx, cy)
    if cell is not None and contains(cell, key.bbox, 2.0):
        # a key inside a ruled cell has its value in that cell or the one beside it, nowhere else
        return _typed_beside_in_own_cell(look, cell) or _below_in_own_cell(look, cell) \
            or _typed_in_cell_below(look, cell) or _in_cell_to_the_right(look, cell)
    if cell is None and form_page:
        found = _on_rule_above(look)
        if found is not None:
            return found
    if cell is None:
        found = _below_in_open_row(look, open_row_at(r, cx, cy))
        if found is not None:
            return found
    look = replace(look, fillers=fillers_of(texts))
    for place in (_on_amount_row, _in_box_to_the_right, _on_underline, _in_box_below):
        found = place(look)
        if found is not None:
            return found
    if YEAR_PREFIX.match(key.text.strip()):
        return None  # ", 20" labels only a ruled blank, never the printed text beside it
    found = _typed_past_line_number(look) if form_page else None
    if found is not None:
        return found
    if not form_page or (key.category not in LOOSE_KEY_CATEGORIES and not COLON_END.search(key.text)):
        return None  # text beside text inside a table or figure is a row of data, not a filled field
    if not key_like(key, form_page):
        # a long question ("…? Is it too hot or too cold?") labels only what was typed under it
        return _typed_below(look, QUESTION_END.search(key.text) or COLON_END.search(key.text))
    found = _text_to_the_right(look) or _text_below_colon_key(look)
    if found is not None and _print_like_its_key(look, found[0]):
        found = None
    return found or _typed_below(look, False)


def _print_like_its_key(look: _Look, value: Unit) -> bool:
    """On a page whose values were typed into boxes of their own, in a typeface of their own, text beside
    or under a caption in the caption's own face and size is the form's print (a letterhead's "IBAN:
    AT92 …", "Adresse:" over its street), not a value filled in. (Lines under captions in another face
    alone are no such sign: a font without a script's glyphs falls back to another for those lines.)"""
    key = look.key
    return bool(look.boxed_typing and value.font and key.font) and font_family(value.font) == font_family(key.font) \
        and same_size(value, key)


SIGNATURE_LINE = 300.0  # pt: a date or signature line; a rule across the page is a separator


def _on_rule_above(look: _Look) -> Found | None:
    """A short caption centred just under a rule ("________ / Datum", "________ / Signature") names
    what is written on that rule: the text standing on it, else the empty line. A caption with an
    underline of its own starting right after it ("Zip: ____" under the line above) names that one."""
    kb, h = look.kb, look.h
    if _on_underline(look) is not None:
        return None
    width = kb[2] - kb[0]
    for y, a, b in look.r.h:
        if not (kb[1] - 0.8 * h <= y <= kb[1] + 0.3 * h and a <= kb[0] - 2 and b >= kb[2] + 2):
            continue
        if not (2 * width <= b - a <= SIGNATURE_LINE and abs((kb[0] + kb[2]) / 2 - (a + b) / 2) <= 0.2 * (b - a)):
            continue
        area = (a, y - max(2.2 * h, 16.0), b, y + 1)
        inside = [u for u in _inside(look.texts, area, look.exclude) if y - max(u.height, 8.0) <= u.bbox[3] <= y + 1.5]
        return look.unit(inside, area), 0.7
    return _typed_on_rule_above(look)


def _typed_on_rule_above(look: _Look) -> Found | None:
    """A caption printed under the left end of a rule ("________ / LAST", captions under their lines)
    names the line typed on that rule, when it stands there alone in one of the page's typed faces and
    not the caption's (print on a rule above a caption is the row above's, not this caption's value).
    A caption ending in a colon asks for what follows it, not for the line above."""
    kb, h, key = look.kb, look.h, look.key
    if not look.typed or not key.font or COLON_END.search(key.text):
        return None
    for y, a, b in look.r.h:
        if not (kb[1] - 0.8 * h <= y <= kb[1] + 0.3 * h and a - h <= kb[0] <= a + h and b >= kb[2] + 2 * h):
            continue
        area = (a - 1, y - max(2.5 * h, 16.0), b + 1, y + 1)
        inside = [u for u in _inside(look.texts, area, look.exclude) if y - max(u.height, 8.0) <= u.bbox[3] <= y + 2]
        if len(inside) == 1 and inside[0].font and font_family(inside[0].font) in look.typed \
                and font_family(inside[0].font) != font_family(key.font) and _valueish(inside[0]):
            return inside[0], 0.65
    return None


TYPED_AFTER = 4.0  # text heights from a caption's end to a value typed after it in its cell (a column of
# a table row is further: test_3854's "N/M" and "22CRATES" stand 113 pt apart)


def _typed_beside_in_own_cell(look: _Look, cell: BBox) -> Found | None:
    """A caption at the left of its cell with a line typed after it in the same cell ("CASE NUMBER
    1,234.56"): the nearest text to its right on its row, inside the cell and close after it, set in
    one of the page's typed faces (labels.typed_families) and not the caption's, is the value."""
    key = look.key
    if not key.font or not look.typed:
        return None
    right = [u for u in _inside(look.texts, cell, look.exclude) if same_row(u.bbox, key.bbox)
             and 0 <= u.bbox[0] - key.bbox[2] + 1 <= TYPED_AFTER * key.height]
    if not right:
        return None
    nearest = min(right, key=lambda u: u.bbox[0])
    family = font_family(nearest.font) if nearest.font else ""
    if family in look.typed and family != font_family(key.font) and _valueish(nearest) and not _key_like_colon(nearest):
        return nearest, 0.7
    return None


def _below_in_own_cell(look: _Look, cell: BBox) -> Found | None:
    """A label at the top of a tall cell: the value is written below it, in the same cell."""
    kb, h = look.kb, look.h
    at_top = kb[1] - cell[1] <= max(6.0, 1.2 * h)
    if not (at_top and _room_below(look, cell)):
        return None
    return _written_below(look, cell, 0.75)


def _room_below(look: _Look, cell: BBox) -> bool:
    """Room for a line under the key inside its cell: a tall cell, not a caption strip a label fills."""
    return cell[3] - look.kb[3] >= max(8.0, 0.8 * look.h)


def _written_below(look: _Look, region: BBox, confidence: float) -> Found | None:
    """What is written below the key inside the ruled `region` it heads (a cell or an open row)."""
    kb, texts, exclude = look.kb, look.texts, look.exclude
    area = (region[0] + 1, kb[3], region[2] - 1, region[3] - 1)
    beside = [u for u in _inside(texts, (region[0], region[1], region[2], kb[3]), exclude) if u.bbox[0] > kb[2]]
    below = _inside(texts, area, exclude)
    # a second label beside this one, or this label running on below, is not a filled value
    if not beside and not _continues_label(look.key, below) and not _data_row(texts, region, kb, exclude):
        return look.unit(below, area), confidence
    return None


def _typed_in_cell_below(look: _Look, cell: BBox) -> Found | None:
    """A caption filling a strip of its own over an input box (a government form's cell: the caption
    ruled off at the top, the filled box under it): the one short line alone in the box right under
    the strip is the value when it is set larger than the caption, whatever its face (a filler types
    in the form's own Helvetica too). A table's column head over its data is set in the data's size
    or larger; a face of its own is no sign either (a value typed over the next box down is in one)."""
    kb, h, key = look.kb, look.h, look.key
    if _room_below(look, cell) or len(key.text.strip()) > STRIP_CAPTION_CHARS:
        return None  # a sentence ruled off over a box is the form's print, not a caption strip
    below = cell_at(look.r, min(kb[0] + h, (kb[0] + kb[2]) / 2), cell[3] + 1.5)
    if below is None or below[1] < cell[3] - 2.0 or abs(below[0] - cell[0]) > h \
            or below[3] - below[1] > CELL_BELOW_LINES * h:
        return None
    inside = _inside(look.texts, below, look.exclude)
    if len(inside) != 1 or not short_typed_line(inside[0]) or not _valueish(inside[0]) or _key_like_colon(inside[0]):
        return None
    value = inside[0]
    return (value, 0.75) if value.size > key.size and not same_size(key, value) else None


STRIP_CAPTION_CHARS = 64  # a caption's length (MAX_KEY_CHARS for Latin text)
CELL_BELOW_LINES = 6.0  # caption heights an input box under its caption's strip may stand (a two-line address)


def _in_cell_to_the_right(look: _Look, cell: BBox) -> Found | None:
    """A label filling a short cell: the value is in the cell to its right, of about its height."""
    kb, h = look.kb, look.h
    if _room_below(look, cell):
        return None
    cy = center(kb)[1]
    right = cell_at(look.r, cell[2] + 1.5, cy)
    # the gap between a frame's two rules (a button's double border) is no box: a value needs a character's width
    if right is not None and right[1] <= cy <= right[3] and (right[3] - right[1]) <= 2.5 * (cell[3] - cell[1]) \
            and right[2] - right[0] >= h:
        inside = _inside(look.texts, right, look.exclude)
        if not inside or not _key_like_colon(inside[0]):
            return look.unit(inside, right), 0.8
    return None


def _below_in_open_row(look: _Look, row: BBox | None) -> Found | None:
    """A label at the top of a ruled row open at its sides: the value is written below it."""
    kb, h = look.kb, look.h
    if row is None or not (kb[1] - row[1] <= max(6.0, 1.2 * h) and row[3] - kb[3] >= max(8.0, 0.8 * h)
                           and row[0] - 2 <= kb[0] and kb[2] <= row[2] + 2):
        return None
    return _written_below(look, row, 0.6)


def _on_amount_row(look: _Look) -> Found | None:
    amount = _amount_row(look.key, look.texts, look.r, look.fillers, look.exclude)
    if amount is None:
        return None
    inside = _inside(look.texts, amount, look.exclude | _line_number_ids(look.texts, amount, look.key))
    return look.unit(inside, amount), 0.75


def _in_box_to_the_right(look: _Look) -> Found | None:
    """A box on the key's row, to its right (across a filler of dots or a short gap)."""
    kb, h, r, texts, exclude = look.kb, look.h, look.r, look.texts, look.exclude
    cy = center(kb)[1]
    walls = sorted(x for x, a, b in r.v if x >= kb[2] - 1 and a - 1 <= cy <= b + 1
                   and (x - kb[2] <= 160 or bridged(kb[2], x, kb, look.fillers)))
    for x in walls[:2]:
        box = comb_run(r, cell_at(r, x + 1.5, cy))
        if box is not None and box[0] >= kb[2] - 2 and box[3] - box[1] <= max(4.5 * h, 30) \
                and not _text_between(label_candidates(texts), kb[2], box[0], kb, exclude):
            inside = _inside(texts, box, exclude)
            owner = any(key_like(u) and _labels_own_cell(u, box) for u in _inside(texts, box, {look.key.id}))
            if not owner and (not inside or not (_key_like_colon(inside[0]) or _labels_own_cell(inside[0], box))):
                return look.unit(inside, box), 0.8
    return None


def _on_underline(look: _Look) -> Found | None:
    """An underline starting just right of the key, at its baseline. What stands on it is its value, also
    when it was typed taller than the caption (a filler's auto-sized font) and its middle rises above the
    caption's top: it is still set on the line, its foot in the caption's row."""
    kb, h = look.kb, look.h
    for y, a, b in look.r.h:
        if kb[3] - 0.5 * h <= y <= kb[3] + 0.8 * h and a >= kb[2] - max(3.0, 0.5 * h) and a - kb[2] <= 40 and b - a >= 8:
            area = (a, kb[1] - 2, b, y)
            if not _text_between(look.texts, kb[2], a, kb, look.exclude):
                return look.unit(_inside(look.texts, area, look.exclude) or _standing_on(look, a, b, y), area), 0.7
    return None


def _standing_on(look: _Look, a: float, b: float, y: float) -> list[Unit]:
    """Text on the line from a to b at height y that rises above the caption's row: taller than the caption,
    its foot on the line (within a third of the caption's height), the rest above it."""
    kb, h = look.kb, look.h
    tall = (a, y - TALL_VALUE * h, b, y)
    return [u for u in _inside(look.texts, tall, look.exclude)
            if u.height > h and y - h / 3 <= u.bbox[3] <= y + h / 3 and u.bbox[1] < kb[1]]


TALL_VALUE = 3.0  # caption heights a value typed on a caption's underline may stand tall


def _in_box_below(look: _Look) -> Found | None:
    """A box directly below the key (a label over a multi-line text box)."""
    for b in _boxes_below(look.r, look.kb, look.h):
        if not _text_between_rows(look.texts, look.kb, b, look.exclude):
            return look.unit(_inside(look.texts, b, look.exclude), b), 0.7
    return None


def _typed_past_line_number(look: _Look) -> Found | None:
    """A tax form's line with no box drawn ("1. Interest income ....... 1. [amount]"): the line's number,
    printed at the row's start and again on the key's row far right of it in the key's size, then a short
    line set unlike both right after it (typed, not printed, labels.amount_after) is the key's value,
    however far the caption ends from the amount column. Whatever the key's category: a page read as one
    figure too."""
    kb, key = look.kb, look.key
    # a dot leader between the caption and the number is no text of its own
    row = sorted((u for u in look.texts if u.id not in look.exclude and same_row(u.bbox, kb) and u.bbox[0] >= kb[2] - 1
                  and _valueish(u)), key=lambda u: u.bbox[0])
    if len(row) < 2 or not printed_line_number(row[0], key) or not numbers_its_row(row[0], look.texts):
        return None
    after = amount_after(row[0], look.texts)
    if after is None or after is not row[1] or same_style(after, key) or _key_like_colon(after):
        return None
    return after, 0.6


def _text_to_the_right(look: _Look) -> Found | None:
    """Printed text on the key's row, to its right, after a colon or a clear gap."""
    kb, h, key = look.kb, look.h, look.key
    right = [u for u in look.texts if u.id not in look.exclude and same_row(u.bbox, kb) and u.bbox[0] >= kb[2] - 1
             and u.bbox[0] - kb[2] <= max(200.0, 10 * h) and _valueish(u)]
    if right:
        nearest = min(right, key=lambda u: u.bbox[0])
        gap = nearest.bbox[0] - kb[2]
        if not _key_like_colon(nearest) and (COLON_END.search(key.text) or gap >= 1.5 * h):
            return nearest, 0.6
    return None


QUESTION_END = re.compile(r"[?？]\s*$")


def _text_below_colon_key(look: _Look) -> Found | None:
    """A key ending in ： takes the text directly below it; a key ending in ： or ? (a question)
    also takes what was typed under it (_typed_below)."""
    kb, h, key = look.kb, look.h, look.key
    if COLON_END.search(key.text):
        below = [u for u in look.texts if u.id not in look.exclude and _valueish(u) and u.bbox[1] >= kb[3] - 1
                 and u.bbox[1] - kb[3] <= 1.0 * h and abs(u.bbox[0] - kb[0]) <= 1.5 * h]
        if below:
            nearest = min(below, key=lambda u: u.bbox[1])
            if not _key_like_colon(nearest):
                return nearest, 0.5
    return _typed_below(look, QUESTION_END.search(key.text) or COLON_END.search(key.text))


def _typed_below(look: _Look, asks: object) -> Found | None:
    """Under a caption that asks (ends in ： or ?), the first line below it, at its left
    edge, alone on its row and set in another size than the caption (within 2.5 heights: a layout
    model's tight line boxes leave more room than the text's own): what was typed under the
    question on a filled form (print below a caption is in the caption's size). Under any caption,
    a line set in the page's typed typeface (a family only its captioned short lines use) and not
    the caption's."""
    kb, h, key = look.kb, look.h, look.key
    below = [u for u in look.texts if u.id not in look.exclude and u.bbox[1] >= kb[3] - 1
             and u.bbox[1] - kb[3] <= 2.5 * h and abs(u.bbox[0] - kb[0]) <= 1.5 * h]
    if not below:
        return None
    nearest = min(below, key=lambda u: u.bbox[1])
    typed = other_family(nearest, key) and font_family(nearest.font) in look.typed
    if not (asks or typed):
        return None
    if not _valueish(nearest) or _key_like_colon(nearest) or nearest.rows or (same_size(nearest, key) and not typed):
        return None
    if any(u.id != nearest.id and same_row(u.bbox, nearest.bbox) for u in look.texts):
        return None
    return nearest, 0.5


def _boxes_below(r: Rulings, kb: BBox, h: float) -> list[BBox]:
    """Closed boxes whose top edge lies just under the key and that start near the key's left."""
    out = []
    for y, a, b in r.h:
        if kb[3] - 1 <= y <= kb[3] + 1.6 * h and a <= kb[0] + 2 * h and b >= kb[0] + 4 and a >= kb[0] - 4 * h:
            box = cell_at(r, min(max(kb[0] + 4, a + 2), b - 2), y + 2.5)
            if box is not None and abs(box[1] - y) <= 1.5 and box[3] - box[1] >= 1.2 * h:
                out.append(box)
    return sorted(set(out), key=lambda bx: bx[1])[:1]


def _text_between_rows(texts: Sequence[Unit], kb: BBox, box: BBox, exclude: set[str]) -> bool:
    return any(u.id not in exclude and u.bbox[1] >= kb[3] - 1 and u.bbox[3] <= box[1] + 1
               and u.bbox[0] < box[2] and u.bbox[2] > box[0] for u in texts)


def _valueish(u: Unit) -> bool:
    """Words or digits: a bullet beside a label is not its value, nor an instruction ("▶ Go to …")."""
    text = u.text.strip()
    return bool(WORDY.search(text) or re.search(r"\d", text)) and not text.startswith(("▶", "►", "→", "•"))


def _data_row(texts: Sequence[Unit], cell: BBox, kb: BBox, exclude: set[str]) -> bool:
    """A ruled band where a neighbouring column holds several lines below the label's line (an
    address table: "Georgia | Palmetto GBA / P.O. Box … / Columbia, SC") is a row of a printed
    table; a form row's neighbours hold a label and at most one filled-in line each."""
    columns: dict[int, int] = {}
    for u in texts:
        if u.id in exclude or not (u.bbox[1] >= cell[1] - 1 and u.bbox[3] <= cell[3] + 1):
            continue
        if cell[0] - 1 <= (u.bbox[0] + u.bbox[2]) / 2 <= cell[2] + 1 or (u.bbox[1] + u.bbox[3]) / 2 <= kb[3]:
            continue
        col = round(u.bbox[0] / 6)
        # two lines when taller than two of its own lines, or (size unknown) than two of the key's: a
        # value typed large beside a 5-point caption is one line
        lines = max(len(u.rows), 2 if u.height > 1.8 * max(kb[3] - kb[1], u.size) else 1)
        columns[col] = columns.get(col, 0) + lines
    return any(n >= 2 for n in columns.values())


def _labels_own_cell(u: Unit, box: BBox) -> bool:
    """Text at the top of a box with a blank under it: that box is the field of its own label."""
    return u.bbox[1] - box[1] <= max(4.0, 0.6 * u.height) and box[3] - u.bbox[3] >= max(8.0, 0.8 * u.height)


def _continues_label(key: Unit, below: Sequence[Unit]) -> bool:
    """Text under a label that belongs to the label's own text block and is set in the label's size
    (a label on several lines), or ends in a colon, continues the label rather than filling the
    field. Text of another size in the same block is what was filled in (a flattened form's value
    lands in the block of the caption above it)."""
    return any((u.element_id is not None and u.element_id == key.element_id and same_size(u, key))
               or _key_like_colon(u) for u in below)


def _key_like_colon(u: Unit) -> bool:
    return bool(COLON_END.search(u.text))


def _text_between(texts: Sequence[Unit], x0: float, x1: float, row: BBox, exclude: set[str]) -> bool:
    return any(u.id not in exclude and same_row(u.bbox, row) and u.bbox[0] >= x0 - 1 and u.bbox[2] <= x1 + 1
               for u in texts)


def _line_number_ids(texts: Sequence[Unit], area: BBox, key: Unit) -> set[str]:
    return {u.id for u in _inside(texts, area, set()) if printed_line_number(u, key)}


def printed_line_number(u: Unit, key: Unit) -> bool:
    """A line's printed number ("6" in the box before the amount) is set in the form's own size; a
    digit in another size was filled in (a one-digit code box)."""
    return bool(LINE_NUMBER.match(u.text.strip())) and same_size(u, key)


def _amount_row(key: Unit, texts: Sequence[Unit], r: Rulings, fillers: Sequence[Unit],
                exclude: set[str]) -> BBox | None:
    """A row of adjacent boxes on a rule under the key's line, reached across dot leaders (a US
    form's "Tentative total tax . . . . 6 [dollars][cents]"): a leading box holding only the line
    number is not the value, the first other box is, and the boxes right after it (cents, a second
    code digit) continue the same field."""
    kb, h = key.bbox, key.height
    cy = (kb[1] + kb[3]) / 2
    rules = [(y, a, b) for y, a, b in r.h if kb[3] - 0.5 * h <= y <= kb[3] + 0.8 * h and b > kb[2]]
    walls = sorted(x for x, a, b in r.v if x >= kb[2] - 1 and a - 1 <= cy <= b + 1)
    if not rules or len(walls) < 2:
        return None
    first = walls[0]
    if first - kb[2] > 40 and not bridged(kb[2], first, kb, fillers):
        return None
    if _text_between(label_candidates(texts), kb[2], first, kb, exclude):
        return None
    cells: list[BBox] = []
    for x0, x1 in zip(walls, walls[1:]):
        bottom = next((y for y, a, b in rules if a <= x0 + 2.5 and b >= x1 - 2.5), None)
        if bottom is None or x1 - x0 < 6:
            break
        top = max([a for x, a, b in r.v if abs(x - x0) <= 1.5 and a - 1 <= cy <= b + 1] + [kb[1] - 2])
        cells.append((x0, min(top, kb[1] - 1), x1, bottom))
    if cells:  # the rule may run on past the last wall: an open-ended last box (cents at the margin)
        x0 = cells[-1][2]
        tail = [b for y, a, b in rules if abs(y - cells[-1][3]) <= 1 and a <= x0 + 2.5]
        if tail and 8 <= max(tail) - x0 <= cells[-1][2] - cells[-1][0]:
            cells.append((x0, cells[-1][1], max(tail), cells[-1][3]))
    if len(cells) < 2:
        return None  # one box: the plain box and underline rules decide
    inside = [_inside(texts, c, exclude) for c in cells]
    start = 0
    while start < len(cells) - 1 and inside[start] and all(printed_line_number(u, key) for u in inside[start]):
        start += 1
    # an amount or code box is narrow and holds a short value, not a line of print; words set in
    # another size than the key's were filled in ("AB016 Lee" is a value, not a label)
    if cells[start][2] - cells[start][0] > 160 or any(
            (key_like(u) and same_size(u, key)) or not _valueish(u) or len(u.text.strip()) > 30 for u in inside[start]):
        return None
    end = start
    # an empty box after it continues the field (cents, a second code digit); a box that holds text
    # of its own was filled in as a field of its own (a filled form's cents widget)
    while end + 1 < len(cells) and not inside[end + 1] \
            and cells[end + 1][2] - cells[end + 1][0] <= cells[start][2] - cells[start][0]:
        end += 1
    return union_box(cells[start:end + 1])
