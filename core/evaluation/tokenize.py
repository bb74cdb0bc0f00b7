"""Japanese tokenisation for lexical retrieval (BM25, TF-IDF).

Japanese has no spaces, so BM25 over whitespace "words" sees one token per sentence. SudachiPy
with sudachidict_core (the dictionary ships inside the wheel: nothing is downloaded) splits text
into morphemes; a character-bigram tokenizer is the fallback when Sudachi is unavailable, and a
useful baseline in its own right.

Every tokenizer first normalises with NFKC and lower-cases, so full-width ＳＱＬ, half-width ｶﾅ and
ASCII variants of the same word become the same token.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from core.errors import InspectorError

Tokenizer = Callable[[str], list[str]]

SUDACHI_MODES = ("A", "B", "C")  # A: shortest units, C: longest (named entities kept whole)
TOKENIZER_KINDS = ("sudachi", "bigram", "auto")

# Sudachi refuses inputs above ~49 KB of UTF-8; split well below that, at a sentence end.
_SUDACHI_PIECE_CHARS = 4000
# Part-of-speech heads that carry no topic: particles, auxiliaries, symbols, blanks.
_FUNCTION_POS = frozenset({"助詞", "助動詞", "補助記号", "空白", "記号"})
_WORD_RUN = re.compile(r"[0-9a-z]+(?:[._][0-9a-z]+)*|[^\s0-9a-z]", re.UNICODE)


class TokenizerUnavailable(InspectorError):
    """The requested tokenizer's package is not installed."""


@dataclass(frozen=True)
class TokenizerSpec:
    kind: str = "sudachi"  # sudachi | bigram | auto (sudachi when installed, else bigram)
    mode: str = "B"  # Sudachi split mode A/B/C; B balances recall of compounds and precision
    drop_function_words: bool = True  # drop particles/auxiliaries/punctuation (they only add noise to BM25)

    def __post_init__(self) -> None:
        if self.kind not in TOKENIZER_KINDS:
            raise ValueError(f"tokenizer kind must be one of {TOKENIZER_KINDS}, got {self.kind!r}")
        if self.mode not in SUDACHI_MODES:
            raise ValueError(f"Sudachi split mode must be one of {SUDACHI_MODES}, got {self.mode!r}")

    @property
    def label(self) -> str:
        return f"sudachi-{self.mode}" if self.kind == "sudachi" else self.kind


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


@lru_cache(maxsize=65536)
def _is_punctuation(token: str) -> bool:
    """Punctuation, symbols and separators (Unicode categories P*, S*, Z*), e.g. 。「」※ but not ー."""
    return all(unicodedata.category(ch)[0] in "PSZ" for ch in token)


def sudachi_available() -> bool:
    try:
        _sudachi_tokenizer()
    except TokenizerUnavailable:
        return False
    return True


@lru_cache(maxsize=1)
def _sudachi_dictionary():
    try:
        from sudachipy import Dictionary
    except ImportError as err:
        raise TokenizerUnavailable(
            "SudachiPy is not installed; `pip install sudachipy sudachidict_core`, "
            "or choose the 'bigram' tokenizer"
        ) from err
    try:
        return Dictionary(dict="core")
    except Exception as err:  # sudachidict_core missing shows up here, not at import
        raise TokenizerUnavailable(
            f"SudachiPy cannot load the core dictionary ({err}); `pip install sudachidict_core`, "
            "or choose the 'bigram' tokenizer"
        ) from err


@lru_cache(maxsize=3)
def _sudachi_tokenizer(mode: str = "B"):
    # Only the fields we read are materialised: about a quarter less work per morpheme.
    return _sudachi_dictionary().tokenizer(mode, fields={"pos", "normalized_form"})


@lru_cache(maxsize=1)
def _reading_tokenizer():
    return _sudachi_dictionary().tokenizer("B", fields={"pos", "reading_form"})


def surfaces(text: str, mode: str = "A") -> list[str]:
    """The words of `text` as SudachiPy cuts them (split mode A, B or C); [] without Sudachi."""
    if not sudachi_available():
        return []
    return [m.surface() for m in _sudachi_tokenizer(mode).tokenize(text)]


def noun_readings(text: str) -> list[tuple[str, str]]:
    """(surface, katakana reading) of each noun of `text` (split mode B); [] without Sudachi."""
    if not sudachi_available():
        return []
    return [(m.surface(), m.reading_form()) for m in _reading_tokenizer().tokenize(text)
            if m.part_of_speech()[0] == "名詞"]


@lru_cache(maxsize=1)
def _function_pos_ids() -> frozenset[int]:
    """Ids of every part of speech whose head is a particle, auxiliary, symbol or blank (a set
    lookup per morpheme is the cheapest filter: tokenising is most of BM25's indexing time)."""
    dictionary = _sudachi_dictionary()
    ids = set()
    pos_id = 0
    while True:
        try:
            pos = dictionary.pos_of(pos_id)
        except (IndexError, ValueError, OverflowError):
            break
        if pos is None:
            break
        if pos[0] in _FUNCTION_POS:
            ids.add(pos_id)
        pos_id += 1
    return frozenset(ids)


def _pieces(text: str, limit: int = _SUDACHI_PIECE_CHARS) -> list[str]:
    """Cut long text at line or sentence ends so each piece stays under Sudachi's input limit."""
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    while len(text) > limit:
        window = text[:limit]
        cut = max(window.rfind("\n"), window.rfind("。"), window.rfind("."))
        cut = cut + 1 if cut > limit // 2 else limit
        pieces.append(text[:cut])
        text = text[cut:]
    if text:
        pieces.append(text)
    return pieces


def sudachi_tokens(text: str, mode: str = "B", drop_function_words: bool = True) -> list[str]:
    tokenizer = _sudachi_tokenizer(mode)
    function_ids = _function_pos_ids() if drop_function_words else frozenset()
    out: list[str] = []
    for piece in _pieces(normalize(text)):
        for m in tokenizer.tokenize(piece):
            if m.part_of_speech_id() in function_ids:
                continue
            # normalized_form folds spelling variants (引き落とし/引落し) onto one dictionary form
            token = m.normalized_form().strip()
            if not token or (drop_function_words and len(token) == 1 and _is_punctuation(token)):
                continue
            out.append(token.lower())
    return out


def char_bigrams(text: str) -> list[str]:
    """Latin/digit runs stay whole words; every other run of non-space characters gives bigrams."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0])
        out.extend(a + b for a, b in zip(run, run[1:]))
        run.clear()

    for token in _WORD_RUN.findall(normalize(text)):
        if _is_punctuation(token):
            flush()
        elif len(token) == 1 and not token.isascii():
            run.append(token)
        else:
            flush()
            out.append(token)
    flush()
    return out


# What a question asks with (when, where, what, who, how, why, which, how many), as Sudachi's
# normalised forms: the answer never prints them, and a document that happens to (どこが改竄された
# のか) gets their high IDF for nothing.
INTERROGATIVES = frozenset({"いつ", "どこ", "何", "誰", "どう", "何故", "どの", "どのような", "どんな", "どれ",
                            "どちら", "いくら", "いくつ", "如何", "どれほど", "どれくらい"})


# The words a question asks with around its topic, as Sudachi's normalised forms: the frame of
# "…と示されているか", "…と書かれているか", "…とされているか" (示す, 書く, 述べる, 記す, 居る of ている), of
# "…できるもの" and "…てある" (出来る, 物, 有る), and the plain verbs a question puts for the document's
# formal ones (使う for 利用, 作る for 策定・作成). On the whole gold set (409 questions) they are 298
# question tokens of which 42 are in their evidence's quote (居る 184/27, 示す 12/1, 使う 19/1, 作る
# 11/0, 有る 24/8, 物 25/4, 出来る 12/1); 示す, 使う and 作る are in 4-7 of the 207 chunks, so a
# question asking "…と示されているか" lifted whichever chunks happen to print 示す. Left out like the
# interrogatives (default policy, window mode: all br@1000 0.919 -> 0.929, page hit@1 0.866 -> 0.870,
# stop 34). といった (言う), となる (成る) and について (つく) are kept: dropping them lost questions whose
# evidence prints the same phrase ("重要となる事項").
QUESTION_FRAME = frozenset({"居る", "示す", "書く", "述べる", "記す", "使う", "作る", "有る", "物", "出来る"})


# The nouns a question names the kind of element with (…の表で, 図では, 年表によると, 注でいう): they say
# where the answer is, which retrieval.asked_kinds reads off the question, not what it is; as a word
# they matched the running text that refers to a table or figure ("表に示す"). Left out with the
# frame words, except before a number: 表1 is a label, whose caption prints it (stop 35; default
# policy, window mode, whole gold set: page hit@1 0.876 -> 0.881, no question lost).
KIND_NOUNS = frozenset({"表", "図", "年表", "グラフ", "注", "脚注"})


def query_tokens(tokenize: Tokenizer, question: str, drop_interrogatives: bool = True) -> list[str]:
    """The question's tokens, without its interrogatives, frame words and kind nouns (not of a
    label) when asked: the words that describe the answer (a question of such words only keeps
    them, rather than ask for nothing)."""
    tokens = tokenize(question)
    if not drop_interrogatives:
        return tokens
    asking = INTERROGATIVES | QUESTION_FRAME
    kept = [t for i, t in enumerate(tokens)
            if t not in asking and not (t in KIND_NOUNS and not _labels_a_number(tokens, i))]
    return kept or tokens


def _labels_a_number(tokens: list[str], i: int) -> bool:
    return i + 1 < len(tokens) and tokens[i + 1][:1].isdigit()


def make_tokenizer(spec: TokenizerSpec | None = None) -> Tokenizer:
    """A function text -> tokens. 'auto' quietly falls back to bigrams when Sudachi is absent."""
    spec = spec or TokenizerSpec()
    kind = spec.kind
    if kind == "auto":
        kind = "sudachi" if sudachi_available() else "bigram"
    if kind == "bigram":
        return char_bigrams
    _sudachi_tokenizer(spec.mode)  # fail now, with the install hint, rather than on the first query
    mode, drop = spec.mode, spec.drop_function_words
    return lambda text: sudachi_tokens(text, mode, drop)
