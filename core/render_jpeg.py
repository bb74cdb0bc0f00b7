"""A page's JPEG encoded on two cores: the top and bottom halves are encoded at once and spliced
into ONE baseline JPEG that any decoder reads as the whole page.

Why: the encode was a quarter of a page view's cost (bench/render.py) and libjpeg-turbo (through
simplejpeg) releases the GIL, so the second core can take half of it.

How the splice stays one valid image with the same pixels as a whole encode:
- the top half ends on an MCU row (16 px with 4:2:0 chroma, 8 px with 4:4:4), so every 8×8 block
  and every 2×2 chroma average is made from the same pixels as in a whole encode;
- both halves are encoded with the same quality, subsampling and libjpeg's standard Huffman
  tables, so their headers are equal but for the height (checked; any other difference and the
  page is encoded whole);
- a DRI segment sets the restart interval to the top half's MCU count, and an RST0 marker starts
  the bottom half: a restart resets the DC predictors, as the bottom half's own encode did. The
  bottom half is never longer than the top, so it is the last interval and needs no marker.
"""
from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

QUALITY = 90
MCU_PX = {"420": 16, "444": 8}
SPLIT_MIN_PIXELS = 250_000  # below this (a thumbnail) handing half to a thread costs more than it saves
MAX_RESTART_INTERVAL = 0xFFFF  # DRI holds 16 bits

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def encode(rgb: Any, subsampling: str = "420", *, split: bool | None = None) -> bytes:
    """JPEG (quality 90) of an H×W×3 uint8 array; `split` None: on two cores when it pays."""
    height, width = rgb.shape[:2]
    top = split_row(height, subsampling)
    if split is None:
        split = height * width >= SPLIT_MIN_PIXELS and spare_core()
    mcus = math.ceil(width / MCU_PX[subsampling]) * (top // MCU_PX[subsampling])
    if not split or top >= height or mcus > MAX_RESTART_INTERVAL:
        return _encode(rgb, subsampling)
    bottom = _worker_pool().submit(_encode, rgb[top:], subsampling)
    first = _encode(rgb[:top], subsampling)
    return splice(first, bottom.result(), height, mcus) or _encode(rgb, subsampling)


def spare_core() -> bool:
    """A second core is likely free: two cores or more, and a load average below cores - 1. On a
    machine already busy the second thread only waits for a core, and the split costs more than it
    saves (bench/render.py, "1-core view", at load 10-15 on 2 cores)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this platform: trust the core count
        load = 0.0
    return cores >= 2 and load <= cores - 1


def split_row(height: int, subsampling: str = "420") -> int:
    """The first row of the bottom half: half way down, rounded up to a whole MCU row."""
    mcu = MCU_PX[subsampling]
    return math.ceil(height / 2 / mcu) * mcu


def _encode(rgb: Any, subsampling: str) -> bytes:
    import simplejpeg

    return simplejpeg.encode_jpeg(rgb, quality=QUALITY, colorspace="RGB", colorsubsampling=subsampling)


def _worker_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="rli-jpeg")
        return _pool


def submit(call, *args, **kwargs):
    """Run `call` on the encoder's threads (for work that overlaps an encode, e.g. the overlay JSON)."""
    return _worker_pool().submit(call, *args, **kwargs)


def _header(data: bytes) -> tuple[int, int] | None:
    """(offset of the SOF0 segment, offset where the entropy-coded scan starts), or None when this
    is not a single-scan baseline JPEG this module knows how to splice."""
    if data[:2] != b"\xff\xd8" or data[-2:] != b"\xff\xd9":
        return None
    offset, sof = 2, None
    while offset + 4 <= len(data) and data[offset] == 0xFF:
        marker, length = data[offset + 1], int.from_bytes(data[offset + 2:offset + 4], "big")
        if marker in (0xC1, 0xC2, 0xC3, 0xDD):  # other frame types, or a restart interval already set
            return None
        if marker == 0xC0:
            sof = offset
        if marker == 0xDA:
            return (sof, offset + 2 + length) if sof is not None else None
        offset += 2 + length
    return None


def splice(first: bytes, second: bytes, height: int, restart_interval: int) -> bytes | None:
    """One JPEG of `height` rows from the encodes of its top and bottom halves (see the module
    docstring); None when their headers differ in anything but the height."""
    a, b = _header(first), _header(second)
    if a is None or b is None or a[0] != b[0] or a[1] != b[1]:
        return None
    sof, scan = a
    height_at = sof + 5  # FF C0, length (2), precision (1), then the height (2)
    if first[:height_at] + first[height_at + 2:scan] != second[:height_at] + second[height_at + 2:scan]:
        return None
    sos = _sos_offset(first, sof)
    dri = b"\xff\xdd\x00\x04" + restart_interval.to_bytes(2, "big")
    head = first[:height_at] + height.to_bytes(2, "big") + first[height_at + 2:sos] + dri + first[sos:scan]
    return head + first[scan:-2] + b"\xff\xd0" + second[scan:-2] + b"\xff\xd9"


def _sos_offset(data: bytes, offset: int) -> int:
    while data[offset + 1] != 0xDA:
        offset += 2 + int.from_bytes(data[offset + 2:offset + 4], "big")
    return offset
