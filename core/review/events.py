"""The reviewer's events: their kinds, which are in effect, and whether one may be appended.

Events (DESIGN.md, "Corrections") are small JSON objects; the store adds `id` (its seq), `actor`,
`at` and `base` (the log head the edit was made against). An event is in effect unless an undo
that is itself in effect names it (core/review/undo.py). `validate_event` checks one event against
the corrected Document, one validator per kind; `parse_jsonl` reads an events file for `correct`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from core.categories import Category, parse_category
from core.errors import BadInput
from core.jsonio import JsonShapeError, loads_checked
from core.model import SELECTION_STATES, Document, Element, make_bbox
from core.review.structure import split_line_count
from core.store.records import StoredEvent

ELEMENT_KINDS = ("relabel", "delete_element", "add_element", "move_bbox", "link", "unlink", "set_selection",
                 "set_text", "reorder", "split_element", "chunk_break", "join_chunks")
FORM_KINDS = ("pair", "unpair", "set_value", "redact", "unredact")
REVIEW_STATUSES = ("unreviewed", "in_progress", "reviewed")
EVENT_KINDS = ELEMENT_KINDS + FORM_KINDS + ("mark_reviewed", "undo")
LINK_SOURCES = (Category.CAPTION, Category.FOOTNOTE)
MAX_TEXT_CHARS = 200_000  # a set_text longer than a dense page's text is a paste gone wrong


class BadEvent(BadInput):
    """An event that cannot be appended; the message names the line or position."""


# ---- which events are in effect --------------------------------------------------------------
def cancelled_ids(events: Sequence[StoredEvent]) -> set[str]:
    """Ids of events out of effect. Walk backwards: an undo only counts if it is itself in effect,
    and an undo always names an earlier event, so later events are decided first."""
    cancelled: set[str] = set()
    for event in reversed(events):
        if event.event_id not in cancelled and event.kind == "undo":
            cancelled.add(str(event.payload.get("event")))
    return cancelled


def events_in_effect(events: Sequence[StoredEvent]) -> list[StoredEvent]:
    cancelled = cancelled_ids(events)
    return [e for e in events if e.kind != "undo" and e.event_id not in cancelled]


# ---- validation ---------------------------------------------------------------------------
def validate_event(doc: Document, raw: Any, log: Sequence[StoredEvent]) -> dict[str, Any]:
    """The event in its stored shape (category as wire value, bbox as 4 numbers), or BadEvent."""
    event = _well_formed_envelope(raw)
    check = _EventCheck(doc, event, log, doc.element_index())
    _VALIDATORS[check.kind](check)
    return event


def _well_formed_envelope(raw: Any) -> dict[str, Any]:
    """What every kind shares: a JSON object of a known kind, string actor/at, a log position as base."""
    if not isinstance(raw, Mapping):
        raise BadEvent(f"expected a JSON object, got {type(raw).__name__}")
    event = dict(raw)
    kind = event.get("kind")
    if kind not in EVENT_KINDS:
        raise BadEvent(f"unknown kind {kind!r}; expected one of {', '.join(EVENT_KINDS)}")
    for meta, kind_of in (("actor", str), ("at", str)):
        if meta in event and not isinstance(event[meta], kind_of):
            raise BadEvent(f"{meta!r} must be a string, got {event[meta]!r}")
    if "base" in event and (not isinstance(event["base"], int) or event["base"] < 0):
        raise BadEvent(f"'base' must be a log position (integer >= 0), got {event['base']!r}")
    return event


@dataclass(frozen=True)
class _EventCheck:
    """One event being validated against the corrected Document; the checks its fields share.

    `event` is the caller's copy: a validator writes the stored shape of a field back into it."""
    doc: Document
    event: dict[str, Any]
    log: Sequence[StoredEvent]
    index: Mapping[str, Element]

    @property
    def kind(self) -> str:
        return self.event["kind"]

    def element(self, key: str) -> Element:
        value = self.event.get(key)
        if not isinstance(value, str) or not value:
            raise BadEvent(f"{self.kind} needs {key!r}: an element id")
        if value not in self.index:
            raise BadEvent(f"{key} {value!r} is not an element of document {self.doc.doc_id} "
                           "(corrected view; `python -m core elements DOC` lists them)")
        return self.index[value]

    def page_number(self) -> int:
        page = self.event.get("page")
        if not isinstance(page, int) or isinstance(page, bool) or not 1 <= page <= self.doc.page_count:
            raise BadEvent(f"'page' must be a page number 1..{self.doc.page_count}, got {page!r}")
        return page

    def bbox_on(self, page: int) -> list[float]:
        value = self.event.get("bbox")
        if (not isinstance(value, (list, tuple)) or len(value) != 4
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
            raise BadEvent(f"'bbox' must be [x0, y0, x1, y1] in PDF points, got {value!r}")
        x0, y0, x1, y1 = value
        if not (x0 < x1 and y0 < y1):
            raise BadEvent(f"'bbox' must have x0 < x1 and y0 < y1, got {list(value)}")
        p = self.doc.page(page)
        if x0 < -1 or y0 < -1 or x1 > p.width + 1 or y1 > p.height + 1:
            raise BadEvent(f"'bbox' {list(value)} lies outside page {page} (0..{p.width:g} x 0..{p.height:g} pt)")
        return list(make_bbox(value))

    def category(self) -> str:
        try:
            return parse_category(self.event.get("category")).value
        except (ValueError, KeyError, TypeError) as err:
            raise BadEvent(str(err)) from None


def _relabel_names_an_element_and_a_category(c: _EventCheck) -> None:
    c.element("target")
    c.event["category"] = c.category()


def _delete_names_an_element(c: _EventCheck) -> None:
    c.element("target")


def _added_element_has_a_box_on_a_page_and_a_category(c: _EventCheck) -> None:
    c.event["bbox"] = c.bbox_on(c.page_number())
    c.event["category"] = c.category()
    if "text" in c.event and not isinstance(c.event["text"], str):
        raise BadEvent(f"'text' must be a string when given, got {c.event['text']!r}")


def _moved_box_lies_on_its_elements_page(c: _EventCheck) -> None:
    c.event["bbox"] = c.bbox_on(c.element("target").page)


def _link_goes_from_a_caption_or_footnote_to_another_element(c: _EventCheck) -> None:
    source = c.element("source")
    target = c.element("target")
    if source.category not in LINK_SOURCES:
        raise BadEvent(f"link source {source.id!r} is a {source.category.value}; only a caption or a "
                       "footnote links to its figure, table or body text (relabel it first)")
    if source.id == target.id:
        raise BadEvent(f"an element cannot link to itself ({source.id!r})")


def _unlink_names_its_elements(c: _EventCheck) -> None:
    c.element("source")
    if c.event.get("target") is not None:
        c.element("target")


def _selection_names_an_element_and_a_state(c: _EventCheck) -> None:
    c.element("target")
    if c.event.get("state") not in SELECTION_STATES:
        raise BadEvent(f"'state' must be one of {', '.join(SELECTION_STATES)}, got {c.event.get('state')!r}")


def _review_mark_names_a_page_and_a_status(c: _EventCheck) -> None:
    c.page_number()
    if c.event.get("status") not in REVIEW_STATUSES:
        raise BadEvent(f"'status' must be one of {', '.join(REVIEW_STATUSES)}, got {c.event.get('status')!r}")


def _undo_names_an_event_in_effect(c: _EventCheck) -> None:
    target = c.event.get("event")
    if isinstance(target, int) and not isinstance(target, bool):
        target = str(target)
    if not isinstance(target, str) or not target:
        raise BadEvent("undo needs 'event': the id of an event of this document")
    ids = {e.event_id for e in c.log}
    if target not in ids:
        raise BadEvent(f"undo names event {target!r}, which is not in this document's log")
    if target in cancelled_ids(c.log):
        raise BadEvent(f"event {target} is already undone (undo its undo to bring it back)")
    c.event["event"] = target


def _new_text_is_a_string(c: _EventCheck) -> None:
    c.element("target")
    text = c.event.get("text")
    if not isinstance(text, str):
        raise BadEvent(f"set_text needs 'text': a string, got {text!r}")
    if len(text) > MAX_TEXT_CHARS:
        raise BadEvent(f"set_text 'text' has {len(text):,} characters; at most {MAX_TEXT_CHARS:,}")


def _reorder_names_a_neighbour_on_the_same_page(c: _EventCheck) -> None:
    target = c.element("target")
    given = [k for k in ("after", "before") if c.event.get(k) is not None]
    if len(given) != 1:
        raise BadEvent("reorder needs exactly one of 'after' or 'before': the element it moves next to")
    neighbour = c.element(given[0])
    if neighbour.id == target.id:
        raise BadEvent(f"an element cannot move {given[0]} itself ({target.id!r})")
    if neighbour.page != target.page:
        raise BadEvent(f"reading order is per page: {target.id!r} is on page {target.page}, "
                       f"{neighbour.id!r} on page {neighbour.page}")


def _split_falls_between_two_lines(c: _EventCheck) -> None:
    target = c.element("target")
    at = c.event.get("at_line")
    lines = split_line_count(target)
    if lines < 2:
        raise BadEvent(f"{target.id!r} has one line; there is nothing to split (draw a box instead)")
    if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at < lines:
        raise BadEvent(f"'at_line' must be 1..{lines - 1} (the first N of its {lines} lines stay), got {at!r}")


def _chunk_wish_names_an_element(c: _EventCheck) -> None:
    c.element("before")


def _pair_names_a_key_and_a_value_element(c: _EventCheck) -> None:
    c.element("key")
    c.element("value")


def _field_event_names_a_field(c: _EventCheck) -> None:
    """unpair, set_value, redact, unredact: the field is the forms stage's (core/forms/form_events.py)."""
    if not isinstance(c.event.get("field"), str) or not c.event["field"]:
        raise BadEvent(f"{c.kind} needs 'field': a form field id (`python -m core forms DOC` lists them)")
    if c.kind == "set_value" and not isinstance(c.event.get("value"), str):
        raise BadEvent(f"set_value needs 'value': a string, got {c.event.get('value')!r}")


# kind -> the checks of its own fields (after the envelope); one entry per EVENT_KINDS
_VALIDATORS: dict[str, Callable[[_EventCheck], None]] = {
    "relabel": _relabel_names_an_element_and_a_category,
    "delete_element": _delete_names_an_element,
    "add_element": _added_element_has_a_box_on_a_page_and_a_category,
    "move_bbox": _moved_box_lies_on_its_elements_page,
    "link": _link_goes_from_a_caption_or_footnote_to_another_element,
    "unlink": _unlink_names_its_elements,
    "set_selection": _selection_names_an_element_and_a_state,
    "set_text": _new_text_is_a_string,
    "reorder": _reorder_names_a_neighbour_on_the_same_page,
    "split_element": _split_falls_between_two_lines,
    "chunk_break": _chunk_wish_names_an_element,
    "join_chunks": _chunk_wish_names_an_element,
    "mark_reviewed": _review_mark_names_a_page_and_a_status,
    "undo": _undo_names_an_event_in_effect,
    "pair": _pair_names_a_key_and_a_value_element,
    "unpair": _field_event_names_a_field,
    "set_value": _field_event_names_a_field,
    "redact": _field_event_names_a_field,
    "unredact": _field_event_names_a_field,
}


# ---- event files (JSONL) ----------------------------------------------------------------------
def parse_jsonl(text: str, name: str = "input") -> tuple[list[Any], list[str]]:
    """Events and their labels ("FILE line N") from JSONL; blank lines are skipped."""
    events, labels = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(loads_checked(line))
        except JsonShapeError as err:
            raise BadEvent(f"{name} line {number}: {err}; nothing was appended") from None
        except json.JSONDecodeError as err:
            raise BadEvent(f"{name} line {number}: not valid JSON ({err.msg} at column {err.colno}); "
                           "nothing was appended") from None
        labels.append(f"{name} line {number}")
    return events, labels
