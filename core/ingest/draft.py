"""`Draft`: an element as the engines build it, before ids and reading order are settled."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.categories import Category
from core.ingest.lines import Line, block_ordered_groups, ordered_lines
from core.model import BBox
from core.text import join_labels, join_lines


@dataclass
class Draft:
    category: Category
    bbox: BBox
    lines: list[Line] = field(default_factory=list)
    source: str = "fast"
    text: str | None = None  # explicit text (widgets, tables); else joined from lines
    state: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    rules: tuple[str, ...] = ()  # ingest rules that shaped it (recorded on the element)

    def final_text(self) -> str:
        if self.text is not None:
            return self.text
        if self.category is Category.PICTURE:
            return join_labels([join_lines([ln.text for ln in block]) for block in block_ordered_groups(self.lines)])
        keep_wraps = self.category is not Category.TABLE
        return join_lines([ln.text for ln in ordered_lines(self.lines, keep_wraps)])
