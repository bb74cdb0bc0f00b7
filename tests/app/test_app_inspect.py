"""AppTest: the Inspect page (navigation, category toggles and counts, element selection, escaping)."""
from __future__ import annotations

from collections import Counter

from apptest_helpers import doc_id_of, open_page, sample_workspace, texts  # noqa: F401
from core.categories import Category
from core.model import Document, Element, Page
from core.review.corrections import corrected_document
from core.store.opening import open_workspace

INSPECT = "pages/inspect.py"
KEIHI = "keihi_seisan_kitei.pdf"


def load(root, source) -> Document:
    ws = open_workspace(root)
    try:
        return corrected_document(ws, doc_id_of(root, source))
    finally:
        ws.close()


def table_ids(at) -> list[str]:
    return list(at.dataframe[0].value["id"])


def current_page_caption(at) -> str:
    return next(m.value for m in at.markdown if " · page " in m.value)


def test_inspect_shows_the_first_page_with_its_elements_in_reading_order(sample_workspace):
    doc = load(sample_workspace, KEIHI)
    at = open_page(INSPECT, sample_workspace, doc=KEIHI)
    assert not at.exception
    assert f"page 1 of {doc.page_count}" in current_page_caption(at)
    assert table_ids(at) == [e.id for e in sorted(doc.page(1).elements, key=lambda e: e.seq)]


def test_previous_next_and_jump_move_between_pages(sample_workspace):
    doc = load(sample_workspace, KEIHI)
    at = open_page(INSPECT, sample_workspace, doc=KEIHI)
    assert at.button(key="rli:prev").disabled
    at.button(key="rli:next").click().run()
    assert "page 2 of" in current_page_caption(at)
    assert table_ids(at) == [e.id for e in doc.page(2).elements]
    at.number_input(key=f"rli:jump:{doc.doc_id}").set_value(doc.page_count).run()
    assert f"page {doc.page_count} of {doc.page_count}" in current_page_caption(at)
    assert at.button(key="rli:next").disabled
    at.button(key="rli:prev").click().run()
    assert f"page {doc.page_count - 1} of" in current_page_caption(at)
    assert at.number_input(key=f"rli:jump:{doc.doc_id}").value == doc.page_count - 1


def test_page_is_remembered_per_document_across_pages_of_the_app(sample_workspace):
    at = open_page(INSPECT, sample_workspace, doc=KEIHI)
    at.button(key="rli:next").click().run()
    at.switch_page("pages/documents.py").run()
    at.switch_page(INSPECT).run()
    assert "page 2 of" in current_page_caption(at)


def legend_page_counts(at) -> dict[str, int]:
    """The count beside each category's colour in the legend (none shown for 0), by colour."""
    counts = {}
    for m in at.markdown:
        value = str(m.value)
        if value.startswith('<span style="display:inline-block') and "&nbsp;" in value:
            colour = value.split("background:")[1].split(";")[0]
            counts[colour] = int(value.rsplit("&nbsp;", 1)[1])
    return counts


def test_legend_counts_each_category_in_the_document_and_on_the_page_shown(sample_workspace):
    doc = load(sample_workspace, KEIHI)
    at = open_page(INSPECT, sample_workspace, doc=KEIHI)
    in_doc = Counter(e.category for e in doc.elements())
    for category in Category:
        label = at.checkbox(key=f"rli:show:{category.value}").label
        assert label == f"{category.label_ja} · {category.value} ({in_doc[category]})"
    for number in (1, 2):  # a page turn reruns only the page fragment: the counts must follow it
        on_page = Counter(e.category for e in doc.page(number).elements)
        assert legend_page_counts(at) == {c.colour: n for c, n in on_page.items()}
        at.button(key="rli:next").click().run()


def test_hiding_a_category_removes_its_elements_from_the_table_and_showing_all_brings_them_back(sample_workspace):
    doc = load(sample_workspace, KEIHI)
    page = next(p for p in doc.pages if len({e.category for e in p.elements}) >= 2)
    hidden = Counter(e.category for e in page.elements).most_common(1)[0][0]
    at = open_page(INSPECT, sample_workspace, doc=KEIHI)
    at.number_input(key=f"rli:jump:{doc.doc_id}").set_value(page.number).run()
    at.checkbox(key=f"rli:show:{hidden.value}").uncheck().run()
    assert table_ids(at) == [e.id for e in page.elements if e.category != hidden]
    at.button(key="rli:hide_all").click().run()
    assert not at.dataframe and "No elements to show" in texts(at)
    at.button(key="rli:show_all").click().run()
    assert table_ids(at) == [e.id for e in page.elements]


def test_selected_element_shows_its_text_bbox_source_and_rules_and_is_marked_in_the_table(sample_workspace):
    doc = load(sample_workspace, KEIHI)
    element = next(e for e in doc.elements() if e.rules and e.text)
    at = open_page(INSPECT, sample_workspace, doc=KEIHI)
    at.number_input(key=f"rli:jump:{doc.doc_id}").set_value(element.page).run()
    at.session_state[f"rli:element:{doc.doc_id}"] = element.id
    at.run()
    assert element.text in [c.value for c in at.code]
    facts = at.table[0].value[""].tolist()
    assert element.id in facts and element.source in facts
    assert ", ".join(element.rules) in facts
    assert f"{element.bbox[0]:.1f}, {element.bbox[1]:.1f}" in " ".join(facts)
    table = at.dataframe[0].value
    assert table.loc[table[""] == "▶", "id"].tolist() == [element.id]


def test_zoom_and_reading_order_settings_are_kept(sample_workspace):
    at = open_page(INSPECT, sample_workspace, doc=KEIHI)
    at.select_slider(key="rli:zoom_widget").set_value(2.0).run()
    at.toggle(key="rli:order_widget").set_value(True).run()
    assert not at.exception
    at.switch_page("pages/documents.py").run()
    at.switch_page(INSPECT).run()
    assert at.select_slider(key="rli:zoom_widget").value == 2.0
    assert at.toggle(key="rli:order_widget").value is True


def test_document_text_is_shown_as_text_never_as_markup(sample_workspace):
    """An import without a PDF: the page is drawn blank, and hostile text stays inert."""
    hostile = "<script>alert(1)</script> **bold** [link](http://x) :red[colour]"
    element = Element(id="imp-p1-0001", page=1, seq=0, category=Category.TEXT, bbox=(72, 72, 300, 100),
                      text=hostile, source="docling")
    doc = Document(doc_id="f" * 16, source="<b>import</b>*.json", sha256="f" * 64, engine="docling",
                   pages=(Page(number=1, width=595, height=842, elements=(element,),
                               notice="Imported without its PDF: blank page"),))
    ws = open_workspace(sample_workspace)
    ws.save_machine_document(doc, size_bytes=0)
    ws.close()
    at = open_page(INSPECT, sample_workspace)
    at.session_state["rli:doc_id"] = doc.doc_id
    at.session_state[f"rli:element:{doc.doc_id}"] = element.id
    at.run()
    assert not at.exception
    assert hostile in [c.value for c in at.code]  # st.code shows it verbatim
    caption = current_page_caption(at)
    assert "\\<b\\>import\\</b\\>\\*\\.json" in caption  # markdown specials escaped in the header
    assert all(hostile not in m.value for m in at.markdown)
    assert "blank page" in texts(at)


def test_a_link_with_doc_and_page_opens_that_page_then_leaves_navigation_to_the_reviewer(sample_workspace):
    from apptest_helpers import app_test

    doc = load(sample_workspace, KEIHI)
    at = app_test(sample_workspace)
    at.query_params["doc"] = doc.doc_id
    at.query_params["page"] = "3"
    at.run()
    assert not at.exception
    assert f"page 3 of {doc.page_count}" in current_page_caption(at)
    assert not at.query_params  # consumed: the next rerun follows the reviewer, not the link
    at.button(key="rli:next").click().run()
    assert f"page 4 of {doc.page_count}" in current_page_caption(at)


def test_fit_width_is_the_default_zoom_and_picks_a_smaller_zoom_for_wider_pages(sample_workspace):
    at = open_page(INSPECT, sample_workspace, doc=KEIHI)
    assert at.select_slider(key="rli:zoom_widget").value == "fit"
    import ui.state as ui_state

    a4, a3_spread = ui_state.fit_zoom(595), ui_state.fit_zoom(1190)
    assert a4 in ui_state.ZOOMS and a3_spread in ui_state.ZOOMS
    assert 595 * a4 <= ui_state.FIT_WIDTH_PX and 1190 * a3_spread <= ui_state.FIT_WIDTH_PX
    assert a3_spread < a4


def test_a_scanned_page_says_what_read_it_and_counts_its_doubtful_words(sample_workspace):
    attrs = (("ocr", "Tesseract (the tesseract command; jpn, 300 dpi)"), ("ocr_confidence", 0.71),
             ("ocr_low_words", ((72.0, 72.0, 120.0, 86.0), (130.0, 72.0, 160.0, 86.0))))
    element = Element(id="scan-p1-0001", page=1, seq=0, category=Category.TEXT, bbox=(72, 72, 300, 100),
                      text="経費精算申請書", source="fast", attrs=attrs)
    doc = Document(doc_id="e" * 16, source="scan.png", sha256="e" * 64, engine="fast",
                   pages=(Page(number=1, width=595, height=842, elements=(element,),
                               notice="scanned page, OCR'd with Tesseract (the tesseract command; jpn, 300 dpi): 2 words"),))
    ws = open_workspace(sample_workspace)
    ws.save_machine_document(doc, size_bytes=0)
    ws.close()
    at = open_page(INSPECT, sample_workspace)
    at.session_state["rli:doc_id"] = doc.doc_id
    at.run()
    assert not at.exception
    shown = texts(at)
    assert "scanned page, OCR" in shown
    assert "2 OCR words read with low confidence (below 0.6) are outlined in red." in shown
