"""Vertical writing (tategaki) on a scanned page: when the page calls for Tesseract's vertical model.

Tesseract's page segmentation finds columns of vertical text whatever the language, but its
horizontal `jpn` model reads them as garbage (the scanned 『春と修羅』序: 0.01 character accuracy,
mean confidence 0.26). With `jpn_vert` loaded beside it, Tesseract picks the model per line and
reads the same columns at 0.97. Loading both on every page would cost about 1.7 times the CPU of
a horizontal page for nothing, so the page pass runs with the configured language, and only a page
whose pass found lines in the shape of columns is read again with the `_vert` models added; the
better of the two readings is kept.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from core.ingest.ocr_confidence import TsvRow

COLUMN_ASPECT = 1.5  # a line this many times taller than wide runs downwards
MIN_COLUMN_CHARS = 2  # one character's box is as tall as wide either way: no evidence of direction
MIN_VERTICAL_CHARS = 10  # fewer characters in columns than this is a stray box, not vertical writing
MIN_VERTICAL_SHARE = 0.05  # of the page's characters


LineKey = tuple[int, int, int]


def line_boxes(rows: Sequence[TsvRow]) -> dict[LineKey, tuple[list[float], int]]:
    """Each Tesseract line's box (the union of its words') and its number of characters."""
    lines: dict[LineKey, tuple[list[float], int]] = {}
    for box, _conf, text, key in rows:
        bb, n = lines.get(key, (list(box), 0))
        bb[:] = [min(bb[0], box[0]), min(bb[1], box[1]), max(bb[2], box[2]), max(bb[3], box[3])]
        lines[key] = (bb, n + len(text))
    return lines


def _is_column(bb: list[float], chars: int) -> bool:
    return chars >= MIN_COLUMN_CHARS and (bb[3] - bb[1]) >= COLUMN_ASPECT * (bb[2] - bb[0])


def column_lines(rows: Sequence[TsvRow]) -> set[LineKey]:
    """The lines that run downwards: at least two characters in a box much taller than wide."""
    return {key for key, (bb, n) in line_boxes(rows).items() if _is_column(bb, n)}


def calls_for_vertical(rows: Sequence[TsvRow]) -> bool:
    """The page pass found enough text in columns to be worth reading with the vertical models."""
    lines = line_boxes(rows).values()
    in_columns = sum(n for bb, n in lines if _is_column(bb, n))
    total = sum(n for _, n in lines)
    return in_columns >= MIN_VERTICAL_CHARS and in_columns >= MIN_VERTICAL_SHARE * total


def vertical_language(language: str, tessdata: str) -> str | None:
    """`language` with the `_vert` model of each of its languages that has one in `tessdata`
    ("jpn" → "jpn+jpn_vert"); None when none is installed or all are already asked for."""
    asked = [lang for lang in language.split("+") if lang]
    added = [f"{lang}_vert" for lang in asked if not lang.endswith("_vert") and f"{lang}_vert" not in asked
             and (Path(tessdata) / f"{lang}_vert.traineddata").is_file()]
    return "+".join(asked + added) if added else None


# Tesseract ships a vertical model for these languages only (Debian: tesseract-ocr-<lang>-vert).
VERTICAL_MODELS = ("jpn", "chi_sim", "chi_tra", "kor")


def vertical_install_hint(language: str) -> str:
    """What to install to read the vertical writing of a page OCR'd in `language` ("jpn+eng" →
    tesseract-ocr-jpn-vert): the hint names the packages of the languages asked for, not always
    Japanese's."""
    packages = [f"tesseract-ocr-{lang.replace('_', '-')}-vert" for lang in language.split("+")
                if lang in VERTICAL_MODELS]
    if not packages:
        return "vertical writing found: Tesseract has no vertical model for " + language
    return f"vertical writing found: install {' and '.join(packages)} to read it"


def reading_score(rows: Sequence[TsvRow]) -> float:
    """Characters read, each weighted by Tesseract's confidence: a garbage reading of columns has
    as many characters as the right one, at a third of the confidence."""
    return sum(conf * len(text) for _box, conf, text, _key in rows)
