"""A small AcroForm built in code (出張申請書: text widgets, check boxes, a radio group),
`add_text_widget`, how the forms tests lay a filled text widget on a page they bake,
`add_captioned_blank`, a caption with an underlined blank after it and the widget typed there, and `by_key`,
the form tests' way to find a field by its key."""
from __future__ import annotations

import pymupdf

from core.forms.form_field import FormField


def add_text_widget(page: pymupdf.Page, name: str, rect: pymupdf.Rect, value: str, fontsize: float,
                    font: str = "Helv") -> None:
    """A text widget named `name` holding `value` in `font` (baking prints it in the box)."""
    w = pymupdf.Widget()
    w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, name
    w.rect, w.text_fontsize, w.text_font = rect, fontsize, font
    w.field_value = value
    page.add_widget(w)


def add_captioned_blank(page: pymupdf.Page, name: str, x: float, y: float, caption: str, value: str,
                        caption_font: str = "helv", value_font: str = "Helv", end: float = 420.0) -> None:
    """`caption` at (x, y) in 11 pt, an underline from just after it to `end`, and a text widget on
    that line holding `value` in `value_font` (baking prints it there)."""
    page.insert_text((x, y), caption, fontsize=11, fontname=caption_font)
    start = x + pymupdf.get_text_length(caption, fontname=caption_font, fontsize=11) + 3
    page.draw_line((start, y + 1), (end, y + 1), color=(0, 0, 0), width=0.5)
    add_text_widget(page, name, pymupdf.Rect(start, y - 12, end, y + 1), value, 11, value_font)


def acroform_pdf() -> bytes:
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    page.insert_text((60, 80), "出張申請書", fontname="japan", fontsize=16)

    def label(x: float, y: float, s: str) -> None:
        page.insert_text((x, y), s, fontname="japan", fontsize=10)

    def widget(kind: int, name: str, rect, value=None, label_text: str | None = None, on: str | None = None):
        w = pymupdf.Widget()
        w.field_type = kind
        w.field_name = name
        w.rect = pymupdf.Rect(rect)
        if label_text:
            w.field_label = label_text
        if on is not None:
            w.button_caption = on
        if value is not None:
            w.field_value = value
        page.add_widget(w)
        return w

    label(60, 130, "氏名")
    widget(pymupdf.PDF_WIDGET_TYPE_TEXT, "applicant", (150, 118, 400, 134), "山田 花子", "申請者の氏名")
    label(60, 160, "出張先")
    widget(pymupdf.PDF_WIDGET_TYPE_TEXT, "destination", (150, 148, 400, 164), "大阪支店")
    label(60, 190, "承認日")
    widget(pymupdf.PDF_WIDGET_TYPE_TEXT, "approved_on", (150, 178, 400, 194), "")
    widget(pymupdf.PDF_WIDGET_TYPE_TEXT, "no_label_here", (450, 300, 560, 316), "", "備考欄")
    label(78, 230, "交通費")
    widget(pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "kind_transport", (60, 220, 72, 232), True)
    label(158, 230, "宿泊費")
    widget(pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "kind_lodging", (140, 220, 152, 232), False)
    data = pdf.tobytes()
    # radio buttons: PyMuPDF sets them more reliably on a reopened document
    pdf = pymupdf.open(stream=data, filetype="pdf")
    page = pdf[0]
    page.insert_text((60, 270), "支払方法", fontname="japan", fontsize=10)
    page.insert_text((148, 270), "振込", fontname="japan", fontsize=10)
    page.insert_text((218, 270), "現金", fontname="japan", fontsize=10)
    for i, (x, on) in enumerate(((130, True), (200, False))):
        w = pymupdf.Widget()
        w.field_type = pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON
        w.field_name = "payment"
        w.rect = pymupdf.Rect(x, 260, x + 12, 272)
        w.field_value = on
        page.add_widget(w)
    return pdf.tobytes()


def by_key(fields, key: str, value_type: str | None = None) -> FormField:
    hits = [f for f in fields if f.key == key and (value_type is None or f.value_type == value_type)]
    assert hits, f"no field {key!r} in {[f.key for f in fields]}"
    return hits[0]
