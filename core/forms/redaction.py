"""Which form keys hold personal data, decided per field from the key text.

A field whose key matches a sensitive pattern is exported with its value replaced by `[REDACTED]`;
the key and the boxes stay so a citation can still be highlighted. The reviewer can redact or
unredact any single field on top of this (events `redact` / `unredact`, applied in core.forms.form_events).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

REDACTED = "[REDACTED]"

# Seed 001's list, the issue's additions, and English counterparts. Plain words are matched as
# case-insensitive substrings; English words also match inside longer keys ("Street address 1").
DEFAULT_SENSITIVE_PATTERNS: tuple[str, ...] = (
    # seed 001
    "氏名", "住所", "電話", "メール", "口座", "個人番号", "マイナンバー", "生年月日",
    r"\bname\b", r"\baddress", r"\bphone", r"e-?mail",
    # additions named by the issue
    "フリガナ", "ふりがな", "携帯", "勤務先", "口座番号", "免許証番号", "保険証", "住民票",
    r"furigana", r"mobile", r"\bcell(ular)?\b", r"employer", r"account (number|no)",
    r"driver'?s? licen[cs]e", r"licen[cs]e (number|no)", r"insurance card", r"resident (record|card)",
    # close relatives a form uses for the same data
    r"date of birth", r"\bbirth ?date\b", r"telephone", r"\bfax\b", "郵便番号", r"zip ?code",
    r"postal code", r"social security", r"\bssn\b", "署名", r"signature", "名前", "お名前",
    # US forms: the address lines, taxpayer numbers and birth date as IRS and CMS forms print them
    r"\bstreet\b", r"room or suite", r"\bapt\.?(?!\w)", r"apartment", r"p\.\s?o\.\s?box",
    r"city,? town", r"post office", r"\bzip\b", r"\bdob\b", r"\bi?tin\b", r"\bein\b",
    r"taxpayer identification", r"employer identification", r"identifying number",
)


@dataclass(frozen=True)
class RedactionRules:
    """Sensitive-key patterns (regular expressions, matched case-insensitively anywhere in the key)."""

    patterns: tuple[str, ...] = DEFAULT_SENSITIVE_PATTERNS

    def __post_init__(self) -> None:
        if isinstance(self.patterns, str):
            raise ValueError(f"patterns must be a list of strings, got the single string {self.patterns!r}")
        object.__setattr__(self, "patterns", tuple(self.patterns))
        for pattern in self.patterns:
            if not isinstance(pattern, str) or not pattern.strip():
                raise ValueError(f"a sensitive-key pattern must be a non-empty string, got {pattern!r}")
            try:
                re.compile(pattern)
            except re.error as err:
                raise ValueError(f"sensitive-key pattern {pattern!r} is not a valid regular expression: {err}") from None
        combined = "|".join(f"(?:{p})" for p in self.patterns) or r"(?!x)x"
        object.__setattr__(self, "_regex", re.compile(combined, re.IGNORECASE))

    def is_sensitive(self, *texts: str | None) -> bool:
        """True when any of the texts (key, tooltip, field name) matches a pattern."""
        return any(text and self._regex.search(text) for text in texts)  # type: ignore[attr-defined]

    def with_extra(self, patterns: Iterable[str]) -> "RedactionRules":
        return RedactionRules(self.patterns + tuple(patterns))


DEFAULT_RULES = RedactionRules()


def rules_from_policy(policy: object) -> RedactionRules:
    """The policy's own list when it has one (`sensitive_key_patterns`), else the defaults."""
    patterns = getattr(policy, "sensitive_key_patterns", None)
    if patterns is None:
        return DEFAULT_RULES
    return RedactionRules(tuple(patterns))


def redact_value(value: str) -> str:
    """What an export shows instead of a sensitive value; empty stays empty (it reveals nothing)."""
    return REDACTED if value else ""
