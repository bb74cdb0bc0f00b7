import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from core import cli
from core.categories import Category
from core.errors import StaleView
from core.model import Document, Element, Page
from core.review.corrections import corrected_document, corrected_view, record_events
from core.review.describe import describe
from core.review.events import BadEvent, events_in_effect
from core.review.reanchor import reviewer_element_id
from core.review.replay import ReplayCache, replay
from core.review.undo import NothingToUndo, redo_last, undo_last, undo_state
from core.store.records import StoredEvent
from review_fixtures import by_text, picture, stored_document
from store_backends import address, child_env, reopen

REPO = Path(__file__).resolve().parents[2]


# ---- replay of each kind ----------------------------------------------------------------------
def test_relabel_changes_the_category_and_records_the_reviewer_rule(stored):
    ws, doc = stored
    footer = by_text(doc, "1 / 2")
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": footer.id, "category": "page_footer"}], "hanako")
    fixed = corrected_document(ws, doc.doc_id).element(footer.id)
    assert fixed.category is Category.PAGE_FOOTER
    assert "reviewer:relabel" in fixed.rules
    assert ws.load_machine_document(doc.doc_id).element(footer.id).category is Category.TEXT


def test_delete_removes_the_element_and_links_that_point_at_it(stored):
    ws, doc = stored
    caption, fig = by_text(doc, "図1"), picture(doc)
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": caption.id, "category": "caption"},
                                   {"kind": "link", "source": caption.id, "target": fig.id}], "hanako")
    assert corrected_document(ws, doc.doc_id).element(caption.id).links == (fig.id,)
    record_events(ws, doc.doc_id, [{"kind": "delete_element", "target": fig.id}], "hanako")
    corrected = corrected_document(ws, doc.doc_id)
    assert fig.id not in corrected.element_index()
    assert corrected.element(caption.id).links == ()
    assert [e.seq for e in corrected.page(1).elements] == list(range(len(corrected.page(1).elements)))


def test_a_drawn_box_takes_its_text_from_the_pdf_under_it(stored):
    ws, doc = stored
    [event] = record_events(ws, doc.doc_id, [
        {"kind": "add_element", "page": 1, "bbox": [345, 236, 460, 256], "category": "text"}], "hanako")
    corrected = corrected_document(ws, doc.doc_id)
    added = corrected.element(reviewer_element_id(doc.doc_id, 1, event.event_id))
    assert added.text == "承認者 山田太郎"
    assert added.source == "reviewer" and added.rules == ("reviewer:add_element",)
    assert added.category is Category.TEXT


def test_a_drawn_box_goes_into_reading_order_by_position(stored):
    ws, doc = stored
    caption = by_text(doc, "図1")
    [event] = record_events(ws, doc.doc_id, [
        {"kind": "add_element", "page": 1, "bbox": [70, 318, 200, 334], "category": "caption"}], "hanako")
    elements = corrected_document(ws, doc.doc_id).page(1).elements
    ids = [e.id for e in elements]
    new_id = reviewer_element_id(doc.doc_id, 1, event.event_id)
    assert ids.index(new_id) == ids.index(caption.id) - 1 or ids.index(new_id) == ids.index(caption.id) + 1
    assert ids.index(new_id) > ids.index(picture(doc).id)


def test_moving_a_box_rereads_its_text(stored):
    ws, doc = stored
    body = by_text(doc, "本規程")
    x0, y0, x1, y1 = body.bbox
    record_events(ws, doc.doc_id, [{"kind": "move_bbox", "target": body.id, "bbox": [x0, y0, x0 + 52, y1]}], "hanako")
    moved = corrected_document(ws, doc.doc_id).element(body.id)
    assert moved.bbox == (x0, y0, x0 + 52, y1)
    assert moved.text == "本規程は出"
    assert "reviewer:move_bbox" in moved.rules


def test_link_adds_a_target_and_unlink_clears_it(stored):
    ws, doc = stored
    note, body = by_text(doc, "※1"), by_text(doc, "本規程")
    record_events(ws, doc.doc_id, [{"kind": "link", "source": note.id, "target": body.id}], "hanako")
    assert corrected_document(ws, doc.doc_id).element(note.id).links == (body.id,)
    record_events(ws, doc.doc_id, [{"kind": "unlink", "source": note.id}], "hanako")
    unlinked = corrected_document(ws, doc.doc_id).element(note.id)
    assert unlinked.links == () and "reviewer:unlink" in unlinked.rules


def test_only_captions_and_footnotes_can_be_linked(stored):
    ws, doc = stored
    with pytest.raises(BadEvent, match="only a caption or a footnote"):
        record_events(ws, doc.doc_id, [{"kind": "link", "source": by_text(doc, "本規程").id,
                                        "target": picture(doc).id}], "hanako")
    assert ws.events(doc.doc_id) == []


def test_events_in_one_save_see_each_other(stored):
    ws, doc = stored
    caption = by_text(doc, "図1")
    # the caption is text in the machine view; relabelling it first makes the link valid
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": caption.id, "category": "caption"},
                                   {"kind": "link", "source": caption.id, "target": picture(doc).id}], "hanako")
    assert len({e.base for e in ws.events(doc.doc_id)}) == 1  # one action


def test_set_selection_sets_the_state(stored):
    ws, doc = stored
    target = by_text(doc, "本規程")
    record_events(ws, doc.doc_id, [{"kind": "set_selection", "target": target.id, "state": "selected"}], "hanako")
    assert corrected_document(ws, doc.doc_id).element(target.id).state == "selected"


def test_form_and_review_events_do_not_change_elements_and_form_events_ride_along(stored):
    ws, doc = stored
    record_events(ws, doc.doc_id, [{"kind": "mark_reviewed", "page": 1, "status": "reviewed"},
                                   {"kind": "set_value", "field": "f1", "value": "山田"}], "hanako")
    corrected = corrected_document(ws, doc.doc_id)
    assert corrected.pages == ws.load_machine_document(doc.doc_id).pages
    [carried] = corrected.meta_value("form_events")
    assert dict(carried)["kind"] == "set_value"  # for core/forms/form_events.py to apply


# ---- undo and redo ---------------------------------------------------------------------------
def test_undo_takes_back_the_last_action_and_redo_brings_it_back(stored):
    ws, doc = stored
    footer, caption = by_text(doc, "1 / 2"), by_text(doc, "図1")
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": footer.id, "category": "page_footer"}], "a")
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": caption.id, "category": "caption"},
                                   {"kind": "link", "source": caption.id, "target": picture(doc).id}], "a")
    after_both = corrected_document(ws, doc.doc_id)
    undo_last(ws, doc.doc_id, "a")
    undone = corrected_document(ws, doc.doc_id)
    assert undone.element(caption.id).category is Category.TEXT and undone.element(caption.id).links == ()
    assert undone.element(footer.id).category is Category.PAGE_FOOTER
    undo_last(ws, doc.doc_id, "a")
    assert corrected_document(ws, doc.doc_id) == ws.load_machine_document(doc.doc_id)
    with pytest.raises(NothingToUndo):
        undo_last(ws, doc.doc_id, "a")
    redo_last(ws, doc.doc_id, "a")
    redo_last(ws, doc.doc_id, "a")
    assert corrected_document(ws, doc.doc_id) == after_both
    with pytest.raises(NothingToUndo):
        redo_last(ws, doc.doc_id, "a")
    assert len(ws.events(doc.doc_id)) == 3 + 3 + 3  # nothing was ever deleted from the log


def test_a_new_edit_after_undo_empties_the_redo_stack(stored):
    ws, doc = stored
    footer = by_text(doc, "1 / 2")
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": footer.id, "category": "page_footer"}], "a")
    undo_last(ws, doc.doc_id, "a")
    record_events(ws, doc.doc_id, [{"kind": "delete_element", "target": footer.id}], "a")
    state = undo_state(ws.events(doc.doc_id))
    assert state.redo == () and len(state.undo) == 1


def test_undoing_an_already_undone_event_is_refused(stored):
    ws, doc = stored
    [event] = record_events(ws, doc.doc_id, [{"kind": "delete_element", "target": by_text(doc, "1 / 2").id}], "a")
    record_events(ws, doc.doc_id, [{"kind": "undo", "event": event.event_id}], "a")
    with pytest.raises(BadEvent, match="already undone"):
        record_events(ws, doc.doc_id, [{"kind": "undo", "event": event.event_id}], "a")


# ---- property tests on the event algebra ----------------------------------------------------
DOC_ID = "0123456789abcdef"


def _base_document() -> Document:
    def el(i, page, category, bbox, text):
        return Element(f"{DOC_ID[:8]}-p{page}-m{i}", page, 0, category, bbox, text, "fast")

    pages = []
    for n in (1, 2):
        elements = [el(1, n, Category.TITLE, (50, 40, 400, 70), f"規程{n}"),
                    el(2, n, Category.TEXT, (50, 90, 500, 200), f"本文{n} 第一項。第二項。"),
                    el(3, n, Category.PICTURE, (50, 220, 300, 400), ""),
                    el(4, n, Category.TEXT, (50, 410, 300, 425), f"図{n} 流れ"),
                    el(5, n, Category.FOOTNOTE, (50, 700, 400, 715), "※1 注記"),
                    el(6, n, Category.TEXT, (280, 780, 320, 792), f"{n}")]
        pages.append(Page(n, 595, 842, elements=tuple(e.__class__(**{**e.__dict__, "seq": i})
                                                         for i, e in enumerate(elements))))
    return Document(DOC_ID, "t.pdf", "0" * 64, "fast", tuple(pages))


BASE = _base_document()
MACHINE_IDS = [e.id for e in BASE.elements()]
KINDS = ["relabel", "delete_element", "add_element", "move_bbox", "link", "unlink", "set_selection",
         "mark_reviewed", "undo", "set_value"]

op = st.tuples(
    st.sampled_from(KINDS), st.integers(0, 1000), st.integers(0, 1000), st.sampled_from(list(Category)),
    st.tuples(st.floats(0, 500), st.floats(0, 700), st.floats(1, 90), st.floats(1, 140)),
)


def build_events(ops) -> list[StoredEvent]:
    """Events over BASE from drawn numbers: ids come from the machine ids and earlier additions,
    undos name earlier events, so most events apply and some hit already-deleted elements."""
    events: list[StoredEvent] = []
    pool = list(MACHINE_IDS)
    for kind, a, b, category, (x, y, w, h) in ops:
        seq = len(events) + 1
        target, other = pool[a % len(pool)], pool[b % len(pool)]
        page = 1 + a % 2
        payload = {
            "relabel": {"target": target, "category": category.value},
            "delete_element": {"target": target},
            "add_element": {"page": page, "bbox": [x, y, x + w, y + h], "category": category.value},
            "move_bbox": {"target": target, "bbox": [x, y, x + w, y + h]},
            "link": {"source": target, "target": other},
            "unlink": {"source": target},
            "set_selection": {"target": target, "state": ["selected", "unselected", "unknown"][b % 3]},
            "mark_reviewed": {"page": page, "status": "reviewed"},
            "undo": {"event": str(1 + a % seq)} if seq > 1 else {"event": "0"},
            "set_value": {"field": "f", "value": "x"},
        }[kind]
        if kind == "undo" and seq == 1:
            kind, payload = "mark_reviewed", {"page": 1, "status": "in_progress"}
        if kind == "add_element":
            pool.append(reviewer_element_id(DOC_ID, page, str(seq)))
        events.append(StoredEvent(seq, DOC_ID, kind, {"kind": kind, **payload}, "p", "t", seq - 1))
    return events


PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(st.lists(op, max_size=14), st.lists(st.integers(0, 14), min_size=1, max_size=8))
def test_replay_is_the_same_whatever_the_cache_holds(ops, heads):
    events = build_events(ops)
    cache = ReplayCache(snapshots_per_doc=3)
    for h in heads + [len(events)]:
        prefix = events[: min(h, len(events))]
        cached = cache.get("doc", lambda: BASE, prefix).doc
        assert cached == replay(BASE, prefix)


@PROPERTY_SETTINGS
@given(st.lists(op, max_size=12), op)
def test_undo_after_an_event_restores_the_previous_document(ops, last):
    events = build_events(ops)
    with_last = build_events(ops + [last])
    event = with_last[-1]
    undo = StoredEvent(event.seq + 1, DOC_ID, "undo", {"kind": "undo", "event": event.event_id}, "p", "t", event.seq)
    assert replay(BASE, with_last + [undo]) == replay(BASE, events)
    redo = StoredEvent(event.seq + 2, DOC_ID, "undo", {"kind": "undo", "event": undo.event_id}, "p", "t", undo.seq)
    assert replay(BASE, with_last + [undo, redo]) == replay(BASE, with_last)


@PROPERTY_SETTINGS
@given(st.lists(op, max_size=14))
def test_replay_keeps_pages_valid_and_untouched_pages_shared(ops):
    events = build_events(ops)
    doc = replay(BASE, events)
    touched_page_2 = any(
        e.payload.get("page") == 2 or "-p2-" in str(e.payload.get("target", "")) + str(e.payload.get("source", ""))
        for e in events_in_effect(events))
    for page in doc.pages:
        assert [e.seq for e in page.elements] == list(range(len(page.elements)))
    if not touched_page_2:
        assert doc.page(2) is BASE.page(2)


def test_cache_extends_a_snapshot_instead_of_replaying_everything():
    events = build_events([("relabel", i, 0, Category.CAPTION, (0, 0, 10, 10)) for i in range(10)])
    cache = ReplayCache()
    cache.get("doc", lambda: BASE, events[:9])
    before = cache.replayed_events
    cache.get("doc", lambda: BASE, events)
    assert cache.replayed_events - before == 1


# ---- the command line -----------------------------------------------------------------------
def _correct(ws, doc, tmp_path, lines, capsys, actor=None):
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["correct", doc.doc_id, "--events", str(path), "--workspace", str(ws.root)]
    code = cli.main(argv + (["--actor", actor] if actor else []))
    return code, capsys.readouterr()


def test_cli_correct_appends_fills_actor_time_base_and_prints_the_stored_events(stored, tmp_path, capsys):
    ws, doc = stored
    footer = by_text(doc, "1 / 2")
    lines = [json.dumps({"kind": "relabel", "target": footer.id, "category": "page_footer"}),
             json.dumps({"kind": "mark_reviewed", "page": 1, "status": "reviewed", "actor": "taro"})]
    code, out = _correct(ws, doc, tmp_path, lines, capsys, actor="batch")
    assert code == 0, out.err
    printed = [json.loads(line) for line in out.out.splitlines()]
    assert [p["kind"] for p in printed] == ["relabel", "mark_reviewed"]
    assert [p["actor"] for p in printed] == ["batch", "taro"]
    assert all(p["at"].endswith("Z") and p["base"] == 0 and p["id"] for p in printed)
    assert printed[0]["anchor"]["target"]["text"] == "1 / 2"
    cli.main(["elements", doc.doc_id, "--workspace", str(ws.root)])
    rows = {r["id"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows[footer.id]["category"] == "page_footer"
    assert "reviewer:relabel" in rows[footer.id]["rules"]


@pytest.mark.parametrize("bad_line, message", [
    ('{"kind": "relabel", "target": "X"', "line 2: not valid JSON"),
    ('{"kind": "recolour", "target": "X"}', "line 2: unknown kind 'recolour'"),
    ('{"kind": "relabel", "target": "@FOOTER", "category": "footer"}', "line 2: unknown category 'footer'"),
    ('{"kind": "delete_element", "target": "nope"}', "line 2: target 'nope' is not an element"),
    ('{"kind": "add_element", "page": 9, "bbox": [1, 2, 3, 4], "category": "text"}', "line 2: 'page' must be"),
    ('{"kind": "add_element", "page": 1, "bbox": [10, 20, 5, 40], "category": "text"}', "line 2: 'bbox' must have"),
    ('{"kind": "undo", "event": "99"}', "line 2: undo names event '99'"),
    ('[1, 2]', "line 2: expected a JSON object"),
])
def test_cli_correct_rejects_a_bad_line_by_number_and_appends_nothing(stored, tmp_path, capsys, bad_line, message):
    ws, doc = stored
    footer = by_text(doc, "1 / 2")
    good = json.dumps({"kind": "relabel", "target": footer.id, "category": "page_footer"})
    code, out = _correct(ws, doc, tmp_path, [good, bad_line.replace("@FOOTER", footer.id)], capsys)
    assert code == 2
    assert message in out.err and "nothing was appended" in out.err
    assert ws.events(doc.doc_id) == []


def test_cli_correct_names_an_unknown_document(stored, tmp_path, capsys):
    ws, _doc = stored
    path = tmp_path / "e.jsonl"
    path.write_text('{"kind": "mark_reviewed", "page": 1, "status": "reviewed"}\n')
    assert cli.main(["correct", "feedfeedfeedfeed", "--events", str(path), "--workspace", str(ws.root)]) == 2
    assert "no document 'feedfeedfeedfeed'" in capsys.readouterr().err


def test_describe_reads_like_a_sentence():
    assert describe({"kind": "relabel", "target": "x", "category": "caption"}) == "x → relabelled caption"
    assert describe({"kind": "undo", "event": "3"}) == "undo event 3"


# ---- safety (on both backends) ---------------------------------------------------------------
@pytest.fixture
def stored_on_both(any_workspace):
    """(workspace, Document) like `stored`, on SQLite and then on PostgreSQL."""
    return stored_document(None, ws=any_workspace)


def test_a_stale_view_cannot_overwrite_a_newer_edit(stored_on_both):
    ws, doc = stored_on_both
    other = reopen(ws)  # a second browser session: its own connection
    footer = by_text(doc, "1 / 2")
    seen_by_both = corrected_view(ws, doc.doc_id).head
    record_events(other, doc.doc_id, [{"kind": "relabel", "target": footer.id, "category": "page_footer"}],
                  "session-b", expected_head=seen_by_both)
    with pytest.raises(StaleView, match="changed in another session"):
        record_events(ws, doc.doc_id, [{"kind": "relabel", "target": footer.id, "category": "text"}],
                      "session-a", expected_head=seen_by_both)
    assert [e.actor for e in ws.events(doc.doc_id)] == ["session-b"]
    assert corrected_document(ws, doc.doc_id).element(footer.id).category is Category.PAGE_FOOTER
    other.close()


WRITER = textwrap.dedent("""
    import sys
    from core.review.corrections import record_events
    from core.store.opening import open_workspace
    ws = open_workspace(sys.argv[1], sys.argv[4] or None)
    doc_id, target = sys.argv[2], sys.argv[3]
    categories = ["page_footer", "text"]
    i = 0
    while True:
        [e] = record_events(ws, doc_id, [{"kind": "relabel", "target": target, "category": categories[i % 2]}], "w")
        print(e.seq, flush=True)  # confirmed to the reviewer only after the commit returned
        i += 1
""")


def test_confirmed_events_survive_a_kill_9_of_the_writer(stored_on_both):
    ws, doc = stored_on_both
    footer = by_text(doc, "1 / 2")
    folder, url = address(ws)
    proc = subprocess.Popen([sys.executable, "-c", WRITER, folder, doc.doc_id, footer.id, url],
                            cwd=REPO, stdout=subprocess.PIPE, text=True, env=child_env(ws, PYTHONPATH=str(REPO)))
    confirmed = []
    deadline = time.monotonic() + 30
    while len(confirmed) < 25 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        confirmed.append(int(line))
    os.kill(proc.pid, signal.SIGKILL)  # mid-loop: likely inside the next transaction
    proc.wait()
    assert len(confirmed) >= 25, "the writer did not get going"
    stored_seqs = {e.seq for e in reopen(ws).events(doc.doc_id)}
    assert set(confirmed) <= stored_seqs
    corrected_document(ws, doc.doc_id)  # the log still replays


def test_a_correction_rebuilds_only_the_evidence_of_the_page_it_touches(stored):
    from core.chunks.cache import cache_stats, clear_cache
    from core.chunks.pipeline import chunks_for

    ws, doc = stored
    clear_cache()
    chunks_for(ws, doc.doc_id)
    built = cache_stats()["page_evidence_built"]
    per_page = built // doc.page_count  # evidence variants the chunker builds for each page
    body = by_text(doc, "本規程", page=2)
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": body.id, "category": "list_item"}], "hanako")
    after = chunks_for(ws, doc.doc_id)
    assert cache_stats()["page_evidence_built"] - built == per_page  # page 2 only
    assert any(body.id in [r.record_id for r in c.refs] and Category.LIST_ITEM in c.source_categories for c in after)


def test_every_event_kind_has_its_own_validator():
    from core.review.events import _VALIDATORS, EVENT_KINDS

    # a kind the envelope accepts but no validator checks would end in a KeyError, not a message
    assert sorted(_VALIDATORS) == sorted(EVENT_KINDS)
