"""core/chunks/links.py: the Links page's queue, from the chunker's own caption/footnote attachments."""

from core.chunks.links import link_queue
from core.review.corrections import corrected_document, record_events
from review_fixtures import by_text, picture


def test_link_queue_lists_uncaptioned_figures_until_a_caption_attaches(stored):
    ws, doc = stored
    queue = link_queue(corrected_document(ws, doc.doc_id))
    assert ("uncaptioned", picture(doc).id) in {(i.kind, i.element_id) for i in queue}
    caption = by_text(doc, "図1")
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": caption.id, "category": "caption"}], "hanako")
    queue = link_queue(corrected_document(ws, doc.doc_id))
    assert picture(doc).id not in {i.element_id for i in queue if i.page == 1}


def test_link_queue_flags_unlinked_captions_and_far_captions(stored):
    ws, doc = stored
    caption = by_text(doc, "図1")
    record_events(ws, doc.doc_id, [{"kind": "relabel", "target": caption.id, "category": "caption"},
                                   {"kind": "unlink", "source": caption.id}], "hanako")
    issues = {(i.kind, i.element_id): i for i in link_queue(corrected_document(ws, doc.doc_id))}
    assert "unlinked" in issues[("unattached_caption", caption.id)].detail
    assert ("uncaptioned", picture(doc).id) in issues
    # a caption at the bottom of the page, linked to the figure at the top, is worth a look
    x0, _y0, x1, _y1 = caption.bbox
    record_events(ws, doc.doc_id, [{"kind": "move_bbox", "target": caption.id, "bbox": [x0, 600, x1, 612],
                                    "text": "図1 精算の流れ"},
                                   {"kind": "link", "source": caption.id, "target": picture(doc).id}], "hanako")
    issues = {(i.kind, i.element_id) for i in link_queue(corrected_document(ws, doc.doc_id))}
    assert ("far_caption", caption.id) in issues
    assert ("uncaptioned", picture(doc).id) not in issues
