"""Editing on the Inspect page (ui/edit_panel.py), driven through the real app with AppTest."""
from hypothesis import given, strategies as st

from apptest_helpers import doc_id_of, open_page, sample_workspace, texts  # noqa: F401
from core.categories import Category
from core.review.corrections import corrected_document, record_events
from core.store.workspace import Workspace
from core.store.opening import open_workspace
from ui.edit_panel import box_bbox, canvas_box

DOC = "keihi_seisan_kitei.pdf"
ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
coordinate = st.integers(0, 120000).map(lambda v: v / 100)  # stored boxes are 0.01 pt


@given(st.tuples(coordinate, coordinate, coordinate, coordinate), st.sampled_from(ZOOMS) | st.floats(0.1, 8.0))
def test_canvas_boxes_round_trip_to_the_same_pdf_points_at_every_zoom(corners, zoom):
    x0, x1 = sorted(corners[::2])
    y0, y1 = sorted(corners[1::2])
    bbox = (x0, y0, x1, y1)
    box = canvas_box(bbox, zoom, "text")
    assert box_bbox(box, zoom) == bbox
    assert box["left"] == x0 * zoom and box["top"] == y0 * zoom


def test_a_box_dragged_right_to_left_still_gives_an_upright_bbox():
    assert box_bbox({"left": 200, "top": 100, "width": -50, "height": -20}, 2.0) == (75.0, 40.0, 100.0, 50.0)


# ---- AppTest flows ----------------------------------------------------------------------------
def footer_of(ws: Workspace, doc_id: str, page: int = 2):
    return next(e for e in corrected_document(ws, doc_id).page(page).elements if e.text.startswith("©"))


def inspect_with(sample_workspace, selected: str | None, page: int = 2, reviewer: str = "hanako"):
    doc_id = doc_id_of(sample_workspace, DOC)
    at = open_page("pages/inspect.py", sample_workspace, doc=DOC)
    at.session_state["rli:reviewer"] = reviewer
    at.session_state[f"rli:page:{doc_id}"] = page
    at.session_state[f"rli:element:{doc_id}"] = selected
    return at.run()


def test_relabel_a_footer_read_as_text_then_undo_and_redo(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    footer = footer_of(ws, doc_id)
    record_events(ws, doc_id, [{"kind": "relabel", "target": footer.id, "category": "text"}], "setup")
    at = inspect_with(sample_workspace, footer.id)
    assert not at.exception, [e.value for e in at.exception]
    at.selectbox(key=f"rli:edit:category:{footer.id}").set_value(Category.PAGE_FOOTER)
    at.button(key="rli:edit:relabel").click().run()
    assert not at.exception
    assert "Relabelled" in texts(at)
    last = ws.events(doc_id)[-1]
    assert (last.kind, last.actor, last.payload["category"]) == ("relabel", "hanako", "page_footer")
    assert footer_of(ws, doc_id).category is Category.PAGE_FOOTER

    at.button(key="rli:edit:undo").click().run()
    assert footer_of(ws, doc_id).category is Category.TEXT
    at.button(key="rli:edit:redo").click().run()
    assert footer_of(ws, doc_id).category is Category.PAGE_FOOTER
    assert [e.kind for e in ws.events(doc_id)] == ["relabel", "relabel", "undo", "undo"]


def test_delete_removes_the_selected_element(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    footer = footer_of(ws, doc_id)
    at = inspect_with(sample_workspace, footer.id)
    at.button(key="rli:edit:delete").click().run()
    assert not at.exception
    assert footer.id not in corrected_document(ws, doc_id).element_index()


def test_merge_joins_two_elements_into_one_box(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    page = corrected_document(ws, doc_id).page(2)
    first = next(e for e in page.elements if e.text.startswith("本規程は、株式会社"))
    second = page.elements[first.seq + 1]
    at = inspect_with(sample_workspace, first.id)
    at.selectbox(key=f"rli:edit:merge_with:{first.id}").set_value(second.id).run()
    at.button(key="rli:edit:merge").click().run()
    assert not at.exception
    merged = corrected_document(ws, doc_id)
    assert second.id not in merged.element_index()
    joined = merged.element(first.id)
    assert joined.bbox[3] == second.bbox[3]
    assert "必要な事項を定める" in joined.text  # re-read from the PDF under the union box


def test_nothing_is_saved_without_a_reviewer_name(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    at = inspect_with(sample_workspace, footer_of(ws, doc_id).id, reviewer="")
    at.button(key="rli:edit:delete").click().run()
    assert "Set your name in the sidebar" in texts(at)
    assert ws.events(doc_id) == []


def test_a_stale_session_gets_a_conflict_and_reload_and_overwrites_nothing(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    footer = footer_of(ws, doc_id)
    at = inspect_with(sample_workspace, footer.id)  # session A has drawn the page
    other = open_workspace(sample_workspace)  # session B saves in between
    record_events(other, doc_id, [{"kind": "relabel", "target": footer.id, "category": "text"}], "taro")

    at.selectbox(key=f"rli:edit:category:{footer.id}").set_value(Category.PAGE_HEADER)
    at.button(key="rli:edit:relabel").click().run()
    assert any("changed in another session" in e.value for e in at.error)
    assert [(e.actor, e.payload["category"]) for e in ws.events(doc_id)] == [("taro", "text")]
    assert footer_of(ws, doc_id).category is Category.TEXT

    at.button(key=f"rli:edit:reload:{doc_id}").click().run()
    assert not at.error
    at.selectbox(key=f"rli:edit:category:{footer.id}").set_value(Category.PAGE_FOOTER)
    at.button(key="rli:edit:relabel").click().run()
    assert footer_of(ws, doc_id).category is Category.PAGE_FOOTER
    assert [e.actor for e in ws.events(doc_id)] == ["taro", "hanako"]


def test_reviewed_next_marks_the_page_and_moves_on(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    at = inspect_with(sample_workspace, None, page=2)
    at.button(key="rli:edit:reviewed_next").click().run()
    assert not at.exception
    [event] = ws.events(doc_id)
    assert event.payload == {"kind": "mark_reviewed", "page": 2, "status": "reviewed"}
    assert at.session_state[f"rli:page:{doc_id}"] == 3


# ---- the audit page ---------------------------------------------------------------------------
def test_audit_lists_who_changed_what_and_filters_by_page_and_kind(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    footer2, footer3 = footer_of(ws, doc_id, 2), footer_of(ws, doc_id, 3)
    record_events(ws, doc_id, [{"kind": "relabel", "target": footer2.id, "category": "text"}], "taro")
    record_events(ws, doc_id, [{"kind": "delete_element", "target": footer3.id}], "hanako")
    record_events(ws, doc_id, [{"kind": "mark_reviewed", "page": 3, "status": "reviewed"}], "hanako")
    at = open_page("pages/audit.py", sample_workspace, doc=DOC)
    at.session_state["rli:reviewer"] = "hanako"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(table["reviewer"]) == ["taro", "hanako", "hanako"]
    assert list(table["page"]) == [2, 3, 3]
    at.multiselect(key="rli:audit:pages").set_value([3]).run()
    assert list(at.dataframe[0].value["kind"]) == ["delete_element", "mark_reviewed"]
    at.multiselect(key="rli:audit:kinds").set_value(["delete_element"]).run()
    assert list(at.dataframe[0].value["event"]) == [2]


def test_review_progress_shows_on_the_documents_page(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    record_events(ws, doc_id, [{"kind": "mark_reviewed", "page": p, "status": "reviewed"} for p in (1, 2)], "hanako")
    at = open_page("pages/documents.py", sample_workspace, doc=DOC)
    assert not at.exception
    statuses = set(at.dataframe[0].value["review status"])
    assert "2/6 pages reviewed" in statuses and "unreviewed" in statuses


def test_reviewed_next_after_edits_records_reviewed_and_nothing_else(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    at = inspect_with(sample_workspace, footer_of(ws, doc_id).id)
    at.button(key="rli:edit:delete").click().run()
    at.button(key="rli:edit:reviewed_next").click().run()
    assert [(e.kind, e.payload.get("status")) for e in ws.events(doc_id)] == [
        ("delete_element", None), ("mark_reviewed", "reviewed")]
    at.run()  # the next page's status box must not report a change either
    assert len(ws.events(doc_id)) == 2


def test_relabel_all_alike_on_the_page_is_one_action_with_one_undo(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    page = corrected_document(ws, doc_id).page(4)
    pictures = [e for e in page.elements if e.category is Category.PICTURE]
    assert len(pictures) > 1
    at = inspect_with(sample_workspace, pictures[0].id, page=4)
    at.checkbox(key=f"rli:edit:all_alike:{pictures[0].id}").check().run()
    at.selectbox(key=f"rli:edit:category:{pictures[0].id}").set_value(Category.DECORATIVE)
    at.button(key="rli:edit:relabel").click().run()
    assert not at.exception
    relabelled = corrected_document(ws, doc_id).page(4)
    assert {e.category for e in relabelled.elements if e.id in {p.id for p in pictures}} == {Category.DECORATIVE}
    at.button(key="rli:edit:undo").click().run()
    assert all(corrected_document(ws, doc_id).element(p.id).category is Category.PICTURE for p in pictures)


def test_a_box_on_the_same_spot_as_another_can_be_reached_with_next_here(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    footer = footer_of(ws, doc_id)
    [twin] = record_events(ws, doc_id, [{"kind": "add_element", "page": 2, "bbox": list(footer.bbox),
                                         "category": "text"}], "setup")  # a parser's duplicate box
    at = inspect_with(sample_workspace, footer.id)
    at.button(key="rli:edit:next_here").click().run()
    assert at.session_state[f"rli:element:{doc_id}"] == f"{doc_id[:8]}-p2-rev{twin.event_id}"


def test_boxes_outside_the_page_are_deleted_in_one_go(sample_workspace):
    from dataclasses import replace

    from core.model import Element
    from review_fixtures import build_pdf, machine_document

    ws = open_workspace(sample_workspace)
    data = build_pdf()
    doc = machine_document(data)
    marks = tuple(Element(f"{doc.doc_id[:8]}-p1-mark{i}", 1, 100 + i, Category.SELECTION_MARK, bbox, "", "layout")
                  for i, bbox in enumerate([(290, -30, 305, -16), (611, 414, 625, 428)]))
    doc = doc.with_pages([replace(doc.page(1), elements=doc.page(1).elements + marks), doc.page(2)])
    ws.store_pdf(doc.sha256, data)
    ws.save_machine_document(doc, len(data))
    at = open_page("pages/inspect.py", sample_workspace, doc=doc.source)
    at.session_state["rli:reviewer"] = "hanako"
    at.session_state[f"rli:page:{doc.doc_id}"] = 1
    at.run()
    at.button(key="rli:edit:delete_off_page").click().run()
    assert not at.exception
    left = corrected_document(ws, doc.doc_id).element_index()
    assert not any(m.id in left for m in marks)
    assert len(ws.events(doc.doc_id)) == 2 and len({e.base for e in ws.events(doc.doc_id)}) == 1  # one action


# ---- text, reading order, split, chunk breaks (ui/structure_tools.py) -------------------------
def test_the_text_of_an_element_is_fixed_from_the_inspect_page(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    footer = footer_of(ws, doc_id)
    at = inspect_with(sample_workspace, footer.id)
    area = next(t for t in at.text_area if t.key.startswith(f"rli:structure:text:{footer.id}"))
    area.set_value("© 直したフッター").run()
    at.button(key=f"rli:structure:save_text:{footer.id}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    fixed = corrected_document(ws, doc_id).element(footer.id)
    assert fixed.text == "© 直したフッター" and fixed.attr("machine_text") == footer.text
    assert "Machine read:" in texts(at)


def test_reorder_split_and_chunk_break_are_saved_from_the_inspect_page(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    page = corrected_document(ws, doc_id).page(2)
    first = next(e for e in page.elements if e.text.startswith("本規程は、株式会社"))
    second = page.elements[first.seq + 1]
    at = inspect_with(sample_workspace, second.id)
    at.selectbox(key=f"rli:structure:where:{second.id}").set_value("before").run()
    at.selectbox(key=f"rli:structure:other:{second.id}").set_value(first.id).run()
    at.button(key=f"rli:structure:reorder:{second.id}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    order = [e.id for e in corrected_document(ws, doc_id).page(2).elements]
    assert order.index(second.id) == order.index(first.id) - 1
    at.button(key=f"rli:structure:break:{second.id}").click().run()
    assert ws.events(doc_id)[-1].kind == "chunk_break"
    assert corrected_document(ws, doc_id).element(second.id).attr("chunk_break") == "break"
    # the page's table keeps its 18 text lines: split off all but its first
    table = next(e for e in corrected_document(ws, doc_id).page(2).elements if len(e.attr("lines") or ()) >= 2)
    at = inspect_with(sample_workspace, table.id)
    at.button(key=f"rli:structure:split:{table.id}").click().run()
    assert not at.exception
    assert ws.events(doc_id)[-1].kind == "split_element"
    parts = [e for e in corrected_document(ws, doc_id).page(2).elements if e.category is table.category]
    assert len(parts) == 2 and "\n" not in parts[0].text.strip()


def test_a_saves_message_outlives_a_run_that_was_stopped(sample_workspace):
    """Streamlit stops a run when another rerun comes in (a component reporting its size, a second
    click): the save's message must still be there in the run after it, not only in the stopped one."""
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    footer = footer_of(ws, doc_id)
    record_events(ws, doc_id, [{"kind": "relabel", "target": footer.id, "category": "text"}], "setup")
    at = inspect_with(sample_workspace, footer.id)
    at.selectbox(key=f"rli:edit:category:{footer.id}").set_value(Category.PAGE_FOOTER)
    at.button(key="rli:edit:relabel").click().run()
    assert "Relabelled" in texts(at)
    at.run()  # the rerun that would have stopped the first one
    assert not at.exception
    assert "Relabelled" in texts(at)
