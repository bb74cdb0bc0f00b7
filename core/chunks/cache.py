"""The chunks stage's in-memory caches, and the counters that let tests and bench see their reuse.

    PAGE_EVIDENCE   one page's evidence by page object (core.memo), policy fingerprint and page
                    context: after a correction on page P only P's evidence is rebuilt
                    (core/chunks/chunking.py)
    CHUNK_SETS      a document's chunks or evidence by document version, log head and policy
                    fingerprint (core/chunks/pipeline.py)
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from core import memo


class LRU:
    def __init__(self, size: int):
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()
        self.misses = 0  # how many values had to be computed: lets tests and bench see reuse

    def get(self, key: Any, make) -> Any:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = make()
        with self._lock:
            self.misses += 1
            self._data[key] = value
            while len(self._data) > self._size:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.misses = 0


PAGE_EVIDENCE = memo.page_memo(20000)
CHUNK_SETS = LRU(64)


def clear_cache() -> None:
    from core.chunks import resume

    memo.clear_all()  # PAGE_EVIDENCE and the other page memos (forms, crops)
    resume.clear()
    CHUNK_SETS.clear()


def cache_stats() -> dict[str, int]:
    return {"page_evidence_built": PAGE_EVIDENCE.misses, "chunk_sets_built": CHUNK_SETS.misses}
