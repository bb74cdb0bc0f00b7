"""Faithful chunk text (issue 10): footnotes placed between sentences, lone marks merged, captions
with their titles; on PDFs built here, through ingest, refine and the chunker."""
from __future__ import annotations

import re

from core.categories import Category
from core.chunks.chunking import build_chunks
from core.ingest.pdf import parse_pdf
from core.refine.rules import refine
from core.store.records import doc_id_for, sha256_of
from pdf_builders import build_pdf, text

C = Category


def ingest(data: bytes, engine: str = "fast"):
    sha = sha256_of(data)
    return refine(parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename="t.pdf", engine=engine).document)


def split_sentence_page(p):
    """A sentence that runs on past its block (the parser cut the paragraph at a wider line gap),
    its footnote mark in the first part, the note at the foot of the page."""
    text(p, 72, 100, "本文の最初の文です。今般、新しい指針＊1を定めたことにより、")
    text(p, 72, 124, "関係者の取組が大きく進んだ。次の文はここから始まる。")
    text(p, 72, 780, "＊1 指針の詳細は別紙を参照のこと。", 8)


def test_footnote_goes_after_the_end_of_its_sentence():
    doc = ingest(build_pdf(split_sentence_page))
    body = next(c.text for c in build_chunks(doc, "default") if "今般" in c.text)
    assert "今般、新しい指針＊1を定めたことにより、関係者の取組が大きく進んだ。" in body.replace("\n", "")
    note = body.index("＊1 指針の詳細")
    assert body.index("進んだ。") < note, body


def marker_page(p):
    """A chart, its source line, and the note mark "＊4" the parser read as a line of its own."""
    for i in range(3):
        p.draw_rect((100 + i * 80, 200, 150 + i * 80, 300), color=(0, 0, 0), fill=(0.3, 0.5, 0.8))
        text(p, 100 + i * 80, 190, f"{(i + 1) * 70}億", 8)
    p.draw_line((90, 305), (400, 305), color=(0, 0, 0))
    p.draw_line((90, 140), (90, 305), color=(0, 0, 0))
    text(p, 100, 160, "（出典）企業HPなどの情報を基に作成", 8)
    text(p, 90, 352, "＊4", 8)
    text(p, 72, 400, "2 国産LLMの開発", 14)
    text(p, 72, 430, "国産の大規模言語モデルの開発が進んでいる。")
    text(p, 72, 780, "＊4 パラメータ数は非公表。", 8)


def test_no_chunk_is_a_lone_marker():
    doc = ingest(build_pdf(marker_page))
    chunks = build_chunks(doc, "default")
    assert not [c.text for c in chunks if c.text.strip() in ("＊4", "*4")]
    assert any("＊4" in c.text and "作成" in c.text for c in chunks), [c.text for c in chunks]


def numbered_caption_page(p):
    """Caption boxes holding only their number: one titled by the table's first row, one by the
    line under it."""
    from pdf_builders import ruled_table

    text(p, 72, 90, "図表1", 9)
    ruled_table(p, 72, 100, [["生成AIの課題", ""], ["リスク", "事例"], ["バイアス", "採用での差別"]], col_w=200)
    text(p, 72, 300, "図表2", 9)
    text(p, 72, 316, "主要な指標の推移", 9)
    text(p, 72, 340, "この図は主要な指標の推移を示している。詳細は本文で述べる。")


def test_a_number_only_caption_takes_its_title():
    doc = ingest(build_pdf(numbered_caption_page))
    captions = [e.text for e in doc.elements() if e.category is C.CAPTION]
    assert "図表1 生成AIの課題" in captions and "図表2 主要な指標の推移" in captions
    table = next(e for e in doc.elements() if e.category is C.TABLE)
    assert "生成AIの課題" not in table.text and "caption_title" in table.rules
    chunk = next(c.text for c in build_chunks(doc, "default") if "採用での差別" in c.text)
    assert chunk.count("生成AIの課題") == 1 and chunk.count("図表1") == 1


def test_a_footnote_placed_between_sentences_is_a_line_of_its_own():
    """Failed before: the sentence after the note was glued to the note's end ("…参照のこと。次の文…";
    the white paper's p7: "…2023年7月22日号他方、民間事業者…")."""
    doc = ingest(build_pdf(split_sentence_page))
    body = next(c.text for c in build_chunks(doc, "default") if "今般" in c.text)
    assert "＊1 指針の詳細は別紙を参照のこと。" in body.splitlines(), body
    assert "次の文はここから始まる。" in body.replace("\n", "")


def overprinted_chart_page(p):
    """A bar chart whose value labels are printed twice at the same place (two text layers, as the
    white paper's p3 chart is), its caption above."""
    text(p, 72, 90, "図表3 各モデルのパラメータ数", 9)
    for i, value in enumerate(("27", "70", "130", "700")):
        p.draw_rect((100, 120 + i * 30, 120 + i * 60, 140 + i * 30), color=(0, 0, 0), fill=(0.3, 0.5, 0.8))
        for _ in range(2):
            text(p, 126 + i * 60, 134 + i * 30, value, 8)
    p.draw_line((95, 115), (95, 245), color=(0, 0, 0))
    text(p, 72, 300, "モデルの規模は年々大きくなっている。")


def test_labels_printed_twice_at_one_place_are_read_once():
    """Failed before: every label came out twice ("27 27 70 70 …"), both engines' picture text."""
    for engine in ("fast", "layout"):
        doc = ingest(build_pdf(overprinted_chart_page), engine)
        text_all = " ".join(e.text for e in doc.elements())
        for value in ("27", "70", "130", "700"):
            assert len(re.findall(rf"(?<![\d,]){value}(?![\d,])", text_all)) == 1, (engine, text_all)
        assert any("overprinted_duplicates" in e.rules for e in doc.elements())


def two_marks_page(p):
    """One paragraph: a sentence with two note marks, then two more sentences (one with a mark of
    its own), the three notes at the foot of the page, none ending in 。 (a list of names, a URL: the
    white paper's p7, ＊22-＊27)."""
    text(p, 72, 100, "米国では七社が合意した＊1と発表した＊2。新たに八社が合意した＊3。")
    text(p, 72, 124, "一部の州では規制が見られる。他方、議論も続いている。")
    text(p, 72, 760, "＊1 Amazon、Google、Meta", 8)
    text(p, 72, 772, "＊2 https://example.com/press", 8)
    text(p, 72, 784, "＊3 Adobe、IBM、NVIDIA", 8)


def test_every_note_follows_the_sentence_of_its_own_mark():
    """Failed before: the first note glued after the sentence made it end in the note, not in 。, so
    the second note (same sentence) slid to the next sentence, and ＊3 to the one after its own."""
    doc = ingest(build_pdf(two_marks_page))
    body = next(c.text for c in build_chunks(doc, "default") if "七社が合意" in c.text).replace("\n", "")
    first, second = body.index("発表した＊2。"), body.index("新たに八社が合意した＊3。")
    assert first < body.index("＊1 Amazon") < body.index("＊2 https") < second, body
    assert second < body.index("＊3 Adobe") < body.index("一部の州では"), body
