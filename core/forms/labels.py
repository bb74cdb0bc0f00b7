"""Labels and key candidates: the text that names a widget, a mark or a radio group, the text
that can be a field's key, and the signs that a page is a form at all.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Sequence

from core.categories import Category
from core.forms.rulings import Rulings, cell_at, frame_of
from core.forms.units import DOT_LEADER_END, Unit, same_row, same_style, strip_mark_glyphs
from core.geometry import contains, overlap_area
from core.model import BBox, Page

C = Category

# categories whose units can be a key (a heading or a footnote is not a field label)
KEY_CATEGORIES = (C.TEXT, C.LIST_ITEM, C.FORM_FIELD, C.TABLE)
MAX_KEY_CHARS = 40
LONG_KEY_CHARS = 110  # ×1.6 for Latin text: a US form's "Number, street, and room or suite no. (If …)"


# ---- labels for widgets and marks ---------------------------------------------------------------
WORDY = re.compile(r"[^\W\d_]", re.UNICODE)


def row_box(u: Unit, target: BBox) -> BBox:
    """The box of `u` on `target`'s row: its line there when it is a paragraph, else its box."""
    for box in u.rows:
        if same_row(box, target):
            return box
    return u.bbox


def label_candidates(units: Sequence[Unit], exclude: Sequence[BBox] = ()) -> list[Unit]:
    out = []
    for u in units:
        if u.kind != "text" or not WORDY.search(strip_mark_glyphs(u.text)):
            continue
        if any(overlap_area(u.bbox, b) > 0.6 * max(overlap_area(u.bbox, u.bbox), 1e-6) for b in exclude):
            continue
        out.append(u)
    return out


def fillers_of(units: Sequence[Unit]) -> list[Unit]:
    """Text with no letters (dot leaders, ▶ arrows): bridges between a label and its box."""
    return [u for u in units if u.kind == "text" and not WORDY.search(strip_mark_glyphs(u.text))]


def bridged(x0: float, x1: float, row: BBox, fillers: Sequence[Unit], step: float = 22.0) -> bool:
    """True when dot leaders / arrows run (with gaps under `step`) from x0 to x1 on `row`'s line."""
    xs = sorted((u.bbox[0], u.bbox[2]) for u in fillers
                if same_row(u.bbox, row) and u.bbox[2] > x0 - 1 and u.bbox[0] < x1 + 1)
    reach = x0
    for a, b in xs:
        if a - reach > step:
            return False
        reach = max(reach, b)
    return x1 - reach <= step


def mark_label(mark: BBox, labels: Sequence[Unit], used: set[str], marks: Sequence[BBox] = (),
               fillers: Sequence[Unit] = ()) -> Unit | None:
    """Nearest label to the right on the same line; to the left when there is none on the right
    (across dot leaders: "check here . . . . ▶ ☐")."""
    right, left = [], []
    for u in labels:
        box = row_box(u, mark)
        if u.id in used or not same_row(box, mark):
            continue
        middle = (mark[0] + mark[2]) / 2  # a label's box may start with spaces over the mark
        if box[0] >= middle:
            gap = max(0.0, box[0] - mark[2])
            if gap <= 60 and not _mark_between(mark[2], box[0], mark, marks):
                right.append((gap, u.id, u))
        elif box[2] <= middle:
            gap = max(0.0, mark[0] - box[2])
            if _mark_between(box[2], mark[0], mark, marks):
                continue
            if gap <= 320 or bridged(box[2], mark[0], mark, fillers):
                left.append((gap, u.id, u))
    if right:
        return min(right)[2]
    return min(left)[2] if left else None


def _mark_between(x0: float, x1: float, row: BBox, marks: Sequence[BBox]) -> bool:
    return any(x0 - 0.5 <= (m[0] + m[2]) / 2 <= x1 + 0.5 and same_row(m, row) for m in marks)


def widget_label(box: BBox, labels: Sequence[Unit], used: set[str], fillers: Sequence[Unit] = ()) -> Unit | None:
    """The visible label of a text widget: left of it on the same row (across dot leaders), or
    just above its left part. A label another widget took is still allowed, at a cost, so one
    greedy choice does not push every later widget onto the wrong text."""
    best: tuple[float, str, Unit] | None = None
    for u in labels:
        h = u.height
        line = row_box(u, box)
        slack = max(2.0, 0.25 * (line[3] - line[1]))
        if line[2] <= box[0] + slack and same_row(line, box):
            score = max(0.0, box[0] - line[2])
            if score > 250 and not bridged(line[2], box[0], box, fillers):
                continue
            if score > 60 and bridged(line[2], box[0], box, fillers):
                score = 30.0
        elif u.bbox[3] <= box[1] + 0.5 * h and box[1] - u.bbox[3] <= max(2.2 * h, 14) \
                and box[0] - 8 <= u.bbox[0] <= box[2] - 4:
            score = 2.0 * max(0.0, box[1] - u.bbox[3]) + 0.05 * abs(u.bbox[0] - box[0]) + 2
        elif contains(box, u.bbox, 1.0) and u.bbox[0] - box[0] < 0.3 * (box[2] - box[0]):
            score = 30.0  # a label printed inside the field's own box
        else:
            continue
        if u.id in used:
            score += 60.0
        if best is None or (score, u.id) < best[:2]:
            best = (score, u.id, u)
    return best[2] if best else None


def group_label(area: BBox, labels: Sequence[Unit], used: set[str]) -> Unit | None:
    """A radio group's heading: left of its first row, or just above it."""
    first_row = (area[0], area[1], area[2], area[1] + 14)
    best: tuple[float, str, Unit] | None = None
    for u in labels:
        if u.id in used:
            continue
        h = u.height
        if u.bbox[2] <= area[0] + 2 and same_row(u.bbox, first_row) and area[0] - u.bbox[2] <= 200:
            score = area[0] - u.bbox[2]
        elif u.bbox[3] <= area[1] + 1 and area[1] - u.bbox[3] <= 2.5 * h and abs(u.bbox[0] - area[0]) <= 40:
            score = 3.0 * (area[1] - u.bbox[3]) + abs(u.bbox[0] - area[0])
        else:
            continue
        if best is None or (score, u.id) < best[:2]:
            best = (score, u.id, u)
    return best[2] if best else None


# ---- key candidates -----------------------------------------------------------------------------
_SENTENCE_END = re.compile(r"[。．]$|[a-z]{3,}\.$")
_NUMBERISH = re.compile(r"^[\d\s,.\-/:¥￥$%円年月日()（）]+$")
COLON_END = re.compile(r"[:：]\s*$")
LINE_NUMBER = re.compile(r"^\d{1,2}[a-z]?\.?$")  # a form line's printed number ("6", "8a", "1.")
YEAR_PREFIX = re.compile(r"^[,，、]\s*(?:19|20)$")  # "…, 20" before a two-digit year blank


def key_like(u: Unit, form_page: bool = True, max_chars: int = MAX_KEY_CHARS) -> bool:
    """Could this unit be a field's key? On a page that looks like a form, text inside a region the
    parser called a picture counts too (a ruled form block is often read as a vector figure)."""
    text = strip_mark_glyphs(u.text)
    # on a form page, text the parser called a picture or a table of contents (dot leaders) counts
    categories = KEY_CATEGORIES + ((C.PICTURE, C.DOCUMENT_INDEX) if form_page else ())
    # a bold caption ending in a colon ("Date:") is read as a heading by the layout step, and one set in
    # a monospace face ("Task name:") as code; on a form page it is the label of the blank after it
    # (the gate's own count of colon labels leaves it out)
    if form_page and COLON_END.search(text):
        categories += (C.SECTION_HEADER, C.CODE)
    if not text or u.category not in categories or u.kind != "text":
        return False
    if u.comb:
        return False  # printed one character per cell: typed into a comb field, never its caption
    if not WORDY.search(text) and not YEAR_PREFIX.match(text.strip()):
        return False
    latin = not any(0x3000 <= ord(ch) <= 0x9FFF or 0xFF00 <= ord(ch) <= 0xFFEF for ch in text)
    if len(text) > max_chars * (1.6 if latin else 1) or "\n" in text.strip():
        return False
    if YEAR_PREFIX.match(text.strip()):
        return True  # "…, 20__": the printed century of a year to complete labels the blank after it
    if _NUMBERISH.match(COLON_END.sub("", text)):
        return False  # "2019年3月:" or "23,800" is a value or a date, not a label
    if COLON_END.search(text):
        return True
    return not _SENTENCE_END.search(text)


def bullet(mark: Unit, label: Unit) -> bool:
    """A drawn ring or dot (not a square box) whose label on the right is a whole sentence."""
    if mark.source == "widget" or label.bbox[0] < (mark.bbox[0] + mark.bbox[2]) / 2:
        return False
    text = strip_mark_glyphs(label.text).strip()
    latin = not any(0x3000 <= ord(ch) <= 0x9FFF for ch in text)
    sentence = text.endswith(("。", "．")) or len(text) > (200 if latin else 40)
    return sentence and (mark.round or mark.text.strip() in ("●", "○", "◯", "") or len(label.rows) > 1)


def form_signal(page: Page, units: Sequence[Unit], rulings: Rulings | None = None) -> bool:
    """Strong evidence that a page is a form: a check box with a short label of its own (not a
    bullet before a sentence), three short labels ending in a colon, or (given the page's
    rulings) two captions each with a ruled box of its own right beside it."""
    texts = [u for u in units if u.kind == "text"]
    colon_keys = sum(1 for u in texts if COLON_END.search(u.text) and len(u.text.strip()) <= 40
                     and key_like(u, False))  # "2019年3月:" in a timeline is a date, not a label
    if colon_keys >= 3:
        return True
    if rulings is not None and len(captioned_boxes(texts, rulings)) >= 2:
        return True
    if rulings is not None and len(captions_over_boxes(texts, rulings)) >= 2:
        return True
    if captioned_blanks(units) >= 2:
        return True
    # filled in and flattened: values typed into boxes of their own, whatever prints their captions
    if rulings is not None and lone_typed_boxes(texts, rulings) >= LONE_BOXES:
        return True
    if captioned_lines_in_own_font(texts) >= TYPED_LINES:  # ... or unboxed, beside or under their captions
        return True
    if amount_lines(texts) >= AMOUNT_LINES:  # ... or past their lines' numbers printed again (no box drawn)
        return True
    if rulings is not None and len(lines_on_blanks(texts, rulings)) >= LONE_BOXES:  # ... or on blanks in sentences
        return True
    labels = label_candidates(texts)
    marks = [u for u in units if u.kind == "mark" and u.source != "widget"]
    if row_of_marks(marks):
        return True
    boxes = [m.bbox for m in marks]
    fillers = fillers_of(texts)
    for m in marks:
        label = mark_label(m.bbox, labels, set(), boxes, fillers)
        if label is None or bullet(m, label):
            continue
        text = strip_mark_glyphs(label.text).strip()
        latin = not any(0x3000 <= ord(ch) <= 0x9FFF for ch in text)
        if len(text) <= (40 if latin else 16):
            return True
    return False


MARK_ROW = 3  # equal marks side by side on one row that show a form with no label printed for them
MARK_SIZE = 0.15  # how far (share of the larger) two marks' widths or heights may differ and be one kind of box


def row_of_marks(marks: Sequence[Unit]) -> bool:
    """MARK_ROW or more check boxes or radio buttons of one size on one row, apart from each other
    and not all ticked: a row of a form's options, labelled or not (a row of radio buttons with
    nothing printed beside them). A chart's legend keys are swatches, all filled."""
    for m in marks:
        row = [n for n in marks if same_row(n.bbox, m.bbox) and _same_box_size(n.bbox, m.bbox)]
        apart = all(overlap_area(a.bbox, b.bbox) == 0 for i, a in enumerate(row) for b in row[i + 1:])
        if len(row) >= MARK_ROW and apart and not all(n.state == "selected" for n in row):
            return True
    return False


def _same_box_size(a: BBox, b: BBox) -> bool:
    return all(abs(x - y) <= MARK_SIZE * max(x, y) for x, y in ((a[2] - a[0], b[2] - b[0]), (a[3] - a[1], b[3] - b[1])))


def page_looks_like_form(units: Sequence[Unit], rulings: Rulings, boxes: Sequence[Unit]) -> bool:
    colon_keys = sum(1 for u in units if u.kind == "text" and COLON_END.search(u.text) and len(u.text) <= 40)
    marks = sum(1 for u in units if u.kind == "mark")
    if marks >= 1 or colon_keys >= 3 or len(boxes) >= 2 or captioned_blanks(units) >= 2:
        return True
    texts = [u for u in units if u.kind == "text"]
    if captioned_lines_in_own_font(texts) >= TYPED_LINES or lone_typed_boxes(texts, rulings) >= LONE_BOXES:
        return True
    if amount_lines(texts) >= AMOUNT_LINES:
        return True
    return len(captioned_boxes(texts, rulings)) >= 2 or len(captions_over_boxes(texts, rulings)) >= 2


AMOUNT_LINES = 2  # numbered lines, each with an amount typed past its number printed again, that show a form
LINE_NUMBER_GAP = 120.0  # pt from a line's number printed before its amount column to the amount (right-aligned in it)
LONG_VALUE_CHARS = 64  # a typed amount, name or date; a line of print is longer


def numbers_its_row(number: Unit, texts: Sequence[Unit]) -> bool:
    """A line's number printed again before its amount column: the row opens with the same number, alone
    ("1.") or leading the caption ("1. Interest …")."""
    n = number.text.strip().rstrip(".")
    if not LINE_NUMBER.match(number.text.strip()):
        return False
    lead = re.compile(rf"{re.escape(n)}\.?(\s|$)")
    return any(u is not number and same_row(u.bbox, number.bbox) and u.bbox[2] < number.bbox[0]
               and lead.match(u.text.strip()) for u in texts)


def amount_after(number: Unit, texts: Sequence[Unit]) -> Unit | None:
    """The short line typed right after a line's number printed before its amount column, set unlike the
    number (typed, not printed), when there is one."""
    right = [u for u in texts if u is not number and same_row(u.bbox, number.bbox) and u.bbox[0] >= number.bbox[2] - 1
             and (WORDY.search(u.text) or re.search(r"\d", u.text))]
    after = min(right, key=lambda u: u.bbox[0], default=None)
    if after is None or same_style(after, number) or after.bbox[0] - number.bbox[2] > LINE_NUMBER_GAP \
            or len(after.text.strip()) > LONG_VALUE_CHARS or COLON_END.search(after.text):
        return None
    return after


def amount_lines(texts: Sequence[Unit]) -> int:
    """Numbered lines whose amount was typed past the number printed again before the amount column (a tax
    schedule with no box drawn: "1. Interest income … 1. 1,234.56")."""
    return sum(1 for u in texts if numbers_its_row(u, texts) and amount_after(u, texts) is not None)


def captioned_blanks(units: Sequence[Unit]) -> int:
    """Blanks printed as underscores ("what? ________"), each right after a short caption on its row."""
    texts = [u for u in units if u.kind == "text"]
    return sum(1 for b in units if b.kind == "line" and any(
        key_like(u, False) and same_row(u.bbox, b.bbox) and 0 <= b.bbox[0] - u.bbox[2] <= 2 * u.height for u in texts))


# typed values a page needs to show itself a form when each stands alone in a box of its own, in a
# font of its own (all of wild/: pages with one, but for a form with widgets, dates_save: 3)
LONE_BOXES = 2
# ... when unboxed, each by its caption in a typeface of its own: as many as the colon labels above
# (all of wild/: pages with one but for pages of two forms, test_3854 and hello-world)
TYPED_LINES = 3
# (at one half, wild camelot vertical_header's township names in Calibri under ArialMT lines read as
# values: 69 fields; at two thirds and above wild/ is as without the share)
TYPED_SHARE = 2 / 3
CAPTION_GAP = 120.0  # pt between a caption's end and the left wall of its box (captions in a column, boxes in the next)


def captioned_boxes(texts: Sequence[Unit], rulings: Rulings) -> list[BBox]:
    """Ruled boxes sized like an input line, each with a short caption printed just left of it on
    its row, the caption itself outside any box ("Name [________]"), and empty or holding one line
    of text set unlike the caption (typed, not printed). A filled form, flattened, keeps these boxes whether or
    not anything was typed in them; a table's cells or a slide's boxes hold print in the caption's
    own style."""
    if not rulings.v:
        return []
    out: list[BBox] = []
    for u in texts:
        if not key_like(u, False) or len(strip_mark_glyphs(u.text)) > MAX_KEY_CHARS * 1.6:
            continue
        kb, h = u.bbox, u.height
        cy = (kb[1] + kb[3]) / 2
        if cell_at(rulings, (kb[0] + kb[2]) / 2, cy) is not None:
            continue
        walls = [x for x, a, b in rulings.v if kb[2] - 1 <= x <= kb[2] + CAPTION_GAP and a - 1 <= cy <= b + 1]
        box = cell_at(rulings, min(walls) + 1.5, cy) if walls else None
        if box is None or box[0] < kb[2] - 2 or box in out:
            continue
        height, width = box[3] - box[1], box[2] - box[0]
        if not (0.8 * h <= height <= 4.5 * h and width >= 2 * h and box[1] <= cy <= box[3]):
            continue
        if any(v is not u and same_row(v.bbox, kb) and kb[2] - 1 <= v.bbox[0] and v.bbox[2] <= box[0] + 1 for v in texts):
            continue  # text between the caption and the box
        inside = centred_in(texts, box)
        one_line = all(same_row(v.bbox, inside[0].bbox) for v in inside)  # an input line, not a slide's list
        if one_line and not any(same_style(v, u) for v in inside):
            out.append(box)
    return out


def captions_over_boxes(texts: Sequence[Unit], rulings: Rulings) -> dict[str, BBox]:
    """Caption id → the ruled box right under it: a short one-line caption outside any box, over a box
    sized like an input line that starts under its first letter, stands apart (no closed box across
    any of its walls: a table's cells do) and is empty or holds one line set unlike the caption (a web
    form's "Company name" over its field). The fast engine often reads such a bold caption as a heading."""
    out: dict[str, BBox] = {}
    for u in texts:
        text = strip_mark_glyphs(u.text)
        if u.kind != "text" or not text or len(text) > MAX_KEY_CHARS * 1.6 or "\n" in text.strip() \
                or u.category not in KEY_CATEGORIES + (C.SECTION_HEADER,) or not WORDY.search(text) \
                or COLON_END.search(text):
            continue  # ("JOB No.:" asks for what follows it on its row)
        kb, h = u.bbox, u.height
        if cell_at(rulings, (kb[0] + kb[2]) / 2, (kb[1] + kb[3]) / 2) is not None:
            continue
        box = cell_at(rulings, kb[0] + min(h, (kb[2] - kb[0]) / 2), kb[3] + 0.5 * h)
        if box is None or not (kb[3] - 0.2 * h <= box[1] <= kb[3] + 1.2 * h) or abs(box[0] - kb[0]) > 1.5 * h:
            continue
        if not (0.8 * h <= box[3] - box[1] <= 4.5 * h and box[2] - box[0] >= max(kb[2] - kb[0], 4 * h)) \
                or _boxed_in(rulings, box):
            continue
        inside = centred_in(texts, box)
        # a caption printed on the box's row, just left of it, is the box's ("S/O No. [OSTHYS…]")
        beside = any(v is not u and same_row(v.bbox, box) and 0 <= box[0] - v.bbox[2] <= CAPTION_GAP
                     and key_like(v, False) for v in texts)
        if len(inside) <= 1 and not any(same_style(v, u) for v in inside) and not beside:
            out[u.id] = box
    return out


def centred_in(texts: Sequence[Unit], box: BBox) -> list[Unit]:
    """The texts whose centre lies in `box` (edges included), in page order."""
    return [u for u in texts if box[0] <= (u.bbox[0] + u.bbox[2]) / 2 <= box[2]
            and box[1] <= (u.bbox[1] + u.bbox[3]) / 2 <= box[3]]


def _boxed_in(rulings: Rulings, box: BBox) -> bool:
    """A closed box across one of `box`'s walls: `box` is a cell of a grid, not a box of its own."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(cell_at(rulings, x, y) is not None
               for x, y in ((box[0] - 3, cy), (box[2] + 3, cy), (cx, box[1] - 3), (cx, box[3] + 3)))


def font_family(font: str) -> str:
    """"ABCDEF+Arial-BoldMT" → "arial": a bold and a regular line of one family are one typeface (a
    table's bold head over its body), a value typed in the filler's font is another."""
    return re.split(r"[-,+]", font.split("+")[-1])[0].lower().removesuffix("mt").removesuffix("ps")


def other_family(a: Unit, b: Unit) -> bool:
    """Both fonts known and of two families: one line typed, the other printed (an unknown font tells nothing)."""
    return bool(a.font and b.font) and font_family(a.font) != font_family(b.font)


def short_typed_line(v: Unit) -> bool:
    """One short line with a known font: what a filler types into a field (a paragraph is print)."""
    return bool(v.font) and len(v.text.strip()) <= MAX_KEY_CHARS * 1.6 and "\n" not in v.text.strip()


def lone_typed_boxes(texts: Sequence[Unit], rulings: Rulings) -> int:
    """How many values typed into boxes of their own the page shows (lone_typed_units)."""
    return len(lone_typed_units(texts, rulings))


def lone_typed_units(texts: Sequence[Unit], rulings: Rulings) -> list[tuple[BBox, Unit]]:
    """Ruled boxes standing apart (no closed box across any of their walls), each holding one short line
    set in a font family that no text outside such boxes uses, with the line: values typed into a
    form's boxes, the captions printed elsewhere or not at all. A table's cell has a neighbour cell
    across each wall; a figure's node labels share the caption's or the body's font."""
    held: list[tuple[BBox, Unit]] = []
    for v in texts:
        if not short_typed_line(v):
            continue
        # a value typed into a comb runs across its cells' walls: the comb is its box
        box = frame_of(rulings, v.bbox) or cell_at(rulings, (v.bbox[0] + v.bbox[2]) / 2, (v.bbox[1] + v.bbox[3]) / 2)
        if box is None or box[2] - box[0] < 2 * v.height:
            continue
        inside = centred_in(texts, box)
        if len(inside) == 1 and inside[0] is v:
            held.append((box, v))
    boxed = {id(v) for _, v in held}
    families = {font_family(u.font) for u in texts if id(u) not in boxed and u.font}

    return [(box, v) for box, v in held if font_family(v.font) not in families and not _boxed_in(rulings, box)]


BLANK_LONGER = 1.5  # a written-on blank runs this many times the written line's width, at least
RULE_BELOW = 0.5  # text heights below the line's box bottom a rule may lie and still be its baseline's


def lines_on_blanks(texts: Sequence[Unit], rulings: Rulings) -> list[Unit]:
    """Short lines each written on a rule much longer than itself, at the rule's start, in no closed box, set in a font
    family that no text off such rules uses: values typed into a form's blanks ("I, ______, do hereby
    grant ..."), the sentence around them printed in another face. An underlined heading or link is as
    long as its rule."""
    on: list[Unit] = []
    for v in texts:
        if not short_typed_line(v) or sum(ch.isalnum() for ch in v.text) < 2:
            continue
        width, h = v.bbox[2] - v.bbox[0], v.height
        if cell_at(rulings, (v.bbox[0] + v.bbox[2]) / 2, (v.bbox[1] + v.bbox[3]) / 2) is not None:
            continue  # in a closed box the rule under it is the box's floor (lone_typed_units reads boxes)
        if any(v.bbox[3] - 0.35 * h <= y <= v.bbox[3] + RULE_BELOW * h and a - 2 <= v.bbox[0] <= a + 2 * h
               and b >= v.bbox[2] and b - a >= BLANK_LONGER * width for y, a, b in rulings.h):
            on.append(v)
    written = {id(v) for v in on}
    families = {font_family(u.font) for u in texts if id(u) not in written and u.font}
    return [v for v in on if font_family(v.font) not in families]


def captioned_lines_in_own_font(texts: Sequence[Unit]) -> int:
    """Short lines, each with a short caption just left of it on its row or right above it, set in a
    font family used mostly by such lines (typed_families): values a filler typed, unboxed, beside
    or under the captions of a form printed in another typeface."""
    families = typed_families(texts)
    return sum(1 for v in texts if v.font and font_family(v.font) in families)


def typed_caption(v: Unit, texts: Sequence[Unit]) -> Unit | None:
    """The caption `v` was typed beside or under, when `v` is a short line set in another family than
    that caption (what typed_families counts), else None."""
    if not short_typed_line(v) or sum(ch.isalnum() for ch in v.text) < 2 or v.category is Category.TITLE:
        return None  # a formula's "=" in a math font, a title in a display face: print, not typing
    return next((u for u in _captions_of(v, texts) if other_family(u, v) and _caption_like(u)), None)


def printed_caption(v: Unit, texts: Sequence[Unit], typed: frozenset[str]) -> Unit | None:
    """The caption a typed line `v` sits after or under, printed in none of the page's typed faces
    (another typed value is no caption), read past a dot leader ("2. Total doctor expenses ....")."""
    return next((u for u in _captions_of(v, texts) if u.font and font_family(u.font) not in typed
                 and _caption_like(u)), None)


def _caption_like(u: Unit) -> bool:
    """Could `u` be a caption, read without the dot leader it runs into its box with?"""
    return key_like(replace(u, text=DOT_LEADER_END.sub("", u.text)), True, LONG_KEY_CHARS)


def _captions_of(v: Unit, texts: Sequence[Unit]) -> list[Unit]:
    """The text just left of `v` on its row (a caption's blank away at most), then the texts right over it,
    nearest first."""
    out = []
    # a paragraph stands beside the line by its line on that row, not by its whole box
    left = [(row_box(u, v.bbox), u) for u in texts if u is not v]
    left = sorted(((box, u) for box, u in left if same_row(box, v.bbox) and box[2] <= v.bbox[0] + 1),
                  key=lambda bu: -bu[0][2])
    # a line's number printed before its amount box (a 1040's "3 … 3 [K9|059]"), or an arrow or dot
    # leader pointing to it, is no caption: the caption is the text before it
    while len(left) > 1 and (LINE_NUMBER.match(left[0][1].text.strip()) or not WORDY.search(left[0][1].text)):
        left = left[1:]
    if left:
        box, u = left[0]
        if _caption_gap(u, box) <= v.bbox[0] - box[2] <= CAPTION_GAP:
            out.append(u)
    over = [u for u in texts if u is not v and -TOP_OVERLAP * v.height <= v.bbox[1] - u.bbox[3] <= 1.5 * u.height
            and u.bbox[0] < v.bbox[2] and u.bbox[2] > v.bbox[0] and abs(v.bbox[0] - u.bbox[0]) <= 3 * u.height]
    # nearest first: in a column of captioned cells the value of the cell above is over a value too,
    # farther up than its own caption (two side by side at one height are no one caption)
    over.sort(key=lambda u: -u.bbox[3])
    if len(over) > 1 and over[0].bbox[3] - over[1].bbox[3] <= 1.0:
        return out
    return out + over


# how far (share of its height) a line's box may reach up into the caption over it: a value typed in a
# larger size than the caption right under it (a US government form's cell, its caption in 5-point
# print at the top) has a box whose ascent overlaps the caption's descent
TOP_OVERLAP = 0.25


def _caption_gap(caption: Unit, box: BBox) -> float:
    """The least blank between a caption and a line typed after it: half a text height, so that a
    sentence changing face midway is no caption and its value; none after a caption ending in a colon
    on that row, which asks for what follows it (a form's blank starts right after "Zip:")."""
    ends_row = box == caption.bbox or caption.rows[-1:] == (box,)
    return -1.0 if ends_row and COLON_END.search(caption.text) else 0.5 * (box[3] - box[1])


def typed_families(texts: Sequence[Unit], rulings: Rulings | None = None) -> frozenset[str]:
    """The font families of the page's typed lines (captioned_lines_in_own_font): families whose
    lines are, for TYPED_SHARE of them or more, short lines that each have a caption beside or over
    them in another family (`rulings`: see typed_lines)."""
    typed = typed_lines(texts, rulings)
    # a family is typed when TYPED_SHARE of its lines or more are such lines: one value typed with no
    # caption close to it (a second line, a caption printed far off) does not make the face print
    lines = Counter(font_family(u.font) for u in texts if u.font)
    captioned = Counter(font_family(v.font) for v in texts if v.id in typed)
    return frozenset(f for f, n in captioned.items() if n >= TYPED_SHARE * lines[f])


def typed_lines(texts: Sequence[Unit], rulings: Rulings | None = None) -> set[str]:
    """Ids of the lines typed beside or under a caption in another family (typed_caption), and of the
    lines typed right after one of those on its row in its face (the rest of a row of values typed
    after one caption: a 1040's cents after its dollars) and, given the page's `rulings`, right under
    one in its column, in its face and size, on the next ruled row (the rest of a column of values
    typed under one caption: a list of accounts). The rule between them is what tells a column of
    boxes from a paragraph's next line, which stands as close in the same face."""
    # an amount typed past its line's number printed again is typed too, its caption far off (a 1040)
    typed = {v.id for v in texts if typed_caption(v, texts) is not None} | set(line_captions(texts))
    fresh = set(typed)
    while fresh:
        fresh = {v.id for v in texts if v.id not in typed and short_typed_line(v)
                 and any(u.id in fresh for u in (*_typed_before(v, texts), *_typed_above(v, texts, rulings)))}
        typed |= fresh
    return typed


def line_captions(texts: Sequence[Unit]) -> dict[str, Unit | None]:
    """Amount id → its line's caption, for each short amount typed right after a line's number printed
    again before the amount column: the wordy text nearest left of that number on its row ("19
    Unemployment compensation . . . 19 [amount]"), None when the row prints only its number."""
    out: dict[str, Unit | None] = {}
    for number in texts:
        if not numbers_its_row(number, texts):
            continue
        amount = amount_after(number, texts)
        if amount is None or not short_typed_line(amount):
            continue
        left = [u for u in texts if u is not number and same_row(u.bbox, number.bbox)
                and u.bbox[2] <= number.bbox[0] + 1 and WORDY.search(u.text) and not LINE_NUMBER.match(u.text.strip())]
        out[amount.id] = max(left, key=lambda u: u.bbox[2], default=None)
        # the cents typed after the dollars in the line's next box are the line's too
        cents = [u for u in texts if u is not amount and same_row(u.bbox, amount.bbox)
                 and 0 <= u.bbox[0] - amount.bbox[2] <= 2 * amount.height and short_typed_line(u)
                 and font_family(u.font) == font_family(amount.font)]
        nearest = min(cents, key=lambda u: u.bbox[0], default=None)
        if nearest is not None:
            out.setdefault(nearest.id, out[amount.id])
    return out


COLUMN_ALIGN = 3.0  # pt two lines' left edges may differ and still start one column


def _typed_above(v: Unit, texts: Sequence[Unit], rulings: Rulings | None) -> list[Unit]:
    """The line right over `v` in its column (left edges aligned, less than a line's height of blank
    between them, a rule between them under both left edges), when set in `v`'s family and size:
    the next row of one column of values."""
    if rulings is None or not rulings.h:
        return []
    height = v.bbox[3] - v.bbox[1]
    over = [u for u in texts if u is not v and not u.rows and abs(u.bbox[0] - v.bbox[0]) <= COLUMN_ALIGN
            and u.bbox[1] < v.bbox[1] and v.bbox[1] - u.bbox[3] < height]
    nearest = max(over, key=lambda u: u.bbox[3], default=None)
    if nearest is None or not nearest.font or font_family(nearest.font) != font_family(v.font) \
            or abs((nearest.size or 0) - (v.size or 0)) > 0.5:
        return []
    left = min(nearest.bbox[0], v.bbox[0])
    ruled = any((nearest.bbox[1] + nearest.bbox[3]) / 2 < y < (v.bbox[1] + v.bbox[3]) / 2
                and a <= left + 2 and b >= left + min(nearest.bbox[2] - nearest.bbox[0], v.bbox[2] - v.bbox[0]) - 2
                for y, a, b in rulings.h)
    return [nearest] if ruled else []


def _typed_before(v: Unit, texts: Sequence[Unit]) -> list[Unit]:
    """The line right before `v` on its row, within a caption's gap, when set in `v`'s family."""
    left = [u for u in texts if u is not v and not u.rows and same_row(u.bbox, v.bbox)
            and u.bbox[2] <= v.bbox[0] + 1 and v.bbox[0] - u.bbox[2] <= CAPTION_GAP]
    nearest = max(left, key=lambda u: u.bbox[2], default=None)
    return [nearest] if nearest is not None and nearest.font and font_family(nearest.font) == font_family(v.font) else []
