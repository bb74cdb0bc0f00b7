"""The form_table rule: a "table" the layout model drew over a form, or over columns of vertical
writing, is replaced by its text, one element per text block (headings by font size)."""
from __future__ import annotations

from core.categories import Category
from core.geometry import coverage, union
from core.model import BBox, Document, Element, Page, freeze_attrs
from core.refine.common import body_size, child_id, map_pages, stored_lines
from core.text import join_lines

C = Category


# ---------------------------------------------------------------------------------------------
# form_table: a "table" holding AcroForm widgets is a form laid out on a grid → its text lines
# ---------------------------------------------------------------------------------------------
def form_table(doc: Document) -> Document:
    """The layout model reads a form page as one big table; the widgets say it is a form. A table
    box holding a widget, or with fewer than 2 rows × 2 columns of text, is replaced by its text, one
    element per text block (headings by font size); the widgets already carry the values."""
    body = body_size(doc)

    def not_a_table(e: Element, widgets: list[Element]) -> bool:
        if e.category is not C.TABLE or not e.attr("lines"):
            return False
        if e.attr("vertical"):
            return True  # columns of vertical writing (tategaki) look like a table to the model
        if any(coverage(w.bbox, e.bbox) >= 0.5 for w in widgets):
            return True
        rows = e.attr("rows")
        if rows is None:
            return False
        filled_rows = [r for r in rows if any(c.strip() for c in r)]
        filled_cols = {i for r in rows for i, c in enumerate(r) if c.strip()}
        return len(filled_rows) < 2 or len(filled_cols) < 2

    def on_page(page: Page) -> list[Element]:
        widgets = [e for e in page.elements if e.source == "widget"]
        out: list[Element] = []
        for e in page.elements:
            out.extend(_text_blocks(doc.doc_id, e, body, "form_table") if not_a_table(e, widgets) else [e])
        return out
    return map_pages(doc, on_page)


def _text_blocks(doc_id: str, e: Element, body: float, rule: str) -> list[Element]:
    groups: list[list[tuple[BBox, str, float, int]]] = []
    vertical = bool(e.attr("vertical"))
    stored = stored_lines(e)  # stored in reading order (right to left for vertical writing)
    if vertical:
        ordered = sorted(stored, key=lambda ln: ln[3])  # stable: keeps that order within a block
    else:
        ordered = sorted(stored, key=lambda ln: (ln[3], ln[0][1], ln[0][0]))
    for line in ordered:
        if groups and groups[-1][-1][3] == line[3] and abs(groups[-1][-1][2] - line[2]) <= 0.6:
            groups[-1].append(line)
        else:
            groups.append([line])
    if vertical:
        groups.sort(key=lambda g: (-round(max(b[2] for b, _, _, _ in g) / 6), g[0][0][1]))
    else:
        groups.sort(key=lambda g: (round(g[0][0][1] / 3), g[0][0][0]))
    font_of = _line_fonts(e)
    out = []
    for n, group in enumerate(groups):
        text = join_lines([t for _, t, _, _ in group])
        if not text:
            continue
        box = union(b for b, _, _, _ in group)
        size = max(s for _, _, s, _ in group)
        category = C.SECTION_HEADER if size >= 1.1 * body and len(text) <= 60 else C.TEXT
        # each block keeps its own lines' fonts, not the whole table's: a flattened form's typed values
        # are told from its captions by their face (core.forms.labels.typed_families)
        fonts = tuple(dict.fromkeys(f for b, t, _, _ in group if (f := font_of.get((b, t))))) or e.attr("fonts") or ()
        attrs = {"size": size, "fonts": fonts}
        if len(group) > 1:
            attrs["lines"] = tuple((*b, t, s, k, font_of.get((b, t), "")) for b, t, s, k in group)
        out.append(Element(child_id(doc_id, e, box, text, f"{rule}:{n}"), e.page, e.seq, category, box, text,
                           e.source, rules=e.rules + (rule,), attrs=freeze_attrs(attrs)))
    return out


def _line_fonts(e: Element) -> dict[tuple[BBox, str], str]:
    """(box, text) of each stored line → the font ingest kept for it (the lines' 8th item), where kept."""
    out: dict[tuple[BBox, str], str] = {}
    for ln in e.attr("lines") or ():
        if len(ln) > 7 and ln[7]:
            out[((ln[0], ln[1], ln[2], ln[3]), ln[4])] = str(ln[7])
    return out
