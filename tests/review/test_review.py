from core.review.corrections import record_events
from core.review.status import (
    IN_PROGRESS, REVIEWED, UNREVIEWED, next_page_to_review, review_progress, review_status,
)
from core.review.undo import undo_last
from review_fixtures import by_text, picture


def test_pages_start_unreviewed_and_an_edit_puts_a_page_in_progress(stored):
    ws, doc = stored
    assert review_status(ws, doc.doc_id) == {1: UNREVIEWED, 2: UNREVIEWED}
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": by_text(doc, "1 / 2", page=2).id,
                                    "category": "page_footer"}], "hanako")
    assert review_status(ws, doc.doc_id) == {1: UNREVIEWED, 2: IN_PROGRESS}


def test_marking_a_page_reviewed_counts_towards_document_progress(stored):
    ws, doc = stored
    record_events(ws, doc.doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "reviewed"}], "hanako")
    progress = review_progress(ws, doc.doc_id)
    assert (progress.reviewed, progress.pages, progress.fraction) == (1, 2, 0.5)
    assert progress.label == "1/2 pages reviewed"
    record_events(ws, doc.doc_id, [{"kind": "mark_reviewed", "page": 2, "status": "reviewed"}], "hanako")
    assert review_progress(ws, doc.doc_id).label == "reviewed (2/2 pages)"


def test_an_edit_after_marking_keeps_the_mark_and_undo_takes_the_mark_back(stored):
    ws, doc = stored
    record_events(ws, doc.doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "reviewed"}], "hanako")
    record_events(ws, doc.doc_id, [{"kind": "delete_element", "target": by_text(doc, "1 / 2").id}], "hanako")
    assert review_status(ws, doc.doc_id)[1] == REVIEWED  # the deleted element's page is still found
    undo_last(ws, doc.doc_id, "hanako")
    undo_last(ws, doc.doc_id, "hanako")
    assert review_status(ws, doc.doc_id)[1] == UNREVIEWED


def test_next_page_to_review_skips_reviewed_pages_and_wraps():
    statuses = {1: REVIEWED, 2: UNREVIEWED, 3: REVIEWED, 4: IN_PROGRESS}
    assert next_page_to_review(statuses, after=2) == 4
    assert next_page_to_review(statuses, after=4) == 2
    assert next_page_to_review({1: REVIEWED}) is None


def test_audit_log_says_who_did_what_in_words_and_what_is_still_in_effect(stored):
    from core.review.status import audit_log

    ws, doc = stored
    footer = by_text(doc, "1 / 2")
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": footer.id, "category": "page_footer"}], "hanako")
    record_events(ws, doc.doc_id, [{"kind": "delete_element", "target": picture(doc).id}], "taro")
    undo_last(ws, doc.doc_id, "taro")
    rows = audit_log(ws, doc.doc_id)
    assert [(r.actor, r.kind, r.page, r.status) for r in rows] == [
        ("hanako", "relabel", 1, "in effect"), ("taro", "delete_element", 1, "undone"), ("taro", "undo", 1, "in effect")]
    assert rows[0].summary == "「1 / 2」 → relabelled page_footer"
    assert rows[1].undone_by == rows[2].event_id
