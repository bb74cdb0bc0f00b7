"""The section/size assembly, resumed after a correction instead of run over the whole document.

    assemble(key, evidence, make) -> list          the drafts `make().run(evidence)` gives, `make`
                                                   making a fresh core.chunks.chunking._Assembler

The assembler (core/chunks/chunking.py) reads page evidence in order and is a state machine: its
state at a page boundary (open draft, open sections, pending references, …) and the evidence
after it decide everything that follows. So each run keeps its state at every page boundary. After
a correction only the corrected page's evidence is a new object (core.memo); the next run starts
from the state before the first changed page and stops as soon as its state after a changed page
equals the old run's state there, taking the old run's drafts from then on.

What makes the splice exact: the assembler changes an emitted draft only through the end of its
list (`drafts[-1]`, `pop()`), so a run records how far back it reached (`_Drafts.low`). A boundary
whose later reach stays within the two drafts it saved is a place to resume from or join at;
anything else runs in full. Drafts taken over from an earlier run are copied before they are
handed out (`_Drafts`), so no run changes another run's drafts.
"""
from __future__ import annotations

import dataclasses
from enum import Enum
import threading
from dataclasses import dataclass
from typing import Any, Sequence

from typing import Callable, Hashable

_Assembler = Any  # core.chunks.chunking._Assembler (which imports this module)
_Draft = Any  # its drafts: mutable dataclasses
PageEvidence = Any

TAIL = 2  # drafts saved at each boundary: the last one, and the one a pop() makes the last
_FIXED = ("doc", "policy", "drafts")  # assembler attributes that are not its reading state


def _copy_draft(d: _Draft) -> _Draft:
    return dataclasses.replace(d, **{f.name: _copied(getattr(d, f.name)) for f in dataclasses.fields(d) if f.init})


def _copied(value: Any) -> Any:
    """A copy of assembler state that no later step can change: containers and drafts copied,
    frozen values (elements, pieces, tuples, strings) shared."""
    kind = type(value)
    if kind is list:
        return [_copied(v) for v in value]
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if kind is set:
        return set(value)
    if value is None or isinstance(value, (bool, int, float, str, tuple, frozenset, Enum)):
        return value  # tuples here hold frozen values (pieces, elements, FrozenMap attrs)
    if dataclasses.is_dataclass(value):  # frozen ones (pieces) are shared, drafts copied
        return value if kind.__dataclass_params__.frozen else _copy_draft(value)
    if hasattr(value, "__dict__"):  # e.g. SectionStack: a plain object holding its own state
        return _Object(type(value), _copied(vars(value)))
    raise TypeError(f"assembler state of type {kind.__name__} cannot be saved")


@dataclass(frozen=True)
class _Object:
    kind: type
    state: dict

    def make(self) -> Any:
        obj = object.__new__(self.kind)
        obj.__dict__.update(_restored(self.state))
        return obj


def _restored(value: Any) -> Any:
    if isinstance(value, _Object):
        return value.make()
    if type(value) is dict:
        return {k: _restored(v) for k, v in value.items()}
    if type(value) is list:
        return [_restored(v) for v in value]
    return _copied(value)


class _Drafts(list):
    """The assembler's draft list. Entries before `shared` belong to an earlier run (they are its
    final drafts): one is copied into this list before the assembler can reach it. `low` is the
    shortest the list has been since it was last reset: the assembler only changes drafts from
    index `low - 1` on."""

    def __init__(self, items=(), shared: int = 0):
        super().__init__(items)
        self.shared = shared
        self.low = len(self)

    def _own(self, index: int) -> None:
        while self.shared > index:
            self.shared -= 1
            list.__setitem__(self, self.shared, _copy_draft(list.__getitem__(self, self.shared)))

    def __getitem__(self, key):
        if isinstance(key, slice):
            start = range(len(self))[key]
            if len(start):
                self._own(min(start))
        else:
            self._own(key % len(self) if len(self) else 0)
        return list.__getitem__(self, key)

    def __reversed__(self):
        for i in range(len(self) - 1, -1, -1):
            self._own(i)
            yield list.__getitem__(self, i)

    def pop(self, index: int = -1):
        self._own(index % len(self) if len(self) else 0)
        value = list.pop(self, index)
        self.low = min(self.low, len(self))
        return value

    def __delitem__(self, key) -> None:
        list.__delitem__(self, key)
        self.low = min(self.low, len(self))

    def reset_low(self) -> None:
        self.low = len(self)


@dataclass(frozen=True)
class _Boundary:
    """The assembler's state before a page: how many drafts, copies of the last `TAIL`, the rest."""
    count: int
    tail: tuple[_Draft, ...]
    state: dict

    def same_as(self, other: "_Boundary", later: "_Later") -> bool:
        """The same state, maybe with more or fewer drafts before the saved tail: the assembler
        reads its drafts only from the end (a correction that removed a chunk shifts the rest).
        Sets in the state hold ids of elements already dealt with (`wishes_seen`): an id that
        no later page holds cannot change what follows, so only the others are compared."""
        counts = self.count == other.count or min(self.count, other.count) >= TAIL
        if not (counts and self.tail == other.tail and self.state.keys() == other.state.keys()):
            return False
        for name, mine in self.state.items():
            theirs = other.state[name]
            if mine == theirs:
                continue
            if not (type(mine) is set and type(theirs) is set) or later.holds(mine ^ theirs):
                return False
        return True

    def shifted(self, by: int) -> "_Boundary":
        return self if not by else _Boundary(self.count + by, self.tail, self.state)


class _Later:
    """The element ids of the evidence from a boundary on, read only when a comparison needs them."""

    def __init__(self, evidence: Sequence[PageEvidence], boundary: int):
        self._evidence, self._boundary, self._ids = evidence, boundary, None

    def holds(self, ids: set) -> bool:
        if self._ids is None:
            self._ids = {e.id for ev in self._evidence[self._boundary:] for b in ev.blocks for e in b.elements}
        return not self._ids.isdisjoint(ids)


@dataclass
class _Run:
    evidence: tuple[PageEvidence, ...]
    boundaries: list[_Boundary]  # before each page, and after the last (before close)
    reach: list[int]  # per page, then for close: the shortest the draft list got
    drafts: list[_Draft]  # the run's final drafts

    def reach_after(self, boundary: int) -> int:
        return min(self.reach[boundary:])


def _boundary(asm: _Assembler) -> _Boundary:
    drafts = asm.drafts
    tail = tuple(_copy_draft(list.__getitem__(drafts, i)) for i in range(max(0, len(drafts) - TAIL), len(drafts)))
    state = {k: _copied(v) for k, v in vars(asm).items() if k not in _FIXED}
    return _Boundary(len(drafts), tail, state)


def _resumable(run: _Run, boundary: int) -> bool:
    """No step after `boundary` reached a draft older than the saved tail."""
    b = run.boundaries[boundary]
    return run.reach_after(boundary) >= b.count - TAIL + 1


def _restore(asm: _Assembler, run: _Run, boundary: int) -> None:
    b = run.boundaries[boundary]
    keep = b.count - len(b.tail)
    asm.drafts = _Drafts(run.drafts[:keep] + [_copy_draft(d) for d in b.tail], shared=keep)
    for name, value in b.state.items():
        setattr(asm, name, _restored(value))


_RUNS: dict[Hashable, _Run] = {}
_LOCK = threading.Lock()
STATS = {"full": 0, "resumed": 0, "pages_assembled": 0}  # lets tests and bench see the resume work


def clear() -> None:
    with _LOCK:
        _RUNS.clear()


def assemble(key: Hashable, evidence: Sequence[PageEvidence], make: Callable[[], _Assembler]) -> list[_Draft]:
    """`key` names the document and policy whose previous run may be resumed."""
    evidence = tuple(evidence)
    with _LOCK:
        old = _RUNS.get(key)
    run = _resume(make, evidence, old) if old is not None else None
    STATS["resumed" if run is not None else "full"] += 1
    if run is None:
        run = _full(make, evidence)
    with _LOCK:
        _RUNS[key] = run
        while len(_RUNS) > 16:
            _RUNS.pop(next(iter(_RUNS)))
    return list(run.drafts)


def _full(make: Callable[[], _Assembler], evidence: tuple[PageEvidence, ...]) -> _Run:
    asm = make()
    asm.drafts = _Drafts()
    boundaries, reach = [], []
    for ev in evidence:
        boundaries.append(_boundary(asm))
        asm.drafts.reset_low()
        asm.add_page(ev)
        reach.append(asm.drafts.low)
    STATS["pages_assembled"] += len(evidence)
    return _close(asm, evidence, boundaries, reach)


def _close(asm: _Assembler, evidence, boundaries: list[_Boundary], reach: list[int]) -> _Run:
    boundaries.append(_boundary(asm))
    asm.drafts.reset_low()
    drafts = asm.close()
    reach.append(asm.drafts.low)
    return _Run(evidence, boundaries, reach, list.__getitem__(drafts, slice(None)))


def _resume(make: Callable[[], _Assembler], evidence: tuple[PageEvidence, ...], old: _Run) -> _Run | None:
    if len(old.evidence) != len(evidence):
        return None
    changed = [i for i, (a, b) in enumerate(zip(evidence, old.evidence)) if a is not b]
    if not changed:
        return old
    first, last = changed[0], changed[-1]
    if not _resumable(old, first):
        return None
    asm = make()
    _restore(asm, old, first)
    boundaries, reach = old.boundaries[:first], old.reach[:first]
    for page in range(first, len(evidence)):
        boundaries.append(old.boundaries[page] if page == first else _boundary(asm))
        asm.drafts.reset_low()
        asm.add_page(evidence[page])
        reach.append(asm.drafts.low)
        STATS["pages_assembled"] += 1
        joined = _join_old(asm, old, evidence, page + 1, boundaries, reach) if page >= last else None
        if joined is not None:
            return joined
    return _close(asm, evidence, boundaries, reach)


def _join_old(asm: _Assembler, old: _Run, evidence: tuple[PageEvidence, ...], boundary: int,
              boundaries: list[_Boundary], reach: list[int]) -> _Run | None:
    """After the last changed page: once the state equals the old run's at the same boundary, the
    rest of the old run is what this run would do."""
    if not _resumable(old, boundary):
        return None
    now = _boundary(asm)
    then = old.boundaries[boundary]
    if not now.same_as(then, _Later(evidence, boundary)):
        return None
    shift = now.count - then.count
    # the old run's later steps never reached the drafts before its saved tail; nor will this run's
    drafts = list.__getitem__(asm.drafts, slice(0, now.count - len(now.tail))) + old.drafts[then.count - len(then.tail):]
    return _Run(evidence, boundaries + [b.shifted(shift) for b in old.boundaries[boundary:]],
                reach + [r + shift for r in old.reach[boundary:]], drafts)
