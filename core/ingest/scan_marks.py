"""Rulings and check boxes of a scanned page, found in its pixels.

A born-digital form draws its cell borders, underlines and check boxes as vectors (or sets ☑/☐
glyphs); on a scan they are ink. This finds long thin horizontal and vertical strokes (rulings)
and small square outlines or rings (check boxes and radio buttons, filled when ink sits inside
them) on the binarised page, so core.ingest.ocr can write them back as invisible vector paths
that the forms geometry and the selection-mark rules read like a born-digital page's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from core.model import BBox

INK = 190  # grey level below which a pixel is ink (after the median filter); form rulings are often grey
MIN_H_RULE = 24.0  # points: shorter horizontal strokes are parts of glyphs
MIN_V_RULE = 12.0
ERASE_RULE = 40.0  # points: rules at least this long are erased before OCR (a heading's strokes are shorter)
BOX_MIN, BOX_MAX = 6.5, 16.0  # points: the side of a check box
FILLED_SHARE = 0.12  # ink share of a box's inner half above which it is ticked
SQUARE_TOLERANCE = 0.12  # a box's sides differ by less (skew included); the kanji 口 is about 1.2 times taller than wide


@dataclass(frozen=True)
class ScanMarks:
    hsegs: tuple[tuple[float, float, float], ...] = ()  # y, x0, x1 (points)
    vsegs: tuple[tuple[float, float, float], ...] = ()  # x, y0, y1
    boxes: tuple[tuple[BBox, bool], ...] = ()  # check-box outline, ticked
    leaders: tuple[tuple[BBox, int], ...] = ()  # a row of leader dots (a table of contents'): box, dots
    blots: tuple[BBox, ...] = ()  # solid ink shapes (a logo, an icon): pictures, not text


def find_marks(gray: np.ndarray, zoom: float) -> tuple[ScanMarks, np.ndarray]:
    """(the marks, the pixels they cover) of `gray`, the page in grey levels (rows × columns) at
    `zoom` pixels per point. Tesseract reads better with those pixels erased: a box beside its
    label is read as 口 or 人 and pulls the label into garbage, a cell border splits lines."""
    ink = gray < INK
    h_mask = ndimage.binary_opening(ink, structure=np.ones((1, max(3, int(MIN_H_RULE * zoom))), bool))
    v_mask = ndimage.binary_opening(ink, structure=np.ones((max(3, int(MIN_V_RULE * zoom)), 1), bool))
    covered = np.zeros_like(ink)
    hsegs = tuple(_strokes(h_mask, zoom, covered, horizontal=True))
    vsegs = tuple(_strokes(v_mask, zoom, covered, horizontal=False))
    # a box's sides are shorter than a rule, so the openings leave them; long rules are taken out
    # so a box drawn on a cell border still stands alone
    boxes = tuple(_boxes(ink & ~h_mask & ~v_mask, zoom))
    leaders = tuple(_leaders(ink, zoom))
    blots = tuple(b for b in _blots(ink, zoom) if not any(_overlaps(b, box) for box, _ in boxes))
    covered = ndimage.binary_dilation(covered, iterations=1)
    for (x0, y0, x1, y1) in [box for box, _ in boxes] + [box for box, _ in leaders] + list(blots):
        covered[max(0, int(y0 * zoom) - 1): int(y1 * zoom) + 2, max(0, int(x0 * zoom) - 1): int(x1 * zoom) + 2] = True
    return ScanMarks(hsegs, vsegs, boxes, leaders, blots), covered


# points: the sides of a solid shape taken for a logo or an icon. A noisy 200 dpi scan smears
# kanji: a 16 pt 費 left a solid patch of 11.5 × 13.3 pt (share 0.62), a 20 pt line 13.7 × 6.8
BLOT_MIN, BLOT_MAX = 12.0, 72.0
BLOT_ASPECT = 1.5  # longest side over shortest: logos are about square, a tall capital (25 × 12) is no logo
BLOT_CORE = 3.0  # points: ink this thick either way is no stroke of text (a bold kanji's is under 1.5)
# the share of its box that is solid: logos 0.69 and 0.76 (the 経費精算規程's, a wild file's); heavy
# condensed capitals ("ACCESS", 25 pt, a wild file) 0.33-0.63; a dense kanji blurred by a scan, specks
BLOT_SOLID = 0.65


def _blots(ink: np.ndarray, zoom: float):
    """Solid shapes of ink: a logo or an icon. Tesseract reads one as a kanji or two (a page
    header's logo came back as 了区, 問, 隊), so it is erased before OCR and put back on the page as
    the picture it is. What survives an opening by a BLOT_CORE square is solid; solid parts within
    a point or two of each other are one shape (a white line may cut a logo in two), and the shape
    must be mostly solid. A long dark band is left alone: it may be a table header with white text."""
    core = max(3, int(BLOT_CORE * zoom))
    solid = ndimage.binary_opening(ink, structure=np.ones((core, core), bool))
    if not solid.any():
        return
    grouped = ndimage.binary_dilation(solid, iterations=max(1, int(1.5 * zoom)))
    labels, _ = ndimage.label(grouped)
    for index, sl in enumerate(ndimage.find_objects(labels), start=1):
        part = solid[sl] & (labels[sl] == index)
        ys, xs = np.nonzero(part)
        y0, y1, x0, x1 = sl[0].start + ys.min(), sl[0].start + ys.max() + 1, sl[1].start + xs.min(), sl[1].start + xs.max() + 1
        h, w = (y1 - y0) / zoom, (x1 - x0) / zoom
        solid_share = part.sum() / max((y1 - y0) * (x1 - x0), 1)
        if (BLOT_MIN <= min(w, h) and max(w, h) <= BLOT_MAX and max(w, h) <= BLOT_ASPECT * min(w, h)
                and solid_share >= BLOT_SOLID):
            yield (round(float(x0) / zoom, 1), round(float(y0) / zoom, 1), round(float(x1) / zoom, 1), round(float(y1) / zoom, 1))


def _overlaps(a: BBox, b: BBox) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


LEADER_DOT = 2.5  # points: the most a leader dot measures either way
LEADER_GAP = 5.0  # points: the most from one dot's left edge to the next's
LEADER_MIN_DOTS = 8  # fewer dots in a row are punctuation (……, ・・・), not a leader


def _leaders(ink: np.ndarray, zoom: float):
    """Rows of evenly spaced small dots: a table of contents' leaders. Tesseract reads them as
    Latin garbage that swallows the entry's words, so they are erased before OCR and written back
    as the dots they are. A skewed scan tilts a row, so each dot follows on from the one before
    (within a point up or down) rather than all sharing one height."""
    labels, _ = ndimage.label(ink)
    dots = []
    for sl in ndimage.find_objects(labels):
        rows, cols = sl
        w, h = (cols.stop - cols.start) / zoom, (rows.stop - rows.start) / zoom
        if w <= LEADER_DOT and h <= LEADER_DOT and max(w, h) >= 0.4:
            dots.append((cols.start / zoom, rows.start / zoom, cols.stop / zoom, rows.stop / zoom))
    dots.sort()
    used = [False] * len(dots)
    for i in range(len(dots)):
        if used[i]:
            continue
        chain, last = [i], dots[i]
        for j in range(i + 1, len(dots)):
            if dots[j][0] - last[0] > LEADER_GAP:
                break  # sorted by x: every later dot is farther still
            if not used[j] and abs((dots[j][1] + dots[j][3]) - (last[1] + last[3])) / 2 <= 1.0 and dots[j][0] > last[0]:
                chain.append(j)
                last = dots[j]
        if len(chain) >= LEADER_MIN_DOTS:
            for j in chain:
                used[j] = True
            members = [dots[j] for j in chain]
            yield ((round(min(d[0] for d in members), 1), round(min(d[1] for d in members), 1),
                    round(max(d[2] for d in members), 1), round(max(d[3] for d in members), 1)), len(chain))


def _strokes(mask: np.ndarray, zoom: float, covered: np.ndarray, *, horizontal: bool):
    """The rules in `mask`, marking their pixels in `covered`."""
    labels, _ = ndimage.label(mask)
    for index, sl in enumerate(ndimage.find_objects(labels), start=1):
        rows, cols = sl
        y0, y1, x0, x1 = rows.start / zoom, rows.stop / zoom, cols.start / zoom, cols.stop / zoom
        length, across = (x1 - x0, y1 - y0) if horizontal else (y1 - y0, x1 - x0)
        # a skewed scan tilts a long rule: allow 1 % of its length across, plus its thickness
        if across > 3.0 + 0.01 * length:
            continue
        if length >= ERASE_RULE:
            covered[sl] |= labels[sl] == index
        if horizontal:
            yield (round((y0 + y1) / 2, 1), round(x0, 1), round(x1, 1))
        else:
            yield (round((x0 + x1) / 2, 1), round(y0, 1), round(y1, 1))


def _boxes(ink: np.ndarray, zoom: float):
    labels, _ = ndimage.label(ink)
    for index, sl in enumerate(ndimage.find_objects(labels), start=1):
        rows, cols = sl
        h, w = (rows.stop - rows.start) / zoom, (cols.stop - cols.start) / zoom
        if not (BOX_MIN <= w <= BOX_MAX and BOX_MIN <= h <= BOX_MAX and abs(w - h) <= SQUARE_TOLERANCE * max(w, h)):
            continue
        piece = labels[sl] == index
        if _outline_share(piece) < 0.75 or _crossed(piece):
            continue
        bbox = (round(cols.start / zoom, 1), round(rows.start / zoom, 1),
                round(cols.stop / zoom, 1), round(rows.stop / zoom, 1))
        inner = _inner_ink(ink[sl])
        yield (bbox, inner >= FILLED_SHARE)


def _outline_share(piece: np.ndarray) -> float:
    """How much of the component's bounding frame (a square) is ink, or 1.0 for a ring."""
    rows, cols = piece.shape
    band = max(1, min(rows, cols) // 8)
    frame = np.zeros_like(piece)
    frame[:band, :] = frame[-band:, :] = frame[:, :band] = frame[:, -band:] = True
    square = (piece & frame).sum() / frame.sum()
    return max(square, 1.0 if _is_ring(piece, band) else 0.0)


RING_SECTORS = 48


def _is_ring(piece: np.ndarray, band: int) -> bool:
    """A radio button's ring: ink all the way round near the rim (in 46 of 48 sectors) and none
    inside it, the dot of a chosen one being a component of its own. "の" or "回" have strokes
    inside, so they are no rings; an "O" or "〇" in large text can pass (a stray mark, the text
    stays)."""
    rows, cols = piece.shape
    yy, xx = np.mgrid[0:rows, 0:cols]
    cy, cx, r = (rows - 1) / 2, (cols - 1) / 2, min(rows, cols) / 2
    dist = np.hypot(yy - cy, xx - cx)
    rim = piece & (dist >= r - 2 * band) & (dist <= r + 1)
    sectors = ((np.arctan2(yy - cy, xx - cx) + np.pi) / (2 * np.pi) * RING_SECTORS).astype(int) % RING_SECTORS
    covered = len(np.unique(sectors[rim]))
    inside = dist < r - 2.5 * band
    return covered >= RING_SECTORS - 2 and (piece & inside).sum() <= 0.03 * max(inside.sum(), 1)


def _crossed(piece: np.ndarray) -> bool:
    """A bar from side to side inside the frame: a kanji (日, 田, 目, 四), not a tick in a box."""
    rows, cols = piece.shape
    inner_rows = piece[rows // 5: rows - rows // 5, :]
    inner_cols = piece[:, cols // 5: cols - cols // 5]
    return bool((inner_rows.mean(axis=1) >= 0.9).any() or (inner_cols.mean(axis=0) >= 0.9).any())


def _inner_ink(ink: np.ndarray) -> float:
    rows, cols = ink.shape
    inner = ink[rows // 4: rows - rows // 4, cols // 4: cols - cols // 4]
    return float(inner.mean()) if inner.size else 0.0
