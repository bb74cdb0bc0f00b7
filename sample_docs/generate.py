#!/usr/bin/env python3
"""Build the Japanese sample PDFs in ``sample_docs/`` and their ground truth.

Run ``python sample_docs/generate.py [OUT_DIR]`` (default: this folder).  It writes

* ``keihi_seisan_kitei.pdf``  経費精算規程: a 6-page A4 regulation with TOC, tables,
  a figure, footnotes, formulas, an SQL block, references and running furniture;
* ``shinseisho_form.pdf``     経費精算申請書 with real AcroForm widgets;
* ``shinseisho_flat.pdf``     the same 申請書 flattened (values as page text, ☐/☑ glyphs);
* ``spread_a3.pdf``           an A3-landscape two-page spread of an 統合報告書;

and next to each PDF ``<name>.truth.json`` (schema ``truth/v1``, see README.md).

Why it is built like this:

* Output must be byte-identical on every run, because the tests compare a fresh
  build with the committed files.  So: fixed metadata, no XMP, no new /ID,
  ``garbage=3`` (deterministic object numbering) and font subsetting.
* Every element's bbox in the truth is what ``page.get_text`` reports for the
  text we drew (measured on a scratch page), not what we intended to draw, so a
  parser that reads the page exactly scores IoU 1.0.
* All text goes through ``pymupdf.TextWriter`` with the built-in CJK font
  ("japan" = Droid Sans Fallback).  TextWriter falls back to MuPDF's built-in
  Noto Symbols fonts for glyphs the CJK font lacks (☐ ☑ −), which
  ``page.insert_text(fontname="japan")`` silently drops.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

HERE = Path(__file__).resolve().parent

# --------------------------------------------------------------------------- #
# Page sizes, fonts, colours
# --------------------------------------------------------------------------- #
A4_W, A4_H = 595.0, 842.0
MM = 72 / 25.4
A3L_W, A3L_H = 420 * MM, 297 * MM  # 1190.55 x 841.89: A3 landscape = two A4 side by side

GOTHIC = pymupdf.Font("japan")  # built-in CJK font; no file needed on any machine
MONO = pymupdf.Font("cour")  # monospace Latin for code, so a "monospace -> code" rule can fire

BLACK = (0, 0, 0)
NAVY = (0.10, 0.20, 0.45)
GREY = (0.40, 0.40, 0.40)
LIGHT_GREY = (0.93, 0.93, 0.93)
RULE_BLUE = (0.20, 0.35, 0.65)
BOX_FILL = (0.88, 0.93, 1.00)

# A fixed date keeps the files byte-identical between runs.
FIXED_PDF_DATE = "D:20260401090000+09'00'"
TRUTH_SCHEMA = "truth/v1"

# Characters that must not start a line (Japanese line-breaking rules, 禁則処理).
NO_LINE_START = set("、。，．・：；？！ー）」』】〕％…‥,.)")
# Characters that must not end a line.
NO_LINE_END = set("（「『【〔(")
# ASCII runs (numbers, amounts, e-mail addresses, Latin words) are never broken.
TOKEN = re.compile(r"[A-Za-z0-9@._\-/:'%,+$\\=*]+|\s|.")


# --------------------------------------------------------------------------- #
# Ground truth
# --------------------------------------------------------------------------- #
def rounded_bbox(rect) -> list[float]:
    """Round outwards to 0.01 pt so that a clip with the bbox keeps every glyph."""
    x0, y0, x1, y1 = rect
    return [
        _floor2(x0),
        _floor2(y0),
        _ceil2(x1),
        _ceil2(y1),
    ]


def _floor2(v: float) -> float:
    return math.floor(v * 100) / 100


def _ceil2(v: float) -> float:
    return math.ceil(v * 100) / 100


class Truth:
    """Collects the truth/v1 record of one PDF while it is being drawn."""

    def __init__(self, file: str):
        self.file = file
        self.pages: list[dict] = []
        self.elements: list[dict] = []
        self.links: list[dict] = []
        self.form_fields: list[dict] = []
        self.personal_values: list[str] = []
        self.spread: dict | None = None

    def add_page(self, page: pymupdf.Page, label: str | None) -> int:
        self.pages.append(
            {
                "page": page.number + 1,
                "width": round(page.rect.width, 2),
                "height": round(page.rect.height, 2),
                "label": label,
            }
        )
        return page.number + 1

    def add(self, page_no: int, category: str, rect, text: str = "", **extra) -> int:
        """Record one element; returns its index (links point at indices)."""
        element = {"page": page_no, "category": category, "bbox": rounded_bbox(rect), "text": text}
        element.update(extra)
        self.elements.append(element)
        return len(self.elements) - 1

    def reserve(self, page_no: int, category: str) -> int:
        """Keep a slot in reading order for an element drawn later (the TOC)."""
        return self.add(page_no, category, (0, 0, 0, 0))

    def fill(self, index: int, rect, text: str) -> None:
        self.elements[index]["bbox"] = rounded_bbox(rect)
        self.elements[index]["text"] = text

    def link(self, kind: str, source: int, target: int) -> None:
        self.links.append({"kind": kind, "source": source, "target": target})

    def as_dict(self) -> dict:
        record = {
            "schema": TRUTH_SCHEMA,
            "file": self.file,
            "pages": self.pages,
            "elements": self.elements,
            "links": self.links,
            "form_fields": self.form_fields,
            "personal_values": self.personal_values,
        }
        if self.spread is not None:
            record["spread"] = self.spread
        return record


# --------------------------------------------------------------------------- #
# Text drawing and measuring
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class Run:
    """One line of text at a baseline point."""

    x: float
    y: float
    text: str
    font: pymupdf.Font = GOTHIC
    size: float = 10.0


_SCRATCH = pymupdf.open()  # scratch pages for measuring what get_text will report


def draw_runs(page: pymupdf.Page, runs: list[Run], color=BLACK, measure: bool = True):
    """Draw runs as one element; return the rect page.get_text reports for them.

    TextWriter's own text_rect uses the font bbox and is wider than what text
    extraction reports, so we draw the same runs on an empty scratch page of the
    same size and take the union of the extracted character boxes.
    """

    def writer() -> pymupdf.TextWriter:
        tw = pymupdf.TextWriter(page.rect, color=color)
        for run in runs:
            tw.append((run.x, run.y), run.text, font=run.font, fontsize=run.size)
        return tw

    rect = None
    if measure:
        scratch = _SCRATCH.new_page(width=page.rect.width, height=page.rect.height)
        writer().write_text(scratch)
        rect = extracted_text_rect(scratch)
        _SCRATCH.delete_page(-1)
    writer().write_text(page)
    return rect


def extracted_text_rect(page: pymupdf.Page) -> pymupdf.Rect:
    """Union of the boxes of all non-blank characters on the page."""
    rect = pymupdf.Rect()
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                for char in span["chars"]:
                    if not char["c"].isspace():
                        rect |= pymupdf.Rect(char["bbox"])
    return rect


def text_width(text: str, size: float, font: pymupdf.Font = GOTHIC) -> float:
    return font.text_length(text, fontsize=size)


def wrap_text(text: str, width: float, size: float, font: pymupdf.Font = GOTHIC,
              first_width: float | None = None) -> list[str]:
    """Break Japanese text into lines no wider than width (with simple 禁則処理).

    first_width, when given, is the width of the first line (a list item's first
    line also holds its label, the following lines hang under the text).
    """
    lines: list[str] = []
    current = ""
    for token in TOKEN.findall(text):
        limit = first_width if (first_width is not None and not lines) else width
        if current and text_width(current + token, size, font) > limit:
            if token[0] in NO_LINE_START:  # hang the punctuation in the margin
                current += token
                continue
            carried = ""
            if current[-1] in NO_LINE_END:  # an opening bracket moves to the next line
                current, carried = current[:-1], current[-1]
            lines.append(current.rstrip())
            current = carried + token.lstrip()
        else:
            current += token
    if current.strip():
        lines.append(current.rstrip())
    return lines


def fill_rect(page: pymupdf.Page, rect, color) -> None:
    page.draw_rect(rect, color=None, fill=color, width=0)


# --------------------------------------------------------------------------- #
# Deterministic saving
# --------------------------------------------------------------------------- #
def save_deterministic(doc: pymupdf.Document, path: Path, title: str, subject: str) -> None:
    doc.subset_fonts()  # embed only the glyphs used: 100 KB instead of 4 MB
    doc.set_metadata(
        {
            "title": title,
            "author": "株式会社サンプル",
            "subject": subject,
            "keywords": "RAG Layout Inspector sample",
            "creator": "sample_docs/generate.py",
            "producer": "PyMuPDF",
            "creationDate": FIXED_PDF_DATE,
            "modDate": FIXED_PDF_DATE,
        }
    )
    doc.del_xml_metadata()
    doc.save(path, garbage=3, deflate=True, no_new_id=True)


def write_truth(truth: Truth, path: Path) -> None:
    """One element / field / link per line: readable and diff-friendly."""
    def dump(value) -> str:
        return json.dumps(value, ensure_ascii=False)

    parts = []
    for key, value in truth.as_dict().items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            body = ",\n  ".join(dump(item) for item in value)
            parts.append(f' {dump(key)}: [\n  {body}\n ]')
        else:
            parts.append(f" {dump(key)}: {dump(value)}")
    path.write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")


def normalise(text: str) -> str:
    return re.sub(r"\s+", "", text)


def verify_truth_against_pdf(doc: pymupdf.Document, truth: Truth) -> None:
    """Fail loudly if a truth text is not what get_text finds inside its bbox."""
    for index, element in enumerate(truth.elements):
        page = doc[element["page"] - 1]
        rect = pymupdf.Rect(element["bbox"])
        if not (rect.is_valid and page.rect.contains(rect)):
            raise AssertionError(f"{truth.file} element {index}: bbox {rect} outside page {page.rect}")
        if element["text"]:
            found = normalise(page.get_text("text", clip=rect))
            if normalise(element["text"]) not in found:
                raise AssertionError(
                    f"{truth.file} element {index} ({element['category']}): "
                    f"{element['text']!r} not in get_text(clip) -> {found!r}"
                )


# --------------------------------------------------------------------------- #
# Tables and charts (used by the regulation and the spread)
# --------------------------------------------------------------------------- #
TABLE_SIZE, TABLE_PAD, TABLE_PITCH = 9.0, 5.0, 13.0


def _wrapped_cells(col_widths: list[float], rows: list[list[str]]) -> list[list[list[str]]]:
    return [[wrap_text(cell, w - 2 * TABLE_PAD, TABLE_SIZE) for cell, w in zip(row, col_widths)] for row in rows]


def _row_heights(wrapped: list[list[list[str]]]) -> list[float]:
    return [
        max(len(lines) for lines in row) * TABLE_PITCH + 2 * TABLE_PAD - (TABLE_PITCH - TABLE_SIZE)
        for row in wrapped
    ]


def ruled_table_height(col_widths: list[float], rows: list[list[str]]) -> float:
    return sum(_row_heights(_wrapped_cells(col_widths, rows)))


def draw_ruled_table(page: pymupdf.Page, x0: float, top: float, col_widths: list[float],
                     rows: list[list[str]]) -> pymupdf.Rect:
    """Draw a grid with real cell text and a shaded header row; returns the grid rect."""
    wrapped = _wrapped_cells(col_widths, rows)
    row_heights = _row_heights(wrapped)
    grid = pymupdf.Rect(x0, top, x0 + sum(col_widths), top + sum(row_heights))
    fill_rect(page, pymupdf.Rect(grid.x0, top, grid.x1, top + row_heights[0]), LIGHT_GREY)
    y = top
    for row, height in zip(wrapped, row_heights):
        x = x0
        for lines, w in zip(row, col_widths):
            runs = [
                Run(x + TABLE_PAD, y + TABLE_PAD + TABLE_SIZE + i * TABLE_PITCH - 1, line, size=TABLE_SIZE)
                for i, line in enumerate(lines)
            ]
            draw_runs(page, runs, measure=False)
            x += w
        y += height
    shape = page.new_shape()
    y = top
    for height in [0] + row_heights:
        y += height
        shape.draw_line((grid.x0, y), (grid.x1, y))
    x = x0
    for w in [0] + col_widths:
        x += w
        shape.draw_line((x, grid.y0), (x, grid.y1))
    shape.finish(color=BLACK, width=0.6)
    shape.commit()
    return grid


def table_text(rows: list[list[str]]) -> str:
    """Cells in reading order: one line per row, cells separated by spaces."""
    return "\n".join(" ".join(row) for row in rows)


def draw_bar_chart(page: pymupdf.Page, rect: pymupdf.Rect, bars: list[tuple[str, str, float]]) -> str:
    """A vector bar chart with value labels above and category labels below the bars.

    Returns the chart's text in drawing order (what get_text finds inside it).
    """
    shape = page.new_shape()
    axis_y = rect.y1 - 16
    shape.draw_line((rect.x0, axis_y), (rect.x1, axis_y))
    shape.finish(color=GREY, width=0.6)
    top_value = max(value for _, _, value in bars)
    slot = rect.width / len(bars)
    runs, texts = [], []
    for i, (label, value_text, value) in enumerate(bars):
        bar_h = (axis_y - rect.y0 - 16) * value / top_value
        cx = rect.x0 + slot * (i + 0.5)
        shape.draw_rect(pymupdf.Rect(cx - slot * 0.3, axis_y - bar_h, cx + slot * 0.3, axis_y))
        shape.finish(color=None, fill=RULE_BLUE if i == len(bars) - 1 else BOX_FILL)
        runs.append(Run(cx - text_width(value_text, 8) / 2, axis_y - bar_h - 4, value_text, size=8))
        runs.append(Run(cx - text_width(label, 8) / 2, axis_y + 11, label, size=8))
        texts += [value_text, label]
    shape.commit()
    draw_runs(page, runs, measure=False)
    return " ".join(texts)


FLOW_BOX_W, FLOW_BOX_H, FLOW_ARROW = 78.0, 40.0, 30.0  # one step's box; the gap an arrow spans


def draw_flow_chart(page: pymupdf.Page, top: float, steps: list[tuple[str, str]]) -> pymupdf.Rect:
    """A vector flow chart centred on the page from `top`: a rounded box per (label, note) step,
    an arrow to the next one. Returns the extent of the boxes."""
    box_w, box_h, arrow = FLOW_BOX_W, FLOW_BOX_H, FLOW_ARROW
    n = len(steps)
    total_w = n * box_w + (n - 1) * arrow
    x = (A4_W - total_w) / 2
    shape = page.new_shape()
    labels = []
    for i, (label, note) in enumerate(steps):
        box = pymupdf.Rect(x, top, x + box_w, top + box_h)
        shape.draw_rect(box, radius=0.15)
        shape.finish(color=RULE_BLUE, fill=BOX_FILL, width=0.8)
        labels.append(Run(box.x0 + (box_w - text_width(label, 10)) / 2, top + 17, label, size=10))
        labels.append(Run(box.x0 + (box_w - text_width(note, 7.5)) / 2, top + 31, note, size=7.5))
        if i < n - 1:  # arrow to the next box
            ax0, ax1, ay = box.x1 + 4, box.x1 + arrow - 4, top + box_h / 2
            shape.draw_line((ax0, ay), (ax1 - 5, ay))
            shape.finish(color=RULE_BLUE, width=1.2)
            shape.draw_polyline([(ax1 - 6, ay - 3.5), (ax1, ay), (ax1 - 6, ay + 3.5)])
            shape.finish(color=RULE_BLUE, fill=RULE_BLUE, closePath=True, width=0.5)
        x += box_w + arrow
    shape.commit()
    draw_runs(page, labels, measure=False)
    return pymupdf.Rect((A4_W - total_w) / 2, top, (A4_W + total_w) / 2, top + box_h)


# --------------------------------------------------------------------------- #
# Page furniture shared by the regulation
# --------------------------------------------------------------------------- #
def logo_pixmap() -> pymupdf.Pixmap:
    """A tiny 16x16 company mark: blue square with a white diagonal (decorative)."""
    size = 16
    samples = bytearray()
    for y in range(size):
        for x in range(size):
            on_diagonal = abs(x - (size - 1 - y)) <= 1
            samples += bytes((255, 255, 255) if on_diagonal else (40, 80, 160))
    return pymupdf.Pixmap(pymupdf.csRGB, size, size, bytes(samples), False)


# --------------------------------------------------------------------------- #
# (a) 経費精算規程: content as data, laid out by a small flow engine
# --------------------------------------------------------------------------- #
@dataclass
class Chapter:
    text: str  # "第1章　総則": level-1 heading, listed in the TOC


@dataclass
class Article:
    text: str  # "第1条（目的）": level-2 heading


@dataclass
class Para:
    text: str
    footnotes: list[str] = field(default_factory=list)  # "※1 …" placed at this page's bottom


@dataclass
class Item:
    label: str  # "(1)" or "1." — continuation lines hang under the text, not the label
    text: str


@dataclass
class Formula:
    text: str


@dataclass
class Code:
    lines: list[str]


@dataclass
class Table:
    caption: str
    header: list[str]
    rows: list[list[str]]
    widths: list[float]  # fractions of the body width


@dataclass
class Figure:
    caption: str
    steps: list[tuple[str, str]]  # (box label, small note under it)


@dataclass
class Reference:
    text: str


@dataclass
class TocBlock:
    entries: list[str]  # headings whose page numbers are looked up after layout


@dataclass
class Title:
    text: str


@dataclass
class Note:
    """Small centred text under the title (制定日・改定日・所管)."""

    text: str


class PageBreak:
    pass


KEIHI_HEADER = "経費精算規程　社内限"
KEIHI_COPYRIGHT = "© 2026 株式会社サンプル"

TABLE_TRANSPORT = Table(
    caption="表1　交通費の上限額",
    header=["区分", "上限額（片道1回）", "備考"],
    rows=[
        ["近距離移動（片道100km未満）", "3,000円", "定期券区間は支給対象外"],
        ["新幹線・特急", "12,000円", "普通車指定席に限る"],
        ["航空機", "30,000円", "エコノミークラスに限る"],
        ["タクシー", "5,000円", "領収書の添付が必須"],
        ["レンタカー", "8,000円", "燃料費及び高速道路料金を含む"],
    ],
    widths=[0.38, 0.24, 0.38],
)

TABLE_LODGING = Table(
    caption="表2　宿泊費及び日当の支給額",
    header=["役職区分", "宿泊費上限（1泊）", "日当（1日）"],
    rows=[
        ["役員", "18,000円", "5,000円"],
        ["部長・課長", "14,000円", "3,000円"],
        ["一般社員", "12,000円", "2,000円"],
    ],
    widths=[0.36, 0.32, 0.32],
)

SQL_MONTHLY_EXTRACT = [
    "SELECT employee_id, category, SUM(amount) AS total",
    "FROM expenses",
    "WHERE status = 'approved'",
    "  AND paid_on BETWEEN '2026-04-01' AND '2026-04-30'",
    "GROUP BY employee_id, category",
    "ORDER BY total DESC;",
]

TOC_ENTRIES = [
    "第1章　総則",
    "第2章　交通費",
    "第3章　宿泊費及び日当",
    "第4章　精算手続",
    "第5章　経費データの管理",
    "第6章　雑則",
    "附則",
    "参考文献",
    "改定履歴",
]

KEIHI_CONTENT = [
    Title("経費精算規程"),
    Note("制定　2020年4月1日　　改定　2026年4月1日　　所管　経理部"),
    Chapter("目次"),
    TocBlock(TOC_ENTRIES),
    Para(
        "本規程に関する問い合わせは、経理部 経費精算担当（内線 2345、keihi@example.co.jp）まで。"
        "経費精算システムの操作方法は、参考文献[2]の操作マニュアルを参照すること。"
    ),
    PageBreak(),
    Chapter("第1章　総則"),
    Article("第1条（目的）"),
    Para(
        "本規程は、株式会社サンプル（以下「会社」という。）の役員及び従業員が、業務の遂行のために"
        "立て替えて支払った経費の精算について、必要な事項を定めることを目的とする。"
    ),
    Article("第2条（適用範囲）"),
    Para(
        "本規程は、会社と雇用契約を締結しているすべての役員、正社員、契約社員及びパートタイマーに適用する。"
        "派遣社員については、派遣元との契約に定めがある場合に限り本規程を準用する。"
    ),
    Article("第3条（定義）"),
    Para("本規程において、次の各号に掲げる用語の意義は、当該各号に定めるところによる。"),
    Item("(1)", "経費　業務の遂行に直接必要な交通費、宿泊費、日当、会議費、交際費及び消耗品費をいう。"),
    Item("(2)", "仮払金　出張等に先立ち、会社が申請者に前もって支給する金銭をいう。"),
    Item("(3)", "承認者　申請者の所属長をいう。ただし、所属長が不在の場合は、その上位の役職者とする。"),
    Chapter("第2章　交通費"),
    Article("第4条（交通費の支給）"),
    Para(
        "交通費は、最も経済的かつ合理的な経路及び方法により算出した実費を支給する。"
        "タクシーの利用は、深夜（22時以降）の帰宅、公共交通機関のない地域への移動又は"
        "重量物の運搬の場合に限り認める※1。",
        footnotes=[
            "※1 ただし、事前に所属長の承認を得た場合、又は身体上の理由により公共交通機関の利用が"
            "困難な場合は、時間帯にかかわらずタクシーを利用することができる。"
        ],
    ),
    Article("第5条（交通費の上限額）"),
    Para("1回の移動における交通費の上限額は、区分に応じて表1のとおりとする。上限額を超える部分は自己負担とする。"),
    TABLE_TRANSPORT,
    PageBreak(),
    Chapter("第3章　宿泊費及び日当"),
    Article("第6条（宿泊費）"),
    Para(
        "宿泊を伴う出張の宿泊費は、役職区分に応じて表2の上限額の範囲内で実費を支給する。"
        "宿泊費には朝食代を含み、夕食代は含まないものとする※2。",
        footnotes=[
            "※2 ただし、宿泊先が朝食を提供しない場合は、1泊につき1,000円を上限として朝食代を別途支給する。"
        ],
    ),
    TABLE_LODGING,
    Article("第7条（日当）"),
    Para(
        "日当は、片道100km以上の出張に対し、出張日数に応じて表2の額を支給する。"
        "日帰り出張の場合は、表2の額の半額とする。"
    ),
    Article("第8条（精算額の算定）"),
    Para("精算額は、次の式により算定する。"),
    Formula("精算額 = 交通費 + 宿泊費 × 泊数 + 日当 × 日数 − 仮払金"),
    Para(
        "経費精算システムでは、同じ式を次のとおり表記する。ここで、S は精算額、T は交通費、"
        "H は1泊あたりの宿泊費、n は泊数、D は日当、d は日数、A は仮払金を表す。"
    ),
    Formula("$$ S = T + H \\times n + D \\times d - A $$"),
    Para(
        "精算額が負となる場合、申請者は、その差額を精算日から5営業日以内に会社の指定する口座へ"
        "返金しなければならない。"
    ),
    PageBreak(),
    Chapter("第4章　精算手続"),
    Article("第9条（申請期限）"),
    Para(
        "申請者は、経費を支出した日の属する月の翌月10日までに、経費精算システムにより精算を申請しなければならない。"
        "申請期限を過ぎた申請は、所属長及び経理部長の承認がある場合に限り、支出日から3か月以内であれば受け付ける。"
    ),
    Article("第10条（申請の手順）"),
    Para("経費精算の手順は、次のとおりとする（図1）。"),
    Item("(1)", "申請者は、経費精算システムに支出内容を入力し、領収書の画像を添付する。"),
    Item("(2)", "申請者は、入力内容を確認したうえで、所属長に承認を申請する。"),
    Item("(3)", "所属長は、申請内容の妥当性を確認し、申請日から5営業日以内に承認又は差戻しを行う。"),
    Item("(4)", "経理部は、承認された申請について証憑との照合を行い、不備がある場合は申請者に差し戻す。"),
    Item(
        "(5)",
        "経理部は、照合を終えた精算額を、毎月25日（金融機関の休業日の場合は前営業日）に"
        "申請者の給与振込口座へ支払う。",
    ),
    Figure(
        caption="図1　経費精算の流れ",
        steps=[("申請者", "入力・添付"), ("所属長", "5営業日以内"), ("経理部", "証憑照合"), ("支払", "毎月25日")],
    ),
    Article("第11条（領収書）"),
    Para(
        "領収書は、宛名が「株式会社サンプル」であり、日付、金額、発行者及び但し書きが記載されたもので"
        "なければならない。1件30,000円以上の支出については、領収書の原本を経理部へ提出する。"
    ),
    PageBreak(),
    Chapter("第5章　経費データの管理"),
    Article("第12条（領収書を紛失した場合）"),
    Para("領収書を紛失した場合、申請者は次の書類を提出する。"),
    Item("1.", "支払証明書（様式第5号）に所属長の確認印を受けたもの"),
    Item("2.", "クレジットカードの利用明細又は振込記録の写し"),
    Article("第13条（データの保存）"),
    Para(
        "経費精算に関するデータ及び証憑は、電子帳簿保存法に従い、申請日の属する事業年度の末日から"
        "7年間保存する。"
    ),
    Article("第14条（データの抽出）"),
    Para("経理部は、月次決算のため、承認済みの経費データを次の条件で抽出する。"),
    Code(SQL_MONTHLY_EXTRACT),
    Para("抽出結果のうち、1人あたりの月間合計が100,000円を超えるものについては、経理部長が内容を確認する。"),
    Chapter("第6章　雑則"),
    Article("第15条（不正な申請）"),
    Para(
        "虚偽の申請その他不正な申請を行った者は、就業規則に基づく懲戒処分の対象とし、"
        "会社は支給済みの金額の返還を求める。"
    ),
    Article("第16条（改廃）"),
    Para("本規程の改廃は、経理部長が起案し、取締役会の決議により行う。"),
    Chapter("附則"),
    Para("本規程は、2026年4月1日から施行する。2020年4月1日施行の旧経費精算規程は、本規程の施行をもって廃止する。"),
    PageBreak(),
    Chapter("参考文献"),
    Reference("[1] 国税庁「電子帳簿保存法一問一答【電子取引関係】」2024年6月"),
    Reference("[2] 株式会社サンプル 経理部「経費精算システム 操作マニュアル 第3版」2026年3月"),
    Reference("[3] 株式会社サンプル 総務部「就業規則」2024年4月改定"),
    Reference("[4] 株式会社サンプル 経理部「インボイス制度への対応について（社内通知）」2023年9月"),
    Chapter("改定履歴"),
    Item("1.", "2020年4月1日　制定"),
    Item("2.", "2023年10月1日　インボイス制度への対応に伴い第11条を改定"),
    Item("3.", "2026年4月1日　表1及び表2の上限額を改定し、第14条（データの抽出）を新設"),
]


class RegulationLayout:
    """Flows the regulation's blocks onto A4 pages, recording the truth as it draws.

    Blocks are never split across pages: a block that does not fit (together
    with its footnotes) starts a new page, and a heading never sits alone at
    the bottom of a page.
    """

    LEFT, RIGHT = 64.0, A4_W - 64.0
    TOP = 76.0
    FOOTER_BASELINE = A4_H - 30.0
    BODY_SIZE = 10.0
    LINE = 17.0  # body line pitch
    GAP = 6.0  # space after a block

    def __init__(self, truth: Truth):
        self.truth = truth
        self.doc = pymupdf.open()
        self.logo = logo_pixmap()
        self.page: pymupdf.Page | None = None
        self.page_no = 0
        self.y = self.TOP
        self.page_footnotes: list[tuple[str, int]] = []  # (footnote text, index of referring element)
        self.heading_pages: dict[str, int] = {}
        self.toc_slot: tuple[int, TocBlock, float] | None = None

    @property
    def width(self) -> float:
        return self.RIGHT - self.LEFT

    # -- pages ---------------------------------------------------------------
    def new_page(self) -> None:
        if self.page is not None:
            self.finish_page()
        self.page = self.doc.new_page(width=A4_W, height=A4_H)
        self.page_no = self.truth.add_page(self.page, label=str(self.page.number + 1))
        self.y = self.TOP
        self.page_footnotes = []
        self.draw_running_header()

    def finish_page(self) -> None:
        self.draw_footnotes()
        self.draw_footer()

    def body_bottom(self, extra_footnotes: list[str] = ()) -> float:
        """Lowest y body text may reach, leaving room for this page's footnotes."""
        texts = [text for text, _ in self.page_footnotes] + list(extra_footnotes)
        height = sum(self.footnote_height(t) for t in texts)
        return self.FOOTER_BASELINE - 26 - (height + 10 if texts else 0)

    def ensure_room(self, height: float, footnotes: list[str] = ()) -> None:
        if self.y + height > self.body_bottom(footnotes):
            self.new_page()

    def draw_running_header(self) -> None:
        """Header text, a tiny logo and a thin rule: the same on every page."""
        page = self.page
        rect = draw_runs(page, [Run(self.LEFT, 38, KEIHI_HEADER, size=8.5)], color=GREY)
        self.truth.add(self.page_no, "page_header", rect, KEIHI_HEADER)
        logo_rect = pymupdf.Rect(self.RIGHT - 14, 27, self.RIGHT, 41)
        page.insert_image(logo_rect, pixmap=self.logo)
        self.truth.add(self.page_no, "decorative", logo_rect)
        rule = pymupdf.Rect(self.LEFT, 46, self.RIGHT, 46.8)
        fill_rect(page, rule, RULE_BLUE)
        self.truth.add(self.page_no, "decorative", rule)

    def draw_footer(self) -> None:
        """Centred page number "- n -" and the copyright line at the left."""
        page = self.page
        number = f"- {self.page_no} -"
        x = (A4_W - text_width(number, 9)) / 2
        rect = draw_runs(page, [Run(x, self.FOOTER_BASELINE, number, size=9)])
        self.truth.add(self.page_no, "page_footer", rect, number)
        rect = draw_runs(page, [Run(self.LEFT, self.FOOTER_BASELINE, KEIHI_COPYRIGHT, size=7.5)], color=GREY)
        self.truth.add(self.page_no, "page_footer", rect, KEIHI_COPYRIGHT)

    # -- footnotes -----------------------------------------------------------
    FOOTNOTE_SIZE = 8.0
    FOOTNOTE_LINE = 12.5

    def footnote_lines(self, text: str) -> list[str]:
        marker, body = text.split(" ", 1)
        indent = text_width(marker + " ", self.FOOTNOTE_SIZE)
        return [marker + " " + line if i == 0 else line for i, line in
                enumerate(wrap_text(body, self.width - indent, self.FOOTNOTE_SIZE))]

    def footnote_height(self, text: str) -> float:
        return len(self.footnote_lines(text)) * self.FOOTNOTE_LINE + 2

    def draw_footnotes(self) -> None:
        """Footnotes sit above the footer under a short separator rule."""
        if not self.page_footnotes:
            return
        height = sum(self.footnote_height(t) for t, _ in self.page_footnotes)
        y = self.FOOTER_BASELINE - 26 - height
        separator = pymupdf.Rect(self.LEFT, y - 4, self.LEFT + 120, y - 3.4)
        fill_rect(self.page, separator, GREY)
        self.truth.add(self.page_no, "decorative", separator)
        for text, referrer in self.page_footnotes:
            marker = text.split(" ", 1)[0]
            indent = text_width(marker + " ", self.FOOTNOTE_SIZE)
            runs = []
            for i, line in enumerate(self.footnote_lines(text)):
                x = self.LEFT if i == 0 else self.LEFT + indent
                runs.append(Run(x, y + self.FOOTNOTE_SIZE + i * self.FOOTNOTE_LINE, line, size=self.FOOTNOTE_SIZE))
            rect = draw_runs(self.page, runs)
            footnote = self.truth.add(self.page_no, "footnote", rect, text)
            self.truth.link("footnote", footnote, referrer)
            y += self.footnote_height(text)

    # -- blocks --------------------------------------------------------------
    def draw_wrapped(self, text: str, category: str, x: float, hang: float = 0.0,
                     footnotes: list[str] = (), space_after: float = GAP) -> int:
        """Wrap text from x to the right margin, moving to a new page first if it
        (and its footnotes) would not fit; a hanging label's continuation lines
        start `hang` further right."""
        width = self.RIGHT - x
        lines = wrap_text(text, width - hang, self.BODY_SIZE, first_width=width)
        height = len(lines) * self.LINE
        self.ensure_room(height, footnotes)
        runs = [
            Run(x + (hang if i else 0), self.y + self.BODY_SIZE + i * self.LINE, line, size=self.BODY_SIZE)
            for i, line in enumerate(lines)
        ]
        index = self.truth.add(self.page_no, category, draw_runs(self.page, runs), text)
        self.y += height + space_after
        return index

    def draw_title(self, block: Title) -> None:
        size = 24
        self.y += 40
        x = (A4_W - text_width(block.text, size)) / 2
        rect = draw_runs(self.page, [Run(x, self.y + size, block.text, size=size)], color=NAVY)
        self.truth.add(self.page_no, "title", rect, block.text)
        self.y = rect.y1 + 18

    def draw_note(self, block: Note) -> None:
        size = 9
        x = (A4_W - text_width(block.text, size)) / 2
        rect = draw_runs(self.page, [Run(x, self.y + size, block.text, size=size)], color=GREY)
        self.truth.add(self.page_no, "text", rect, block.text)
        self.y = rect.y1 + 40

    def draw_heading(self, text: str, size: float, space_before: float, color=NAVY) -> int:
        # keep the heading with at least two lines of what follows
        self.ensure_room(space_before + size + 3 * self.LINE)
        if self.y > self.TOP:
            self.y += space_before
        rect = draw_runs(self.page, [Run(self.LEFT, self.y + size, text, size=size)], color=color)
        self.heading_pages.setdefault(text, self.page_no)
        index = self.truth.add(self.page_no, "section_header", rect, text)
        self.y = rect.y1 + self.GAP + 2
        return index

    def draw_chapter(self, block: Chapter) -> None:
        self.draw_heading(block.text, 13.0, 14)

    def draw_article(self, block: Article) -> None:
        self.draw_heading(block.text, 10.5, 4, color=BLACK)

    def draw_para(self, block: Para) -> None:
        index = self.draw_wrapped(block.text, "text", self.LEFT + 10, footnotes=block.footnotes)
        for footnote in block.footnotes:
            marker = footnote.split(" ", 1)[0]
            assert marker in block.text, f"footnote {marker} is not referenced from its paragraph"
            self.page_footnotes.append((footnote, index))

    def draw_item(self, block: Item) -> None:
        hang = text_width(block.label + " ", self.BODY_SIZE)
        self.draw_wrapped(f"{block.label} {block.text}", "list_item", self.LEFT + 18, hang, space_after=1)

    def draw_reference(self, block: Reference) -> None:
        label = block.text.split(" ", 1)[0]  # "[1]"
        hang = text_width(label + " ", self.BODY_SIZE)
        self.draw_wrapped(block.text, "reference", self.LEFT + 10, hang, space_after=2)

    def draw_formula(self, block: Formula) -> None:
        """A displayed formula: centred on its own line with space around it."""
        size = 11.0
        self.ensure_room(size + 24)
        self.y += 8
        x = (A4_W - text_width(block.text, size)) / 2
        rect = draw_runs(self.page, [Run(x, self.y + size, block.text, size=size)])
        self.truth.add(self.page_no, "formula", rect, block.text)
        self.y = rect.y1 + 14

    def draw_code(self, block: Code) -> None:
        """SQL in Courier on a light grey panel; the truth bbox is the text itself."""
        size, pitch, pad = 8.5, 12.0, 6.0
        height = len(block.lines) * pitch + 2 * pad
        self.ensure_room(height + 8)
        self.y += 4
        panel = pymupdf.Rect(self.LEFT + 10, self.y, self.RIGHT, self.y + height)
        fill_rect(self.page, panel, LIGHT_GREY)
        runs = [
            Run(panel.x0 + 8, self.y + pad + size + i * pitch - 1, line, font=MONO, size=size)
            for i, line in enumerate(block.lines)
        ]
        rect = draw_runs(self.page, runs)
        self.truth.add(self.page_no, "code", rect, "\n".join(block.lines))
        self.y = panel.y1 + 10

    def draw_table(self, block: Table) -> None:
        """Caption above, then a ruled grid with a shaded header row."""
        x0 = self.LEFT + 10
        width = self.RIGHT - x0
        col_widths = [f * width for f in block.widths]
        rows = [block.header] + block.rows
        caption_size = 9.5
        self.ensure_room(caption_size + 8 + ruled_table_height(col_widths, rows) + 10)
        rect = draw_runs(self.page, [Run(x0, self.y + caption_size, block.caption, size=caption_size)])
        caption = self.truth.add(self.page_no, "caption", rect, block.caption)
        grid = draw_ruled_table(self.page, x0, rect.y1 + 5, col_widths, rows)
        table = self.truth.add(self.page_no, "table", grid, table_text(rows), rows=rows)
        self.truth.link("caption", caption, table)
        self.y = grid.y1 + 12

    def draw_figure(self, block: Figure) -> None:
        """A vector flow chart (boxes and arrows); caption 図n below it."""
        height = FLOW_BOX_H + 14 + 22
        self.ensure_room(height + 30)
        self.y += 10
        picture_rect = draw_flow_chart(self.page, self.y, block.steps)
        picture_text = " ".join(f"{label} {note}" for label, note in block.steps)
        picture = self.truth.add(self.page_no, "picture", picture_rect + (-1, -1, 1, 1), picture_text)

        size = 9.5
        cx = (A4_W - text_width(block.caption, size)) / 2
        rect = draw_runs(self.page, [Run(cx, picture_rect.y1 + 8 + size, block.caption, size=size)])
        caption = self.truth.add(self.page_no, "caption", rect, block.caption)
        self.truth.link("caption", caption, picture)
        self.y = rect.y1 + 14

    def draw_toc_placeholder(self, block: TocBlock) -> None:
        """Reserve space and a reading-order slot; page numbers are known only later."""
        pitch = 22.0
        index = self.truth.reserve(self.page_no, "document_index")
        self.toc_slot = (index, block, self.y)
        self.y += len(block.entries) * pitch + 20

    def draw_toc(self) -> None:
        """Dot leaders from each heading to its right-aligned page number."""
        index, block, top = self.toc_slot
        page = self.doc[self.truth.elements[index]["page"] - 1]
        size, pitch = 10.5, 22.0
        x0, x1 = self.LEFT + 30, self.RIGHT - 30
        dot_w = text_width(".", size)
        runs, lines = [], []
        for i, entry in enumerate(block.entries):
            number = str(self.heading_pages[entry])
            baseline = top + size + i * pitch
            title_w = text_width(entry + " ", size)
            number_w = text_width(number, size)
            dots = "." * int((x1 - x0 - title_w - number_w - 2 * dot_w) / dot_w)
            line = f"{entry} {dots} {number}"
            runs.append(Run(x0, baseline, entry, size=size))
            runs.append(Run(x0 + title_w, baseline, dots, size=size))
            runs.append(Run(x1 - number_w, baseline, number, size=size))
            lines.append(line)
        rect = draw_runs(page, runs)
        self.truth.fill(index, rect, "\n".join(lines))

    # -- driver --------------------------------------------------------------
    def build(self, blocks: list) -> pymupdf.Document:
        draw = {
            Title: self.draw_title,
            Note: self.draw_note,
            Chapter: self.draw_chapter,
            Article: self.draw_article,
            Para: self.draw_para,
            Item: self.draw_item,
            Formula: self.draw_formula,
            Code: self.draw_code,
            Table: self.draw_table,
            Figure: self.draw_figure,
            Reference: self.draw_reference,
            TocBlock: self.draw_toc_placeholder,
            PageBreak: lambda _block: self.new_page(),
        }
        self.new_page()
        for block in blocks:
            draw[type(block)](block)
        self.finish_page()
        self.draw_toc()
        return self.doc


def build_regulation(out_dir: Path) -> None:
    name = "keihi_seisan_kitei.pdf"
    truth = Truth(name)
    doc = RegulationLayout(truth).build(KEIHI_CONTENT)
    assert 5 <= doc.page_count <= 7, f"the regulation should have 5-7 pages, got {doc.page_count}"
    verify_truth_against_pdf(doc, truth)
    save_deterministic(doc, out_dir / name, "経費精算規程", "経費の精算に関する社内規程")
    write_truth(truth, out_dir / name.replace(".pdf", ".truth.json"))


# --------------------------------------------------------------------------- #
# (b)/(c) 経費精算申請書: one layout, drawn with widgets or flattened
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class TextField:
    key: str
    field_name: str
    value: str
    value_type: str  # text | number | date; an empty value becomes empty_value in the truth
    personal: bool = False
    unit: str = ""  # e.g. "円" printed right of the box


@dataclass(frozen=True)
class CheckOption:
    key: str
    field_name: str
    checked: bool


@dataclass(frozen=True)
class RadioOption:
    label: str
    on_state: str  # the PDF appearance name of this option (ASCII)


FORM_TITLE = "経費精算申請書"
FORM_HEADER = "様式第3号（経費精算規程第10条関係）"
FORM_INTRO = "下記のとおり出張経費の精算を申請します。申請期限は、経費を支出した月の翌月10日です。"

APPLICATION_DATE = TextField("申請日", "application_date", "2026年4月15日", "date")

APPLICANT_GRID = [
    TextField("氏名", "applicant_name", "山田 太郎", "text", personal=True),
    TextField("所属部署", "department", "営業本部 第二営業部", "text"),
    TextField("社員番号", "employee_number", "102345", "number"),
    TextField("電話番号", "phone", "03-1234-5678", "text", personal=True),
    TextField("メールアドレス", "email", "taro.yamada@example.co.jp", "text", personal=True),
    TextField("住所", "address", "東京都千代田区丸の内一丁目2番3号 サンプルビル5階", "text", personal=True),
]

TRIP_FIELDS = [
    TextField("出張先", "destination", "大阪支店（大阪市北区梅田）", "text"),
    TextField("出張期間", "trip_period", "2026年4月8日～4月9日（1泊2日）", "text"),
    TextField("用務", "purpose", "取引先との定例会議及び新製品説明会", "text"),
]

AMOUNT_FIELDS_LEFT = [
    TextField("交通費", "transport_cost", "23,800", "number", unit="円"),
    TextField("宿泊費", "lodging_cost", "11,500", "number", unit="円"),
    TextField("日当", "daily_allowance", "4,000", "number", unit="円"),
]
AMOUNT_FIELDS_RIGHT = [
    TextField("仮払金", "advance_payment", "", "number", unit="円"),
    TextField("精算額", "settlement_amount", "39,300", "number", unit="円"),
]

EXPENSE_KINDS_LABEL = "経費区分"
EXPENSE_KINDS = [
    CheckOption("交通費", "kind_transport", True),
    CheckOption("宿泊費", "kind_lodging", True),
    CheckOption("日当", "kind_allowance", True),
    CheckOption("会議費", "kind_meeting", False),
    CheckOption("交際費", "kind_entertainment", False),
    CheckOption("消耗品費", "kind_supplies", False),
]

PAYMENT_LABEL = "支払方法"
PAYMENT_FIELD = "payment_method"
PAYMENT_OPTIONS = [
    RadioOption("給与振込口座", "salary_account"),
    RadioOption("指定口座", "other_account"),
    RadioOption("現金（小口）", "petty_cash"),
]
PAYMENT_CHOICE = "salary_account"

CONFIRMATIONS_LABEL = "確認事項"
CONFIRMATIONS = [
    CheckOption("領収書（原本又は画像）を添付しました", "confirm_receipts", True),
    CheckOption("申請期限（翌月10日）を過ぎた申請です", "confirm_late", False),
]

REMARKS = TextField("備考", "remarks", "", "text")
APPROVAL_FIELDS = [
    TextField("所属長承認日", "manager_approval_date", "", "date"),
    TextField("経理部受付日", "accounting_received_date", "", "date"),
]

CHECKED_GLYPH, UNCHECKED_GLYPH = "☑", "☐"
RADIO_ON_GLYPH, RADIO_OFF_GLYPH = "◉", "○"
# Per glyph: font size, and the centre of its ink as a fraction of the size
# (x from the pen position, y above the baseline), measured by rendering.  The
# CJK font draws ○ at two thirds of the size of ◉, so ○ gets a larger font size
# to look like its selected twin; the marks are centred on the widget boxes.
MARK_GLYPH_METRICS = {
    "☑": (12.0, 0.405, 0.365),
    "☐": (12.0, 0.405, 0.365),
    "◉": (12.0, 0.395, 0.335),
    "○": (18.5, 0.300, 0.380),
}


class FormLayout:
    """Draws the 申請書 either with AcroForm widgets or flattened.

    Both variants share every coordinate, so the two truths differ only where
    the rendering differs (widget vs drawn box/glyph).
    """

    LEFT, RIGHT = 56.0, A4_W - 56.0
    LABEL_SIZE = 10.0
    VALUE_SIZE = 10.0
    FIELD_H = 18.0

    def __init__(self, truth: Truth, flattened: bool):
        self.truth = truth
        self.flattened = flattened
        self.doc = pymupdf.open()
        self.page = self.doc.new_page(width=A4_W, height=A4_H)
        self.page_no = truth.add_page(self.page, label=None)
        self.y = 40.0

    # -- small drawing helpers -----------------------------------------------
    def label(self, x: float, top: float, text: str, size: float | None = None, color=BLACK,
              category: str = "text") -> tuple[pymupdf.Rect, int]:
        """Draw a one-line label whose box is vertically centred on [top, top+FIELD_H]."""
        size = size or self.LABEL_SIZE
        baseline = top + self.FIELD_H / 2 + size * 0.36
        rect = draw_runs(self.page, [Run(x, baseline, text, size=size)], color=color)
        return rect, self.truth.add(self.page_no, category, rect, text)

    def text_field(self, spec: TextField, rect: pymupdf.Rect, key_rect: pymupdf.Rect, bordered: bool = True) -> None:
        """A text field: a widget, or a drawn box with the value printed inside."""
        if self.flattened:
            if bordered:
                self.page.draw_rect(rect, color=GREY, width=0.6)
            if spec.value:
                baseline = rect.y0 + rect.height / 2 + self.VALUE_SIZE * 0.36
                draw_runs(self.page, [Run(rect.x0 + 3, baseline, spec.value, size=self.VALUE_SIZE)], measure=False)
        else:
            widget = pymupdf.Widget()
            widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
            widget.field_name = spec.field_name
            widget.field_label = spec.key  # /TU tooltip: lets a parser pair key and value without geometry
            widget.field_value = spec.value
            widget.rect = rect
            widget.text_font = "Helv"  # MuPDF substitutes a CJK font for Japanese values itself
            widget.text_fontsize = self.VALUE_SIZE
            widget.border_width = 0.6 if bordered else 0
            widget.border_color = GREY if bordered else None
            self.page.add_widget(widget)
        value_type = spec.value_type if spec.value else "empty_value"
        self.truth.add(self.page_no, "form_field", rect, spec.value, **self.field_name_extra(spec.field_name))
        if spec.personal:
            self.truth.personal_values.append(spec.value)
        self.truth.form_fields.append(
            {
                "page": self.page_no,
                "key": spec.key,
                "value": spec.value,
                "selection_state": None,
                "value_type": value_type,
                "key_bbox": rounded_bbox(key_rect),
                "value_bbox": rounded_bbox(rect),
                "field_name": None if self.flattened else spec.field_name,
            }
        )

    def field_name_extra(self, field_name: str) -> dict:
        return {} if self.flattened else {"field_name": field_name}

    def mark_glyph(self, box: pymupdf.Rect, glyph: str) -> pymupdf.Rect:
        """Print a ☑/☐/◉/○ glyph centred where the widget box would be; returns its text rect."""
        size, centre_x, centre_y = MARK_GLYPH_METRICS[glyph]
        x = (box.x0 + box.x1) / 2 - centre_x * size
        baseline = (box.y0 + box.y1) / 2 + centre_y * size
        return draw_runs(self.page, [Run(x, baseline, glyph, size=size)])

    def check_box(self, x: float, top: float, spec: CheckOption, group: str) -> float:
        """Box then label (the usual order for check boxes); returns the x after the label."""
        size = 11.0
        box = pymupdf.Rect(x, top + (self.FIELD_H - size) / 2, x + size, top + (self.FIELD_H + size) / 2)
        state = "selected" if spec.checked else "unselected"
        if self.flattened:
            glyph = CHECKED_GLYPH if spec.checked else UNCHECKED_GLYPH
            mark = self.mark_glyph(box, glyph)
            mark_text = glyph
        else:
            widget = pymupdf.Widget()
            widget.field_type = pymupdf.PDF_WIDGET_TYPE_CHECKBOX
            widget.field_name = spec.field_name
            widget.field_label = spec.key
            widget.rect = box
            widget.border_color = BLACK
            widget.border_width = 0.8
            widget.field_value = spec.checked
            self.page.add_widget(widget)
            mark, mark_text = box, ""
        self.truth.add(self.page_no, "selection_mark", mark, mark_text, state=state,
                       **self.field_name_extra(spec.field_name))
        key_rect, _ = self.label(mark.x1 + 4, top, spec.key)
        self.truth.form_fields.append(
            {
                "page": self.page_no,
                "key": spec.key,
                "value": "",
                "selection_state": state,
                "value_type": "selection_mark",
                "key_bbox": rounded_bbox(key_rect),
                "value_bbox": rounded_bbox(mark),
                "field_name": None if self.flattened else spec.field_name,
                "group": group,
            }
        )
        return key_rect.x1

    def radio_group(self, x: float, top: float, key_rect: pymupdf.Rect) -> None:
        """One field for the group (value = chosen label) and one selection mark per option."""
        size = 11.0
        chosen = None
        for option in PAYMENT_OPTIONS:
            selected = option.on_state == PAYMENT_CHOICE
            state = "selected" if selected else "unselected"
            box = pymupdf.Rect(x, top + (self.FIELD_H - size) / 2, x + size, top + (self.FIELD_H + size) / 2)
            if self.flattened:
                glyph = RADIO_ON_GLYPH if selected else RADIO_OFF_GLYPH
                mark = self.mark_glyph(box, glyph)
                mark_text = glyph
            else:
                widget = pymupdf.Widget()
                widget.field_type = pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON
                widget.field_name = PAYMENT_FIELD
                widget.field_label = PAYMENT_LABEL
                widget.rect = box
                widget.border_color = BLACK
                widget.border_width = 0.8
                widget.field_value = selected
                self.page.add_widget(widget)
                mark, mark_text = box, ""
            extra = {} if self.flattened else {"field_name": PAYMENT_FIELD, "on_state": option.on_state}
            self.truth.add(self.page_no, "selection_mark", mark, mark_text, state=state, **extra)
            option_rect, _ = self.label(mark.x1 + 4, top, option.label)
            self.truth.form_fields.append(
                {
                    "page": self.page_no,
                    "key": option.label,
                    "value": "",
                    "selection_state": state,
                    "value_type": "selection_mark",
                    "key_bbox": rounded_bbox(option_rect),
                    "value_bbox": rounded_bbox(mark),
                    "field_name": None if self.flattened else PAYMENT_FIELD,
                    "group": PAYMENT_LABEL,
                    **({} if self.flattened else {"on_state": option.on_state}),
                }
            )
            if selected:
                chosen = (option, mark | option_rect)
            x = option_rect.x1 + 18
        option, value_rect = chosen
        self.truth.form_fields.append(
            {
                "page": self.page_no,
                "key": PAYMENT_LABEL,
                "value": option.label,
                "selection_state": None,
                "value_type": "radio",
                "key_bbox": rounded_bbox(key_rect),
                "value_bbox": rounded_bbox(value_rect),
                "field_name": None if self.flattened else PAYMENT_FIELD,
                **({} if self.flattened else {"on_state": option.on_state}),
            }
        )

    # -- sections ------------------------------------------------------------
    def draw_heading_area(self) -> None:
        rect = draw_runs(self.page, [Run(self.LEFT, 40, FORM_HEADER, size=8.5)], color=GREY)
        self.truth.add(self.page_no, "page_header", rect, FORM_HEADER)
        size = 18
        x = (A4_W - text_width(FORM_TITLE, size)) / 2
        rect = draw_runs(self.page, [Run(x, 82, FORM_TITLE, size=size)], color=NAVY)
        self.truth.add(self.page_no, "title", rect, FORM_TITLE)
        # 申請日 at the top right, label left of the box
        top = 100.0
        box = pymupdf.Rect(self.RIGHT - 110, top, self.RIGHT, top + self.FIELD_H)
        key_rect, _ = self.label(box.x0 - 6 - text_width(APPLICATION_DATE.key, self.LABEL_SIZE), top,
                                 APPLICATION_DATE.key)
        self.text_field(APPLICATION_DATE, box, key_rect)
        rect = draw_runs(self.page, [Run(self.LEFT, 140, FORM_INTRO, size=9.5)])
        self.truth.add(self.page_no, "text", rect, FORM_INTRO)
        self.y = 156.0

    def section(self, text: str) -> None:
        self.y += 8
        rect = draw_runs(self.page, [Run(self.LEFT, self.y + 11, text, size=11.5)], color=NAVY)
        self.truth.add(self.page_no, "section_header", rect, text)
        self.y = rect.y1 + 6

    def draw_applicant_grid(self) -> None:
        """A ruled key|value grid: shaded key cells, widgets fill the value cells."""
        self.section("1. 申請者情報")
        key_w, row_h = 110.0, 24.0
        grid = pymupdf.Rect(self.LEFT, self.y, self.RIGHT, self.y + row_h * len(APPLICANT_GRID))
        fill_rect(self.page, pymupdf.Rect(grid.x0, grid.y0, grid.x0 + key_w, grid.y1), LIGHT_GREY)
        shape = self.page.new_shape()
        for r in range(len(APPLICANT_GRID) + 1):
            shape.draw_line((grid.x0, grid.y0 + r * row_h), (grid.x1, grid.y0 + r * row_h))
        for x in (grid.x0, grid.x0 + key_w, grid.x1):
            shape.draw_line((x, grid.y0), (x, grid.y1))
        shape.finish(color=BLACK, width=0.6)
        shape.commit()
        for r, spec in enumerate(APPLICANT_GRID):
            top = grid.y0 + r * row_h
            offset = (row_h - self.FIELD_H) / 2
            key_rect, _ = self.label(grid.x0 + 8, top + offset, spec.key)
            value_rect = pymupdf.Rect(grid.x0 + key_w + 3, top + offset, grid.x1 - 3, top + offset + self.FIELD_H)
            self.text_field(spec, value_rect, key_rect, bordered=False)
        self.y = grid.y1 + 6

    def labelled_field(self, spec: TextField, x: float, label_w: float, box_w: float, height: float | None = None) -> None:
        """Label at the left, box at the right of it, optional unit after the box."""
        height = height or self.FIELD_H
        key_rect, _ = self.label(x, self.y, spec.key)
        box = pymupdf.Rect(x + label_w, self.y, x + label_w + box_w, self.y + height)
        self.text_field(spec, box, key_rect)
        if spec.unit:
            self.label(box.x1 + 4, self.y, spec.unit)

    def draw_trip_section(self) -> None:
        self.section("2. 出張及び精算の内容")
        label_w, pitch = 80.0, 24.0
        for spec in TRIP_FIELDS:
            self.labelled_field(spec, self.LEFT + 8, label_w, self.RIGHT - self.LEFT - 8 - label_w)
            self.y += pitch
        # amounts in two columns so the total sits beside its parts
        top = self.y
        for spec in AMOUNT_FIELDS_LEFT:
            self.labelled_field(spec, self.LEFT + 8, label_w, 100)
            self.y += pitch
        bottom = self.y
        self.y = top
        for spec in AMOUNT_FIELDS_RIGHT:
            self.labelled_field(spec, self.LEFT + 260, 60, 100)
            self.y += pitch
        self.y = max(bottom, self.y)

    def draw_choices(self) -> None:
        self.section("3. 経費区分・支払方法")
        label_w, pitch = 80.0, 24.0
        self.label(self.LEFT + 8, self.y, EXPENSE_KINDS_LABEL)
        x = self.LEFT + 8 + label_w
        for spec in EXPENSE_KINDS:
            x = self.check_box(x, self.y, spec, EXPENSE_KINDS_LABEL) + 14
        self.y += pitch
        key_rect, _ = self.label(self.LEFT + 8, self.y, PAYMENT_LABEL)
        self.radio_group(self.LEFT + 8 + label_w, self.y, key_rect)
        self.y += pitch
        self.label(self.LEFT + 8, self.y, CONFIRMATIONS_LABEL)
        for spec in CONFIRMATIONS:
            self.check_box(self.LEFT + 8 + label_w, self.y, spec, CONFIRMATIONS_LABEL)
            self.y += pitch

    def draw_remarks_and_approval(self) -> None:
        self.section("4. 備考・承認")
        self.labelled_field(REMARKS, self.LEFT + 8, 80, self.RIGHT - self.LEFT - 88, height=48)
        self.y += 48 + 8
        for i, spec in enumerate(APPROVAL_FIELDS):
            self.labelled_field(spec, self.LEFT + 8 + i * 240, 80, 130)
        self.y += 30
        note = "※ 1.～3.は申請者が記入し、4.の承認欄は所属長及び経理部が記入すること。"
        rect = draw_runs(self.page, [Run(self.LEFT, self.y + 8.5, note, size=8.5)])
        self.truth.add(self.page_no, "footnote", rect, note)

    def build(self) -> pymupdf.Document:
        self.draw_heading_area()
        self.draw_applicant_grid()
        self.draw_trip_section()
        self.draw_choices()
        self.draw_remarks_and_approval()
        if not self.flattened:
            name_radio_states(self.doc, self.page)
            give_widget_font_latin_widths(self.doc)
        return self.doc


def give_widget_font_latin_widths(doc: pymupdf.Document) -> None:
    """Let ASCII in widget values use real widths instead of full-width cells.

    For Japanese values MuPDF writes the widget appearance with a non-embedded
    "Mincho" CID font (UniJIS-UTF16-H) that has no /W array, so every ASCII
    character, including spaces and digits, is advanced by a full em
    ("2 0 2 6 年").  Giving the CIDs of printable ASCII (proportional 1-95 and
    half-width 231-325 in Adobe-Japan1) the advances of our CJK font fixes the look;
    the field values themselves are untouched.
    """
    widths = " ".join(str(round(GOTHIC.glyph_advance(code) * 1000)) for code in range(0x20, 0x7F))
    for xref in range(1, doc.xref_length()):
        if (doc.xref_get_key(xref, "Subtype")[1] == "/CIDFontType0"
                and doc.xref_get_key(xref, "CIDSystemInfo/Ordering")[1] == "Japan1"
                and doc.xref_get_key(xref, "W")[0] == "null"):
            doc.xref_set_key(xref, "W", f"[1 [{widths}] 231 [{widths}]]")


def name_radio_states(doc: pymupdf.Document, page: pymupdf.Page) -> None:
    """Give each radio kid its own on-state name and set the group value.

    PyMuPDF names the on-state of a radio kid after the Python value it was
    given ("True"/"False"), so the unchecked options would all be called
    "False".  Real forms name each option ("salary_account", …), and a reader
    recovers the chosen option from the parent's /V.
    """
    radios = [w for w in page.widgets() if w.field_type == pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON]
    assert len(radios) == len(PAYMENT_OPTIONS)
    parent = None
    for widget, option in zip(radios, PAYMENT_OPTIONS):
        _, on_ref = doc.xref_get_key(widget.xref, f"AP/N/{widget.on_state()}")
        _, off_ref = doc.xref_get_key(widget.xref, "AP/N/Off")
        doc.xref_set_key(widget.xref, "AP/N", f"<</Off {off_ref} /{option.on_state} {on_ref}>>")
        selected = option.on_state == PAYMENT_CHOICE
        doc.xref_set_key(widget.xref, "AS", f"/{option.on_state}" if selected else "/Off")
        parent = doc.xref_get_key(widget.xref, "Parent")[1]
    parent_xref = int(parent.split()[0])
    doc.xref_set_key(parent_xref, "V", f"/{PAYMENT_CHOICE}")
    # radio semantics: exactly one option stays on (NoToggleToOff + Radio)
    doc.xref_set_key(parent_xref, "Ff", str(pymupdf.PDF_BTN_FIELD_IS_RADIO | pymupdf.PDF_BTN_FIELD_IS_NO_TOGGLE_TO_OFF))


def build_form(out_dir: Path, flattened: bool) -> None:
    name = "shinseisho_flat.pdf" if flattened else "shinseisho_form.pdf"
    truth = Truth(name)
    doc = FormLayout(truth, flattened).build()
    verify_truth_against_pdf(doc, truth)
    subject = "経費精算申請書（フラット化）" if flattened else "経費精算申請書（入力フォーム）"
    save_deterministic(doc, out_dir / name, FORM_TITLE, subject)
    write_truth(truth, out_dir / name.replace(".pdf", ".truth.json"))


# --------------------------------------------------------------------------- #
# (d) A3 spread of an 統合報告書: two A4 pages side by side, two columns each
# --------------------------------------------------------------------------- #
SPREAD_LEFT = {
    "label": "12",
    "running_header": "統合報告書2025　トップメッセージ",
    "heading": "トップメッセージ　変化を成長の機会に",
    "figure": {
        "caption": "図2　連結売上高の推移（単位：億円）",
        "bars": [("2021年度", "1,050", 1050), ("2022年度", "1,110", 1110), ("2023年度", "1,163", 1163),
                 ("2024年度", "1,209", 1209), ("2025年度", "1,284", 1284)],
    },
    "paragraphs": [
        "2025年度は、国内の設備投資需要が堅調に推移したことに加え、海外では東南アジアを中心に"
        "産業機器の販売が伸びました。その結果、連結売上高は1,284億円（前期比6.2%増）、営業利益は"
        "96億円（同11.5%増）となり、いずれも過去最高を更新しました。",
        "一方で、原材料価格の高止まりや為替の変動は、引き続き収益の下押し要因となっています。"
        "当社は調達先の複線化と価格改定を進め、営業利益率は7.5%と前期から0.4ポイント改善しました。",
        "株主の皆様への還元については、1株当たり年間配当を前期から8円増配の48円とし、"
        "配当性向は35.2%となりました。中期的には配当性向40%を目安に、安定的な増配を目指します。",
        "人的資本への投資も重要な経営課題です。2025年度の従業員1人当たり研修時間は32.5時間となり、"
        "女性管理職比率は18.5%に上昇しました。2028年度までに女性管理職比率25%の達成を目指します。",
        "気候変動への対応では、国内全拠点で使用する電力の62%を再生可能エネルギーに切り替えました。"
        "2030年度までにCO2排出量（Scope1・2）を2019年度比46%削減する目標に向け、取り組みを加速します。",
        "当社グループの事業環境は、人手不足を背景とした省力化投資の拡大により、中長期的な成長が見込まれます。"
        "特に物流・食品分野向けの自動化設備は、受注残高が前期末比18%増の412億円に積み上がりました。",
        "ガバナンス面では、2025年6月の定時株主総会で社外取締役を1名増員し、取締役9名のうち4名が"
        "独立社外取締役となりました。取締役会の実効性評価の結果は、本報告書の58ページに掲載しています。",
        "私たちは、お客様、従業員、株主の皆様、そして地域社会とともに持続的な成長を実現してまいります。"
        "今後とも一層のご支援を賜りますよう、お願い申し上げます。",
    ],
}

SPREAD_RIGHT = {
    "label": "13",
    "running_header": "統合報告書2025　価値創造戦略",
    "heading": "中期経営計画「Sample Vision 2028」の進捗",
    "table": Table(
        caption="表3　中期経営計画の主要目標と進捗",
        header=["指標", "2025年度実績", "2028年度目標"],
        rows=[
            ["売上高", "1,284億円", "1,500億円"],
            ["営業利益率", "7.5%", "8.0%"],
            ["ROE", "9.8%", "10%以上"],
            ["海外売上高比率", "34%", "40%"],
            ["女性管理職比率", "18.5%", "25%"],
        ],
        widths=[0.4, 0.3, 0.3],
    ),
    "paragraphs": [
        "2024年度に始動した中期経営計画「Sample Vision 2028」は、2年目を終えて計画を上回るペースで"
        "進捗しています。最終年度である2028年度の目標は、売上高1,500億円、営業利益率8.0%、ROE10%以上です。",
        "成長戦略の柱である海外事業では、2025年10月にベトナム・ハノイに新工場を稼働させました。"
        "海外売上高比率は前期の31%から34%に上昇し、2028年度には40%を目指します。",
        "デジタル変革の分野では、保守サービスの受付から部品手配までを一元管理する新システムを導入し、"
        "平均修理日数を5.2日から3.8日に短縮しました。サービス事業の売上高は215億円となりました。",
        "研究開発費は売上高の4.1%にあたる53億円を投じ、省エネルギー型の制御機器など12件の新製品を"
        "上市しました。今後3年間で累計180億円の研究開発投資を計画しています。",
        "資本効率の向上に向けては、政策保有株式の縮減を進め、2025年度は3銘柄、14億円を売却しました。"
        "ROEは9.8%となり、目標の10%まであと一歩の水準です。",
        "事業別では、産業機器事業の売上高が842億円（前期比7.9%増）、サービス事業が215億円（同9.1%増）、"
        "素材事業が227億円（同0.6%減）となりました。素材事業は収益性の改善を最優先とし、"
        "2026年度中に不採算製品の整理を完了します。",
        "2026年度の業績予想は、売上高1,360億円、営業利益105億円とし、年間配当は1株当たり52円を予定しています。"
        "詳細は20ページの財務担当役員メッセージをご覧ください。",
        "計画の残り期間においても、事業ポートフォリオの見直しと成長投資を両立させ、"
        "企業価値の持続的な向上に取り組んでまいります。",
    ],
}


class SpreadLayout:
    """One A3-landscape page holding printed pages 12 (left) and 13 (right)."""

    OUTER, INNER = 48.0, 42.0  # margins; INNER on both sides of the gutter keeps it clear
    COLUMN_GAP = 24.0  # wide enough that the two columns never read as one line
    BODY_SIZE, PITCH = 10.0, 17.5
    TOP, BOTTOM = 112.0, A3L_H - 64.0

    def __init__(self, truth: Truth):
        self.truth = truth
        self.doc = pymupdf.open()
        self.page = self.doc.new_page(width=A3L_W, height=A3L_H)
        self.page_no = truth.add_page(self.page, label=None)
        self.gutter = A3L_W / 2

    def half_bounds(self, side: str) -> tuple[float, float]:
        if side == "left":
            return self.OUTER, self.gutter - self.INNER
        return self.gutter + self.INNER, A3L_W - self.OUTER

    def draw_half(self, side: str, content: dict) -> None:
        x0, x1 = self.half_bounds(side)
        page = self.page
        # running header at the outer edge, then a coloured band (decorative)
        header = content["running_header"]
        hx = x0 if side == "left" else x1 - text_width(header, 8.5)
        rect = draw_runs(page, [Run(hx, 40, header, size=8.5)], color=GREY)
        self.truth.add(self.page_no, "page_header", rect, header)
        band = pymupdf.Rect(x0, 50, x1, 52.5)
        fill_rect(page, band, RULE_BLUE)
        self.truth.add(self.page_no, "decorative", band)
        # heading of this printed page
        size = 16
        rect = draw_runs(page, [Run(x0, 76 + size, content["heading"], size=size)], color=NAVY)
        self.truth.add(self.page_no, "section_header", rect, content["heading"])
        bottom = self.draw_columns(x0, x1, content["paragraphs"])
        if "figure" in content:
            self.draw_chart(x0, x1, bottom + 20, content["figure"])
        if "table" in content:
            self.draw_spread_table(x0, x1, bottom + 20, content["table"])
        # printed page number at the outer bottom corner
        label = content["label"]
        lx = x0 if side == "left" else x1 - text_width(label, 10)
        rect = draw_runs(page, [Run(lx, A3L_H - 30, label, size=10)])
        self.truth.add(self.page_no, "page_footer", rect, label)

    PARA_GAP = 8.0

    def draw_columns(self, x0: float, x1: float, paragraphs: list[str]) -> float:
        """Two balanced columns, read top to bottom then left to right; paragraphs are not split.

        Returns the y below the longer column.
        """
        col_w = (x1 - x0 - self.COLUMN_GAP) / 2
        columns = [x0, x0 + col_w + self.COLUMN_GAP]
        wrapped = [wrap_text("　" + text, col_w, self.BODY_SIZE) for text in paragraphs]  # 字下げ
        heights = [len(lines) * self.PITCH + self.PARA_GAP for lines in wrapped]
        bottom = self.TOP
        split = min(range(1, len(paragraphs)),
                    key=lambda k: max(sum(heights[:k]), sum(heights[k:])))
        for column, (start, stop) in enumerate([(0, split), (split, len(paragraphs))]):
            y = self.TOP
            for text, lines, height in zip(paragraphs[start:stop], wrapped[start:stop], heights[start:stop]):
                runs = [
                    Run(columns[column], y + self.BODY_SIZE + i * self.PITCH, line, size=self.BODY_SIZE)
                    for i, line in enumerate(lines)
                ]
                rect = draw_runs(self.page, runs)
                self.truth.add(self.page_no, "text", rect, text)
                y += height
            bottom = max(bottom, y) if column else y
        return bottom

    def draw_chart(self, x0: float, x1: float, top: float, figure: dict) -> None:
        """Bar chart across the half, caption centred below it."""
        chart = pymupdf.Rect(x0 + 40, top, x1 - 40, top + 180)
        text = draw_bar_chart(self.page, chart, figure["bars"])
        picture = self.truth.add(self.page_no, "picture", chart, text)
        size = 9.5
        cx = (x0 + x1 - text_width(figure["caption"], size)) / 2
        rect = draw_runs(self.page, [Run(cx, chart.y1 + 8 + size, figure["caption"], size=size)])
        caption = self.truth.add(self.page_no, "caption", rect, figure["caption"])
        self.truth.link("caption", caption, picture)
        assert rect.y1 <= self.BOTTOM, "spread chart does not fit"

    def draw_spread_table(self, x0: float, x1: float, top: float, table: Table) -> None:
        """Caption above, ruled table below, as in the regulation."""
        size = 9.5
        rect = draw_runs(self.page, [Run(x0, top + size, table.caption, size=size)])
        caption = self.truth.add(self.page_no, "caption", rect, table.caption)
        rows = [table.header] + table.rows
        col_widths = [f * (x1 - x0) for f in table.widths]
        grid = draw_ruled_table(self.page, x0, rect.y1 + 5, col_widths, rows)
        index = self.truth.add(self.page_no, "table", grid, table_text(rows), rows=rows)
        self.truth.link("caption", caption, index)
        assert grid.y1 <= self.BOTTOM, "spread table does not fit"

    def build(self) -> pymupdf.Document:
        self.draw_half("left", SPREAD_LEFT)
        self.draw_half("right", SPREAD_RIGHT)
        self.truth.spread = {
            "gutter_x": round(self.gutter, 2),
            "halves": [
                {"side": "left", "label": SPREAD_LEFT["label"]},
                {"side": "right", "label": SPREAD_RIGHT["label"]},
            ],
        }
        return self.doc


def build_spread(out_dir: Path) -> None:
    name = "spread_a3.pdf"
    truth = Truth(name)
    doc = SpreadLayout(truth).build()
    verify_truth_against_pdf(doc, truth)
    save_deterministic(doc, out_dir / name, "統合報告書2025（見開き）", "統合報告書の見開きページ")
    write_truth(truth, out_dir / name.replace(".pdf", ".truth.json"))


# --------------------------------------------------------------------------- #
def generate(out_dir: Path = HERE) -> list[Path]:
    """Write all sample PDFs and truths into out_dir; returns the written paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    build_regulation(out_dir)
    build_form(out_dir, flattened=False)
    build_form(out_dir, flattened=True)
    build_spread(out_dir)
    names = ["keihi_seisan_kitei", "shinseisho_form", "shinseisho_flat", "spread_a3"]
    return [out_dir / f"{n}{suffix}" for n in names for suffix in (".pdf", ".truth.json")]


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for path in generate(target):
        print(path)
