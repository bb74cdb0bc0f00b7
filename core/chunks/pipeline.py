"""The chunks stage as the workspace runs it: corrections -> forms -> crops -> chunking, cached.

    chunks_for(ws, doc_id, policy) -> tuple[Chunk, ...]             the corrected Document's chunks
    evidence_for(ws, doc_id, policy) -> tuple[PageEvidence, ...]    its page evidence (attachments,
                                                                    furniture) for pages and reports

Both are cached by (document version, log head, policy fingerprint) in core/chunks/cache.py, so a
new correction or a re-ingest is a new key. The form fields are extracted once, from the corrected
Document, and handed to the chunker.
"""
from __future__ import annotations

from pathlib import Path

from core.chunks.blocks import PageEvidence
from core.chunks.cache import CHUNK_SETS
from core.chunks.chunking import build_chunks, document_evidence, form_fields, form_split
from core.chunks.crops import attach_crops
from core.chunks.policy import Policy, load_policy
from core.model import Chunk
from core.review.corrections import corrected_document

__all__ = ["chunks_for", "evidence_for"]


def _version_key(ws, doc_id: str, policy: Policy) -> tuple:
    record = ws.document(doc_id)
    return (str(Path(ws.root).resolve()), doc_id, record.engine, record.updated_at, ws.head(doc_id),
            policy.fingerprint)


def chunks_for(ws, doc_id: str, policy: Policy | str = "default") -> tuple[Chunk, ...]:
    """The corrected Document's chunks, cached by (document version, log head, policy fingerprint)."""
    policy = load_policy(policy)

    def build() -> tuple[Chunk, ...]:
        doc = corrected_document(ws, doc_id)
        fields = form_fields(doc, policy)
        # figure/table crops, named in chunk metadata as image_ref
        return build_chunks(attach_crops(ws, doc, policy, fields), policy, fields=fields)
    return CHUNK_SETS.get(_version_key(ws, doc_id, policy), build)


def evidence_for(ws, doc_id: str, policy: Policy | str = "default") -> tuple[PageEvidence, ...]:
    """The corrected Document's page evidence (attachments, furniture) for pages and reports,
    cached like `chunks_for`."""
    policy = load_policy(policy)

    def build() -> tuple[PageEvidence, ...]:
        doc = corrected_document(ws, doc_id)
        split = form_split(doc, policy, form_fields(doc, policy))
        return document_evidence(split.masked, policy, split.skip)
    return CHUNK_SETS.get(("evidence",) + _version_key(ws, doc_id, policy), build)
