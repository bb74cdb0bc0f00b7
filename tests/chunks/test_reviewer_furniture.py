"""A reviewer's header/footer label wins over the policy's attach_unique: the line leaves the
chunk text, though page-specific machine-labelled furniture joins the body by default."""
from __future__ import annotations

from core.chunks.pipeline import chunks_for
from core.chunks.policy import load_policy
from core.review.corrections import record_events


def body_line(doc):
    """A page-specific line of body text (not repeated anywhere) that chunking puts into text."""
    texts = [e.text for e in doc.elements()]
    return next(e for e in doc.elements() if e.category.value == "text" and len(e.text) > 15
                and texts.count(e.text) == 1)


def test_a_line_the_reviewer_relabels_as_a_footer_leaves_the_chunk_text(workspace, sample_docs):
    from core.ingest.pipeline import ingest_path
    from core.review.corrections import corrected_document

    doc_id = ingest_path(workspace, sample_docs / "keihi_seisan_kitei.pdf", engine="fast").record.doc_id
    policy = load_policy("default")
    assert policy.param(__import__("core.categories", fromlist=["Category"]).Category.PAGE_FOOTER, "attach_unique")
    line = body_line(corrected_document(workspace, doc_id))
    assert any(line.text in c.text for c in chunks_for(workspace, doc_id, policy))
    for category in ("page_footer", "page_header"):
        record_events(workspace, doc_id, [{"kind": "relabel", "target": line.id, "category": category}], actor="t")
        chunks = chunks_for(workspace, doc_id, policy)
        assert not any(line.text in c.text for c in chunks), category
