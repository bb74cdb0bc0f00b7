"""Attachment: captions and footnotes joined to the body elements they belong to (the rules are
listed in core/chunks/evidence.py), and the footnote markers (※1, *1, 注1, ¹, (1)) and leading
numbers the footnote rules and the block maker look for."""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Sequence

from core.categories import Category
from core.chunks.blocks import TEXT_PRODUCING, Attachment
from core.chunks.policy import Policy
from core.geometry import distance
from core.model import Element
from core.text import nfkc

C = Category


# ---- footnote markers ---------------------------------------------------------------------------
_SUPERSCRIPTS = "¹²³⁴⁵⁶⁷⁸⁹⁰"
_MARKER_PATTERNS = (
    # (how the footnote starts, how a reference to it looks in the body); {n} = the number
    (re.compile(r"^\s*※\s*(\d+)"), r"※\s*{n}(?!\d)"),
    (re.compile(r"^\s*[*＊]\s*(\d+)"), r"[*＊]\s*{n}(?!\d)"),
    (re.compile(r"^\s*[(（]?\s*注\s*(\d+)"), r"注\s*{n}(?!\d)"),
    (re.compile(r"^\s*[(（]\s*(\d+)\s*[)）]"), r"[(（]\s*{n}\s*[)）]"),
)


def footnote_marker(text: str) -> re.Pattern[str] | None:
    """A pattern finding this footnote's marker in body text, or None when it has no numbered marker."""
    raw = text.lstrip()
    sup = re.match(f"[{_SUPERSCRIPTS}]+", raw)
    if sup:
        return re.compile(re.escape(sup.group(0)) + f"(?![{_SUPERSCRIPTS}])")
    folded = nfkc(text)
    for start, body in _MARKER_PATTERNS:
        m = start.match(folded)
        if m:
            return re.compile(body.format(n=m.group(1)))
    return None


_SUP_DIGITS = str.maketrans(_SUPERSCRIPTS, "1234567890")
_NOTE_NUMBER = re.compile(r"^\s*(?:※|[*＊]|[(（]?\s*注)?\s*(\d{1,3})(?!\d)")


def footnote_number(text: str) -> str | None:
    """The number a footnote starts with ("1 SP 800…", "13インターネット…", "¹", "※5", "注5"), as the
    body's superscript reference marks (ingest's `sup_marks`) would spell it."""
    raw = text.lstrip()
    sup = re.match(f"[{_SUPERSCRIPTS}]+", raw)
    if sup:
        return str(int(sup.group(0).translate(_SUP_DIGITS)))
    m = _NOTE_NUMBER.match(nfkc(raw))
    return str(int(m.group(1))) if m else None


def marker_position(pattern: re.Pattern[str], text: str) -> int | None:
    """Where the marker first appears in body text (NFKC for full-width digits; raw for ¹²³)."""
    for candidate in (text, nfkc(text)):
        m = pattern.search(candidate)
        if m:
            return m.start()
    return None


# ---- attaching captions and footnotes ----------------------------------------------------------
class Attacher:
    """Captions and footnotes to the body elements they join: a reviewer's or importer's link first,
    else the policy's rules (core/chunks/evidence.py's docstring). One that joins nothing stays in
    the flow as text, or, a footnote with no body on its page, waits for the chunk before it (`notes`)."""

    def __init__(self, page_number: int, policy: Policy, flow: Sequence[Element]):
        self.page_number, self.policy = page_number, policy
        self.flow: list[Element] = list(flow)  # body in reading order; sources left in the flow join it
        self.glued: dict[str, list[Element]] = defaultdict(list)  # target id -> attached sources
        self.notes: list[Element] = []  # footnotes with no body on this page: glued to the chunk before
        self.attachments: list[Attachment] = []

    def attach(self, sources: list[Element]) -> None:
        # captions first: a footnote's marker may sit in the caption of the figure it annotates
        for src in sorted(sources, key=lambda e: (e.category is C.FOOTNOTE, e.page != self.page_number, e.seq)):
            target, how = self._target_for(src)
            if target is not None:
                self.glued[target.id].append(src)
                self.attachments.append(Attachment(src.id, src.category, target.id, how))
            elif src.category is C.FOOTNOTE and how == "unattached":
                self.notes.append(src)
                self.attachments.append(Attachment(src.id, src.category, None, "previous_chunk"))
            else:
                self.flow.append(src)  # stays where it is, as text: never dropped
                self.attachments.append(Attachment(src.id, src.category, None, how))
        self.flow.sort(key=lambda e: (e.page != self.page_number, e.seq))

    def _target_for(self, src: Element) -> tuple[Element | None, str]:
        body = {e.id: e for e in self.flow}
        if src.links:
            for target_id in src.links:
                if target_id in body:
                    return body[target_id], "link"
        elif "reviewer:unlink" in src.rules:
            return None, "unlinked"  # the reviewer said: attached to nothing
        targets = self.policy.of(src.category).attach_targets
        candidates = [e for e in self.flow if e.category in targets and e.page == src.page
                      and self.policy.action(e.category) in TEXT_PRODUCING]
        if not candidates:
            return None, "unattached"
        if src.category is C.FOOTNOTE:
            return self._footnote_target(src, candidates)
        best = min(candidates, key=lambda e: (abs(e.seq - src.seq), distance(e.bbox, src.bbox)))
        return best, "reading_order"

    def _footnote_target(self, note: Element, candidates: list[Element]) -> tuple[Element, str]:
        pattern = footnote_marker(note.text)
        if pattern is not None:
            hits = []
            for e in candidates:
                # a figure's or table's text includes its attached captions ("（出典）…＊32")
                text = "\n".join([e.text] + [s.text for s in self.glued.get(e.id, ()) if s.category is not C.FOOTNOTE])
                pos = marker_position(pattern, text)
                # a block that *starts* with the marker is more likely another note or a list label
                if pos is not None:
                    hits.append((pos == 0, e.seq > note.seq, abs(e.seq - note.seq), e))
            if hits:
                return min(hits, key=lambda h: h[:3])[3], "marker"
        sup = self._superscript_target(note, candidates)
        if sup is not None:
            return sup, "sup_marker"
        before = [e for e in candidates if e.seq < note.seq]
        if before:
            return max(before, key=lambda e: (e.seq, -distance(e.bbox, note.bbox))), "preceding"
        return min(candidates, key=lambda e: (e.seq, distance(e.bbox, note.bbox))), "following"

    @staticmethod
    def _superscript_target(note: Element, candidates: list[Element]) -> Element | None:
        """The block whose raised reference numbers (`sup_marks`, read at ingest) include the
        note's number. The number must still be in the block's text: a block split by refine
        keeps the whole block's marks on every part."""
        number = footnote_number(note.text)
        if number is None:
            return None
        in_text = re.compile(f"(?<!\\d){number}(?!\\d)")
        hits = [e for e in candidates
                if number in (e.attr("sup_marks") or ()) and in_text.search(nfkc(e.text))]
        if not hits:
            return None
        return min(hits, key=lambda e: (e.seq > note.seq, abs(e.seq - note.seq)))
