"""A PDF built in code with sentinel strings (after pymupdf4llm's and unstructured's tests).

A four-page 規程: a running header and footer with the page number on every page, a chapter
heading per page, five body sentences per page each carrying a unique sentinel (S0101…), a ※1
footnote on page 2 whose marker sits in a body sentence, and on page 3 a captioned figure (F1), a
displayed formula and an SQL block set in a monospace font.
"""
from __future__ import annotations

from pathlib import Path

import pymupdf

CHAPTERS = ["総則", "交通費の支給", "精算の手続", "雑則と附則"]
# Varied wording, so no body line looks like running furniture (same text on ≥3 pages).
SUBJECTS = ["申請者は", "所属長の承認を経た", "経理部が確認する", "出張の旅費として", "日当の額は",
            "宿泊費の上限について", "領収書の原本を", "電子帳簿保存法により"]
ENDINGS = ["に従って処理する。", "を定めるものとする。", "の範囲で支給する。", "を期限内に提出する。",
           "として記録を残す。", "の扱いとなる。"]

HEADER = "センチネル規程　社外秘"
FOOTER = "センチネル株式会社　規程集"
CAPTION = "図1　キャプションセンチネルF1の流れ"
FOOTNOTE = "※1 脚注センチネルN1：事前承認があれば時間帯を問わない。"
MARKER_SENTENCE = "タクシーの利用はセンチネルS0299の場合に限る※1。"
FORMULA = "S = T + H × n − A"
CODE = ["SELECT id, amount", "FROM expenses", "WHERE status = 'ok';"]


def _write(page: pymupdf.Page, x: float, y: float, text: str, size: float = 10.5,
           font: pymupdf.Font | None = None) -> None:
    writer = pymupdf.TextWriter(page.rect)
    writer.append((x, y), text, font=font or pymupdf.Font("japan"), fontsize=size)
    writer.write_text(page)


def build_sentinel_pdf(path: Path, pages: int = 4) -> list[str]:
    """Write the PDF; return its body sentences (each must land in exactly one chunk)."""
    doc = pymupdf.open()
    sentences: list[str] = []
    for p in range(1, pages + 1):
        page = doc.new_page(width=595, height=842)
        _write(page, 64, 38, HEADER, 9)
        _write(page, 64, 80, f"第{p}章　{CHAPTERS[(p - 1) % len(CHAPTERS)]}", 14)
        y = 110
        for i in range(1, 6):
            sentence = (f"{SUBJECTS[(p * 5 + i) % len(SUBJECTS)]}センチネルS{p:02d}{i:02d}"
                        f"{ENDINGS[(p + i) % len(ENDINGS)]}")
            sentences.append(sentence)
            _write(page, 74, y, sentence)
            y += 22
        if p == 2:
            sentences.append(MARKER_SENTENCE)
            _write(page, 74, y, MARKER_SENTENCE)
            _write(page, 64, 780, FOOTNOTE, 9)
        if p == 3:
            y = _figure_formula_and_code(page, y, sentences)
        _write(page, 64, 812, FOOTER, 8)
        _write(page, 290, 812, f"- {p} -", 8)
    doc.save(str(path))
    return sentences


def _figure_formula_and_code(page: pymupdf.Page, y: float, sentences: list[str]) -> float:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 100), False)
    pix.set_rect(pix.irect, (90, 140, 200))
    page.insert_image(pymupdf.Rect(150, y, 450, y + 120), pixmap=pix)
    y += 140
    _write(page, 230, y, CAPTION, 10)
    y += 40
    for sentence, after in (("精算額はセンチネルS0398の式で求める。", 34),):
        sentences.append(sentence)
        _write(page, 74, y, sentence)
        y += after
    _write(page, 220, y, FORMULA, 12)
    y += 36
    sentence = "抽出条件はセンチネルS0399のとおりとする。"
    sentences.append(sentence)
    _write(page, 74, y, sentence)
    y += 26
    writer = pymupdf.TextWriter(page.rect)
    for k, line in enumerate(CODE):
        writer.append((84, y + k * 13), line, font=pymupdf.Font("cour"), fontsize=10)
    writer.write_text(page)
    return y + 13 * len(CODE)
