"""The Audit page's lines name elements and fields by text and page, never by id (core.forms.audit_lines)."""
from __future__ import annotations

from core.categories import Category
from core.forms.audit_lines import readable_audit
from core.forms.fields import extract_fields
from core.ingest.pipeline import ingest_bytes
from core.review.corrections import corrected_document, record_events
from core.review.undo import undo_last
from form_fixtures import acroform_pdf, by_key


def test_a_check_box_is_named_by_its_label_and_an_undo_says_what_it_undid(tmp_path):
    from core.store.opening import open_workspace

    ws = open_workspace(tmp_path / "ws")
    doc_id = ingest_bytes(ws, acroform_pdf(), "shinsei.pdf", engine="fast").record.doc_id
    box = by_key(extract_fields(corrected_document(ws, doc_id)), "宿泊費")
    record_events(ws, doc_id, [{"kind": "set_selection", "target": box.value_ref, "state": "selected"}], "rev")
    record_events(ws, doc_id, [{"kind": "redact", "field": box.id}], "rev")
    undo_last(ws, doc_id, "rev")
    lines = [line.text for line in readable_audit(ws, doc_id)]
    assert lines == [f"p{box.page} · 「宿泊費」 → selected", f"p{box.page} · 「宿泊費」 → redacted",
                     f"p{box.page} · undid: 「宿泊費」 → redacted"]
    assert not any(box.value_ref in t or box.id in t for t in lines)
    ws.close()


def test_a_link_names_the_caption_by_its_text_and_the_picture_by_what_it_is(stored):
    ws, doc = stored
    page = doc.page(1)
    caption = next(e for e in page.elements if e.text.startswith("図1"))
    picture = next(e for e in page.elements if e.category is Category.PICTURE)
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": caption.id, "category": "caption"},
                                   {"kind": "link", "source": caption.id, "target": picture.id},
                                   {"kind": "delete_element", "target": caption.id}], "rev")
    lines = readable_audit(ws, doc.doc_id)
    assert [line.text for line in lines] == [
        "p1 · 「図1 精算の流れ」 → relabelled caption",
        "p1 · 「図1 精算の流れ」 → linked to the picture",
        "p1 · 「図1 精算の流れ」 → deleted",  # named by its text even once it is gone
    ]
    assert lines[1].payload["source"] == caption.id  # the ids stay, for the detail view
