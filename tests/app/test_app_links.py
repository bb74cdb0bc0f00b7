"""The Links page (pages/links.py) through the real app with AppTest."""
from apptest_helpers import doc_id_of, open_page, sample_workspace, texts  # noqa: F401
from core.categories import Category
from core.chunks.links import link_attachments, link_queue
from core.review.corrections import corrected_document
from core.store.opening import open_workspace

DOC = "keihi_seisan_kitei.pdf"


def figure_page(ws, doc_id):
    doc = corrected_document(ws, doc_id)
    caption = next(e for e in doc.elements() if e.category is Category.CAPTION and e.text.startswith("図1"))
    pictures = [e for e in doc.page(caption.page).elements if e.category is Category.PICTURE]
    return doc, caption, pictures


def links_with(sample_workspace, page: int, source=None, target=None, reviewer="hanako"):
    doc_id = doc_id_of(sample_workspace, DOC)
    at = open_page("pages/links.py", sample_workspace, doc=DOC)
    at.session_state["rli:reviewer"] = reviewer
    at.session_state[f"rli:page:{doc_id}"] = page
    at.session_state[f"rli:links:source:{doc_id}"] = source
    at.session_state[f"rli:links:target:{doc_id}"] = target
    return at.run()


def test_links_page_shows_attachments_and_the_review_queue(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    doc, caption, _pictures = figure_page(ws, doc_id)
    at = links_with(sample_workspace, caption.page)
    assert not at.exception, [e.value for e in at.exception]
    assert any("Needs a look" in s.value for s in at.subheader)
    assert len(link_queue(doc)) == len(at.dataframe[-1].value)


def test_relink_a_caption_to_the_figure_it_names_then_undo(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    doc, caption, pictures = figure_page(ws, doc_id)
    first = pictures[0]
    assert link_attachments(doc)[caption.id].target != first.id  # automatic: the nearest picture
    at = links_with(sample_workspace, caption.page, source=caption.id, target=first.id)
    at.button(key="rli:links:link").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.kind for e in ws.events(doc_id)] == ["unlink", "link"]
    relinked = corrected_document(ws, doc_id)
    assert relinked.element(caption.id).links == (first.id,)
    attachment = link_attachments(relinked)[caption.id]
    assert (attachment.target, attachment.how) == (first.id, "link")

    at.button(key="rli:links:undo").click().run()
    assert link_attachments(corrected_document(ws, doc_id))[caption.id].target != first.id


def test_unlink_leaves_the_caption_attached_to_nothing_and_queued(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    _doc, caption, _pictures = figure_page(ws, doc_id)
    at = links_with(sample_workspace, caption.page, source=caption.id)
    at.button(key="rli:links:unlink").click().run()
    assert not at.exception
    doc = corrected_document(ws, doc_id)
    assert link_attachments(doc)[caption.id].how == "unlinked"
    assert ("unattached_caption", caption.id) in {(i.kind, i.element_id) for i in link_queue(doc)}
    assert "caption without figure/table" in str(at.dataframe[-1].value)


def test_linking_without_a_reviewer_name_saves_nothing(sample_workspace):
    doc_id = doc_id_of(sample_workspace, DOC)
    ws = open_workspace(sample_workspace)
    _doc, caption, pictures = figure_page(ws, doc_id)
    at = links_with(sample_workspace, caption.page, source=caption.id, target=pictures[0].id, reviewer="")
    at.button(key="rli:links:link").click().run()
    assert "Set your name in the sidebar" in texts(at)
    assert ws.events(doc_id) == []
