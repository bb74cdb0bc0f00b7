"""Memos keyed by an immutable object's identity, for the rebuild after a correction.

Replay (core/review/replay.py) shares unchanged Page objects between corrected Documents, so a
page-local result (its form units, its section paths, its evidence) can be found again by the
page object itself: no hashing of a page's elements, which on a 300-page document cost more than
the work it saved. An entry holds its object, so the id cannot be reused while the entry lives; a
page with new contents is a new object and misses. `extra` is the rest of the key (hashable).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable, TypeVar

T = TypeVar("T")


class IdentityMemo:
    def __init__(self, size: int):
        self._data: OrderedDict[tuple[int, Hashable], tuple[Any, Any]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()
        self.misses = 0  # how many values had to be computed: lets tests and bench see reuse

    def get(self, obj: Any, extra: Hashable, make: Callable[[], T]) -> T:
        # a hit takes no lock and does not move the entry (one dict read is atomic): a rebuild asks
        # thousands of these; the oldest entries go first, and a dropped one is only made again
        hit = self._data.get((id(obj), extra))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = make()
        self.put(obj, extra, value)
        return value

    def peek(self, obj: Any, extra: Hashable) -> Any:
        """The value stored for (obj, extra), or None."""
        hit = self._data.get((id(obj), extra))
        return hit[1] if hit is not None and hit[0] is obj else None

    def put(self, obj: Any, extra: Hashable, value: Any) -> None:
        with self._lock:
            self.misses += 1
            key = (id(obj), extra)
            self._data.pop(key, None)  # a replaced entry counts as new: it goes last
            self._data[key] = (obj, value)
            while len(self._data) > self._size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.misses = 0


_ALL: list[IdentityMemo] = []


def page_memo(size: int = 4096) -> IdentityMemo:
    """A memo that `clear_all` empties (tests and bench measure cold builds with it)."""
    memo = IdentityMemo(size)
    _ALL.append(memo)
    return memo


def clear_all() -> None:
    for memo in _ALL:
        memo.clear()


class Same:
    """A key part that is equal only to the very same object, and keeps it alive (so its id is
    not reused while a memo holds the key): for large immutable values not worth hashing."""
    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.obj is self.obj
