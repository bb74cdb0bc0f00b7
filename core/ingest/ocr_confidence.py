"""Word confidences for OCR text. MuPDF's OCR writer keeps Tesseract's words and boxes but drops
its confidences, so the same cleaned page image is also given to the `tesseract` command (the
Debian package that supplies the language data) for its TSV, which has them; it runs beside
MuPDF's pass, on the other core. Without the command, words carry no confidence."""
from __future__ import annotations

import shutil
import subprocess
from typing import Sequence

from core.geometry import area, overlap_area
from core.model import BBox

TsvWord = tuple[BBox, float]  # box in pixels, confidence 0..1


def start_tsv(png: bytes, language: str, dpi: int, tessdata: str) -> subprocess.Popen | None:
    """Start `tesseract` on the page image; None when the command is not installed."""
    exe = shutil.which("tesseract")
    if exe is None:
        return None
    proc = subprocess.Popen([exe, "stdin", "stdout", "-l", language, "--dpi", str(dpi), "--tessdata-dir", tessdata,
                             "tsv"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        proc.stdin.write(png)
        proc.stdin.close()
    except OSError:
        proc.kill()
        return None
    return proc


def read_tsv(proc: subprocess.Popen | None, timeout: float) -> list[TsvWord]:
    if proc is None:
        return []
    try:
        out = proc.stdout.read()
        proc.wait(timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        return []
    words = []
    for row in out.decode("utf-8", "replace").splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue
        left, top, width, height, conf = (float(v) for v in cols[6:11])
        if conf >= 0:
            words.append(((left, top, left + width, top + height), conf / 100))
    return words


def word_confidences(boxes: Sequence[BBox], tsv: Sequence[TsvWord], zoom: float) -> list[float | None]:
    """For each word box (points), the confidence of the TSV word that overlaps it most."""
    scaled = [((b[0] / zoom, b[1] / zoom, b[2] / zoom, b[3] / zoom), conf) for b, conf in tsv]
    out: list[float | None] = []
    for box in boxes:
        best, best_share = None, 0.0
        for other, conf in scaled:
            share = overlap_area(box, other) / max(area(box), 1e-6)
            if share > best_share:
                best, best_share = conf, share
        out.append(round(best, 2) if best is not None and best_share >= 0.3 else None)
    return out
