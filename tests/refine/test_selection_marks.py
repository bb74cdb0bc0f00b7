"""The selection_glyph rule: check-box glyphs and small square drawings become selection marks."""
from __future__ import annotations

from core.categories import Category
from core.refine.selection_marks import selection_glyph
from core.ingest.pdf import parse_pdf
from core.store.records import doc_id_for, sha256_of
from pdf_builders import HELVETICA, html, raw_page_pdf, text
from refine_fixtures import body, find, raw

C = Category


def test_glyphs_at_line_start_become_marks_split_from_their_labels():
    doc = selection_glyph(raw(lambda p: (body(p), html(p, (72, 300, 500, 330), "☑ 会議費　☐ 交通費"))))
    marks = [e for e in doc.elements() if e.category is C.SELECTION_MARK]
    assert [(m.text, m.state) for m in marks] == [("☑", "selected"), ("☐", "unselected")]
    labels = [e.text for e in doc.elements() if e.text in ("会議費", "交通費")]
    assert labels == ["会議費", "交通費"]
    for e in doc.elements():
        if e.text in ("☑", "☐", "会議費", "交通費"):
            assert "selection_glyph" in e.rules
            assert e.bbox[3] - e.bbox[1] < 30  # a box of its own, on the glyph's line
    assert marks[0].bbox[2] <= find(doc, "会議費").bbox[0] + 1  # mark left of its label
    assert [e.seq for e in doc.page(1).elements] == list(range(len(doc.page(1).elements)))


def test_a_glyph_used_as_a_word_in_a_sentence_is_left_alone():
    doc = selection_glyph(raw(lambda p: html(p, (72, 100, 520, 130), "該当する項目の□を塗りつぶしてください。")))
    assert not [e for e in doc.elements() if e.category is C.SELECTION_MARK]


def test_a_square_bullet_before_a_long_sentence_stays_a_bullet():
    line = "■ 本規程は、全ての役員及び従業員が業務上立て替えた経費の精算に適用する。"
    doc = selection_glyph(raw(lambda p: html(p, (72, 100, 560, 130), line)))
    assert not [e for e in doc.elements() if e.category is C.SELECTION_MARK]


def test_small_square_drawings_become_marks_selected_when_filled_or_ticked():
    def page(p):
        text(p, 100, 110, "同意する")
        p.draw_rect((80, 100, 90, 110), color=(0, 0, 0))  # empty
        text(p, 100, 140, "確認した")
        p.draw_rect((80, 130, 90, 140), color=(0, 0, 0), fill=(0, 0, 0))  # filled
        text(p, 100, 170, "添付した")
        p.draw_rect((80, 160, 90, 170), color=(0, 0, 0))
        html(p, (80.5, 158.5, 92, 172), "✓", size=8)  # a tick drawn inside
    doc = selection_glyph(raw(page))
    marks = sorted((e for e in doc.elements() if e.category is C.SELECTION_MARK), key=lambda e: e.bbox[1])
    assert [m.state for m in marks] == ["unselected", "selected", "selected"]
    assert all("selection_glyph" in m.rules for m in marks)
    assert not [e for e in doc.elements() if e.text == "✓" and e.category is not C.SELECTION_MARK]


def test_a_square_framing_a_number_is_an_ornament_not_a_check_box():
    def page(p):
        p.draw_rect((64, 333, 85, 355), color=(0, 0, 0))
        text(p, 70, 350, "1", 14)
        text(p, 95, 350, "生成AIが抱える課題", 14)
        body(p, y=400)
    doc = selection_glyph(raw(page))
    assert not [e for e in doc.elements() if e.category is C.SELECTION_MARK]



def test_a_square_outlined_by_four_lines_is_a_check_box_like_a_drawn_rectangle():
    # some form writers draw a check box's frame as four separate strokes (m l m l ...), not one
    # rectangle; the PDF is written by hand because PyMuPDF's drawing calls join them into a quad
    content = (b"BT /F1 10 Tf 100 733 Td (I agree) Tj ET BT /F1 10 Tf 100 703 Td (I checked) Tj ET "
               b"0 0 0 RG 80 732 m 90 732 l 90 732 m 90 742 l 90 742 m 80 742 l 80 742 m 80 732 l S "
               b"80 702 10 10 re S")
    data = raw_page_pdf({"F1": HELVETICA}, content)
    sha = sha256_of(data)
    doc = selection_glyph(parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="t.pdf",
                                    engine="fast").document)
    marks = sorted((e for e in doc.elements() if e.category is C.SELECTION_MARK), key=lambda e: e.bbox[1])
    assert [(round(m.bbox[1]), m.state) for m in marks] == [(100, "unselected"), (130, "unselected")]
