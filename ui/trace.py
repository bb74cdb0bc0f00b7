"""A trace of what the reviewer's clicks did, one line each on stderr, when RLI_TRACE_UI is set.

For a click that did not take: the browser tests set it, and a failed test's report ends with the
server's log, so the trace tells a click the server never saw from one it saw and refused. Only
kinds, keys, ids and counts are written, never a text the reviewer typed or a value of the page.
"""
from __future__ import annotations

import os
import sys
import time


def trace(event: str, **facts: object) -> None:
    if os.environ.get("RLI_TRACE_UI"):
        details = " ".join(f"{k}={v!r}" for k, v in facts.items())
        print(f"rli-trace {time.strftime('%H:%M:%S')} {event} {details}", file=sys.stderr, flush=True)
