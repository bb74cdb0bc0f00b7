"""The long test document the 300-page budgets are measured on: the sample 経費精算規程 repeated."""
from __future__ import annotations

from pathlib import Path

import pymupdf

SAMPLE = Path(__file__).resolve().parents[1] / "sample_docs" / "keihi_seisan_kitei.pdf"


def long_pdf(path: Path, pages: int) -> None:
    """Write a PDF of `pages` pages made by repeating the sample regulation's pages in order."""
    src = pymupdf.open(SAMPLE)
    out = pymupdf.open()
    while out.page_count < pages:
        out.insert_pdf(src, to_page=min(src.page_count, pages - out.page_count) - 1)
    out.save(path)
