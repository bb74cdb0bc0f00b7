"""Tesseract's TSV for a page image: each word's box, confidence, text and line, from the
`tesseract` command (the Debian package that supplies the language data). core.ingest.ocr reads
its words from here; without the command it falls back to PyMuPDF's OCR, and words carry no
confidence."""
from __future__ import annotations

import shutil
import subprocess

from core.model import BBox

TsvRow = tuple[BBox, float, str, tuple[int, int, int]]  # box in pixels, confidence, text, (block, paragraph, line)


def start_tsv(png: bytes, language: str, dpi: int, tessdata: str, psm: int | None = None) -> subprocess.Popen | None:
    """Start `tesseract` on the page image (`psm`: its page segmentation mode, its default when
    None); None when the command is not installed."""
    exe = shutil.which("tesseract")
    if exe is None:
        return None
    mode = ["--psm", str(psm)] if psm is not None else []
    proc = subprocess.Popen([exe, "stdin", "stdout", "-l", language, "--dpi", str(dpi), "--tessdata-dir", tessdata,
                             *mode, "tsv"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        proc.stdin.write(png)
        proc.stdin.close()
    except OSError:
        proc.kill()
        return None
    return proc


def read_tsv_rows(proc: subprocess.Popen | None, timeout: float) -> list[TsvRow] | None:
    """Tesseract's words with their boxes, confidences, text and line; None when it did not run or
    failed (an empty list is a page it read and found no words on: a blank scan)."""
    if proc is None:
        return None
    try:
        out = proc.stdout.read()
        proc.wait(timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        return None
    if proc.returncode != 0:
        return None
    words = []
    for row in out.decode("utf-8", "replace").splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue
        left, top, width, height, conf = (float(v) for v in cols[6:11])
        if conf >= 0:
            line = (int(cols[2]), int(cols[3]), int(cols[4]))
            words.append(((left, top, left + width, top + height), conf / 100, cols[11].strip(), line))
    return words
