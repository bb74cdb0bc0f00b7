"""Review status and the audit log, computed from the correction log.

Page status: the last `mark_reviewed` event in effect for the page wins; a page without one is
"in_progress" once any correction in effect touches it, else "unreviewed". (A later edit does not
reopen a page the reviewer marked reviewed: marking is the reviewer's call, not the tool's.)

The Links page's queue is core/chunks/links.py: it needs the chunker's attachments.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from core.model import Document
from core.review.corrections import corrected_view, machine_document
from core.review.describe import ElementNames, describe, element_pages, event_page
from core.review.events import REVIEW_STATUSES, events_in_effect
from core.store.records import StoredEvent
from core.store.workspace import Workspace

UNREVIEWED, IN_PROGRESS, REVIEWED = REVIEW_STATUSES


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
    name = ElementNames(docs, events)
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
