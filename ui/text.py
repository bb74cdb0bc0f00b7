"""Showing document-supplied strings (file names, element text) safely.

Streamlit never renders HTML unless asked, but markdown still interprets `*`, `_`, `[..](..)`,
`:red[..]` and the like; anything that came from a document or an upload goes through `md_escape`
before it is put into markdown, or is shown with `st.text`/`st.code`, which do not interpret it.
"""
from __future__ import annotations

import re

from core.model import Element

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: str) -> str:
    """Backslash-escape every markdown/emoji-shortcode special character; newlines become spaces."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(text)).replace("\n", " ")


def shorten(text: str, limit: int = 80) -> str:
    """One line, at most `limit` characters, with an ellipsis when cut."""
    one_line = " ".join(str(text).split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def element_label(e: Element) -> str:
    """How an element is named in pickers and messages: reading position, category, its text."""
    return f"#{e.seq + 1} {e.category.value} · {shorten(e.text, 40) or '(no text)'}"
