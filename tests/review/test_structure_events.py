"""The reviewer's fixes to text and structure (issue 18): set_text, reorder, split_element,
chunk_break and join_chunks. Each is an event with undo, shown in Audit (describe), re-anchored
after a re-ingest, and reflected in the chunks."""
from dataclasses import replace

import pytest

from core.categories import Category
from core.chunks.chunking import build_chunks
from core.chunks.pipeline import chunks_for
from core.chunks.policy import load_policy
from core.model import Document, Element, Page, element_id
from core.review.corrections import corrected_document, corrected_view, record_events
from core.review.describe import describe
from core.review.events import BadEvent
from core.review.reanchor import reviewer_element_id
from core.review.undo import undo_last
from core.store.records import doc_id_for, sha256_of
from review_fixtures import build_pdf, by_text, machine_document


def reingest(ws, shift: float = 2.0):
    data = build_pdf()
    new = machine_document(data, engine="layout", shift=shift)
    ws.save_machine_document(new, len(data))
    return new


def _chunk_starting_with(chunks, element_id):
    return [c for c in chunks if c.refs and c.refs[0].record_id == element_id]


# ---- set_text ------------------------------------------------------------------------------------
def test_set_text_replaces_the_text_keeps_the_machine_text_and_reaches_the_chunks(stored):
    ws, doc = stored
    body = by_text(doc, "本規程")
    record_events(ws, doc.doc_id, [{"kind": "set_text", "target": body.id, "text": "本規程は旅費の精算を定める。"}], "hanako")
    fixed = corrected_document(ws, doc.doc_id).element(body.id)
    assert fixed.text == "本規程は旅費の精算を定める。"
    assert fixed.attr("machine_text") == body.text
    assert "reviewer:set_text" in fixed.rules
    text = "\n".join(c.text for c in chunks_for(ws, doc.doc_id))
    assert "本規程は旅費の精算を定める。" in text and f"{body.text}\n" not in text  # page 2's ends in （2）
    # a second fix keeps the machine's text, not the first fix
    record_events(ws, doc.doc_id, [{"kind": "set_text", "target": body.id, "text": "二度目"}], "hanako")
    assert corrected_document(ws, doc.doc_id).element(body.id).attr("machine_text") == body.text
    undo_last(ws, doc.doc_id, "hanako")
    undo_last(ws, doc.doc_id, "hanako")
    assert corrected_document(ws, doc.doc_id).element(body.id).text == body.text


def test_set_text_follows_its_element_to_a_new_engine(stored):
    ws, doc = stored
    body = by_text(doc, "本規程")
    record_events(ws, doc.doc_id, [{"kind": "set_text", "target": body.id, "text": "直した本文"}], "hanako")
    reingest(ws)
    view = corrected_view(ws, doc.doc_id)
    assert view.unanchored == ()
    assert any(e.text == "直した本文" for e in view.doc.page(1).elements)
    assert body.id not in view.doc.element_index()


def test_set_text_needs_a_string(stored):
    ws, doc = stored
    with pytest.raises(BadEvent, match="set_text needs 'text'"):
        record_events(ws, doc.doc_id, [{"kind": "set_text", "target": by_text(doc, "本規程").id, "text": 3}], "hanako")
    assert ws.events(doc.doc_id) == []


# ---- reorder -----------------------------------------------------------------------------------
def test_reorder_moves_an_element_in_reading_order_and_in_the_chunk_text(stored):
    ws, doc = stored
    title, body = by_text(doc, "経費精算規程"), by_text(doc, "本規程")
    header = by_text(doc, "第1条")
    record_events(ws, doc.doc_id, [{"kind": "reorder", "target": body.id, "before": header.id}], "hanako")
    order = [e.id for e in corrected_document(ws, doc.doc_id).page(1).elements]
    assert order.index(body.id) == order.index(header.id) - 1
    assert order[0] == title.id
    seqs = [e.seq for e in corrected_document(ws, doc.doc_id).page(1).elements]
    assert seqs == list(range(len(seqs)))
    record_events(ws, doc.doc_id, [{"kind": "reorder", "target": title.id, "after": body.id}], "hanako")
    order = [e.id for e in corrected_document(ws, doc.doc_id).page(1).elements]
    assert order.index(title.id) == order.index(body.id) + 1


def test_reorder_stays_on_its_page_and_needs_one_neighbour(stored):
    ws, doc = stored
    body, other_page = by_text(doc, "本規程"), by_text(doc, "本規程", page=2)
    with pytest.raises(BadEvent, match="reading order is per page"):
        record_events(ws, doc.doc_id, [{"kind": "reorder", "target": body.id, "after": other_page.id}], "hanako")
    with pytest.raises(BadEvent, match="exactly one of 'after' or 'before'"):
        record_events(ws, doc.doc_id, [{"kind": "reorder", "target": body.id}], "hanako")
    with pytest.raises(BadEvent, match="cannot move after itself"):
        record_events(ws, doc.doc_id, [{"kind": "reorder", "target": body.id, "after": body.id}], "hanako")
    assert ws.events(doc.doc_id) == []


# ---- split_element --------------------------------------------------------------------------------
def _two_note_document(ws) -> tuple[Document, Element]:
    """One footnote box that holds two notes (＊1 and ＊2), its lines stored as ingest stores them."""
    sha = sha256_of(b"two notes")
    doc_id = doc_id_for(sha)
    lines = ((72.0, 700.0, 300.0, 710.0, "＊1 領収書の原本を添付する。", 8.0, 0),
             (72.0, 712.0, 320.0, 722.0, "＊2 電子データでも可とする。", 8.0, 0))
    body = Element(element_id(doc_id, 1, (72, 100, 400, 120), "本文"), 1, 0, Category.TEXT,
                   (72, 100, 400, 120), "本文です＊1。続きです＊2。", "fast")
    note = Element(element_id(doc_id, 1, (72, 700, 320, 722), "notes"), 1, 1, Category.FOOTNOTE,
                   (72, 700, 320, 722), "＊1 領収書の原本を添付する。＊2 電子データでも可とする。", "fast",
                   attrs=(("lines", lines), ("size", 8.0)))
    doc = Document(doc_id, "notes.pdf", sha, "fast", (Page(1, 595, 842, elements=(body, note)),))
    ws.save_machine_document(doc, 9)
    return doc, note


def test_split_element_makes_two_elements_of_the_same_category_at_a_line(workspace):
    doc, note = _two_note_document(workspace)
    [event] = record_events(workspace, doc.doc_id, [{"kind": "split_element", "target": note.id, "at_line": 1}], "hanako")
    page = corrected_document(workspace, doc.doc_id).page(1)
    new_id = reviewer_element_id(doc.doc_id, 1, event.event_id)
    first, second = page.elements[1], page.elements[2]
    assert (first.id, second.id) == (note.id, new_id)
    assert first.text == "＊1 領収書の原本を添付する。" and second.text == "＊2 電子データでも可とする。"
    assert first.category is second.category is Category.FOOTNOTE
    assert first.bbox == (72, 700, 300, 710) and second.bbox == (72, 712, 320, 722)
    assert "reviewer:split_element" in second.rules
    # a later event can name the new element
    record_events(workspace, doc.doc_id, [{"kind": "relabel", "target": new_id, "category": "text"}], "hanako")
    assert corrected_document(workspace, doc.doc_id).element(new_id).category is Category.TEXT


def test_split_element_refuses_a_line_outside_the_element(workspace):
    doc, note = _two_note_document(workspace)
    with pytest.raises(BadEvent, match="'at_line' must be 1..1"):
        record_events(workspace, doc.doc_id, [{"kind": "split_element", "target": note.id, "at_line": 2}], "hanako")
    body = doc.page(1).elements[0]
    with pytest.raises(BadEvent, match="has one line"):
        record_events(workspace, doc.doc_id, [{"kind": "split_element", "target": body.id, "at_line": 1}], "hanako")
    assert workspace.events(doc.doc_id) == []


def test_split_without_stored_lines_cuts_the_box_at_its_text_lines(stored):
    ws, doc = stored
    body = by_text(doc, "本規程")
    record_events(ws, doc.doc_id, [{"kind": "set_text", "target": body.id, "text": "一行目\n二行目"},
                                   {"kind": "split_element", "target": body.id, "at_line": 1}], "hanako")
    page = corrected_document(ws, doc.doc_id).page(1)
    at = [e.id for e in page.elements].index(body.id)
    first, second = page.elements[at], page.elements[at + 1]
    assert (first.text, second.text) == ("一行目", "二行目")
    assert first.bbox[3] == pytest.approx(second.bbox[1], abs=0.02)
    assert (first.bbox[1], second.bbox[3]) == (body.bbox[1], body.bbox[3])


# ---- chunk_break / join_chunks ----------------------------------------------------------------
def _small_policy():
    return replace(load_policy("default"), max_chars=40, combine_under_chars=0, join_under_chars=0)


def test_chunk_break_starts_a_chunk_at_the_element(stored):
    ws, doc = stored
    body = by_text(doc, "本規程")
    before = build_chunks(corrected_document(ws, doc.doc_id), "default")
    assert not _chunk_starting_with(before, body.id)  # the body shares the heading's chunk today
    record_events(ws, doc.doc_id, [{"kind": "chunk_break", "before": body.id}], "hanako")
    after = build_chunks(corrected_document(ws, doc.doc_id), "default")
    assert _chunk_starting_with(after, body.id)
    assert len(after) == len(before) + 1
    undo_last(ws, doc.doc_id, "hanako")
    assert build_chunks(corrected_document(ws, doc.doc_id), "default") == before


def test_join_chunks_keeps_an_element_in_the_chunk_before_it(stored):
    ws, doc = stored
    policy = _small_policy()
    body = by_text(doc, "図1")  # a caption read as text, after the first 32 characters of body
    before = build_chunks(corrected_document(ws, doc.doc_id), policy)
    assert _chunk_starting_with(before, body.id)  # 40 characters: it starts a chunk of its own
    record_events(ws, doc.doc_id, [{"kind": "join_chunks", "before": body.id}], "hanako")
    after = build_chunks(corrected_document(ws, doc.doc_id), policy)
    assert not _chunk_starting_with(after, body.id)
    holder = next(c for c in after if any(r.record_id == body.id for r in c.refs))
    assert holder.refs[0].record_id != body.id and body.text in holder.text
    assert sum(body.text in c.text for c in after if c.start_page == 1) == 1
    assert "本規程は出張旅費の精算手続を定める。" in holder.text


def test_chunk_wishes_are_refused_for_unknown_elements(stored):
    ws, doc = stored
    for kind in ("chunk_break", "join_chunks"):
        with pytest.raises(BadEvent, match="is not an element"):
            record_events(ws, doc.doc_id, [{"kind": kind, "before": "nope"}], "hanako")
    assert ws.events(doc.doc_id) == []


def test_the_new_kinds_read_as_sentences_in_the_audit(stored):
    ws, doc = stored
    body, header = by_text(doc, "本規程"), by_text(doc, "第1条")
    name = {body.id: "本規程…", header.id: "第1条 目的"}.get
    assert describe({"kind": "set_text", "target": body.id, "text": "新しい本文"}, name) == \
        "本規程… → text set to “新しい本文”"
    assert describe({"kind": "reorder", "target": body.id, "before": header.id}, name) == \
        "本規程… → moved before 第1条 目的"
    assert describe({"kind": "split_element", "target": body.id, "at_line": 2}, name) == "本規程… → split after line 2"
    assert describe({"kind": "chunk_break", "before": body.id}, name) == "本規程… → starts a new chunk"
    assert describe({"kind": "join_chunks", "before": body.id}, name) == "本規程… → kept in the chunk before it"
