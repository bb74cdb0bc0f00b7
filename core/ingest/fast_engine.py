"""The fast engine: blocks, fonts and drawings with heuristics (no model). Its vector extras
(check-box squares, separator rules) serve the layout engine too."""
from __future__ import annotations

import re
from typing import Iterable, Sequence

from core.categories import Category
from core.geometry import area, contains, overlap_area, union
from core.ingest.draft import Draft
from core.ingest.line_numbers import line_number_drafts
from core.ingest.lines import Line, is_vertical, line_order, ordered_lines, text_attrs
from core.ingest.page_facts import PageFacts
from core.ingest.vectors import RuledRegion, analyse_vectors, is_ruled_area, table_rows
from core.model import BBox
from core.text import ARTICLE_HEADING, join_lines

LIST_MARKER = re.compile(
    r"^\s*(?:[・•●○◦▪‣∙\-–—*＊]\s*|[\[［]\s*[0-9０-９]{1,3}\s*[\]］]|[①-⑳㉑-㉟]|[(（]?[0-9０-９]{1,2}[.．)）](?![0-9０-９])|"
    r"[(（][0-9０-９一二三四五六七八九十a-zａ-ｚア-ン]{1,3}[)）]|[一二三四五六七八九十]{1,3}[、．.]|"
    r"[a-zａ-ｚ][.)）]\s|[ア-ン][.．)）])"
)

FORM_LINES = 8  # text lines in a ruled, unfilled drawing before it is a form, not a figure


def body_size(pages: Sequence[PageFacts]) -> float:
    """The font size most characters of the document are set in."""
    weights: dict[float, int] = {}
    for facts in pages:
        for ln in facts.lines:
            weights[ln.size] = weights.get(ln.size, 0) + ln.chars
    return max(weights, key=weights.get) if weights else 10.0


def _x_clusters(lines: list[Line]) -> list[list[Line]]:
    """Lines of one block that share no horizontal extent (side-by-side paragraphs PyMuPDF put in
    one block because their baselines align) are separated."""
    clusters: list[tuple[float, float, list[Line]]] = []
    for ln in sorted(lines, key=lambda ln: ln.bbox[0]):
        # fragments of one line (a note mark "＊1" set in its own span) touch; columns leave a gap
        gap = 0.8 * (ln.bbox[3] - ln.bbox[1])
        if clusters and ln.bbox[0] < clusters[-1][1] + gap:
            x0, x1, members = clusters[-1]
            clusters[-1] = (x0, max(x1, ln.bbox[2]), members + [ln])
        else:
            clusters.append((ln.bbox[0], ln.bbox[2], [ln]))
    return [members for _, _, members in clusters]


def _segments(lines: list[Line]) -> list[list[Line]]:
    """Split a PyMuPDF block where a list item starts, the font changes, or a gap opens."""
    if is_vertical(lines):
        return [ordered_lines(lines)]  # vertical writing: the block's columns read right to left
    clusters = _x_clusters(lines)
    if len(clusters) > 1:
        return [seg for cluster in clusters for seg in _segments_of_column(cluster)]
    return _segments_of_column(lines)


def _segments_of_column(lines: list[Line]) -> list[list[Line]]:
    ordered = sorted(lines, key=line_order)
    out: list[list[Line]] = []
    for ln in ordered:
        if out:
            prev = out[-1][-1]
            gap = ln.bbox[1] - prev.bbox[3]
            height = max(prev.bbox[3] - prev.bbox[1], 1.0)
            same_row = ln.bbox[1] < prev.bbox[3] - 0.3 * height
            new = (not same_row and (
                bool(LIST_MARKER.match(ln.text))
                or abs(ln.size - prev.size) > 0.6
                or ln.bold != prev.bold
                or gap > max(3.0, 0.5 * height)))
            if not new:
                out[-1].append(ln)
                continue
        out.append([ln])
    return out


def fast_drafts(facts: PageFacts, body: float, largest: float) -> list[Draft]:
    tables, figures, rules = analyse_vectors(facts.vectors, facts.width, facts.height)
    drafts: list[Draft] = []
    taken: set[int] = set()
    regions: list[tuple[BBox, str, RuledRegion | None]] = [(t.bbox, "table", t) for t in tables]
    regions += [(b, "figure", None) for b in figures]
    regions += [(b, "image", None) for b, _ in facts.images if area(b) >= 0.25 * 72 * 72]
    keep_regions = []
    for box, kind, region in regions:
        if kind == "image":
            # text over an image is set on it (a slide's title band, a label on a photo): it stays text
            keep_regions.append((box, kind, region, []))
            continue
        inside = [i for i, ln in enumerate(facts.lines) if i not in taken and _centre_in(ln.bbox, box)]
        if kind == "figure":
            text_area = sum(area(facts.lines[i].bbox) for i in inside)
            if text_area > 0.35 * area(box):
                continue  # a panel of text on a coloured background, not a figure
            if len(inside) >= FORM_LINES and is_ruled_area(facts.vectors, box):
                continue  # a ruled form area holding its text: text elements (and rulings), not a picture
            if holds_check_boxes(facts, box):
                continue  # a form row drawn around its check boxes: text, and the boxes as marks
            if facts.widgets:
                # on a form page a drawn box is a button face or a field's frame: its caption is one
                # of the form's labels, so it stays text (the drawing stays a picture of its own)
                keep_regions.append((box, kind, region, []))
                continue
        taken.update(inside)
        keep_regions.append((box, kind, region, [facts.lines[i] for i in inside]))
    for box, kind, region, inside in keep_regions:
        if kind == "table":
            rows = table_rows(region, inside, facts.vectors.hsegs)
            text = "\n".join(" | ".join(r) for r in rows)
            attrs = {**text_attrs(inside, keep_wraps=False), "rows": rows, "n_rows": len(rows),
                     "n_cols": max((len(r) for r in rows), default=0), "ruled": True}
            # "lines" kept: a form's ruled key|value grid is read from them (core.forms.units)
            drafts.append(Draft(Category.TABLE, box, inside, text=text, attrs=attrs))
        else:
            attrs = {**text_attrs(inside, keep_lines=True), "kind": "vector" if kind == "figure" else "image"}
            drafts.append(Draft(Category.PICTURE, box, inside, attrs=attrs))
    for box, ident in facts.images:
        if area(box) < 0.25 * 72 * 72:  # small images (logos, icons, bullets): refine decides
            drafts.append(Draft(Category.PICTURE, box, attrs={"kind": "image", "image": ident}))
    for d in drafts:
        if d.attrs.get("kind") == "image" and "image" not in d.attrs:
            d.attrs["image"] = next((ident for b, ident in facts.images if b == d.bbox), "")
    by_block: dict[int, list[Line]] = {}
    for i, ln in enumerate(facts.lines):
        if i not in taken:
            by_block.setdefault(ln.block, []).append(ln)
    segments = [seg for block_lines in by_block.values() for seg in _segments(block_lines)]
    for seg in _merge_line_fragments(segments):
        drafts.append(_classify_text(seg, body, largest, facts))
    drafts.extend(line_number_drafts(facts.line_numbers, "fast"))
    drafts.extend(vector_extras(facts, rules, [d.bbox for d in drafts if d.category is Category.TABLE],
                                 [d.bbox for d in drafts if d.category is Category.PICTURE]
                                 + [b for b, _ in facts.images]))
    return drafts


CHECK_BOXES = 2  # outlined squares a vector "figure" holds before it is a form row of check boxes


CHECK_BOX_ASPECT = 1.2  # longer side over shorter: a check box is square, a drawn page icon is not


def holds_check_boxes(facts: PageFacts, box: BBox) -> bool:
    """A vector "figure" over no image that holds outlined squares, apart from one another and one of
    them at least empty: a form's check boxes with the frame drawn around them (a ticked box is a
    filled square). A chart's legend keys are all filled; a diagram's stacked frames overlap."""
    if any(overlap_area(b, box) > 0.5 * area(b) for b, _ in facts.images):
        return False
    inside = [(b, filled) for b, filled in facts.vectors.squares if overlap_area(b, box) > 0.5 * area(b)]
    if any(max(b[2] - b[0], b[3] - b[1]) > CHECK_BOX_ASPECT * max(min(b[2] - b[0], b[3] - b[1]), 0.1)
           for b, _ in inside):
        return False
    apart = all(overlap_area(a, b) == 0 for i, (a, _) in enumerate(inside) for b, _ in inside[i + 1:])
    return len(inside) >= CHECK_BOXES and apart and not all(filled for _, filled in inside)


def _merge_line_fragments(segments: list[list[Line]]) -> list[list[Line]]:
    """A few characters PyMuPDF put in a block of their own ("＊2等が" after a note reference set
    in a smaller font) rejoin the line they continue: same row, starting where that line ends."""
    kept: list[list[Line]] = []
    fragments: list[list[Line]] = []
    for seg in segments:
        is_fragment = len(seg) == 1 and len(seg[0].text.strip()) <= 12
        (fragments if is_fragment else kept).append(seg)
    for frag in fragments:
        ln = frag[0]
        host = None
        for seg in kept:
            for other in seg:
                height = min(other.bbox[3] - other.bbox[1], ln.bbox[3] - ln.bbox[1])
                same_row = min(other.bbox[3], ln.bbox[3]) - max(other.bbox[1], ln.bbox[1]) >= 0.5 * height
                if same_row and -2.0 <= ln.bbox[0] - other.bbox[2] <= 2.0:
                    host = seg
                    break
            if host is not None:
                break
        if host is not None:
            host.append(ln)
        else:
            kept.append(frag)
    return kept


def _classify_text(seg: list[Line], body: float, largest: float, facts: PageFacts) -> Draft:
    box = union(ln.bbox for ln in seg)
    attrs = text_attrs(seg)
    size = attrs["size"]
    text = join_lines([ln.text for ln in seg])
    short = len(text) <= 80 and len(seg) <= 2 and not text.rstrip().endswith(("。", "."))
    category = Category.TEXT
    marker = LIST_MARKER.match(seg[0].text)
    if marker:
        category = Category.LIST_ITEM
        if not any(ch.isdigit() for ch in marker.group()) or len(seg) > 1:
            return Draft(category, box, list(seg), attrs=attrs)  # a bulleted item is never a heading
    if short and size >= 1.6 * body and size >= largest - 0.5 and box[1] < 0.5 * facts.height:
        category = Category.TITLE
    elif short and (size >= 1.15 * body or (attrs["bold"] and size >= body - 0.5 and len(seg) == 1)
                    or (len(seg) == 1 and ARTICLE_HEADING.match(text.strip()))):
        category = Category.SECTION_HEADER
    return Draft(category, box, list(seg), attrs=attrs)


def keep_one_title(page_drafts: list[list[Draft]]) -> None:
    """A title is unique: the one candidate on the first page that has any; when that page has
    several same-size candidates (a spread's two headlines), none of them is the title."""
    first = next((drafts for drafts in page_drafts if any(d.category is Category.TITLE for d in drafts)), None)
    keep = None
    if first is not None:
        candidates = [d for d in first if d.category is Category.TITLE]
        keep = candidates[0] if len(candidates) == 1 else None
    for drafts in page_drafts:
        for d in drafts:
            if d.category is Category.TITLE and d is not keep:
                d.category = Category.SECTION_HEADER


def _centre_in(box: BBox, region: BBox) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= cx <= region[2] and region[1] <= cy <= region[3]


def vector_extras(facts: PageFacts, rules: Iterable[BBox], occupied: Sequence[BBox],
                   figures: Sequence[BBox] = ()) -> list[Draft]:
    """Small squares (check-box candidates) and separator rules; refine decides what they are.
    Squares inside a figure are part of the figure (legend keys, icons)."""
    out = []
    for box, filled in facts.vectors.squares:
        if any(w.bbox and overlap_area(box, w.bbox) > 0.5 * area(box) for w in facts.widgets):
            continue  # the widget already reports this box exactly
        if any(contains(f, box, tolerance=1.0) for f in figures):
            continue
        out.append(Draft(Category.PICTURE, box, text="", attrs={"kind": "square", "filled": filled}))
    for box in rules:
        if any(contains(o, box, tolerance=2.0) for o in occupied):
            continue
        out.append(Draft(Category.PICTURE, box, text="", attrs={"kind": "rule"}))
    return out
