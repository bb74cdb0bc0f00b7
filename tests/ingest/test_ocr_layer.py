"""The OCR text layer's geometry (core.ingest.ocr.write_text_layer) and the marks found in a scan's
pixels before OCR (core.ingest.scan_marks): no Tesseract needed, the words are given."""
from __future__ import annotations

import numpy as np
import pymupdf

from core.ingest.ocr import OcrWord, _without_rule_bars, write_text_layer
from core.ingest.scan_marks import ScanMarks, find_marks


def _layer(words: list[OcrWord]) -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    write_text_layer(page, words)
    return page


def test_each_ocr_word_stays_inside_its_box_and_reads_in_order():
    # the built-in CJK font is written one em per glyph: set whole, the mail address ran to
    # x ≈ 290, over the name after it, and the line read out of order; boxes 9 pt high are what
    # Tesseract gives 10 pt text (its glyphs' ink)
    words = [OcrWord((40, 50, 167, 59), "taro.yamada@example.co.jp", 0),
             OcrWord((200, 50, 240, 59), "山田太郎", 0)]
    page = _layer(words)
    assert page.get_text("text").split() == ["taro.yamada@example.co.jp", "山田太郎"]
    chars = [(ch["origin"][0], ch["c"]) for block in page.get_text("rawdict")["blocks"]
             for line in block["lines"] for span in line["spans"] for ch in span["chars"]]
    latin = [x for x, c in chars if c in "taro.yamada@example.co.jp"]
    assert min(latin) >= 38 and max(latin) < 167 and min(x for x, c in chars if c == "山") >= 199
    assert [c for _, c in sorted(chars) if not c.isspace()] == list("taro.yamada@example.co.jp山田太郎")


def test_japanese_words_join_without_a_space_and_latin_words_with_one():
    words = [OcrWord((40, 50, 80, 59), "申請期限", 0), OcrWord((86, 50, 102, 59), "は、", 0),
             OcrWord((40, 80, 70, 89), "Vision", 1), OcrWord((74, 80, 98, 89), "2028", 1)]
    lines = [line.strip() for line in _layer(words).get_text("text").splitlines() if line.strip()]
    assert lines == ["申請期限は、", "Vision 2028"]


def test_a_bar_read_from_a_cell_border_is_dropped_only_where_a_ruling_crosses_the_word():
    marks = ScanMarks(vsegs=((100.0, 40.0, 70.0),))
    assert _without_rule_bars("|2026|", (98, 50, 130, 62), marks) == "2026"
    assert _without_rule_bars("a|b", (200, 50, 230, 62), marks) == "a|b"


def test_a_row_of_leader_dots_is_found_and_punctuation_is_not():
    zoom = 300 / 72
    gray = np.full((int(200 * zoom), int(400 * zoom)), 255, np.uint8)

    def dot(x: float, y: float) -> None:
        gray[int(y * zoom): int((y + 1.2) * zoom), int(x * zoom): int((x + 1.2) * zoom)] = 0

    for k in range(40):  # a leader from x 60 to 177, sloping 0.5° as a skewed scan's does
        dot(60 + 3 * k, 100 + 0.026 * k)
    for x in (60, 63, 66):  # "・・・" in running text
        dot(x, 150)
    marks, covered = find_marks(gray, zoom)
    assert len(marks.leaders) == 1
    (x0, y0, x1, y1), dots = marks.leaders[0]
    assert dots == 40 and abs(x0 - 60) < 1 and abs(x1 - 178.2) < 1.5
    assert covered[int(100.5 * zoom), int(61 * zoom)] and not covered[int(150.5 * zoom), int(61 * zoom)]


def test_radio_rings_are_found_with_their_state_and_a_tall_square_is_no_box():
    from PIL import Image, ImageDraw

    zoom = 300 / 72
    image = Image.new("L", (int(300 * zoom), int(100 * zoom)), 255)
    draw = ImageDraw.Draw(image)

    def pt(*v: float) -> list[float]:
        return [x * zoom for x in v]

    draw.ellipse(pt(40, 40, 50.2, 50.2), outline=0, width=int(0.8 * zoom))  # ◉ as the sample form draws it
    draw.ellipse(pt(42.7, 42.7, 47.5, 47.5), fill=0)
    draw.ellipse(pt(100, 40, 110.2, 50.2), outline=0, width=int(0.8 * zoom))  # ○
    draw.rectangle(pt(160, 40, 167, 48.4), outline=0, width=int(0.8 * zoom))  # 口: 1.2 times taller than wide
    marks, _ = find_marks(np.asarray(image), zoom)
    found = sorted((round(box[0]), ticked) for box, ticked in marks.boxes)
    assert found == [(40, True), (100, False)]


def _rendered(build, width: float = 300, height: float = 120, dpi: int = 300) -> np.ndarray:
    """A page drawn by `build(page)`, rendered in grey as a scan would give it."""
    doc = pymupdf.open()
    page = doc.new_page(width=width, height=height)
    build(page)
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    return np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width).copy()


def test_a_misread_article_number_is_mended_and_says_so_and_a_real_word_is_left_alone():
    from core.ingest.ocr import element_ocr_attrs
    from core.ingest.ocr_fixes import fixed_words

    # Tesseract splits a Japanese line where it likes: the 奈 may sit at a word's start or end
    words = [OcrWord((40, 50, 60, 60), "第1", 0), OcrWord((60, 50, 70, 60), "2奈", 0),
             OcrWord((72, 50, 130, 60), "（領収書）", 0),
             OcrWord((40, 80, 70, 90), "第3打席", 1), OcrWord((40, 110, 120, 120), "第11祭を改定", 2)]
    fixed = fixed_words(words)
    assert [w.text for w in fixed] == ["第1", "2条", "（領収書）", "第3打席", "第11条を改定"]
    assert [bool(w.fixes) for w in fixed] == [False, True, False, False, True]
    attrs = element_ocr_attrs((35, 45, 135, 65), "Tesseract", fixed)
    assert attrs["ocr_fixes"] == ("第N条 (read 第N奈/祭/打/休)",)
    assert "ocr_fixes" not in element_ocr_attrs((35, 75, 135, 95), "Tesseract", fixed)


def test_a_list_number_keeps_its_space_before_the_next_word():
    words = [OcrWord((40, 50, 48, 59), "1.", 0), OcrWord((52, 50, 120, 59), "2020年4月1日", 0),
             OcrWord((40, 80, 70, 89), "23.800", 1)]
    lines = [line.strip() for line in _layer(words).get_text("text").splitlines() if line.strip()]
    assert lines == ["1. 2020年4月1日", "23.800"]


def test_a_solid_logo_is_taken_out_of_the_text_and_bold_kanji_are_not():
    def build(page: pymupdf.Page) -> None:
        page.draw_rect(pymupdf.Rect(240, 20, 254, 34), color=None, fill=(0.2, 0.35, 0.65))
        page.draw_line((240, 34), (254, 20), color=(1, 1, 1), width=1.5)  # a white stroke cuts it in two
        page.insert_text((30, 40), "第1章　総則　経費精算規程", fontname="japan", fontsize=14, render_mode=2,
                         border_width=0.06)  # bold: filled and stroked
        page.insert_text((30, 80), "■ 本規程は経費の精算について定める。", fontname="japan", fontsize=10)

    marks, covered = find_marks(_rendered(build), 300 / 72)
    assert len(marks.blots) == 1
    x0, y0, x1, y1 = marks.blots[0]
    assert abs(x0 - 240) < 1.5 and abs(y0 - 20) < 1.5 and abs(x1 - 254) < 1.5 and abs(y1 - 34) < 1.5
    zoom = 300 / 72
    assert covered[int(27 * zoom), int(243 * zoom)]  # erased before OCR


def test_ink_left_unread_by_the_page_pass_is_found_as_a_line_and_ink_beside_a_word_is_not():
    from core.ingest.ocr_second_look import missed_lines

    def build(page: pymupdf.Page) -> None:
        page.insert_text((30, 40), "目次", fontname="japan", fontsize=13)
        page.insert_text((30, 80), "本規程は経費の精算について定める。", fontname="japan", fontsize=10)

    zoom = 300 / 72
    gray = _rendered(build)
    # the page pass read line two but its first word's box starts a character late (as Tesseract's
    # boxes for Japanese words do), and it read nothing of line one
    read = [((int(42 * zoom), int(71 * zoom), int(190 * zoom), int(82 * zoom)), 0.9, "規程は経費の精算について定める。", (1, 1, 1))]
    found = missed_lines(gray, read, zoom)
    assert len(found) == 1
    x0, y0, x1, y1 = (v / zoom for v in found[0])
    assert 28 <= x0 <= 31 and 26 <= y0 <= 31 and 55 <= x1 <= 60 and y1 <= 43


def test_a_yen_amounts_full_stop_and_a_yen_read_as_yu_are_mended_and_a_decimal_is_not():
    from core.ingest.ocr_fixes import fixed_words

    # Tesseract reads "23,800 円" as 23.800, and the 円 of the next cell now and then as 由
    words = [OcrWord((144, 436, 177, 453), "23.800", 0), OcrWord((244, 435, 257, 452), "円", 0),
             OcrWord((144, 460, 177, 477), "11.500", 1), OcrWord((250, 463, 258, 472), "由", 1),
             OcrWord((317, 462, 346, 471), "精算額", 1),
             OcrWord((40, 500, 120, 510), "1.234.567円", 2),
             OcrWord((40, 520, 90, 530), "23.800", 3), OcrWord((95, 520, 110, 530), "kg", 3),
             OcrWord((40, 540, 90, 550), "0.5円", 4), OcrWord((40, 560, 90, 570), "理由", 5),
             OcrWord((40, 580, 120, 590), "様式第3号（第10奈関係）", 6),
             OcrWord((40, 600, 120, 610), "第2奈良丸", 7)]
    fixed = fixed_words(words)
    assert [w.text for w in fixed] == ["23,800", "円", "11,500", "円", "精算額", "1,234,567円", "23.800", "kg",
                                       "0.5円", "理由", "様式第3号（第10条関係）", "第2奈良丸"]
    assert fixed[0].fixes == ("N,NNN円 (read N.NNN円)",) and fixed[3].fixes == ("N円 (read N由)",)
    assert not any(w.fixes for w in fixed[6:10])


def test_a_line_tesseract_gave_a_cells_height_is_set_small_enough_to_stay_in_its_span():
    # on the scanned 申請書 Tesseract gave "2026年4月15日" 18 pt boxes for 10 pt glyphs: set at
    # 20 pt, the line ran past its cell and its last characters were read as the next line's
    words = [OcrWord((391, 104, 419, 113), "申請", 0), OcrWord((416, 99, 426, 117), "日", 0),
             OcrWord((432, 99, 453, 117), "2026", 0), OcrWord((453, 99, 462, 117), "年", 0),
             OcrWord((462, 99, 468, 117), "4", 0), OcrWord((468, 99, 476, 117), "月", 0),
             OcrWord((475, 99, 488, 117), "15", 0), OcrWord((488, 99, 495, 117), "日", 0)]
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=200)
    write_text_layer(page, words)
    chars = [ch for block in page.get_text("rawdict")["blocks"] for line in block["lines"]
             for span in line["spans"] for ch in span["chars"] if not ch["c"].isspace()]
    assert "".join(ch["c"] for ch in chars) == "申請日2026年4月15日"
    assert max(ch["bbox"][2] for ch in chars) <= 495 * 1.02


def test_a_cell_borders_piece_read_as_a_full_stop_is_dropped_and_real_punctuation_is_kept():
    from core.ingest.ocr import _tsv_words

    # on the scanned 申請書 a 3 x 19 pt piece of a cell border after "仮払金" came back as "。"
    # (and after "精算額" as "”"); a real 。 and a real 、 (Tesseract boxes it a line high) stay
    zoom = 2.0
    rows = [((v[0] * zoom, v[1] * zoom, v[2] * zoom, v[3] * zoom), 0.9, text, (1, 1, n))
            for n, (v, text) in enumerate([((300, 436, 330, 446), "仮払金"), ((363, 433, 366, 452), "。"),
                                           ((40, 130, 60, 145), "期限は"), ((60, 130, 68, 145), "、"),
                                           ((70, 132, 80, 141), "経費"), ((80, 139, 83, 142), "。"),
                                           ((365, 457, 368, 476), "”")])]
    assert [w.text for w in _tsv_words(rows, zoom, ScanMarks())] == ["仮払金", "期限は", "、", "経費", "。"]
