"""core/chunks/pipeline.py: the workspace's chunks, corrections -> forms -> crops -> chunking."""
import pytest

from core.chunks.chunking import build_chunks, form_split
from core.chunks.crops import attach_crops
from core.chunks.pipeline import chunks_for, evidence_for
from core.chunks.policy import DEFAULT
from core.ingest.pipeline import ingest_path
from core.review.corrections import corrected_document
from core.store.opening import open_workspace
from chunk_fixtures import SAMPLES


@pytest.fixture(scope="module")
def form_sample(tmp_path_factory):
    path = SAMPLES / "shinseisho_form.pdf"
    if not path.exists():
        pytest.skip("sample_docs/shinseisho_form.pdf missing: run python sample_docs/generate.py")
    ws = open_workspace(tmp_path_factory.mktemp("form"))
    doc_id = ingest_path(ws, path, engine="fast").record.doc_id
    yield ws, doc_id
    ws.close()


def test_fields_extracted_once_by_the_pipeline_give_the_chunks_build_chunks_gives_alone(form_sample):
    ws, doc_id = form_sample
    cropped = attach_crops(ws, corrected_document(ws, doc_id), DEFAULT)
    assert chunks_for(ws, doc_id, DEFAULT) == build_chunks(cropped, DEFAULT)


def test_the_elements_of_form_pages_fields_reach_the_form_chunks_and_no_text_chunk(form_sample):
    ws, doc_id = form_sample
    split = form_split(corrected_document(ws, doc_id), DEFAULT)
    assert split.chunks and split.skip
    chunks = chunks_for(ws, doc_id, DEFAULT)
    form_ids = {c.id for c in split.chunks}
    assert form_ids <= {c.id for c in chunks}
    in_text = {r.record_id for c in chunks if c.id not in form_ids for r in c.refs}
    assert not in_text & split.skip
    in_evidence = {e.id for ev in evidence_for(ws, doc_id, DEFAULT) for b in ev.blocks for e in b.elements}
    assert in_evidence and not in_evidence & split.skip
