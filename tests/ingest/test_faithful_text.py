"""Faithful text (issue 10): what the elements say is what is printed, on PDFs built here."""
from __future__ import annotations

import re

import pymupdf
import pytest

from core.categories import Category
from core.chunks.chunking import build_chunks
from core.corpus_check import is_bad_char
from core.ingest.pdf import parse_pdf
from core.refine.rules import refine
from core.store.records import doc_id_for, sha256_of
from pdf_builders import build_pdf, button_form_pdf, control_char_pdf, line_numbered_page, masked_speck_pdf, spanning_table_page, wingdings_bullets_pdf, zero_width_mark_pdf

C = Category
ENGINES = ("fast", "layout")


def ingest(data: bytes, engine: str = "fast"):
    sha = sha256_of(data)
    return refine(parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="t.pdf", engine=engine).document)


@pytest.mark.parametrize("engine", ENGINES)
def test_control_characters_are_dropped_and_recorded(engine):
    doc = ingest(control_char_pdf(), engine)
    texts = [e.text for e in doc.elements()]
    assert not any(is_bad_char(ch) for t in texts for ch in t)
    hit = next(e for e in doc.elements() if "rld" in e.text)
    assert hit.text.startswith("Hll w")  # the element is kept, only the broken characters go
    assert "dropped_unmappable_glyphs" in hit.rules and hit.attr("dropped_glyphs") == 3
    chunks = build_chunks(doc, "default")
    assert chunks and not any(is_bad_char(ch) for c in chunks for ch in c.text)


@pytest.mark.parametrize("engine", ENGINES)
def test_characters_the_dict_output_drops_are_taken_back_from_the_words(engine):
    data = zero_width_mark_pdf()
    doc = ingest(data, engine)
    hit = next(e for e in doc.elements() if "Marked" in e.text)
    assert "MarkedX" in hit.text  # MuPDF's dict gives "Marked"; its words give "MarkedX"
    assert "recovered_words" in hit.rules and hit.attr("recovered_chars") == 1
    assert any("Second line" in e.text and "recovered_words" not in e.rules for e in doc.elements())


def _blanked_by_actual_text(actual: bytes) -> bytes:
    """A caption line printed inside marked content whose /ActualText is `actual` (docassemble's Word
    forms give some lines an ActualText of a space), under a heading read as printed."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    page.insert_text((40, 60), "Referral Permission Form", fontsize=14)
    xref = page.get_contents()[0]
    line = b"BT /helv 11 Tf 40 200 Td (Telephone Number: Text Message OK?) Tj ET"
    doc.update_stream(xref, doc.xref_stream(xref) + b"\n/Span <</ActualText (" + actual + b")>> BDC " + line + b" EMC\n")
    return doc.tobytes()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_printed_line_an_actual_text_blanks_is_read_as_printed(engine):
    data = _blanked_by_actual_text(b"\\040")
    assert "Telephone" not in pymupdf.open("pdf", data)[0].get_text()  # MuPDF reads the ActualText only
    doc = ingest(data, engine)
    hit = [e for e in doc.elements() if "Telephone Number" in e.text]
    assert len(hit) == 1 and "Text Message OK?" in hit[0].text  # before: the line was not read at all
    assert "recovered_words" in hit[0].rules and hit[0].attr("recovered_chars") >= 25


@pytest.mark.parametrize("engine", ENGINES)
def test_an_actual_text_that_spells_its_glyphs_is_read_once(engine):
    doc = ingest(_blanked_by_actual_text(b"Telephone Number: Text Message OK?"), engine)
    text = " ".join(e.text for e in doc.elements())
    assert text.count("Telephone") == 1 and not any("recovered_words" in e.rules for e in doc.elements())


BODY = ["この指針は、事業者が生成AIを利用する際に留意すべき事項として、イノベーシ",
        "ョンの促進とリスクの緩和を両立する枠組みを示すものであり、各主体が自主的",
        "に取り組むことを期待する。データを判別し",
        "てラベリングする作業は、人間の判断を介在させることが望ましい。また、",
        "利用者への説明責任を果たすため、記録を残すことが重要である。さらに、",
        "関係者間で情報を共有し、継続的に見直すことが求められる。以上を踏まえ、",
        "本指針を定める。"]


@pytest.mark.parametrize("engine", ENGINES)
def test_margin_line_numbers_never_join_a_word(engine):
    doc = ingest(build_pdf(lambda p: line_numbered_page(p, BODY)), engine)
    body = "".join(e.text for e in doc.elements() if e.category is not C.DECORATIVE)
    assert "イノベーション" in body and "判別してラベリング" in body
    assert not re.search(r"[ぁ-んァ-ヶー一-龥][0-9]+[ぁ-んァ-ヶー一-龥]", body)
    numbers = [e for e in doc.elements() if e.attr("kind") == "line_numbers"]
    assert len(numbers) == 1 and numbers[0].text.split() == [str(i) for i in range(1, 8)]
    assert numbers[0].category is C.DECORATIVE and "line_numbers" in numbers[0].rules


def test_numbered_list_is_not_taken_for_line_numbers():
    def page(p):
        for i in range(6):  # items with a paragraph between them: list numbers, kept in their items
            p.insert_text((72, 100 + i * 60), f"{i + 1}", fontname="japan", fontsize=10.5)
            p.insert_text((100, 100 + i * 60), f"項目{i + 1}の説明文です。", fontname="japan", fontsize=10.5)
    doc = ingest(build_pdf(page))
    assert not [e for e in doc.elements() if e.attr("kind") == "line_numbers"]


def chart(p):
    """A bar chart's labels side by side: each bar's year over its amount, the bars drawn as shapes."""
    for i, (year, amount) in enumerate([("H28FY補正", "約50億円※1"), ("R1FY補正", "20億円"), ("R2FY補正", "30億円")]):
        x = 100 + i * 140
        p.draw_rect((x, 200, x + 60, 300), color=(0, 0, 0), fill=(0.3, 0.5, 0.8))
        p.insert_text((x, 170), year, fontname="japan", fontsize=9)
        p.insert_text((x, 184), amount, fontname="japan", fontsize=9)
    p.draw_line((90, 305), (520, 305), color=(0, 0, 0))
    p.draw_line((90, 140), (90, 305), color=(0, 0, 0))


def test_picture_labels_are_read_column_by_column():
    doc = ingest(build_pdf(chart))
    picture = next(e for e in doc.elements() if e.category is C.PICTURE and "補正" in e.text)
    assert picture.text.index("H28FY補正") < picture.text.index("約50億円※1") < picture.text.index("R1FY補正")
    assert picture.text.index("R1FY補正") < picture.text.index("20億円") < picture.text.index("R2FY補正")


def bar_chart_values_first(p):
    """A horizontal bar chart drawn as the white paper's 図表Ⅰ-4-1-2 is: its frame and every bar, then
    every bar's value at its end, and only then the names, right-aligned on the left of the axis."""
    rows = [("OpenAI「GPT4」", None), ("Google「PaLM」", "5,400"), ("Microsoft「MT-NLG」", "5,300"),
            ("NEC「cotomi」", "130"), ("「‐」", "130"), ("Microsoft「Phi」", "27")]
    p.draw_rect((60, 100, 520, 290), color=(0.6, 0.6, 0.6), width=0.5)
    for k in range(4):
        p.draw_line((200 + k * 100, 110), (200 + k * 100, 265), color=(0.8, 0.8, 0.8), width=0.3)
    for i, (_, value) in enumerate(rows):
        if value:
            y = 120 + i * 24
            p.draw_rect((200, y, 200 + int(value.replace(",", "")) / 20, y + 12), color=None, fill=(0.3, 0.5, 0.8))
    for i, (_, value) in enumerate(rows):
        if value:
            p.insert_text((205 + int(value.replace(",", "")) / 20, 130 + i * 24), value, fontname="helv", fontsize=8)
    for i, (name, _) in enumerate(rows):
        width = pymupdf.get_text_length(name, fontname="japan", fontsize=8)
        p.insert_text((195 - width, 130 + i * 24), name, fontname="japan", fontsize=8)
    for k, tick in enumerate(("0", "2,000", "4,000", "6,000")):
        p.insert_text((196 + k * 100, 280), tick, fontname="helv", fontsize=8)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_charts_values_follow_the_names_of_their_rows(engine):
    doc = ingest(build_pdf(bar_chart_values_first), engine=engine)
    text = " ".join(e.text for e in doc.elements() if "PaLM" in e.text)
    for name, value in (("Google「PaLM」", "5,400"), ("Microsoft「MT-NLG」", "5,300"), ("NEC「cotomi」", "130"),
                        ("「‐」", "130"), ("Microsoft「Phi」", "27")):
        assert text.index(name) < text.index(value, text.index(name)) < text.index(name) + len(name) + 3, text
    assert text.index("OpenAI「GPT4」") < text.index("Google「PaLM」")
    assert not re.search(r"[0-9][「\u3040-\u30ff\u4e00-\u9fff]", text), text  # no value glued to the next name


def chapter_tab(p):
    """A vertical chapter tab "第4章": 第 and 章 set vertically, the 4 horizontally between them."""
    p.draw_rect((528, 80, 568, 170), color=None, fill=(0.2, 0.4, 0.7), radius=0.2)  # a rounded tab: a figure
    p.insert_text((540, 100), "第", fontname="japan", fontsize=14, rotate=270)
    p.insert_text((546, 124), "4", fontname="japan", fontsize=13)
    p.insert_text((540, 130), "章", fontname="japan", fontsize=14, rotate=270)
    p.insert_text((72, 120), "本文の段落です。デジタル技術の課題と対応策を述べる。", fontname="japan", fontsize=10.5)


def test_vertical_tab_reads_top_to_bottom():
    doc = ingest(build_pdf(chapter_tab))
    joined = "".join(e.text for e in doc.elements())
    assert "第4章" in joined and "4第章" not in joined


def ruled_form(p):
    """A form's ruled area that is no full grid (rules of different lengths, two dividers) with
    its labels and filled-in values: what the fast engine used to call a vector figure."""
    for i in range(10):
        y = 100 + i * 24
        p.draw_line((40, y + 8), (560 if i in (0, 5) else 300 + 25 * i, y + 8), color=(0, 0, 0), width=0.6)
        p.insert_text((44, y + 4), f"{i + 1}a Name of filer line {i + 1}", fontname="helv", fontsize=8)
        p.insert_text((320, y + 4), f"Value {i + 1}: 12,{i}00", fontname="helv", fontsize=8)
    p.draw_line((310, 110), (310, 300), color=(0, 0, 0), width=0.6)
    p.draw_line((480, 120), (480, 260), color=(0, 0, 0), width=0.6)


def test_text_dense_ruled_area_is_not_a_picture():
    doc = ingest(build_pdf(ruled_form))
    in_pictures = "".join(e.text for e in doc.elements() if e.category is C.PICTURE)
    assert "Name of filer" not in in_pictures
    texts = [e.text for e in doc.elements() if e.category is not C.PICTURE]
    assert any("Name of filer line 3" in t for t in texts) and any("Value 7" in t for t in texts)
    assert "1" in dict(doc.meta_value("rulings"))  # the rulings stay for forms pairing


def monthly_report_page(n: int):
    """A report page whose body starts high on the page, with lines that differ only in numbers."""
    def page(p):
        p.insert_text((72, 40), f"月次報告 第{n}号", fontname="japan", fontsize=9)
        for i in range(3):
            p.insert_text((72, 85 + i * 16), f"項目{i + 1}の売上は{n * 10 + i}億円でした", fontname="japan", fontsize=10.5)
        p.insert_text((72, 400), f"本文は通常の段落{n}です。", fontname="japan", fontsize=10.5)
        p.insert_text((290, 800), f"- {n} -", fontname="japan", fontsize=9)
    return page


def test_repeated_body_lines_near_the_top_are_not_furniture():
    doc = ingest(build_pdf(*[monthly_report_page(n) for n in range(1, 6)]))
    for page in doc.pages:
        cats = {e.text: e.category for e in page.elements}
        assert cats[f"月次報告 第{page.number}号"] is C.PAGE_HEADER and cats[f"- {page.number} -"] is C.PAGE_FOOTER
        assert all(cat is C.TEXT for t, cat in cats.items() if t.startswith("項目")), cats
    assert any("項目2の売上は31億円" in c.text for c in build_chunks(doc, "default"))


@pytest.mark.parametrize("engine", ENGINES)
def test_button_captions_on_a_form_page_are_text_not_pictures(engine):
    """Failed before (fast): each drawn button became a picture holding its caption, so a tiny form
    had most of its characters inside pictures (widget_corpus pdfjs issue15053: 53 of 70)."""
    doc = ingest(button_form_pdf(), engine)
    for caption in ("Submit the form", "Clear all fields"):
        assert any(caption in e.text and e.category is not C.PICTURE for e in doc.elements())
    assert not any(e.text.strip() for e in doc.elements() if e.category is C.PICTURE)


@pytest.mark.parametrize("engine", ENGINES)
def test_wingdings_bullets_read_as_their_unicode_look_alikes(engine):
    """Failed before: the bullets came through as U+F09F / U+F0FC (tofu in every export)."""
    doc = ingest(wingdings_bullets_pdf(), engine)
    text = "\n".join(e.text for e in doc.elements())
    assert not re.search("[\ue000-\uf8ff]", text)
    assert "•" in text and "✓" in text and "First point" in text
    mapped = [e for e in doc.elements() if "mapped_symbol_glyphs" in e.rules]
    assert mapped and all(e.attr("symbol_glyphs") for e in mapped)
    chunks = build_chunks(doc, "default")
    assert chunks and not any(re.search("[\ue000-\uf8ff]", c.text) for c in chunks)
    assert not any(e.category is C.SELECTION_MARK for e in doc.elements())  # a bullet, not a check box


@pytest.mark.parametrize("engine", ENGINES)
def test_a_group_label_spanning_rows_stays_one_cell(engine):
    """Failed before: the label's lines fell in different rows, so the table (and its chunk) read
    "生成AIで特に顕在化 | 悪用 …" and "したリスク | 機密情報の流出 …" (white paper 図表Ⅰ-4-1-1)."""
    doc = ingest(build_pdf(spanning_table_page), engine)
    rows = next(e for e in doc.elements() if e.category is C.TABLE).attr("rows")
    firsts = [r[0] for r in rows]
    assert "生成AIで特に顕在化したリスク" in firsts and "従来型AIから存在するリスク" in firsts, rows
    assert not any(f in ("したリスク", "するリスク", "特に顕在化したリスク", "から存在するリスク") for f in firsts)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_image_whose_soft_mask_is_over_the_pixel_cap_is_never_decoded_for_its_text(engine, monkeypatch):
    # wild/pdfjs issue16263: 40 paintings of a 2×2 image with a 151-MP mask kept the text pass busy 35 s
    monkeypatch.setenv("RLI_MAX_IMAGE_MEGAPIXELS", "1")
    doc = ingest(masked_speck_pdf(mask_size=(2000, 1000)), engine)
    assert any("Masked specks below" in e.text for e in doc.elements())
    specks = [e for e in doc.elements() if e.attr("image")]
    # the boxes come from where the page paints the image (identity "x<xref>:…"), not from decoded pixels
    assert len({e.bbox for e in specks}) >= 10 and all(e.attr("image").startswith("x") for e in specks)
    assert not any("megapixels" in (page.notice or "") for page in doc.pages)  # the model still reads it


def test_a_line_whose_blank_has_a_tall_font_box_reads_where_its_text_is_printed():
    """Honpen p14's footnote: a blank and the note number set in Cambria give the line a box 44 pt
    tall starting two lines above its text; read by that box, the line came before the note above it."""
    from core.ingest.lines import Line, Span, ordered_lines

    def line(top: float, text: str, blank_box: tuple | None = None) -> Line:
        spans = [Span((78, top, 520, top + 12), text, 8.0, "MeiryoUI", 0)]
        if blank_box:
            spans.insert(0, Span(blank_box, " ", 8.0, "Cambria", 0))
        boxes = [s.bbox for s in spans]
        box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
        return Line(box, spans, 0)

    first = line(618, "11 人間の判断や意思決定において")
    second = line(631, "12 「フィルターバブル」とは", blank_box=(76, 615, 78, 659))
    third = line(645, "かわらず見たい情報が優先的に")
    assert [ln.text for ln in ordered_lines([third, second, first])] == [first.text, second.text, third.text]


def test_a_chapter_label_with_a_large_digit_keeps_the_top_of_its_box():
    # "第4章" with the 4 set in a taller font: no span holds most of the line, the box's top stands
    from core.ingest.lines import Line, Span, printed_top

    spans = [Span((74, 48, 100, 80), "第", 24.0, "ShinGo", 0), Span((100, 23, 125, 97), "4", 60.0, "Helvetica", 0),
             Span((125, 48, 156, 80), "章", 24.0, "ShinGo", 0)]
    assert printed_top(Line((74, 23, 156, 97), spans, 0)) == 23


def _row_line(x0: float, top: float, x1: float, text: str, size: float = 10.0):
    from core.ingest.lines import Line, Span

    box = (x0, top, x1, top + size * 1.2)
    return Line(box, [Span(box, text, size, "MS-Gothic", 0)], 0)


def _guideline_table():
    """The 概要 deck's p13 in small: row labels in a left column, beside cells whose items wrap at
    the cell's right edge (x 818); "各主体が" stands on the row of an item's second line."""
    return [
        _row_line(230, 300, 818, "✓AIシステム・サービスの特性及び用途を踏まえ、学習等に用いるデータの正確性等を"),
        _row_line(247, 314, 700, "検討し、適切に実施する"),
        _row_line(230, 330, 818, "✓特定の個人ないし集団へのその人種、性別、国籍、年齢等を理由とした不当"),
        _row_line(39, 344, 92, "各主体が"),
        _row_line(247, 344, 466, "で有害な偏見及び差別をなくすよう努める"),
        _row_line(40, 362, 100, "3) 公平性"),
        _row_line(230, 362, 818, "✓AIの出力結果が公平性を欠くことがないよう、適切なタイミングで人間の判断を"),
        _row_line(247, 376, 520, "介在させる利用を検討する"),
    ]


def test_a_row_label_beside_a_wrapped_sentence_reads_before_it_not_inside_it():
    from core.ingest.lines import ordered_lines
    from core.text import join_lines

    text = join_lines([ln.text for ln in ordered_lines(_guideline_table())])
    assert "不当で有害な偏見" in text and "人間の判断を介在させる" in text
    assert text.index("各主体が") < text.index("✓特定の個人") and text.index("3) 公平性") < text.index("✓AIの出力")
    assert sorted(text.replace("\n", "")) == sorted("".join(ln.text for ln in _guideline_table()))  # nothing lost


def test_a_bullet_set_as_its_own_line_still_opens_the_next_item():
    from core.ingest.lines import ordered_lines

    lines = [_row_line(40, 100, 52, "–"), _row_line(60, 100, 818, "データ提供においては、提供される者もしくは入手する者にあたる者が"),
             _row_line(60, 114, 818, "データを取り扱う際の責任を負い、その記録を残すことが求められる、とされている"),
             _row_line(40, 128, 52, "–"), _row_line(60, 128, 818, "データ提供者は本ガイドラインの対象には含まれないが、取組は推奨される")]
    assert [ln.text for ln in ordered_lines(lines)] == [ln.text for ln in lines]


def test_a_column_of_values_under_its_longest_value_is_not_a_wrapped_sentence():
    """A spec sheet: keys on the left, values on the right; the value column's longest line over a
    short one is the end of a value, not a line wrapping (pdfminer's issue-1062 sample)."""
    from core.ingest.lines import ordered_lines

    lines = [_row_line(40, 100, 120, "motorsoort"), _row_line(200, 100, 340, "draaistroom-asynchroon-motor"),
             _row_line(40, 113, 150, "nominaal vermogen"), _row_line(200, 113, 240, "0,18 kW"),
             _row_line(40, 126, 140, "nom. koppel"), _row_line(200, 126, 240, "1,27 Nm")]
    assert [ln.text for ln in ordered_lines(lines)] == [ln.text for ln in lines]


def test_a_table_read_from_its_lines_keeps_its_rows():
    """A price table read as one element (pdfplumber's ag-energy round-up): its source column repeats
    one long value at one right edge, as a wrapped sentence would end at its margin; a table's lines
    stay row by row, a paragraph's would be mended."""
    from core.categories import Category
    from core.ingest.draft import Draft
    from core.text import join_lines

    lines = []
    for k, city in enumerate(["Minneapolis", "San Joaquin Valley", "San Francisco", "Los Angeles"]):
        lines += [_row_line(20, 100 + 12 * k, 110, city), _row_line(300, 100 + 12 * k, 450, "California Weekly Feedstuffs")]
    rows = join_lines([ln.text for ln in lines])
    box = (20, 100, 450, 160)
    assert Draft(Category.TABLE, box, list(lines)).final_text() == rows
    assert Draft(Category.TEXT, box, list(lines)).final_text() != rows  # the rule a table is spared
