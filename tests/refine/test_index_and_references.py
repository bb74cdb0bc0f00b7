"""The document_index and references rules."""
from __future__ import annotations

from core.categories import Category
from core.refine.index_and_references import document_index, references
from pdf_builders import text
from refine_fixtures import body, find, raw

C = Category


# ---- document_index -------------------------------------------------------------------------
def test_dot_leaders_with_page_numbers_make_a_document_index():
    def page(p):
        text(p, 72, 80, "目次", 16)
        for i, (title, n) in enumerate([("第1章　総則", 2), ("第2章　交通費", 3), ("第3章　宿泊費", 4)]):
            text(p, 72, 120 + 20 * i, f"{title} " + "．" * 20 + f" {n}")
        body(p, y=300)
    doc = document_index(raw(page))
    assert {e.category for e in doc.elements() if "章" in e.text} == {C.DOCUMENT_INDEX}
    assert find(doc, "目次").category is not C.DOCUMENT_INDEX
    assert find(doc, "所定の申請書").category is C.TEXT


# ---- references -----------------------------------------------------------------------------
def test_numbered_items_under_a_references_heading_become_references():
    def page(p):
        text(p, 72, 80, "参考文献", 14)
        text(p, 72, 110, "[1] 国税庁「電子帳簿保存法一問一答」2024年。")
        text(p, 72, 130, "[2] 経済産業省『経費精算の手引き』2023年。")
        text(p, 72, 170, "付則", 14)
        text(p, 72, 200, "[3] この規程は2026年4月1日から施行する。")
    doc = references(raw(page))
    assert find(doc, "[1]").category is C.REFERENCE and find(doc, "[1]").rules == ("references",)
    assert find(doc, "[2]").category is C.REFERENCE
    assert find(doc, "[3]").category is not C.REFERENCE  # after the next heading
