"""Fill a real AcroForm the way people do before it is printed or flattened: every text widget
gets a realistic value that fits its box (names, codes, dates, amounts, addresses, Japanese and
English), some check boxes are ticked and one option of some radio groups is chosen.

Deterministic: the same form is always filled the same way, so runs compare.
"""
from __future__ import annotations

import hashlib

import pymupdf

# kinds of value, each a few realistic ones; a widget takes the first that fits its width
VALUES: dict[str, tuple[str, ...]] = {
    "name": ("Jordan A. Whitfield", "山田 太郎", "AB016 Lee", "佐藤 花子", "Maria Gonzalez", "Kim Min-jun"),
    "code": ("AB016", "X-4471", "JP1300012", "7004-B", "K9", "Q3"),
    "date": ("2026-03-14", "04/15/2026", "令和8年4月1日", "12/31/25", "2026/06/30"),
    "amount": ("50,461", "1,234.56", "¥128,000", "9,870", "312.00", "45"),
    "address": ("1450 Riverside Drive, Suite 210", "東京都千代田区丸の内1-1-1", "Portland, OR 97205",
                "大阪府大阪市北区梅田3-1-3", "221B Baker Street, London"),
    "email": ("j.whitfield@example.com", "hanako.sato@example.jp"),
}
ORDER = ("name", "amount", "date", "address", "code", "email")
DIGITS = "4827316059"


def fitting_value(index: int, width: float, size: float, maxlen: int) -> str:
    """A value for the index-th text widget that fits `width` at `size` (and `maxlen` characters)."""
    if maxlen and maxlen <= 4:
        return DIGITS[index % 10: index % 10 + maxlen] or DIGITS[:maxlen]
    kinds = ORDER[index % len(ORDER):] + ORDER[:index % len(ORDER)]
    for kind in kinds:
        pool = VALUES[kind]
        for k in range(len(pool)):
            value = pool[(index + k) % len(pool)]
            if maxlen and len(value) > maxlen:
                continue
            if _width(value, size) <= width - 4:
                return value
    fits = max(1, int((width - 4) / (0.6 * size)))
    return DIGITS[: min(fits, maxlen or fits)]


def _width(text: str, size: float) -> float:
    if any(ord(ch) > 0x2E7F for ch in text):
        return len(text) * size  # full-width glyphs
    return pymupdf.get_text_length(text, fontname="helv", fontsize=size)


def _ticked(name: str, index: int) -> bool:
    """About half the check boxes, picked by name so a re-run ticks the same ones."""
    return (int(hashlib.sha1(f"{name}|{index}".encode()).hexdigest(), 16) % 2) == 0


def fill_form(data: bytes) -> bytes:
    """The form with every text widget filled, some boxes ticked and some radio options chosen."""
    doc = pymupdf.open(stream=data, filetype="pdf")
    text_index = mark_index = 0
    chosen_groups: set[str] = set()
    # Widgets that share a field name are one field with one value, printed in each of them: a new
    # value per widget would leave the earlier widgets showing a value the field no longer holds.
    field_values: dict[str, str] = {}
    for page in doc:
        for w in list(page.widgets()):
            kind = w.field_type
            if kind == pymupdf.PDF_WIDGET_TYPE_TEXT and not (w.field_flags or 0) & 1:  # 1: read-only
                size = w.text_fontsize or 9.0
                rect = w.rect
                value = field_values.get(w.field_name or "") or fitting_value(
                    text_index, rect.width, min(size, rect.height * 0.8), w.text_maxlen or 0)
                if w.field_name:
                    field_values.setdefault(w.field_name, value)
                text_index += 1
                if any(ord(ch) > 0x2E7F for ch in value):
                    w.text_font = "japan"
                w.field_value = value
                _update(w)
            elif kind == pymupdf.PDF_WIDGET_TYPE_CHECKBOX:
                w.field_value = w.on_state() if _ticked(w.field_name or "", mark_index) else "Off"
                mark_index += 1
                _update(w)
            elif kind == pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON and w.field_name not in chosen_groups:
                if _ticked(w.field_name or "", 0):
                    chosen_groups.add(w.field_name)
                    w.field_value = w.on_state()
                    _update(w)
    return doc.tobytes()


def _update(w: pymupdf.Widget) -> None:
    try:
        w.update()
    except Exception:  # a widget MuPDF cannot regenerate keeps its old appearance; the truth reads its value
        pass
