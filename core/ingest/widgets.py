"""AcroForm widgets: the field properties kept (a lean reader through MuPDF, PyMuPDF's own as the
fallback), PDF name decoding, and the form-field and selection-mark drafts they become."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

import pymupdf

from core.categories import Category
from core.ingest.display import Display
from core.ingest.draft import Draft
from core.model import BBox


@dataclass
class Widget:
    bbox: BBox
    kind: str  # Text, CheckBox, RadioButton, ComboBox, ListBox, Button, Signature
    name: str
    label: str
    value: Any
    on_state: str | None
    options: tuple
    flags: int


def _decode_pdf_name(name: str | None) -> str | None:
    """PDF names escape bytes as #xx ("Male#20Only"); widget values come back unescaped. Bytes that
    are not UTF-8 (MuPDF hands them over as lone surrogates) are read as Latin-1, as PyMuPDF does."""
    if not name:
        return name
    name = re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), name)
    if any("\udc80" <= ch <= "\udcff" for ch in name):
        raw = name.encode("utf-8", "surrogateescape")
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            name = raw.decode("latin-1")
    return name


@dataclass(frozen=True)
class WidgetRead:
    widgets: list[Widget]
    fallback: str | None = None  # why PyMuPDF's own reader read this page, when it did


def read_widgets(page: pymupdf.Page, show: Display) -> WidgetRead:
    """Every widget annotation of the page, whatever the catalog's /AcroForm says (forms exported
    from XFA designers, merged or split by other tools, carry widgets their catalog does not list).
    PyMuPDF's complete reader takes over when the lean one fails or misses a widget annotation."""
    expected = widget_annotation_count(page)
    if not expected:
        return WidgetRead([])
    try:
        lean = read_widgets_lean(page, show)
    except Exception as err:  # an unusual field structure
        return WidgetRead(read_widgets_full(page, show), f"lean widget reader failed ({type(err).__name__})")
    if len(lean) == expected:
        return WidgetRead(lean)
    return WidgetRead(read_widgets_full(page, show),
                      f"lean widget reader found {len(lean)} of {expected} widget annotations")


def widget_annotation_count(page: pymupdf.Page) -> int:
    """The page's /Annots entries whose /Subtype is /Widget, counted in the page dictionary itself
    (not through MuPDF's widget list, which is what the lean reader walks)."""
    mu = pymupdf.mupdf
    pdf_page = page._pdf_page(required=False)
    if pdf_page is None or not pdf_page.m_internal:
        return 0
    annots = mu.pdf_dict_get(pdf_page.obj(), pymupdf.PDF_NAME("Annots"))
    widget = pymupdf.PDF_NAME("Widget")
    return sum(1 for i in range(mu.pdf_array_len(annots))
               if mu.pdf_name_eq(mu.pdf_dict_get(mu.pdf_array_get(annots, i), pymupdf.PDF_NAME("Subtype")), widget))


def read_widgets_lean(page: pymupdf.Page, show: Display) -> list[Widget]:
    """The few field properties we keep, read through MuPDF directly.

    `page.widgets()` reads some forty properties per field (colours, fonts, scripts…) and costs
    about half a millisecond per widget; this reads eight. Same values (checked against
    `page.widgets()` in the tests)."""
    mu = pymupdf.mupdf
    name = pymupdf.PDF_NAME
    pdf_page = page._pdf_page(required=False)
    if pdf_page is None or not pdf_page.m_internal:
        return []
    derotate = page.derotation_matrix
    out = []
    widget = mu.pdf_first_widget(pdf_page)
    while widget.m_internal:
        obj = mu.pdf_annot_obj(widget)
        field_type = mu.pdf_widget_type(widget)
        kind = _WIDGET_KINDS.get(field_type, "Unknown")
        label = _inheritable_text(mu, obj, name("TU"))
        value: Any = None
        if field_type == pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON:
            state = mu.pdf_dict_get(obj, name("AS"))
            if state.m_internal:
                value = _decode_pdf_name(mu.pdf_to_name(state))
        if not value:
            value = mu.pdf_field_value(obj)
        on_state = None
        options: tuple = ()
        if field_type in (pymupdf.PDF_WIDGET_TYPE_CHECKBOX, pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON):
            appearances = mu.pdf_dict_getl(obj, name("AP"), name("N"))
            if mu.pdf_is_dict(appearances):
                states = [mu.pdf_to_name(mu.pdf_dict_get_key(appearances, i))
                          for i in range(mu.pdf_dict_len(appearances))]
                on_state = next((st for st in states if st != "Off"), None)
        elif field_type in (pymupdf.PDF_WIDGET_TYPE_COMBOBOX, pymupdf.PDF_WIDGET_TYPE_LISTBOX):
            opt = mu.pdf_dict_get_inheritable(obj, name("Opt"))
            items = []
            for i in range(mu.pdf_array_len(opt)):
                item = mu.pdf_array_get(opt, i)
                if mu.pdf_array_len(item) == 2:
                    items.append((mu.pdf_to_text_string(mu.pdf_array_get(item, 0)),
                                  mu.pdf_to_text_string(mu.pdf_array_get(item, 1))))
                else:
                    items.append(mu.pdf_to_text_string(item))
            options = tuple(items)
            selection = _selected_options(mu, obj)
            if selection is not None:
                value = selection
        rect = pymupdf.Rect(mu.pdf_bound_annot(widget)) * derotate
        out.append(Widget(show(rect), kind, mu.pdf_load_field_name(obj) or "", (label or "").strip(),
                          value, _decode_pdf_name(on_state), options, int(mu.pdf_field_flags(obj))))
        widget = mu.pdf_next_widget(widget)
    return out


_WIDGET_KINDS = {
    pymupdf.PDF_WIDGET_TYPE_BUTTON: "Button", pymupdf.PDF_WIDGET_TYPE_CHECKBOX: "CheckBox",
    pymupdf.PDF_WIDGET_TYPE_COMBOBOX: "ComboBox", pymupdf.PDF_WIDGET_TYPE_LISTBOX: "ListBox",
    pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON: "RadioButton", pymupdf.PDF_WIDGET_TYPE_SIGNATURE: "Signature",
    pymupdf.PDF_WIDGET_TYPE_TEXT: "Text",
}


def _selected_options(mu, obj) -> tuple[str, ...] | None:
    """A list box's /V when it is an array (several options chosen): every chosen option. MuPDF's
    field value (and so PyMuPDF's `field_value`) is empty for an array."""
    selected = mu.pdf_dict_get_inheritable(obj, pymupdf.PDF_NAME("V"))
    if not mu.pdf_is_array(selected):
        return None
    return tuple(mu.pdf_to_text_string(mu.pdf_array_get(selected, i)) for i in range(mu.pdf_array_len(selected)))


def _inheritable_text(mu, node, key) -> str | None:
    """A field's /TU, looked up through its parents (the first non-empty one), as PyMuPDF does."""
    for _ in range(32):  # a parent chain longer than this is a cycle
        if not node.m_internal:
            return None
        value = mu.pdf_dict_get(node, key)
        if value.m_internal:
            text = mu.pdf_to_text_string(value)
            if text:
                return text
        node = mu.pdf_dict_get(node, pymupdf.PDF_NAME("Parent"))
    return None


def read_widgets_full(page: pymupdf.Page, show: Display) -> list[Widget]:
    out = []
    for w in page.widgets():
        kind = w.field_type_string or "Unknown"
        on_state = None
        if w.field_type in (pymupdf.PDF_WIDGET_TYPE_CHECKBOX, pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON):
            on_state = _decode_pdf_name(str(w.on_state()))
        options = tuple(o if isinstance(o, str) else tuple(o) for o in (w.choice_values or ()))
        value = w.field_value
        if w.field_type in (pymupdf.PDF_WIDGET_TYPE_COMBOBOX, pymupdf.PDF_WIDGET_TYPE_LISTBOX):
            # PyMuPDF has no public way to the field dictionary's inherited /V array
            selection = _selected_options(pymupdf.mupdf, pymupdf.mupdf.pdf_annot_obj(w._annot.this))
            value = value if selection is None else selection
        out.append(Widget(show(w.rect), kind, w.field_name or "", (w.field_label or "").strip(),
                          value, on_state, options, int(w.field_flags or 0)))
    return out


def widget_drafts(widgets: Iterable[Widget]) -> list[Draft]:
    out = []
    for w in widgets:
        attrs: dict[str, Any] = {"field_name": w.name, "field_type": w.kind, "field_label": w.label}
        if w.kind in ("CheckBox", "RadioButton"):
            value = w.value
            selected = value is True or (isinstance(value, str) and value not in ("", "Off", "False")
                                         and (w.on_state is None or value == w.on_state
                                              or _decode_pdf_name(value) == w.on_state))
            attrs.update(value=value if isinstance(value, str) else ("Yes" if value else "Off"),
                         on_state=w.on_state)
            out.append(Draft(Category.SELECTION_MARK, w.bbox, source="widget", text="",
                             state="selected" if selected else "unselected", attrs=attrs))
        else:  # text, choice, signature (unsigned: an empty value) and push buttons (never a value)
            value = w.value
            if isinstance(value, (list, tuple)):  # a list box with several options chosen
                value = tuple(str(v) for v in value)
                text = ", ".join(value)
            else:
                value = text = "" if value is None or w.kind == "Button" else str(value)
            attrs.update(value=value, options=w.options)
            out.append(Draft(Category.FORM_FIELD, w.bbox, source="widget", text=text, attrs=attrs))
    return out
