"""Tiny PDFs built in code for ingest/refine tests (PyMuPDF's built-in CJK font, no files needed)."""
from __future__ import annotations

from typing import Callable

import pymupdf

A4 = (595, 842)


def build_pdf(*pages: Callable[[pymupdf.Page], None], size=A4, **save) -> bytes:
    """One page per drawing function; returns the PDF bytes."""
    doc = pymupdf.open()
    for draw in pages:
        page = doc.new_page(width=size[0], height=size[1])
        draw(page)
    data = doc.tobytes(**save)
    doc.close()
    return data


def text(page: pymupdf.Page, x: float, y: float, s: str, size: float = 10.5, font: str = "japan") -> None:
    page.insert_text((x, y), s, fontname=font, fontsize=size)


def html(page: pymupdf.Page, rect, s: str, size: float = 10.5) -> None:
    """For glyphs the CJK font lacks (☐ ☑): MuPDF falls back to its Noto symbol fonts."""
    page.insert_htmlbox(pymupdf.Rect(rect), s, css=f"* {{font-size: {size}pt;}}")


def paragraph(page: pymupdf.Page, x: float, y: float, lines: list[str], size: float = 10.5) -> float:
    for i, line in enumerate(lines):
        text(page, x, y + i * size * 1.5, line, size)
    return y + len(lines) * size * 1.5


def ruled_table(page: pymupdf.Page, x: float, y: float, rows: list[list[str]], col_w: float = 110,
                row_h: float = 20) -> None:
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            rect = pymupdf.Rect(x + c * col_w, y + r * row_h, x + (c + 1) * col_w, y + (r + 1) * row_h)
            page.draw_rect(rect, color=(0, 0, 0), width=0.8)
            text(page, rect.x0 + 4, rect.y1 - 6, cell, 9.5)


def control_char_pdf(words: tuple[str, str] = ("Hello", "world")) -> bytes:
    """A page whose font maps two codes to U+0001 and U+0002 (a broken /Differences encoding, as
    real PDFs have): PyMuPDF yields control characters in the span text, "H\\x01llo w\\x02rld"."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 100), " ".join(words), fontname="helv", fontsize=12)
    page.insert_text((72, 130), "Second line of body text.", fontname="helv", fontsize=12)
    xref = page.get_contents()[0]
    first = " ".join(words).encode("latin-1").hex().encode()
    broken = first.replace(b"65", b"01", 1).replace(b"6f", b"02", 2)
    doc.update_stream(xref, doc.xref_stream(xref).replace(first, broken))
    font = page.get_fonts()[0][0]
    enc = doc.get_new_xref()
    doc.update_object(enc, "<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /uni0001 /uni0002] >>")
    doc.xref_set_key(font, "Encoding", f"{enc} 0 R")
    data = doc.tobytes()
    doc.close()
    return data


def raw_page_pdf(fonts: dict[str, str], content: bytes) -> bytes:
    """One A4 page whose content stream and font dictionaries are written as given: `fonts` maps
    a resource name (F1, F2, …) to its font dictionary, for fonts PyMuPDF's own calls cannot make."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    names = []
    for name, font in fonts.items():
        xref = doc.get_new_xref()
        doc.update_object(xref, font)
        names.append(f"/{name} {xref} 0 R")
    stream = doc.get_new_xref()
    doc.update_object(stream, "<< >>")
    doc.update_stream(stream, content)
    doc.xref_set_key(page.xref, "Contents", f"{stream} 0 R")
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << {' '.join(names)} >> >>")
    data = doc.tobytes()
    doc.close()
    return data


HELVETICA = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def zero_width_mark_pdf() -> bytes:
    """A line whose last glyph has zero width and a font of its own (a combining mark, as in
    wild/pdfjs issue7426): MuPDF's dict output drops it, its word output keeps it ("Marked" + "X")."""
    widths = " ".join("0" if c == ord("X") else "600" for c in range(65, 91))
    mark = f"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /FirstChar 65 /LastChar 90 /Widths [{widths}] >>"
    return raw_page_pdf({"F1": HELVETICA, "F2": mark},
                        b"BT /F1 12 Tf 72 700 Td (Marked) Tj /F2 12 Tf (X) Tj ET "
                        b"BT /F1 12 Tf 72 670 Td (Second line of body text.) Tj ET")


def wingdings_bullets_pdf() -> bytes:
    """A list whose bullets are set in Wingdings (codes 0x9F and 0xFC): PyMuPDF reads them as the
    Private Use characters U+F09F and U+F0FC, as in the AI guideline in realdata/pdfs/ja."""
    wing = ("<< /Type /Font /Subtype /Type1 /BaseFont /Wingdings-Regular "
            "/Encoding << /Type /Encoding /Differences [159 /uniF09F 252 /uniF0FC] >> >>")
    return raw_page_pdf({"F1": HELVETICA, "F2": wing},
                        b"BT /F2 11 Tf 72 700 Td <9f> Tj /F1 11 Tf 14 0 Td (First point of the list.) Tj ET "
                        b"BT /F2 11 Tf 72 684 Td <fc> Tj /F1 11 Tf 14 0 Td (Second point of the list.) Tj ET")


def button_form_pdf() -> bytes:
    """A form page: a text field, and two buttons drawn as filled rounded boxes around their
    captions (as pdf.js' widget samples draw them) beside a caption text."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.insert_text((72, 90), "Application for a parking permit", fontname="helv", fontsize=16)
    page.insert_text((72, 140), "Name of the applicant:", fontname="helv", fontsize=11)
    field = pymupdf.Widget()
    field.field_type, field.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, "applicant"
    field.rect = pymupdf.Rect(220, 126, 480, 146)
    page.add_widget(field)
    for x, caption in ((72, "Submit the form"), (260, "Clear all fields")):
        box = pymupdf.Rect(x, 200, x + 160, 250)
        page.draw_rect(box, color=(0.1, 0.2, 0.5), fill=(0.75, 0.82, 0.95), radius=0.2)
        page.insert_text((x + 18, 230), caption, fontname="helv", fontsize=13)
    data = doc.tobytes()
    doc.close()
    return data


def spanning_table_page(p):
    """A risk table whose first column holds group labels spanning several rows, each label set
    on two lines (as the white paper's 図表Ⅰ-4-1-1)."""
    x, y, w0, w1, w2, h = 72, 120, 90, 150, 210, 34
    rows = [("リスク", "事例"), ("バイアスのある出力", "採用システムが女性を差別した"),
            ("多様性の喪失", "意見及び回答が収束してしまう"), ("データ汚染攻撃", "学習データへ不正データが混入する"),
            ("悪用", "詐欺目的での利用が問題視されている"), ("機密情報の流出", "個人情報がプロンプトから流出する"),
            ("ハルシネーション", "事実と異なる回答をもっともらしく返す")]
    for r, (risk, case) in enumerate(rows):
        top = y + r * h
        p.draw_rect((x + w0, top, x + w0 + w1, top + h), color=(0, 0, 0), width=0.8)
        p.draw_rect((x + w0 + w1, top, x + w0 + w1 + w2, top + h), color=(0, 0, 0), width=0.8)
        text(p, x + w0 + 4, top + 21, risk, 9)
        text(p, x + w0 + w1 + 4, top + 21, case, 9)
    p.draw_rect((x, y, x + w0, y + h), color=(0, 0, 0), width=0.8)
    for first, last, label in ((1, 3, ("従来型AI", "から存在", "するリスク")), (4, 6, ("生成AIで", "特に顕在化", "したリスク"))):
        top, bottom = y + first * h, y + (last + 1) * h
        p.draw_rect((x, top, x + w0, bottom), color=(0, 0, 0), width=0.8)
        mid = y + (first + 1) * h
        for k, part in enumerate(label):
            text(p, x + 4, mid - 6 + k * 12, part, 9)


def line_numbered_page(page: pymupdf.Page, lines: list[str], x: float = 90, y: float = 100,
                       number_x: float = 52, size: float = 10.5) -> None:
    """A draft's body with margin line numbers 1, 2, 3 … on each line's baseline."""
    for i, line in enumerate(lines):
        text(page, number_x, y + i * size * 1.6, str(i + 1), size * 0.8)
        text(page, x, y + i * size * 1.6, line, size)


def masked_speck_pdf(mask_size: tuple[int, int] = (2000, 1000), paintings: int = 12) -> bytes:
    """A 2×2 image whose soft mask is `mask_size` pixels, painted `paintings` times down the page,
    with a line of text above (wild/pdfjs issue16263 has 40 such paintings of a 151-MP mask)."""
    import zlib
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 60), "Masked specks below", fontsize=12)
    mw, mh = mask_size
    mask = doc.get_new_xref()
    doc.update_object(mask, f"<< /Type /XObject /Subtype /Image /Width {mw} /Height {mh} "
                            "/ColorSpace /DeviceGray /BitsPerComponent 1 >>")
    doc.update_stream(mask, zlib.compress(b"\xff" * (((mw + 7) // 8) * mh)), compress=False)
    doc.xref_set_key(mask, "Filter", "/FlateDecode")
    image = doc.get_new_xref()
    doc.update_object(image, f"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray "
                             f"/BitsPerComponent 8 /SMask {mask} 0 R >>")
    doc.update_stream(image, b"\x00\x80\x80\x00")
    kind, resources = doc.xref_get_key(page.xref, "Resources")
    holder = int(resources.split()[0]) if kind == "xref" else page.xref
    doc.xref_set_key(holder, "XObject" if kind == "xref" else "Resources/XObject", f"<< /Speck {image} 0 R >>")
    paint = "".join(f"q 200 0 0 40 72 {700 - 52 * i} cm /Speck Do Q\n" for i in range(paintings))
    xref = page.get_contents()[0]
    doc.update_stream(xref, doc.xref_stream(xref) + b"\n" + paint.encode())
    return doc.tobytes()
