"""The block maker: the last step of a page's evidence (core/chunks/evidence.py). Once captions and
footnotes are attached (core/chunks/attachment.py), `BlockMaker` cuts the page's body into blocks."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Mapping

from core.categories import Category
from core.chunks.attachment import Attacher, footnote_marker, footnote_number, marker_position
from core.chunks.blocks import (
    ATOMIC, FLOW, FORM_CATEGORIES, GROUP, HEADING, HEADINGS, NOTE, REFONLY, TABLE, TEXT_PRODUCING, Block, Piece,
)
from core.chunks.pieces import (
    _CLOSERS, fenced, guess_code_language, is_header_row, normalise_formula, sentence_pieces, split_sentences,
    row_groups, table_rows,
)
from core.chunks.policy import Action, Policy
from core.chunks.sections import heading_style
from core.geometry import coverage, horizontal_overlap, union, vertical_overlap
from core.model import Element, freeze_attrs
from core.text import join_lines, nfkc

C = Category


class BlockMaker:
    """The page's body cut into the blocks the chunker packs (headings, flow, list runs, atomic
    figures/formulas/code, tables, notes), each attached caption and footnote glued into its
    target's pieces."""

    def __init__(self, page_number: int, policy: Policy, attached: Attacher,
                 continued: Mapping[str, list[Element]]):
        self.page_number, self.policy = page_number, policy
        self.flow = attached.flow
        self.glued = attached.glued
        self.notes = attached.notes
        self.continued = continued
        self.pending: list[Piece] = []  # footnotes whose sentence goes on in the next text block

    def blocks(self) -> list[Block]:
        blocks: list[Block] = []
        i = 0
        while i < len(self.flow):
            e = self.flow[i]
            if e.category is C.PICTURE and self.policy.action(C.PICTURE) is Action.ATOMIC_CHUNK:
                start = i
                while (i + 1 < len(self.flow) and self.flow[i + 1].category is C.PICTURE
                       and self.flow[i + 1].attr("side") == e.attr("side")):
                    i += 1
                i = self._figure_end(start, i)
                blocks.append(self._picture(self.flow[start:i + 1], start))
            elif e.category is C.CODE and self.policy.action(C.CODE) is Action.ATOMIC_CHUNK:
                run = [e]  # a code block read as one element per line is still one block
                while (i + 1 < len(self.flow) and self.flow[i + 1].category is C.CODE
                       and self.flow[i + 1].attr("side") == e.attr("side")):
                    i += 1
                    run.append(self.flow[i])
                blocks.append(self._atomic(run, i - len(run) + 1))
            elif e.category is C.LIST_ITEM and self._groups_lists() and self._is_body(e):
                run = [e]
                while (i + 1 < len(self.flow) and self.flow[i + 1].category is C.LIST_ITEM
                       and self.flow[i + 1].attr("side") == e.attr("side")):
                    i += 1
                    run.append(self.flow[i])
                blocks.append(self._group(run))
            else:
                carried, self.pending = self.pending, []
                block = self._block(e, i)
                if block is None:
                    self.pending = carried + self.pending
                else:
                    blocks = self._place_carried(blocks, block, carried)
            i += 1
        blocks = self._place_carried(blocks, None, self.pending)
        self.pending = []
        blocks = merge_marker_blocks(blocks)
        blocks.extend(Block(NOTE, self.page_number, n.seq, (self._source_piece(n),), side=n.attr("side"))
                      for n in self.notes)
        return blocks

    def _place_carried(self, blocks: list[Block], block: Block | None, notes: list[Piece]) -> list[Block]:
        """Notes whose sentence went on past their block: after the first sentence end of the next
        text block, else (a heading, figure or table comes next, or nothing) at the end of theirs."""
        if notes and block is not None and block.kind == FLOW and block.pieces:
            at = _sentence_end(list(block.pieces), 0, self.policy.sentence_ends)
            return blocks + [_glue_after(block, at, notes)]
        if notes and blocks and blocks[-1].pieces:
            blocks = blocks[:-1] + [_glue_after(blocks[-1], len(blocks[-1].pieces) - 1, notes)]
        elif notes:
            blocks = blocks + [Block(NOTE, n.elements[0].page, n.elements[0].seq, (n,)) for n in notes]
        return blocks + ([block] if block is not None else [])

    def _groups_lists(self) -> bool:
        return bool(self.policy.param(C.LIST_ITEM, "group"))

    def _is_body(self, e: Element) -> bool:
        return self.policy.action(e.category) is Action.CHUNK

    def _block(self, e: Element, index: int) -> Block | None:
        action = self.policy.action(e.category)
        side = e.attr("side")
        if e.category in HEADINGS:
            in_text = action in TEXT_PRODUCING and e.text.strip()
            pieces = self._with_glue(e, [Piece(e.text.strip(), (e,))]) if in_text else ()
            return Block(HEADING, e.page, e.seq, tuple(pieces), level=heading_style(e),
                         heading=" ".join(e.text.split()), heading_size=e.attr("size"), side=side)
        if e.category in FORM_CATEGORIES:
            action = Action.CHUNK  # core.forms.fields did not take them: plain text, so nothing is lost
        if action is Action.ATOMIC_CHUNK and e.category is C.TABLE:
            return self._table(e)
        if action is Action.ATOMIC_CHUNK:
            return self._atomic([e], index)
        if e.id in self.continued:
            return Block(FLOW, e.page, e.seq, (self._source_piece(e),), side=side)
        text = self._text_of(e)
        if not text.strip() and not self.glued.get(e.id):
            return Block(REFONLY, e.page, e.seq, (Piece("", (e,)),), side=side) if e.category is C.PICTURE else None
        pieces = self._with_glue(e, sentence_pieces(e, text.strip(), self.policy) if text.strip() else [],
                                 defer=e.category in (C.TEXT, C.LIST_ITEM))
        return Block(FLOW, e.page, e.seq, tuple(pieces), side=side, extras=_element_extras(e))

    def _text_of(self, e: Element) -> str:
        if e.category is C.TABLE:
            return "\n".join(table_rows(e))
        if e.category is C.FORMULA:
            return normalise_formula(e.text)
        if e.category is C.CODE:
            return fenced(e.text, guess_code_language(e.text))
        return e.text

    def _source_piece(self, src: Element) -> Piece:
        lines = self.continued.get(src.id, [])
        return Piece(join_lines([src.text] + [e.text for e in lines]), (src, *lines))

    def _with_glue(self, target: Element, pieces: list[Piece], defer: bool = False) -> list[Piece]:
        """Captions go before the target's text; a footnote goes right after the end of the sentence
        holding its marker (so a split never separates them, and never between a 、 and the rest),
        else after the target's last sentence. `defer`: a text block that ends mid-sentence hands
        its notes on to the text block that finishes the sentence (`pending`)."""
        pieces = list(pieces)
        noted: set[int] = set()  # pieces a note was glued after: their sentence ended there
        for src in self.glued.get(target.id, ()):
            glue = self._source_piece(src)
            if src.category is C.FOOTNOTE:
                pattern = footnote_marker(src.text)
                at = len(pieces) - 1
                if pattern is not None:
                    at = next((k for k, p in enumerate(pieces) if marker_position(pattern, p.text) is not None), at)
                else:
                    at = self._sup_mark_piece(target, src, pieces, at)
                at = _sentence_end(pieces, at, self.policy.sentence_ends, noted)
                noted.add(at)
                if defer and at == len(pieces) - 1 and at >= 0 and pieces[at].text.rstrip().endswith(_RUNS_ON):
                    self.pending.append(glue)
                elif at < 0:
                    pieces.append(glue)
                else:
                    p = pieces[at]
                    pieces[at] = Piece(p.text + "\n" + glue.text, p.elements + glue.elements, p.joins_previous)
                    _new_line_after(pieces, at)
            else:
                if pieces:
                    p = pieces[0]
                    pieces[0] = Piece(glue.text + "\n" + p.text, glue.elements + p.elements, p.joins_previous)
                else:
                    pieces.append(glue)
        return pieces

    @staticmethod
    def _sup_mark_piece(target: Element, note: Element, pieces: list[Piece], default: int) -> int:
        """The sentence holding a raised reference number. The text keeps only a plain digit glued
        to the word before it ("バイアス11等", "calls.1"), which ordinary numbers can look like, so
        only an unambiguous sentence is chosen."""
        number = footnote_number(note.text)
        if number is None or number not in (target.attr("sup_marks") or ()):
            return default
        glued = re.compile(f"(?<![\\d\\s]){number}(?!\\d)")
        found = [k for k, p in enumerate(pieces) if glued.search(nfkc(p.text))]
        return found[0] if len(found) == 1 else default

    def _group(self, items: list[Element]) -> Block:
        pieces: list[Piece] = []
        for item in items:
            pieces.extend(self._with_glue(item, sentence_pieces(item, item.text.strip(), self.policy)))
        return Block(GROUP, items[0].page, items[0].seq, tuple(pieces), side=items[0].attr("side"),
                     extras=(("procedure", True),))

    def _table(self, e: Element) -> Block:
        rows = table_rows(e)
        glued = self.glued.get(e.id, [])
        captions = [self._source_piece(s) for s in glued if s.category is not C.FOOTNOTE]
        notes = [self._source_piece(s) for s in glued if s.category is C.FOOTNOTE]
        if not rows:
            rows = [""]
        repeat = bool(self.policy.param(C.TABLE, "repeat_header")) and len(rows) > 1 and is_header_row(rows[0])
        header = [Piece(rows[0], (e,))] if repeat else []
        body = [Piece("\n".join(g), (e,)) for g in row_groups(rows[1:] if repeat else rows, self.policy.max_chars)]
        return Block(TABLE, e.page, e.seq, tuple(body), head=tuple(captions + header), tail=tuple(notes),
                     side=e.attr("side"), extras=_element_extras(e))

    def _picture(self, run: list[Element], index: int) -> Block:
        """One figure, possibly drawn as several image boxes side by side: captions, the text
        inside the pictures, then footnotes; the text around it is kept as `nearby_text`."""
        glued = [s for e in run for s in self.glued.get(e.id, [])]
        parts = [self._source_piece(s) for s in glued if s.category is not C.FOOTNOTE]
        parts += [Piece(e.text.strip(), (e,)) for e in run if e.text.strip()]
        parts += [self._source_piece(s) for s in glued if s.category is C.FOOTNOTE]
        extras: list[tuple[str, Any]] = []
        refs = [r for e in run for r in _element_extras(e)]
        if refs:
            extras.append(("image_ref", refs[0][1] if len(refs) == 1 else tuple(v for _, v in refs)))
        nearby = int(self.policy.param(C.PICTURE, "nearby_chars") or 0)
        if nearby:
            before = self._neighbour_text(index, -1)
            after = self._neighbour_text(index + len(run) - 1, +1)
            if before or after:
                extras.append(("nearby_text", freeze_attrs({"before": before[-nearby:], "after": after[:nearby]})))
        bare = tuple(e for e in run if not e.text.strip())
        if not parts:  # bare images: their boxes go with the text around them
            return Block(REFONLY, run[0].page, run[0].seq, (Piece("", bare),), side=run[0].attr("side"),
                         extras=tuple(extras))
        if bare:
            parts[0] = Piece(parts[0].text, bare + parts[0].elements)
        return Block(ATOMIC, run[0].page, run[0].seq, tuple(parts), side=run[0].attr("side"), extras=tuple(extras))

    def _figure_end(self, start: int, end: int) -> int:
        """Where the figure that starts at flow[start] ends. One diagram is often several picture
        elements with its labels read as text between them (a slide's boxes and arrows): split
        into chunks, a question naming two of its labels finds neither chunk whole. Pictures of the
        page within `figure_gap` points of the figure join it, with the text read between them that
        lies inside the figure's box, while the figure fits max_chars; a heading, a table, or text
        outside the box ends it. flow[start:end + 1] are pictures read one after another, one
        figure already."""
        gap = int(self.policy.param(C.PICTURE, "figure_gap"))
        if gap < 0 or not any(e.text.strip() for e in self.flow[start:end + 1]):
            return end  # bare images already go with the text around them
        members = _picture_cluster(self.flow, start, end, gap)
        boxes = [self.flow[k].bbox for k in members]
        box = union(boxes)
        size = sum(len(self.flow[k].text.strip()) + 1 for k in range(start, end + 1))
        for k in range(end + 1, max(members) + 1):
            e = self.flow[k]
            if k not in members and not self._figure_label(e, box, boxes):
                break
            size += len(e.text.strip()) + 1
            if size > self.policy.max_chars:
                break
            if k in members:
                end = k  # labels join only when a picture of the figure comes after them
        return end

    def _figure_label(self, e: Element, box, pictures) -> bool:
        """Text inside the figure: in its box, and sharing rows with one of its pictures and columns
        with one (not in a band across the figure that no picture reaches: the title or caption between
        two figures stacked one above the other, or set side by side)."""
        return (e.category in _LABEL_CATEGORIES and e.id not in self.continued and not self.glued.get(e.id)
                and coverage(e.bbox, box) >= _LABEL_INSIDE
                and any(vertical_overlap(e.bbox, b) > 0 for b in pictures)
                and any(horizontal_overlap(e.bbox, b) > 0 for b in pictures))

    def _atomic(self, run: list[Element], index: int) -> Block:
        e = run[0]
        extras = [x for el in run for x in _element_extras(el)]
        label = e.category in (C.FORMULA, C.CODE)
        source = "\n".join(el.text.rstrip() for el in run)
        if e.category is C.CODE:
            text = fenced(source, guess_code_language(source))
            extras.append(("language", guess_code_language(source)))
        else:
            text = self._text_of(e)
        if e.category in (C.FORMULA, C.CODE) and self.policy.param(e.category, "context_before"):
            before = split_sentences(self._neighbour_text(index, -1), self.policy.sentence_ends)
            if before:
                extras.append(("context_before", before[-1].strip()))
        pieces = [Piece(text.strip(), tuple(run))]
        for el in run:
            pieces = self._with_glue(el, pieces)
        return Block(ATOMIC, e.page, e.seq, tuple(pieces), label_section=label, side=e.attr("side"),
                     extras=tuple(extras))

    def _neighbour_text(self, index: int, step: int) -> str:
        j = index + step
        while 0 <= j < len(self.flow):
            n = self.flow[j]
            if n.category in (C.TEXT, C.LIST_ITEM) and n.text.strip():
                return n.text.strip()
            if n.category in HEADINGS:
                return ""
            j += step
        return ""


_LABEL_CATEGORIES = (C.TEXT, C.LIST_ITEM, C.CAPTION)  # what a figure's labels are read as
_LABEL_INSIDE = 0.8  # share of a label's box inside the figure's box


def _picture_cluster(flow: list[Element], start: int, end: int, gap: float) -> set[int]:
    """Flow indexes of the pictures with text of their own (same page, same side) linked to
    flow[start:end + 1] through a chain of boxes each within `gap` points of the next. A bare image
    (a rendered formula, an icon) is no label of a figure: it stays with the text around it."""
    first = flow[start]
    candidates = [k for k in range(end + 1, len(flow)) if flow[k].category is C.PICTURE and flow[k].text.strip()
                  and flow[k].page == first.page and flow[k].attr("side") == first.attr("side")]
    members = set(range(start, end + 1))
    grown = True
    while grown:
        grown = False
        for k in candidates:
            if k not in members and any(_box_gap(flow[k].bbox, flow[m].bbox) <= gap for m in members):
                members.add(k)
                grown = True
    return members


def _box_gap(a, b) -> float:
    """Points between two boxes (0 when they touch or overlap): the larger of the two axis gaps."""
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return max(dx, dy)


def _element_extras(e: Element) -> tuple[tuple[str, Any], ...]:
    extras = []
    if e.attr("image_ref"):
        extras.append(("image_ref", e.attr("image_ref")))
    return tuple(extras)


_RUNS_ON = ("、", "，", ",")  # a block ending so ends mid-sentence: the sentence goes on in the next block


def ends_sentence(text: str, ends: str) -> bool:
    stripped = text.rstrip().rstrip(_CLOSERS)
    return bool(stripped) and (stripped[-1] in ends or stripped[-1] == ".")


def _sentence_end(pieces: list[Piece], at: int, ends: str, noted: set[int] = frozenset()) -> int:
    """The piece that ends the sentence piece `at` begins (a long sentence is cut at line ends).
    A piece in `noted` already has a note glued after its sentence, so its text ends with the note,
    not the 。: it still ends the sentence (else a sentence's second note slid to the next sentence,
    and every later note of the paragraph one further: ＊24 after the sentence after its mark's)."""
    while 0 <= at < len(pieces) - 1 and at not in noted and not ends_sentence(pieces[at].text, ends):
        at += 1
    return at


def _glue_after(block: Block, at: int, notes: list[Piece]) -> Block:
    pieces = list(block.pieces)
    p = pieces[at]
    text = "\n".join([p.text] + [n.text for n in notes])
    pieces[at] = Piece(text, p.elements + tuple(e for n in notes for e in n.elements), p.joins_previous)
    _new_line_after(pieces, at)
    return replace(block, pieces=tuple(pieces))


def _new_line_after(pieces: list[Piece], at: int) -> None:
    """The sentence after a glued note starts a line of its own, not glued to the note's end."""
    if at + 1 < len(pieces) and pieces[at + 1].joins_previous:
        pieces[at + 1] = replace(pieces[at + 1], joins_previous=False)


_LONE_MARKER = re.compile(r"^(?:[*＊※]\s*\d{1,3}|注\s*\d{1,3}|[¹²³⁴⁵⁶⁷⁸⁹⁰]+|\(\d{1,2}\)|（\d{1,2}）)$")


def is_lone_marker(text: str) -> bool:
    """A footnote mark and nothing else ("＊4", "※1", "注3", "¹"): never a chunk of its own."""
    return bool(_LONE_MARKER.match(nfkc(text.strip())) or _LONE_MARKER.match(text.strip()))


def merge_marker_blocks(blocks: list[Block]) -> list[Block]:
    """A block holding only a footnote mark (and the notes glued to it) joins the text block before
    it (the body that holds the mark, or the figure whose source line it ends), else the one after;
    the mark's text is added only when that block does not already show it."""
    out: list[Block] = []
    waiting: list[Block] = []
    for block in blocks:
        if _is_marker_block(block):
            target = next((k for k in range(len(out) - 1, -1, -1) if _can_absorb(out[k])), None)
            if target is None:
                waiting.append(block)
            else:
                out[target] = _absorb(out[target], block, at_end=True)
            continue
        if waiting and _can_absorb(block):
            for w in waiting:
                block = _absorb(block, w, at_end=False)
            waiting = []
        out.append(block)
    return out + waiting


def _is_marker_block(block: Block) -> bool:
    if block.kind not in (FLOW, GROUP) or not block.pieces or not block.pieces[0].elements:
        return False
    own = block.pieces[0].elements[0]
    others = [e for p in block.pieces for e in p.elements if e is not own]
    return is_lone_marker(own.text) and all(e.category is C.FOOTNOTE for e in others)


def _can_absorb(block: Block) -> bool:
    return bool(block.pieces) and block.kind in (FLOW, GROUP, ATOMIC, TABLE)


def _absorb(block: Block, marker: Block, at_end: bool) -> Block:
    own = marker.pieces[0].elements[0]
    mark = own.text.strip()
    whole = "\n".join(p.text for p in marker.pieces).strip()
    notes = whole[len(mark):].strip() if whole.startswith(mark) else whole
    elements = tuple(e for p in marker.pieces for e in p.elements)
    pieces = list(block.pieces)
    k = len(pieces) - 1 if at_end else 0
    p = pieces[k]
    shown = nfkc(mark) in nfkc("".join(q.text for q in pieces))
    if at_end:
        text = p.text + ("" if shown else mark) + ("\n" + notes if notes else "")
        pieces[k] = Piece(text, p.elements + elements, p.joins_previous)
    else:
        text = ("" if shown else mark) + ("\n" + notes + "\n" if notes else "") + p.text
        pieces[k] = Piece(text.lstrip("\n"), elements + p.elements, p.joins_previous)
    return replace(block, pieces=tuple(pieces))
