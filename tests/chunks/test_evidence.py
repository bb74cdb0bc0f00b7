"""Page evidence (core/chunks/evidence.py): furniture to metadata or text, decorative elements
excluded, the whole-document summary."""
from core.categories import Category
from core.chunks.chunking import document_evidence
from core.chunks.evidence import summarise
from core.chunks.furniture import furniture_kind, repeated_furniture
from core.chunks.policy import DEFAULT
from chunk_fixtures import doc, el


# ---- furniture --------------------------------------------------------------------------------
def _furnished(pages=4):
    return doc([[el(p, 0, "page_header", (60, 20, 300, 32), "社内規程　社外秘"),
                 el(p, 1, "text", (60, 100, 500, 120), f"本文{p}。"),
                 el(p, 2, "page_footer", (280, 800, 320, 812), f"- {p} -"),
                 el(p, 3, "page_footer", (60, 800, 200, 812), "© 2026 Example")]
                for p in range(1, pages + 1)])


def test_repeated_furniture_page_numbers_and_copyright_go_to_metadata():
    evidence = document_evidence(_furnished(), DEFAULT)
    kinds = {f.text: f.kind for ev in evidence for f in ev.furniture}
    assert kinds["社内規程　社外秘"] == "repeated"
    assert kinds["- 3 -"] == "page_number" and kinds["© 2026 Example"] == "copyright"
    assert all(f.placed == "metadata" for ev in evidence for f in ev.furniture)
    assert evidence[2].metadata_value("page_footers") == ("- 3 -", "© 2026 Example")
    assert summarise(evidence).furniture_to_metadata == 12


def test_a_header_on_fewer_than_three_pages_stays_in_the_text():
    evidence = document_evidence(_furnished(pages=2), DEFAULT)
    header = [f for ev in evidence for f in ev.furniture if f.category is Category.PAGE_HEADER]
    assert {f.placed for f in header} == {"text"}


def test_digits_are_masked_when_comparing_furniture():
    document = doc([[el(p, 0, "page_footer", (60, 800, 300, 812), f"第{p}版 2026年{p}月")] for p in (1, 2, 3)])
    repeated = repeated_furniture(document, DEFAULT)
    assert furniture_kind(document.page(2).elements[0], repeated) == "repeated"


def test_decorative_elements_are_excluded():
    rule = el(1, 0, "decorative", (60, 50, 500, 51))
    body = el(1, 1, "text", (60, 100, 500, 120), "本文。")
    evidence = document_evidence(doc([[rule, body]]), DEFAULT)
    assert evidence[0].excluded == (rule.id,)
