"""A second look at ink Tesseract's page pass left unread.

Tesseract's page segmentation now and then drops a whole line as non-text: on the scanned
経費精算規程 the chapter heading "第1章　総則" and the "目次" heading, both large and coloured, came
back with no word at all. Ink that lies outside every word box, in the shape of a line of text,
is cut out and read again as one line (`--psm 7`); words it reads with confidence join the page's.
"""
from __future__ import annotations

import io
import os

import numpy as np
from scipy import ndimage

from core.ingest.ocr_confidence import TsvRow, read_tsv_rows, start_tsv
from core.ingest.scan_marks import INK

MAX_LOOKS = 6  # lines read again per page, the largest first: each costs a Tesseract start
MIN_HEIGHT, MAX_HEIGHT = 7.0, 40.0  # points: a line of text, not a speck or a figure
MIN_CONFIDENCE = 0.6  # a second look at a figure's ink reads garbage, with low confidence
LINE_KEY = 100_000  # the block number given to a second look's lines (the page pass numbers from 1)


def missed_lines(pixels: np.ndarray, rows: list[TsvRow], zoom: float) -> list[tuple[int, int, int, int]]:
    """Pixel boxes (x0, y0, x1, y1) of line-shaped ink outside every word box, largest first."""
    ink = pixels < INK
    pad = max(2, int(0.5 * zoom))
    for (x0, y0, x1, y1), *_ in rows:
        ink[max(0, int(y0) - pad): int(y1) + pad, max(0, int(x0) - pad): int(x1) + pad] = False
    ink = ndimage.binary_opening(ink, structure=np.ones((2, 2), bool))  # scan noise
    # the characters of a line join across their gaps (half an em), lines above and below do not
    joined = ndimage.binary_dilation(ink, structure=np.ones((max(1, int(zoom)), max(3, int(5 * zoom))), bool))
    labels, _ = ndimage.label(joined)
    found = []
    for index, sl in enumerate(ndimage.find_objects(labels), start=1):
        rows_sl, cols_sl = sl
        h, w = (rows_sl.stop - rows_sl.start) / zoom, (cols_sl.stop - cols_sl.start) / zoom
        share = ink[sl][labels[sl] == index].mean()
        box = (cols_sl.start, rows_sl.start, cols_sl.stop, rows_sl.stop)
        if MIN_HEIGHT <= h <= MAX_HEIGHT and w >= 1.5 * h and share >= 0.08 and not _beside_a_word(box, rows):
            found.append(box)
    found.sort(key=lambda b: (b[2] - b[0]) * (b[3] - b[1]), reverse=True)
    return found[:MAX_LOOKS]


def _beside_a_word(box: tuple[int, int, int, int], rows: list[TsvRow]) -> bool:
    """Ink next to a word on its line is part of that line (Tesseract's boxes for Japanese words
    start late, leaving a character's ink outside): read again, it would come back twice."""
    x0, y0, x1, y1 = box
    height = y1 - y0
    for (wx0, wy0, wx1, wy1), *_ in rows:
        overlap = min(y1, wy1) - max(y0, wy0)
        if overlap >= 0.5 * min(height, wy1 - wy0) and wx0 - height <= x1 and x0 <= wx1 + height:
            return True
    return False


def second_look_rows(pixels: np.ndarray, rows: list[TsvRow], zoom: float, language: str, dpi: int,
                     tessdata: str, timeout: float) -> list[TsvRow]:
    """The words of each missed line, read alone, in page pixels."""
    out: list[TsvRow] = []
    for n, box in enumerate(missed_lines(pixels, rows, zoom)):
        for word_box, conf, text, key in read_as_one_line(pixels, box, language, dpi, tessdata, timeout):
            if conf >= MIN_CONFIDENCE:
                out.append((word_box, conf, text, (LINE_KEY + n, *key[1:])))
    return out


def read_as_one_line(pixels: np.ndarray, box, language: str, dpi: int, tessdata: str,
                     timeout: float) -> list[TsvRow]:
    """The words Tesseract reads in `box` (page pixels) and a margin of half its height around it,
    read as one line (`--psm 7`), with their boxes in page pixels; none when the run fails."""
    from PIL import Image

    margin = int((box[3] - box[1]) * 0.5)
    x0, y0, x1, y1 = (int(v) for v in box)
    cx0, cy0 = max(0, x0 - margin), max(0, y0 - margin)
    crop = pixels[cy0: y1 + margin, cx0: x1 + margin]
    if crop.size == 0:
        return []
    buf = io.BytesIO()
    Image.fromarray(crop).save(buf, format="PNG")
    return [((bx0 + cx0, by0 + cy0, bx1 + cx0, by1 + cy0), conf, text, key) for (bx0, by0, bx1, by1), conf, text, key
            in read_tsv_rows(start_tsv(buf.getvalue(), language, dpi, tessdata, psm=7), timeout) or ()]


MAX_REREADS = 6  # doubtful words read again per page, the least sure first: each costs a Tesseract start
DOUBTFUL = 0.2  # a word the page pass is this unsure of is mostly a misread (梅田 read 板田 at 0.0)
LATIN = "eng"  # the jpn model reads Latin words badly ("taro.yamada@example.cOo.jD", "expenSses")
DOUBTFUL_LATIN = MIN_CONFIDENCE  # a Latin word the jpn pass is less sure of is read again in LATIN


def reread_doubtful(pixels: np.ndarray, rows: list[TsvRow], language: str, dpi: int, tessdata: str,
                    timeout: float) -> list[TsvRow]:
    """The rows, each of the least sure words read again alone (`--psm 7` on its box and a margin)
    and taken when that reading is sure and better: the page pass reads a character among its
    neighbours' ink and Tesseract's line model, read alone it is often read right. A Japanese
    word keeps its length; a Latin word the jpn model read is read again with LATIN's model."""
    out = list(rows)
    doubtful = _least_sure(rows, lambda row: row[1] < DOUBTFUL)
    for i in doubtful:
        again = _read_alone(pixels, rows[i], language, dpi, tessdata, timeout, _same_length)
        if again is not None:
            out[i] = again
    if LATIN not in language.split("+") and os.path.isfile(os.path.join(tessdata, f"{LATIN}.traineddata")):
        for i in _least_sure(out, lambda row: _is_latin(row[2]) and row[1] < DOUBTFUL_LATIN):
            again = _read_alone(pixels, out[i], LATIN, dpi, tessdata, timeout, _about_as_long)
            if again is not None:
                out[i] = again
    return out


def _least_sure(rows: list[TsvRow], doubt) -> list[int]:
    return sorted((i for i, row in enumerate(rows) if doubt(row)), key=lambda i: rows[i][1])[:MAX_REREADS]


def _is_latin(text: str) -> bool:
    return text.isascii() and sum(ch.isalpha() for ch in text) >= 2


def _same_length(old: str, new: str) -> bool:
    return len(new) == len(old)


def _about_as_long(old: str, new: str) -> bool:
    """Latin read again may lose a doubled letter ("expenSses" → "expenses"), no more."""
    return abs(len(new) - len(old)) <= max(2, len(old) // 4)


def _read_alone(pixels: np.ndarray, row: TsvRow, language: str, dpi: int, tessdata: str,
                timeout: float, fits) -> TsvRow | None:
    """The word read again alone, or None when that reading is not sure, not better or does not
    `fits(old text, new text)`."""
    (x0, y0, x1, y1), conf, text, key = row
    inside = [(c, t) for (bx0, by0, bx1, by1), c, t, _ in read_as_one_line(pixels, row[0], language, dpi, tessdata, timeout)
              if x0 <= (bx0 + bx1) / 2 <= x1 and y0 <= (by0 + by1) / 2 <= y1]
    if len(inside) != 1 and language == LATIN:
        return None  # one Latin word read as several is no surer reading of it
    if not inside:
        return None
    new_text, new_conf = "".join(t for _, t in inside), min(c for c, _ in inside)
    if not fits(text, new_text) or new_conf < MIN_CONFIDENCE or new_conf <= conf:
        return None
    return (x0, y0, x1, y1), new_conf, new_text, key
