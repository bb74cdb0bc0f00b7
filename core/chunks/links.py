"""Caption and footnote links as the chunker attaches them, and what on the Links page needs a look.

The link queue lists captions and footnotes attached to nothing, a caption attached to something
far away or to the wrong kind of element, and pictures or tables without a caption. Attachments
come from the chunker itself (core/chunks/evidence.py via core/chunks/chunking.py): the reviewer's
links where set, else its automatic rules, so the queue shows exactly what the chunks will carry.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from core.categories import Category
from core.chunks.blocks import Attachment
from core.chunks.chunking import document_evidence
from core.chunks.policy import load_policy
from core.geometry import distance
from core.model import Document, Element

# A caption further than this share of the page height from its figure/table is worth a look.
FAR_CAPTION_SHARE = 0.25
CAPTION_TARGETS = (Category.PICTURE, Category.TABLE)


def link_attachments(doc: Document, policy: str = "default") -> dict[str, Attachment]:
    """Caption/footnote id -> its Attachment, exactly as the chunker attaches them
    (the reviewer's links where set, else the automatic rules)."""
    return {a.source: a for page in document_evidence(doc, load_policy(policy)) for a in page.attachments}


def attached_targets(attachments: Mapping[str, Attachment]) -> dict[str, tuple[str, ...]]:
    return {source: ((a.target,) if a.target else ()) for source, a in attachments.items()}


@dataclass(frozen=True)
class LinkIssue:
    kind: str  # unattached_caption | unattached_footnote | far_caption | caption_to_other | uncaptioned
    element_id: str
    page: int
    text: str
    detail: str


def link_queue(doc: Document, attachments: Mapping[str, Attachment] | None = None) -> list[LinkIssue]:
    """What needs a look on the Links page, in page and reading order."""
    attachments = link_attachments(doc) if attachments is None else attachments
    index = doc.element_index()
    targets_of = attached_targets(attachments)
    captioned = {t for s, ts in targets_of.items() if s in index and index[s].category == Category.CAPTION
                 for t in ts}
    issues: list[LinkIssue] = []
    for e in doc.elements():
        targets = [index[t] for t in targets_of.get(e.id, ()) if t in index]
        how = getattr(attachments.get(e.id), "how", "unattached")
        if e.category == Category.CAPTION:
            issues.extend(_caption_issues(doc, e, targets, how))
        elif e.category == Category.FOOTNOTE and not targets:
            detail = ("no body text on its page: joined the chunk before it" if how == "previous_chunk"
                      else "a reviewer unlinked it" if how == "unlinked" else "footnote attached to no body text")
            issues.append(LinkIssue("unattached_footnote", e.id, e.page, e.text, detail))
        elif e.category in CAPTION_TARGETS and e.id not in captioned:
            issues.append(LinkIssue("uncaptioned", e.id, e.page, e.text, f"{e.category.value} without a caption"))
    return issues


def _caption_issues(doc: Document, caption: Element, targets: list[Element], how: str) -> list[LinkIssue]:
    if not targets:
        detail = ("a reviewer unlinked it" if how == "unlinked"
                  else "caption attached to no figure or table (it stays in the text flow)")
        return [LinkIssue("unattached_caption", caption.id, caption.page, caption.text, detail)]
    issues = []
    for t in targets:
        if t.category not in CAPTION_TARGETS:
            issues.append(LinkIssue("caption_to_other", caption.id, caption.page, caption.text,
                                    f"caption attached to a {t.category.value}, not a figure or table"))
        gap = distance(caption.bbox, t.bbox)
        if t.page != caption.page:
            issues.append(LinkIssue("far_caption", caption.id, caption.page, caption.text,
                                    f"caption attached to an element on page {t.page}"))
        elif gap > doc.page(caption.page).height * FAR_CAPTION_SHARE:
            issues.append(LinkIssue("far_caption", caption.id, caption.page, caption.text,
                                    f"caption {gap:.0f} pt away from its {t.category.value}"))
    return issues
