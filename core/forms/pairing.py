"""Key/value pairing of a flattened or scanned form page: labelled marks, the row labels that
group them and the radio fields they form, then each key's value (core.forms.values); the values
of a printed lookup table are dropped.

Pairing rules (issue 4, seed 001), in the order they are tried for a key:
1. a key at the top of a ruled cell with room below it (US-style "Name" over a blank) takes the
   area below it; a key that fills its cell takes the cell to its right (申請書 key|value grid);
2. a key outside any cell takes the box to its right, else the underline to its right, else the
   text to its right on the same row, else (a key ending in ：) the text directly below;
3. a selection mark (☐☑, a small square, or a round radio glyph) takes the nearest label to its
   right on the same line, to its left when there is none on the right; the row's leading label
   (経費区分 ☑交通費 ☐会議費) becomes the marks' group, and round marks under one group form a
   radio field.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from core.categories import Category
from core.forms.labels import (
    COLON_END, LONE_BOXES, LONG_KEY_CHARS, RULE_BELOW, bullet, captions_over_boxes, fillers_of, font_family, key_like,
    label_candidates, line_captions, lone_typed_units, mark_label, other_family, page_looks_like_form, printed_caption,
    short_typed_line, typed_families, typed_lines,
)
from core.forms.rulings import Rulings, cell_at, page_rulings, wall_between
from core.forms.unit_index import input_boxes
from core.forms.units import Unit, same_row, strip_mark_glyphs
from core.forms.values import LOOSE_KEY_CATEGORIES, same_style, value_for, value_unit
from core.geometry import contains
from core.model import BBox, Document, Element, Page

C = Category



@dataclass(frozen=True)
class Pair:
    kind: str  # text | mark | radio
    key: Unit | None
    value: Unit | None
    confidence: float
    group: Unit | None = None
    options: tuple[tuple[Unit, Unit | None], ...] = ()  # radio: (mark, label)


def pair_page(page: Page, units: Sequence[Unit], taken: set[str], doc_id: str,
              doc: Document | None = None) -> list[Pair]:
    """Key/value pairs and labelled marks of one flattened or scanned form page."""
    doc = doc or Document(doc_id, "", "", "", ())
    rulings = page_rulings(doc, page) if doc.pages else Rulings((), ())
    # a blank printed as underscores is an underline to write on
    rulings = Rulings(rulings.h + tuple((u.bbox[3] - 0.1 * u.height, u.bbox[0], u.bbox[2])
                                        for u in units if u.kind == "line"), rulings.v)
    boxes = input_boxes(doc, page) if doc.pages else ()
    free = [u for u in units if u.id not in taken and (u.element_id is None or u.element_id not in taken)]
    texts = [u for u in free if u.kind == "text"]
    marks = [u for u in free if u.kind == "mark"]
    pairs: list[Pair] = []
    used: set[str] = set()

    # 1. marks and their labels, then the row label as group; a line alone in an input box of its own
    # is a value typed there, never a mark's label (it is printed beside the box it names)
    typed_boxed = _typed_into_boxes(texts, rulings)
    in_own_box = {u.id for u in texts if u.id in typed_boxed or _framed_value(u, texts, rulings)}
    choices = _list_box_choices(texts, in_own_box)  # a list box's other options → its highlighted choice
    labels = label_candidates([u for u in texts if u.id not in in_own_box and u.id not in choices])
    pairs += _mark_pairs(marks, labels, texts, rulings, used)
    marks = [p.value for p in pairs if p.kind == "mark"]  # a bullet is no mark

    # 2. key/value pairs; the looser rules (text beside or below a key) only on a page that looks
    # like a form, so a report's two-column prose is not read as pairs
    tables = [e for e in page.elements if e.category is C.TABLE]
    loose_boxes = [b for b in boxes if not any(contains(t.bbox, b.bbox, 2.0) for t in tables)]
    form_page = page_looks_like_form([u for u in free if u.kind != "mark"] + marks, rulings, loose_boxes)
    data_tables = {t.id for t in tables if _data_table(t, page, form_page)}
    texts = [u for u in texts if u.element_id not in data_tables]
    value_used: set[str] = set()
    # the faces of the page's typed values: those beside or under their captions, and those typed alone
    # into boxes of their own
    typed = typed_families(texts, rulings) | {font_family(u.font) for u in typed_boxed.values() if u.font} \
        if form_page else frozenset()
    not_keys = _stacked_words(texts) | _typed_beside_captions(texts, typed, rulings)
    over_boxes = captions_over_boxes(texts, rulings) if form_page else {}
    typed_boxed = typed_boxed if form_page else {}
    # the caption of a blank printed as underscores takes its blank first: it is not the value of
    # the question printed before it on the row
    blanks = [u for u in units if u.kind == "line"]
    ordered = sorted((u for u in texts if u.id not in used and u.id not in not_keys),
                     key=lambda u: (not _captions_blank(u, blanks), round(u.bbox[1] / 4), u.bbox[0]))
    for key in ordered:
        # a label over a ruled blank may be long (US forms); the looser rules want a short key
        if key.id in used or key.id in value_used or key.id in typed_boxed or key.id in choices \
                or not (key_like(key, True, max_chars=LONG_KEY_CHARS) or key.id in over_boxes):
            continue
        found = value_for(key, texts, rulings, boxes, used | value_used, doc_id, page.number, form_page, typed,
                          bool(typed_boxed))
        if found is None:
            continue
        value, confidence = found
        if key.category is C.SECTION_HEADER and not other_family(key, value) and key.id not in over_boxes:
            continue  # a bold "…:" caption labels what was typed after it, never the print under a heading
        if value.id in choices:  # the caption over a list box takes the choice it shows highlighted
            value = choices[value.id]
            value_used.update(uid for uid, chosen in choices.items() if chosen is value)
        used.add(key.id)
        for uid in value.id.split("+"):
            value_used.add(uid)
        pairs.append(Pair("text", key, value, confidence))
    codes = _code_columns(pairs)
    kept = _one_field_per_comb([p for i, p in enumerate(pairs) if i not in codes], texts)
    kept += _continuation_boxes(kept, texts, rulings, used | value_used, doc_id, page.number)
    taken_now = used | value_used | {uid for p in kept if p.value is not None for uid in p.value.id.split("+")}
    if not form_page:
        return kept
    framed = _framed_values(texts, rulings, taken_now)
    taken_now |= {p.value.id for p in framed}
    lone = [Pair("text", None, u, 0.5) for uid, u in typed_boxed.items() if uid not in taken_now]
    taken_now |= {p.value.id for p in lone}
    return kept + framed + lone + _typed_leftovers(texts, typed, rulings, taken_now | used | set(choices))


def _typed_leftovers(texts: Sequence[Unit], typed: frozenset[str], rulings: Rulings, taken: set[str]) -> list[Pair]:
    """Lines set in one of the page's typed faces that no rule above took: values a filler typed,
    whatever the caption's place (under a caption that took an empty box beside it, after a dot
    leader and a "$", in a grid the parser read as one table). The face is the evidence: a family is
    typed only when most of its lines sit beside or under a caption in another face
    (labels.typed_families), so a report's or a form's own print never qualifies. The key is the printed
    caption the line was typed beside or under; a line with no caption is a value only where the form
    gives it a place, a ruled box or a rule under it (a byline in the filler's face has neither). A
    list box's other options are neither keys nor values."""
    out = []
    lines = line_captions(texts)
    for u in texts:
        if u.id in taken or not u.font or font_family(u.font) not in typed or COLON_END.search(u.text) \
                or not short_typed_line(u) or not strip_mark_glyphs(u.text).strip():
            continue
        # an amount typed past its line's number printed again is that line's ("19 Unemployment … 19 [ ]")
        caption = lines.get(u.id) or printed_caption(u, texts, typed)
        if caption is not None or _has_place(u, rulings):
            out.append(Pair("text", caption, u, 0.5))
    return out


def _has_place(u: Unit, rulings: Rulings) -> bool:
    """A ruled box around the line, or a rule under it as long as the line at least."""
    if cell_at(rulings, (u.bbox[0] + u.bbox[2]) / 2, (u.bbox[1] + u.bbox[3]) / 2) is not None:
        return True
    return any(u.bbox[3] - 0.35 * u.height <= y <= u.bbox[3] + RULE_BELOW * u.height and a <= u.bbox[0] + 2 and b >= u.bbox[2] - 2
               for y, a, b in rulings.h)


def _typed_beside_captions(texts: Sequence[Unit], typed: frozenset[str], rulings: Rulings) -> set[str]:
    """Lines set in one of the page's typed faces, each beside or under a caption in another face or
    after such a line on its row (labels.typed_lines): values typed after their captions, never keys
    of the text after them. A
    line ending in a colon asks for a value: a caption, whatever its face ("Nationality:" under "Female")."""
    lines = typed_lines(texts, rulings)
    return {u.id for u in texts if u.id in lines and font_family(u.font) in typed and not COLON_END.search(u.text)}


def _one_field_per_comb(pairs: Sequence[Pair], texts: Sequence[Unit]) -> list[Pair]:
    """A value made of the words of one line that ran across several combs (units.split_across_combs)
    is one field per comb, each with the key: the form prints separate fields under one caption."""
    by_id = {u.id: u for u in texts}
    out: list[Pair] = []
    for p in pairs:
        parts = [by_id.get(uid) for uid in p.value.id.split("+")] if p.kind == "text" and p.value is not None else []
        if len(parts) >= 2 and all(u is not None and "~part" in u.id for u in parts):
            out += [Pair("text", p.key, u, p.confidence) for u in parts]
        else:
            out.append(p)
    return out


def _list_box_choices(texts: Sequence[Unit], in_own_box: set[str]) -> dict[str, Unit]:
    """A list box, flattened: its options one under another at one left edge, lines of one block, the
    chosen one alone on a band of its own (the highlight, a box of its own). Each other option's id →
    the chosen line: the options are neither keys nor values, the chosen line is the list's value."""
    blocks: dict[str, list[Unit]] = {}
    for u in texts:
        if u.element_id is not None and u.id != u.element_id:  # one line of a block split into lines
            blocks.setdefault(u.element_id, []).append(u)
    out: dict[str, Unit] = {}
    for lines in [*blocks.values(), *_stacked_lines(texts)]:
        chosen = [u for u in lines if u.id in in_own_box]
        if len(lines) < 2 or len(chosen) != 1 or any(abs(u.bbox[0] - lines[0].bbox[0]) > 3 for u in lines):
            continue
        out.update((u.id, chosen[0]) for u in lines if u is not chosen[0])
    return out


def _stacked_lines(texts: Sequence[Unit]) -> list[list[Unit]]:
    """Runs of short one-line units in one font and size, each right under the one before at the same
    left edge: a list's options when the parser made each option an element of its own."""
    stacks: list[list[Unit]] = []
    for u in sorted((u for u in texts if u.font and short_typed_line(u)), key=lambda u: (u.bbox[1], u.bbox[0])):
        for stack in stacks:
            last = stack[-1]
            if abs(u.bbox[0] - last.bbox[0]) <= 3 and -0.2 * last.height <= u.bbox[1] - last.bbox[3] <= 0.3 * last.height \
                    and u.font == last.font and abs(u.height - last.height) <= 0.5:
                stack.append(u)
                break
        else:
            stacks.append([u])
    return [stack for stack in stacks if len(stack) >= 3]


def _typed_into_boxes(texts: Sequence[Unit], rulings: Rulings) -> dict[str, Unit]:
    """Lines typed into boxes of their own (labels.lone_typed_units), when the page shows enough of
    them to be a form filled in: values, never keys, whatever their box's shape (a line typed at the
    top of a tall multi-line box too); a caption is printed in the page's other face."""
    held = lone_typed_units(texts, rulings)
    return {u.id: u for _, u in held} if len(held) >= LONE_BOXES else {}


def _mark_pairs(marks: Sequence[Unit], labels: Sequence[Unit], texts: Sequence[Unit], rulings: Rulings,
                used: set[str]) -> list[Pair]:
    """Each mark with the label it takes (rule 3 of the module docstring), the row's leading label as
    its group, and a radio field for each group of round marks; the labels taken join `used`."""
    mark_boxes = [m.bbox for m in marks]
    fillers = fillers_of(texts)
    labelled: list[tuple[Unit, Unit | None]] = []
    for m in sorted(marks, key=lambda m: (round(m.bbox[1] / 4), m.bbox[0])):
        label = mark_label(m.bbox, labels, used, mark_boxes, fillers)
        if label is not None and bullet(m, label):
            continue  # a ring or dot in front of a sentence is a bullet, not a check box
        if label is not None:
            used.add(label.id)
        labelled.append((m, label))
    groups = _mark_groups(labelled, texts, used, rulings)
    pairs = [Pair("mark", label, m, 0.9 if label else 0.5, group=groups.get(m.id)) for m, label in labelled]
    by_group: dict[str, list[tuple[Unit, Unit | None]]] = {}
    heads: dict[str, Unit] = {}
    for m, label in labelled:
        g = groups.get(m.id)
        if g is not None and m.round:
            by_group.setdefault(g.id, []).append((m, label))
            heads[g.id] = g
    pairs += [Pair("radio", heads[gid], None, 0.85, options=tuple(options))
              for gid, options in by_group.items() if len(options) >= 2]
    return pairs


FRAME_THICKNESS = 40.0  # pt: an input box is a line or two high (or wide, turned); a panel is not
FRAME_FILL = 0.4  # the text's thickness against its frame's: a value fills its box, a note in a panel does not


def _framed_values(texts: Sequence[Unit], rulings: Rulings, taken: set[str]) -> list[Pair]:
    """Values with no caption: one line of text alone in a box of its own, a frame standing apart
    (no rule of it runs on past its corners, as a table's or a grid's do) and sized to the line
    (a field of a form with no printed captions, filled and flattened). Keyless: the page prints
    nothing to name them."""
    return [Pair("text", None, u, 0.5) for u in texts if u.id not in taken and _framed_value(u, texts, rulings)]


def _framed_value(u: Unit, texts: Sequence[Unit], rulings: Rulings) -> bool:
    """One line alone in a box of its own that stands apart and is sized to it (_framed_values)."""
    # a figure's or an index's words in boxes are a diagram's nodes or entries, not values
    if not strip_mark_glyphs(u.text) or u.category not in LOOSE_KEY_CATEGORIES:
        return False
    cx, cy = (u.bbox[0] + u.bbox[2]) / 2, (u.bbox[1] + u.bbox[3]) / 2
    frame = cell_at(rulings, cx, cy, max_w=400, max_h=150)
    # a line's box is a font's height, taller than the glyphs: a tight box (a list box's highlighted
    # choice) may leave it standing out by a little more than a rule's width
    if frame is None or not contains(frame, u.bbox, max(1.5, 0.15 * u.height)) or not _stands_apart(rulings, frame):
        return False
    thick = min(frame[2] - frame[0], frame[3] - frame[1])
    if thick > FRAME_THICKNESS or min(u.bbox[2] - u.bbox[0], u.height) < FRAME_FILL * thick:
        return False
    return not any(v is not u and contains(frame, v.bbox, 1.0) for v in texts)


def _stands_apart(r: Rulings, frame: BBox, reach: float = 3.0) -> bool:
    x0, y0, x1, y1 = frame
    # a rule along a side that runs on past a corner (a rule elsewhere on that line does not count)
    rows = any(abs(y - yy) <= 1.5 and a <= x1 and b >= x0 and (a < x0 - reach or b > x1 + reach)
               for y, a, b in r.h for yy in (y0, y1))
    cols = any(abs(x - xx) <= 1.5 and a <= y1 and b >= y0 and (a < y0 - reach or b > y1 + reach)
               for x, a, b in r.v for xx in (x0, x1))
    return not rows and not cols


def _captions_blank(u: Unit, blanks: Sequence[Unit]) -> bool:
    return any(same_row(u.bbox, b.bbox) and 0 <= b.bbox[0] - u.bbox[2] <= 2 * u.height for b in blanks)


def _continuation_boxes(pairs: Sequence[Pair], texts: Sequence[Unit], rulings: Rulings, taken: set[str],
                        doc_id: str, page: int) -> list[Pair]:
    """Filled boxes that continue a field on its row: the box right after the one holding a key's
    value (a wall between them, one rule under both), with text of its own that no key took and
    that is set unlike the key (typed, not printed), is a value of the same key (the cents after
    the dollars, the second digit of a two-box code)."""
    out: list[Pair] = []
    seen = set(taken)
    for p in pairs:
        if p.kind != "text" or p.value is None or not p.value.text.strip():
            continue
        value = p.value.bbox
        for _ in range(3):  # dollars | cents, or a code of a few boxes
            slot = _slot_after(rulings, value)
            inside = [u for u in texts if u.id not in seen and slot is not None
                      and slot[0] <= (u.bbox[0] + u.bbox[2]) / 2 <= slot[2] and slot[1] <= (u.bbox[1] + u.bbox[3]) / 2 <= slot[3]]
            # typed, not printed: set in another size or font than the form's caption
            if not inside or any(COLON_END.search(u.text) or key_like(u) and len(u.text.strip()) > 12
                                 or (p.key is not None and same_style(u, p.key)) for u in inside):
                break
            seen.update(u.id for u in inside)
            unit = value_unit(inside, slot, doc_id, page)
            out.append(Pair("text", p.key, unit, 0.6))
            value = unit.bbox
    return out


CONTINUATION_WIDTH = 40.0  # pt: cents and code-digit boxes are narrow; a table's next column is not


def _slot_after(r: Rulings, value: BBox) -> BBox | None:
    """The box right after a value's own box: from the first wall right of the value (the rule the
    value stands on running on under it) to the next wall or the rule's end."""
    cy = (value[1] + value[3]) / 2
    rules = [(y, a, b) for y, a, b in r.h if value[3] - 2 <= y <= value[3] + 8 and a <= value[0] + 2.5]
    for y, _, end in sorted(rules):
        walls = sorted(x for x, a, b in r.v if value[2] - 1 <= x <= min(end - 6, value[2] + 160) and a - 1 <= cy <= b + 1)
        if not walls:
            continue
        x0 = walls[0]
        x1 = min([x for x, a, b in r.v if x > x0 + 6 and a - 1 <= cy <= b + 1] + [end])
        if 6 <= x1 - x0 <= CONTINUATION_WIDTH:
            return (x0, value[1] - 2, x1, y)
    return None


def _mark_groups(labelled: Sequence[tuple[Unit, Unit | None]], texts: Sequence[Unit],
                 used: set[str], rulings: Rulings | None = None) -> dict[str, Unit]:
    """Mark id → the row's leading label (left of the row's first mark); aligned marks in the rows
    below without a label of their own share it (確認事項 ☑… / ☐… on the next line)."""
    rows: list[list[tuple[Unit, Unit | None]]] = []
    for m, label in sorted(labelled, key=lambda ml: (ml[0].bbox[1], ml[0].bbox[0])):
        if rows and same_row(rows[-1][0][0].bbox, m.bbox):
            rows[-1].append((m, label))
        else:
            rows.append([(m, label)])
    out: dict[str, Unit] = {}
    previous: tuple[Unit, float, float] | None = None  # (group, first mark x, row bottom)
    for row in rows:
        first = min(row, key=lambda ml: ml[0].bbox[0])[0]
        row_left = min(min(m.bbox[0], l.bbox[0] if l else m.bbox[0]) for m, l in row)
        cy = (first.bbox[1] + first.bbox[3]) / 2
        heads = [u for u in texts if u.id not in used and same_row(u.bbox, first.bbox)
                 and u.bbox[2] <= row_left + 2 and row_left - u.bbox[2] <= 120 and key_like(u)
                 and not wall_between(rulings, u.bbox[2], row_left, cy)]
        head = max(heads, key=lambda u: u.bbox[2]) if heads else None
        if head is None and previous is not None:
            group, x, bottom = previous
            if abs(first.bbox[0] - x) <= 4 and first.bbox[1] - bottom <= 2.2 * first.height:
                head = group
        if head is not None:
            used.add(head.id)
            for m, _ in row:
                out[m.id] = head
            previous = (head, first.bbox[0], max(m.bbox[3] for m, _ in row))
        else:
            previous = None
    return out


def _data_table(table: Element, page: Page, form_page: bool) -> bool:
    """A printed table (a caption names it, or it has more columns than a key|value grid on a page
    with no other form signal) is data: its cells are not keys and values."""
    caption = any(e.category is C.CAPTION and e.text.strip()[:1] in ("表", "T", "t")
                  and (abs(e.bbox[3] - table.bbox[1]) <= 30 or abs(e.bbox[1] - table.bbox[3]) <= 30)
                  and e.bbox[0] < table.bbox[2] and e.bbox[2] > table.bbox[0] for e in page.elements)
    columns = int(table.attr("n_cols") or 0)
    return caption or (columns > 2 and not form_page)


def _code_columns(pairs: list[Pair]) -> set[int]:
    """Indexes of pairs that form a lookup table: four or more values in one column, all short
    codes of the same shape ("01", "02", …), are a printed table, not filled-in values. A column
    whose codes are mostly set in another face than their captions was typed: a filled column of
    percentages or codes stays."""
    columns: dict[int, list[int]] = {}
    for i, p in enumerate(pairs):
        if p.kind == "text" and p.value is not None and p.value.text.strip():
            columns.setdefault(round(p.value.bbox[0] / 4), []).append(i)
    drop: set[int] = set()
    for idx in columns.values():
        shapes = [re.sub(r"[A-Za-z]", "a", re.sub(r"\d", "9", pairs[i].value.text.strip())) for i in idx]
        common = max(set(shapes), key=shapes.count) if shapes else ""
        typed = sum(pairs[i].key is not None and other_family(pairs[i].key, pairs[i].value) for i in idx)
        if len(idx) >= 4 and len(common) <= 4 and shapes.count(common) >= 0.8 * len(idx) and typed <= len(idx) / 2:
            drop.update(idx)
            drop.update(_column_header(pairs, [pairs[i].value.bbox for i in idx]))
    return drop


def _column_header(pairs: list[Pair], column: Sequence[BBox]) -> set[int]:
    """The pair whose value sits right above a dropped code column, centred on it, is that
    table's header row ("Application Is For:" | "Code"), not a filled field."""
    top = min(b[1] for b in column)
    cx = sorted((b[0] + b[2]) / 2 for b in column)[len(column) // 2]
    height = max(b[3] - b[1] for b in column)
    return {i for i, p in enumerate(pairs) if p.kind == "text" and p.value is not None and p.value.text.strip()
            and abs((p.value.bbox[0] + p.value.bbox[2]) / 2 - cx) <= 6
            and 0 <= top - p.value.bbox[3] <= 2.5 * height}


def _stacked_words(texts: Sequence[Unit]) -> set[str]:
    """Single short words stacked three or more high at one left edge, line under line ("Print /
    or / Type" beside an address block), are a vertical heading, not keys of the rows they sit on."""
    words = sorted((u for u in texts if re.fullmatch(r"[^\W\d_]{1,8}", strip_mark_glyphs(u.text).strip())),
                   key=lambda u: u.bbox[1])
    out: set[str] = set()
    for i, u in enumerate(words):
        chain = [u]
        for v in words[i + 1:]:
            last = chain[-1]
            if abs(v.bbox[0] - last.bbox[0]) <= 3 and -0.3 * last.height <= v.bbox[1] - last.bbox[3] <= 0.8 * last.height \
                    and v.bbox[1] > last.bbox[1]:
                chain.append(v)
        if len(chain) >= 3:
            out.update(c.id for c in chain)
    return out
