"""Review status and review queues, computed from the correction log.

Page status: the last `mark_reviewed` event in effect for the page wins; a page without one is
"in_progress" once any correction in effect touches it, else "unreviewed". (A later edit does not
reopen a page the reviewer marked reviewed: marking is the reviewer's call, not the tool's.)

The link queue lists what a reviewer should look at on the Links page: captions and footnotes
attached to nothing, a caption attached to something far away or to the wrong kind of element, and
pictures or tables without a caption. Attachments come from the chunker itself
(core/chunks/evidence.py via core/chunks/chunking.py): the reviewer's links where set, else its automatic rules,
so the queue shows exactly what the chunks will carry.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from core.categories import Category
from core.review.corrections import (
    REVIEW_STATUSES, corrected_view, element_pages, event_page, events_in_effect, machine_document,
)
from core.geometry import distance
from core.model import Document, Element
from core.store.workspace import StoredEvent, Workspace

UNREVIEWED, IN_PROGRESS, REVIEWED = REVIEW_STATUSES
# A caption further than this share of the page height from its figure/table is worth a look.
FAR_CAPTION_SHARE = 0.25
CAPTION_TARGETS = (Category.PICTURE, Category.TABLE)


# ---- page review status ---------------------------------------------------------------------
def page_statuses(docs: Sequence[Document], events: Sequence[StoredEvent]) -> dict[int, str]:
    """Status of every page of `docs[0]`; `docs` are the views used to find an event's page
    (the corrected Document first, then the machine Document, which still has deleted elements)."""
    doc = docs[0]
    status = {n: UNREVIEWED for n in range(1, doc.page_count + 1)}
    marked: set[int] = set()
    where = element_pages(docs)
    for event in events_in_effect(events):
        page = event_page(event.payload, where)
        if page not in status:
            continue
        if event.kind == "mark_reviewed":
            status[page] = event.payload["status"]
            marked.add(page)
        elif page not in marked:
            status[page] = IN_PROGRESS
    return status


def review_status(ws: Workspace, doc_id: str) -> dict[int, str]:
    view = corrected_view(ws, doc_id)
    return page_statuses((view.doc, machine_document(ws, doc_id)), ws.events(doc_id))


@dataclass(frozen=True)
class ReviewProgress:
    pages: int
    reviewed: int
    in_progress: int

    @property
    def fraction(self) -> float:
        return self.reviewed / self.pages if self.pages else 0.0

    @property
    def label(self) -> str:
        if self.pages and self.reviewed == self.pages:
            return f"reviewed ({self.pages}/{self.pages} pages)"
        if self.reviewed or self.in_progress:
            return f"{self.reviewed}/{self.pages} pages reviewed" + (
                f", {self.in_progress} in progress" if self.in_progress else "")
        return "unreviewed"


def progress_of(statuses: Mapping[int, str]) -> ReviewProgress:
    values = list(statuses.values())
    return ReviewProgress(len(values), values.count(REVIEWED), values.count(IN_PROGRESS))


def review_progress(ws: Workspace, doc_id: str) -> ReviewProgress:
    """Reviewed pages / pages of a document (the Documents page's review column)."""
    return progress_of(review_status(ws, doc_id))


def next_page_to_review(statuses: Mapping[int, str], after: int = 0) -> int | None:
    """The first page after `after` (wrapping around) that is not reviewed yet."""
    pages = sorted(statuses)
    for page in pages[after:] + pages[:after]:
        if statuses[page] != REVIEWED:
            return page
    return None


# ---- links ----------------------------------------------------------------------------------
def link_attachments(doc: Document, policy: str = "default") -> dict[str, Any]:
    """Caption/footnote id -> core.chunks.evidence.Attachment, exactly as the chunker attaches them
    (the reviewer's links where set, else the automatic rules)."""
    from core.chunks.chunking import document_evidence  # the chunking engineer's attachment, reused
    from core.chunks.policy import load_policy

    return {a.source: a for page in document_evidence(doc, load_policy(policy)) for a in page.attachments}


def attached_targets(attachments: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    return {source: ((a.target,) if a.target else ()) for source, a in attachments.items()}


@dataclass(frozen=True)
class LinkIssue:
    kind: str  # unattached_caption | unattached_footnote | far_caption | caption_to_other | uncaptioned
    element_id: str
    page: int
    text: str
    detail: str


def link_queue(doc: Document, attachments: Mapping[str, Any] | None = None) -> list[LinkIssue]:
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


# ---- audit ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class AuditRow:
    event_id: str
    at: str
    actor: str
    kind: str
    page: int | None
    summary: str
    status: str  # in effect | undone | no effect (its element is gone) | unanchored
    undone_by: str | None  # id of the undo event that took it back


def audit_log(ws: Workspace, doc_id: str) -> list[AuditRow]:
    """Who changed what and when, newest last, with whether each event is still in effect."""
    from core.review.corrections import describe

    view = corrected_view(ws, doc_id)
    events = ws.events(doc_id)
    docs = (view.doc, machine_document(ws, doc_id))
    in_effect = {e.event_id for e in events_in_effect(events)}
    undone_by: dict[str, str] = {}
    for e in events:
        if e.kind == "undo":
            undone_by[str(e.payload.get("event"))] = e.event_id
    unanchored = {u.event_id for u in view.unanchored}
    where = element_pages(docs)
    by_id = {e.event_id: e for e in events}
    texts = {eid: el.text for d in reversed(docs) for eid, el in d.element_index().items()}
    for e in events:  # what the reviewer saw, for elements no parse has any more
        for key, anchor in (e.payload.get("anchor") or {}).items():
            if isinstance(anchor, dict) and isinstance(e.payload.get(key), str):
                texts.setdefault(e.payload[key], str(anchor.get("text", "")))

    def name(element_id: str) -> str:
        text = " ".join(str(texts.get(element_id, "")).split())
        return f"「{text[:24]}{'…' if len(text) > 24 else ''}」" if text else str(element_id)
    rows = []
    for e in events:
        if e.kind == "undo" or e.event_id in in_effect:
            status = ("unanchored" if e.event_id in unanchored
                      else "no effect (its element is gone)" if e.event_id in view.skipped else "in effect")
        else:
            status = "undone"
        target_page = event_page(e.payload, where)
        if e.kind == "undo":
            undone = by_id.get(str(e.payload.get("event")))
            target_page = event_page(undone.payload, where) if undone else None
        rows.append(AuditRow(e.event_id, e.at, e.actor, e.kind, target_page, describe(e.payload, name), status,
                             undone_by.get(e.event_id) if status == "undone" else None))
    return rows
