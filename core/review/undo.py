"""Undo and redo, as appended events, never deletions.

- `{"kind":"undo","event":ID}` takes event ID out of effect (replay skips it);
- redo is an undo of that undo: the undo is then out of effect, so the original event is back.
Events saved together (one `base`, one actor) are one *action*: the unit the Undo button takes
back. `undo_state` reads the log as an editor's undo/redo stacks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from core.errors import InspectorError
from core.review.corrections import record_events
from core.review.events import cancelled_ids
from core.store.records import StoredEvent
from core.store.workspace import Workspace


class NothingToUndo(InspectorError):
    pass


@dataclass(frozen=True)
class Action:
    """Events saved together (one `base`, one actor): the unit the Undo button takes back."""
    events: tuple[StoredEvent, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.event_id for e in self.events)

    @property
    def is_undo(self) -> bool:
        return all(e.kind == "undo" for e in self.events)

    @property
    def undone_ids(self) -> set[str]:
        return {str(e.payload.get("event")) for e in self.events if e.kind == "undo"}


def actions(events: Sequence[StoredEvent]) -> list[Action]:
    groups: list[list[StoredEvent]] = []
    for event in events:
        last = groups[-1][-1] if groups else None
        if last is not None and last.base == event.base and last.actor == event.actor:
            groups[-1].append(event)
        else:
            groups.append([event])
    return [Action(tuple(g)) for g in groups]


@dataclass(frozen=True)
class UndoState:
    undo: tuple[Action, ...]  # actions that Undo would take back, most recent last
    redo: tuple[Action, ...]  # undo actions that Redo would take back, most recent last


def undo_state(events: Sequence[StoredEvent]) -> UndoState:
    """Replays the log as an editor's undo/redo stacks: a new action empties the redo stack."""
    undo: list[Action] = []
    redo: list[Action] = []
    undone_by: dict[str, Action] = {}  # id of an undo event -> the action it took back
    for action in actions(events):
        if not action.is_undo:
            undo.append(action)
            redo.clear()
            continue
        targets = action.undone_ids
        redone = [a for a in redo if set(a.ids) & targets]
        if redone:  # an undo of an undo: redo
            for a in redone:
                redo.remove(a)
                original = undone_by.get(a.ids[0])
                if original is not None:
                    undo.append(original)
            continue
        taken = [a for a in undo if set(a.ids) & targets]
        for a in taken:
            undo.remove(a)
        if taken:
            for e in action.events:
                undone_by[e.event_id] = taken[-1]
            redo.append(action)
    return UndoState(tuple(undo), tuple(redo))


def undo_last(ws: Workspace, doc_id: str, actor: str, expected_head: int | None = None) -> list[StoredEvent]:
    state = undo_state(ws.events(doc_id))
    if not state.undo:
        raise NothingToUndo("nothing to undo in this document")
    live = cancelled_ids(ws.events(doc_id))
    targets = [e for e in reversed(state.undo[-1].events) if e.event_id not in live]
    return record_events(ws, doc_id, [{"kind": "undo", "event": e.event_id} for e in targets], actor, expected_head)


def redo_last(ws: Workspace, doc_id: str, actor: str, expected_head: int | None = None) -> list[StoredEvent]:
    state = undo_state(ws.events(doc_id))
    if not state.redo:
        raise NothingToUndo("nothing to redo in this document")
    return record_events(ws, doc_id, [{"kind": "undo", "event": e.event_id} for e in reversed(state.redo[-1].events)],
                         actor, expected_head)
