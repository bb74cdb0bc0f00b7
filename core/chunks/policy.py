"""The category policy table (seed 000) as data, loadable from TOML so a team can keep its own.

Per category one action:
- `chunk`              body text: flows into the section's chunks, split only at sentence ends
- `atomic_chunk`       its own chunk(s), never split inside (tables split only between rows,
                       repeating the header row)
- `attach_to_neighbor` glued to a neighbour of a category in `attach_targets` (caption → picture/
                       table, footnote → the block that references it); never its own chunk
- `metadata_only`      kept out of chunk text, listed in the metadata of the chunks of its page
- `exclude`            dropped (decorative)

`chunk` is the one action seed 000 leaves implicit (its default for body text); naming it lets a
team move e.g. captions into the flow. Title and section headers open sections whatever their
action; their action only decides whether the heading's words appear in chunk text.

A TOML file is merged over the defaults, so it names only what it changes:

    name = "team-a"
    max_chars = 600
    [categories.page_footer]
    action = "metadata_only"
    params = { attach_unique = false }

Every mistake raises `PolicyError` naming the entry (`categories.foo.action = 'merge'`).
"""
from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any, Mapping

from core.categories import Category
from core.errors import PolicyError


class Action(str, Enum):
    CHUNK = "chunk"
    ATOMIC_CHUNK = "atomic_chunk"
    ATTACH_TO_NEIGHBOR = "attach_to_neighbor"
    METADATA_ONLY = "metadata_only"
    EXCLUDE = "exclude"

    def __str__(self) -> str:
        return self.value


C = Category

# Known per-category parameters: name -> (type, default, what it does). Unknown names are refused,
# so a typo in a team's TOML fails loudly instead of silently doing nothing.
PARAMS: dict[Category, dict[str, tuple[type, Any, str]]] = {
    C.PAGE_HEADER: {
        "repeat_min_pages": (int, 3, "same text (digits normalised) on at least this many pages = furniture"),
        "attach_unique": (bool, True, "page-specific header text (not repeated, not a page number or "
                                      "copyright line) joins the nearest body block's text"),
    },
    C.PAGE_FOOTER: {
        "repeat_min_pages": (int, 3, "same text (digits normalised) on at least this many pages = furniture"),
        "attach_unique": (bool, True, "page-specific footer text joins the nearest body block's text"),
    },
    C.LIST_ITEM: {
        "group": (bool, True, "consecutive items under one section form one procedure, kept together"),
    },
    C.TABLE: {
        "repeat_header": (bool, True, "a table split over several chunks repeats its header row in each"),
    },
    C.PICTURE: {
        "nearby_chars": (int, 200, "characters of the text before/after a picture kept as `nearby_text` "
                                   "metadata"),
        "figure_gap": (int, 72, "pictures of one page within this many points of each other (0 = touching), "
                                "read one after another, are one figure: one chunk with the labels read "
                                "between them inside their box, up to max_chars (-1 = only adjacent pictures)"),
    },
    C.FORMULA: {
        "context_before": (bool, True, "keep the sentence before the formula as `context_before` metadata"),
    },
    C.CODE: {
        "context_before": (bool, True, "keep the sentence before the code as `context_before` metadata"),
    },
}


@dataclass(frozen=True)
class CategoryPolicy:
    action: Action
    attach_targets: tuple[Category, ...] = ()
    params: tuple[tuple[str, Any], ...] = ()

    def param(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action.value, "attach_targets": [c.value for c in self.attach_targets],
                "params": dict(self.params)}


@dataclass(frozen=True)
class Policy:
    name: str
    categories: tuple[tuple[Category, CategoryPolicy], ...]
    mode: str = "layout"  # layout = category policy + evidence; naive = seed 002's page-text splitter
    max_chars: int = 800  # a flow chunk's size limit; one sentence longer than this stays whole
    combine_under_chars: int = 0  # a section shorter than this joins the next one (0 = never)
    sentence_ends: str = "。．！？!?"  # split points; a newline is the last-resort split point
    section_path_prefix: bool = False  # start continuation chunks with "A > B" of their section
    form_query_phrasings: bool = True  # forms: add "X を選択" / "X が空欄"-style phrasings to text
    context_prefix: str = "off"  # off | heading | path | section: chunks start with heading / path / path below the title
    context_prefix_chars: int = 60  # the prefix is cut to this many characters
    join_under_chars: int = 0  # a chunk shorter than this, or of headings only, joins the next one (0 = never)
    footnote_sentence: bool = False  # a footnote's chunk also holds the body sentence with its mark
    # a chunk that would open on a sentence pointing back (このことは, その結果, これら...) starts one
    # sentence earlier, with the sentence it points to: "このことはXと呼ばれ" and the description of X
    referent_sentence: bool = False
    orphan_headings: str = "drop"  # drop | keep | chunk: a heading whose section closed with no body text
    naive_chunk_size: int = 2048  # naive mode: seed 002's RecursiveCharacterTextSplitter size
    naive_overlap: int = 300  # naive mode: its overlap
    sensitive_key_patterns: tuple[str, ...] | None = None  # forms: redacted keys (None = core.forms.redaction's list)
    description: str = ""
    fingerprint: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        missing = [c.value for c in Category if c not in dict(self.categories)]
        if missing:
            raise PolicyError(f"policy {self.name!r} has no entry for categories: {', '.join(missing)}")
        object.__setattr__(self, "fingerprint", _fingerprint(self))

    def of(self, category: Category) -> CategoryPolicy:
        return dict(self.categories)[category]

    def action(self, category: Category) -> Action:
        return self.of(category).action

    def param(self, category: Category, name: str) -> Any:
        known = PARAMS.get(category, {})
        return self.of(category).param(name, known[name][1] if name in known else None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "mode": self.mode, "max_chars": self.max_chars,
            "combine_under_chars": self.combine_under_chars, "sentence_ends": self.sentence_ends,
            "section_path_prefix": self.section_path_prefix,
            "form_query_phrasings": self.form_query_phrasings,
            "context_prefix": self.context_prefix, "context_prefix_chars": self.context_prefix_chars,
            "join_under_chars": self.join_under_chars, "footnote_sentence": self.footnote_sentence,
            "referent_sentence": self.referent_sentence,
            "orphan_headings": self.orphan_headings,
            "naive_chunk_size": self.naive_chunk_size, "naive_overlap": self.naive_overlap,
            "sensitive_key_patterns": None if self.sensitive_key_patterns is None else list(self.sensitive_key_patterns),
            "categories": {c.value: p.to_dict() for c, p in self.categories},
        }


def _fingerprint(policy: Policy) -> str:
    body = {k: v for k, v in policy.to_dict().items()}
    return hashlib.sha1(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _cp(action: Action, targets: tuple[Category, ...] = (), **params: Any) -> CategoryPolicy:
    return CategoryPolicy(action, targets, tuple(sorted(params.items())))


A = Action
ORPHAN_HEADINGS = ("drop", "keep", "chunk")  # what a heading whose section closed with no body text becomes
# Seed 000's table, plus the body categories it leaves implicit.
DEFAULT_CATEGORIES: dict[Category, CategoryPolicy] = {
    C.TITLE: _cp(A.CHUNK),
    C.SECTION_HEADER: _cp(A.CHUNK),
    C.TEXT: _cp(A.CHUNK),
    C.LIST_ITEM: _cp(A.CHUNK, group=True),
    C.TABLE: _cp(A.ATOMIC_CHUNK, repeat_header=True),
    C.PICTURE: _cp(A.ATOMIC_CHUNK, nearby_chars=200, figure_gap=72),
    C.CAPTION: _cp(A.ATTACH_TO_NEIGHBOR, (C.PICTURE, C.TABLE)),
    C.FOOTNOTE: _cp(A.ATTACH_TO_NEIGHBOR, (C.TEXT, C.LIST_ITEM, C.TABLE, C.FORM_FIELD, C.PICTURE)),
    C.PAGE_HEADER: _cp(A.METADATA_ONLY, repeat_min_pages=3, attach_unique=True),
    C.PAGE_FOOTER: _cp(A.METADATA_ONLY, repeat_min_pages=3, attach_unique=True),
    C.FORMULA: _cp(A.ATOMIC_CHUNK, context_before=True),
    C.CODE: _cp(A.ATOMIC_CHUNK, context_before=True),
    C.REFERENCE: _cp(A.METADATA_ONLY),
    C.DOCUMENT_INDEX: _cp(A.METADATA_ONLY),
    C.FORM_FIELD: _cp(A.ATOMIC_CHUNK),
    C.SELECTION_MARK: _cp(A.ATOMIC_CHUNK),
    C.DECORATIVE: _cp(A.EXCLUDE),
}

# The context knobs' defaults were chosen on the tuning half (odd ids, 57 questions) of
# sample_docs/gold_ja_realdata.jsonl with bench/retrieval_quality.py, BM25, layout engine: against
# max_chars 800 with no knobs (budget recall@500/@1000 0.684/0.842, page hit@1 0.825, MRR 0.857)
# these gave 0.719/0.860, 0.842, 0.848; max_chars 400 raised @1000 to 0.877 but dropped page
# hit@1 to 0.70. Differences of 0.02 are one question: the choice is a balance, not a proof.
# orphan_headings (same bench, window mode): drop 0.842/0.930, page hit@1 0.895, MRR 0.907; keep
# 0.860/0.947, 0.877, 0.907; chunk 0.877/0.965, 0.930, 0.940 (two list questions whose answer is a
# heading with no body under it, "② 多様な…社会" and "XI. 適切な…", were in no chunk at all).
# picture figure_gap (same bench, window mode): -1 (off) and 0/12/24 pt 0.930/0.983, page hit@1 0.983;
# 48 and 72 pt 0.947/1.000, 0.983 (rj-figure-11: a slide's figure drawn as four pictures 41-47 pt
# apart, its labels read as text between them). 72 (an inch), not 48: the case needs 47; distinct
# figures can sit as close (a wild UML file: 62 pt, a section title read between them, which the
# label test keeps out).
# Re-checked at issue 11 stop 27 on the grown tuning half (120: the first 57 plus the fresh rj2- set),
# window mode: these defaults 0.883/0.950 @500/@1000, page hit@1 0.933; max_chars 500 0.850/0.942,
# 0.892; 700 0.850/0.942, 0.908; context_prefix_chars 40 0.883/0.942, 0.925; 90 the same as 60.
DEFAULT = Policy(
    name="default",
    categories=tuple(DEFAULT_CATEGORIES.items()),
    max_chars=600,
    context_prefix="path",
    join_under_chars=100,
    footnote_sentence=True,
    referent_sentence=True,
    orphan_headings="chunk",
    description="seed 000's category policy: captions and footnotes attached, furniture as metadata; "
                "chunks carry their section path, tiny ones join the next, footnotes their marked sentence",
)
NAIVE = replace(DEFAULT, name="naive", mode="naive",
                description="seed 002's baseline: page texts joined, split at 。 (2048/300)")

BUILTIN = {"default": DEFAULT, "naive": NAIVE}

_TOP_LEVEL = {
    "name": str, "description": str, "extends": str, "mode": str, "max_chars": int,
    "combine_under_chars": int, "sentence_ends": str, "section_path_prefix": bool,
    "form_query_phrasings": bool, "naive_chunk_size": int, "naive_overlap": int, "categories": dict,
    "sensitive_key_patterns": list, "context_prefix": str, "context_prefix_chars": int,
    "join_under_chars": int, "footnote_sentence": bool, "orphan_headings": str, "referent_sentence": bool,
}


def load_policy(name_or_path: str | Path | Policy) -> Policy:
    """"default", "naive", or the path of a TOML file merged over the defaults."""
    if isinstance(name_or_path, Policy):
        return name_or_path
    key = str(name_or_path)
    if key in BUILTIN:
        return BUILTIN[key]
    path = Path(key)
    if not path.is_file():
        raise PolicyError(f"policy {key!r} is neither a built-in ({', '.join(BUILTIN)}) nor a TOML file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise PolicyError(f"policy file {path.name}: not UTF-8 text ({err})") from None
    return policy_from_toml(text, default_name=path.stem, where=path.name)


def policy_from_toml(text: str, default_name: str = "uploaded", where: str = "") -> Policy:
    """A policy from TOML text (an uploaded file), merged over the defaults like a file path."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise PolicyError(f"policy file {where or default_name}: not valid TOML ({err})") from None
    return policy_from_mapping(data, default_name=default_name)


def policy_from_mapping(data: Mapping[str, Any], default_name: str = "custom") -> Policy:
    """Validate a TOML-shaped mapping and merge it over its base (the default policy)."""
    for key, value in data.items():
        if key not in _TOP_LEVEL:
            raise PolicyError(f"unknown policy setting {key!r}; known: {', '.join(sorted(_TOP_LEVEL))}")
        _check_type(key, value, _TOP_LEVEL[key])
    base_name = data.get("extends", "default")
    if base_name not in BUILTIN:
        raise PolicyError(f"extends = {base_name!r}: can only extend {', '.join(BUILTIN)}")
    base = BUILTIN[base_name]
    categories = dict(base.categories)
    for cat_name, entry in data.get("categories", {}).items():
        category = _category(cat_name, f"categories.{cat_name}")
        categories[category] = _category_policy(category, entry, categories[category])
    settings = {k: v for k, v in data.items() if k not in ("categories", "extends")}
    settings.setdefault("name", default_name)
    if not str(settings["name"]).strip():
        raise PolicyError("name = '': a policy needs a non-empty name")
    if settings.get("mode", base.mode) not in ("layout", "naive"):
        raise PolicyError(f"mode = {settings['mode']!r}: expected 'layout' or 'naive'")
    for key in ("max_chars", "naive_chunk_size"):
        if key in settings and settings[key] < 1:
            raise PolicyError(f"{key} = {settings[key]!r}: must be a positive number of characters")
    if settings.get("context_prefix", "off") not in ("off", "heading", "path", "section"):
        raise PolicyError(f"context_prefix = {settings['context_prefix']!r}: expected 'off', 'heading', "
                          "'path' or 'section'")
    if settings.get("orphan_headings", "drop") not in ORPHAN_HEADINGS:
        raise PolicyError(f"orphan_headings = {settings['orphan_headings']!r}: expected 'drop', 'keep' or 'chunk'")
    for key in ("combine_under_chars", "naive_overlap", "join_under_chars", "context_prefix_chars"):
        if key in settings and settings[key] < 0:
            raise PolicyError(f"{key} = {settings[key]!r}: must be 0 or more")
    size = settings.get("naive_chunk_size", base.naive_chunk_size)
    if settings.get("naive_overlap", base.naive_overlap) >= size:
        raise PolicyError(f"naive_overlap = {settings.get('naive_overlap', base.naive_overlap)!r}: "
                          f"must be smaller than naive_chunk_size ({size})")
    if "sensitive_key_patterns" in settings:
        settings["sensitive_key_patterns"] = _patterns(settings["sensitive_key_patterns"])
    if "sentence_ends" in settings and not settings["sentence_ends"]:
        raise PolicyError("sentence_ends = '': give at least one sentence-end character")
    return replace(base, categories=tuple((c, categories[c]) for c in Category), **settings)


def _patterns(values: list) -> tuple[str, ...]:
    for i, pattern in enumerate(values):
        where = f"sensitive_key_patterns[{i}]"
        if not isinstance(pattern, str) or not pattern.strip():
            raise PolicyError(f"{where} = {pattern!r}: expected a non-empty regular expression")
        try:
            re.compile(pattern)
        except re.error as err:
            raise PolicyError(f"{where} = {pattern!r}: not a valid regular expression ({err})") from None
    return tuple(values)


_MAY_BE_OFF = {"figure_gap"}  # -1 = the rule is off


def _category_policy(category: Category, entry: Any, base: CategoryPolicy) -> CategoryPolicy:
    where = f"categories.{category.value}"
    if not isinstance(entry, Mapping):
        raise PolicyError(f"{where} must be a table like {{ action = \"atomic_chunk\" }}, got {entry!r}")
    for key in entry:
        if key not in ("action", "attach_targets", "params"):
            raise PolicyError(f"{where}.{key}: unknown key; expected action, attach_targets or params")
    action = base.action
    if "action" in entry:
        try:
            action = Action(entry["action"])
        except ValueError:
            raise PolicyError(f"{where}.action = {entry['action']!r}: unknown action; expected one of "
                              f"{', '.join(a.value for a in Action)}") from None
    targets = base.attach_targets
    if "attach_targets" in entry:
        _check_type(f"{where}.attach_targets", entry["attach_targets"], list)
        targets = tuple(_category(t, f"{where}.attach_targets") for t in entry["attach_targets"])
    if action is Action.ATTACH_TO_NEIGHBOR and not targets:
        raise PolicyError(f"{where}: action 'attach_to_neighbor' needs attach_targets (e.g. [\"text\"])")
    params = dict(base.params)
    if "params" in entry:
        _check_type(f"{where}.params", entry["params"], dict)
        known = PARAMS.get(category, {})
        for name, value in entry["params"].items():
            if name not in known:
                hint = f"known: {', '.join(known)}" if known else "this category takes no params"
                raise PolicyError(f"{where}.params.{name}: unknown parameter ({hint})")
            _check_type(f"{where}.params.{name}", value, known[name][0])
            lowest = -1 if name in _MAY_BE_OFF else 0
            if known[name][0] is int and value < lowest:
                raise PolicyError(f"{where}.params.{name} = {value!r}: must be {lowest} or more")
            params[name] = value
    return CategoryPolicy(action, targets, tuple(sorted(params.items())))


def _category(value: Any, where: str) -> Category:
    try:
        return Category(value)
    except ValueError:
        raise PolicyError(f"{where}: unknown category {value!r}; expected one of "
                          f"{', '.join(c.value for c in Category)}") from None


def _check_type(where: str, value: Any, expected: type) -> None:
    # bool is an int in Python; a TOML `true` where a number is wanted is still a mistake
    ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if not ok:
        raise PolicyError(f"{where} = {value!r}: expected {expected.__name__}")


def describe(policy: Policy) -> list[dict[str, Any]]:
    """The table a person reads: one row per category (used by the Chunks page)."""
    return [
        {"category": c.value, "action": p.action.value,
         "attach_targets": ", ".join(t.value for t in p.attach_targets),
         "params": ", ".join(f"{k}={v}" for k, v in p.params)}
        for c, p in policy.categories
    ]
