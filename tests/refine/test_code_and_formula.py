"""The code_monospace and formula rules."""
from __future__ import annotations

from core.categories import Category
from core.refine.code_and_formula import code_monospace, formula
from pdf_builders import paragraph, text
from refine_fixtures import body, find, raw

C = Category


# ---- code_monospace -------------------------------------------------------------------------
def test_monospace_blocks_become_code_and_cjk_body_text_does_not():
    def page(p):
        body(p)
        for i, line in enumerate(["SELECT employee_id, SUM(amount)", "  FROM expenses", " GROUP BY employee_id;"]):
            text(p, 90, 250 + 14 * i, line, 9.5, font="cour")
    doc = code_monospace(raw(page))
    code = find(doc, "SELECT")
    assert code.category is C.CODE and code.rules == ("code_monospace",)
    assert "GROUP BY" in code.text
    assert find(doc, "所定の申請書").category is C.TEXT


# ---- formula --------------------------------------------------------------------------------
def test_a_short_equation_set_apart_becomes_a_formula():
    def page(p):
        body(p)
        text(p, 200, 220, "精算額 = 交通費 + 宿泊費 + 日当 × 日数")
        paragraph(p, 72, 260, ["ここで、日当の額は別表2のとおりとし、精算額=支給総額とする。"])
    doc = formula(raw(page))
    assert find(doc, "精算額 = 交通費").category is C.FORMULA
    assert find(doc, "ここで").category is C.TEXT
