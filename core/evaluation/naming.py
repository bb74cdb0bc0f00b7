"""The document a question names by its title ("概要資料で、…" of the deck titled "…（第1.0版）概要"),
so corpus-wide retrieval can favour it (RetrieverOptions.named_document_weight).

A title's head is the last word of each of its segments (split at spaces and brackets), as SudachiPy
(split mode A) cuts it: "AI事業者ガイドライン案（第1.0版）概要" gives 案, 版 and 概要. Only heads of two
Japanese characters or more count (案 and 版 say nothing), and a head two documents share names neither:
a 本編 and its 概要 both end in ガイドライン案. Latin heads are left out: "AI" heads one title of a corpus
whose every page says AI.

A document is also named by its file's name when that is romanised Japanese, as Japanese offices
name files ("…_honpen_siryo1.pdf", "…_hakusho_excerpt.pdf"): a noun of the question whose reading,
in Hepburn romaji, is a whole word of exactly one document's file name names that document ("本編の
注で" → ホンペン → honpen). The reading keeps its long vowels (情報 is jouhou, never the file's
"joho"). A noun printed in more than NAME_MAX_SHARE of the corpus's chunks is a topic, not a name,
and so is one joined to another by と ("本編と別添の位置づけ" asks about both, in the deck that
relates them).
"""
from __future__ import annotations

import re
from typing import Mapping, Sequence

from core.categories import Category
from core.model import Chunk

HEAD_MIN_CHARS = 2
NAME_MIN_LETTERS = 4  # a file-name word shorter than this ("ai", "h26", "jo") names nothing
NAME_MAX_SHARE = 0.1  # a noun in more of the chunks than this is what the corpus is about
TITLE_PAGES = 2  # a document's title is on its first pages; a later TITLE element is a part's heading
_JAPANESE_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+")
_SEGMENT_BREAK = re.compile(r"[\s「」『』（）()【】\[\]・:：]+")


def title_heads(chunks: Sequence[Chunk]) -> dict[str, frozenset[str]]:
    """Per document, the heads of its title (the first line of a chunk holding a TITLE element on its
    first pages) that no other document's title has."""
    heads: dict[str, set[str]] = {}
    for c in chunks:
        own = heads.setdefault(c.doc_id, set())
        if Category.TITLE in c.source_categories and c.start_page <= TITLE_PAGES and c.text.strip():
            own.update(_segment_heads(_title_line(c.text)))
    shared = {h for own in heads.values() for h in own if sum(h in other for other in heads.values()) > 1}
    return {d: frozenset(own - shared) for d, own in heads.items()}


def named_document(question: str, heads: Mapping[str, frozenset[str]],
                   file_words: Mapping[str, str] | None = None, texts: Sequence[str] = ()) -> str | None:
    """The one document whose title head the question writes, or whose file name a noun of it reads
    as (`file_words`: romaji word → document, from file_name_words; `texts`: the corpus's chunk
    texts, for NAME_MAX_SHARE), else None (none, or several)."""
    named = {d for d, own in heads.items() if any(h in question for h in own)}
    if file_words:
        named |= {file_words[r] for noun, r in _noun_romaji(question)
                  if r in file_words and not _a_topic(noun, texts) and f"{noun}と" not in question}
    return next(iter(named)) if len(named) == 1 else None


def file_name_words(chunks: Sequence[Chunk]) -> dict[str, str]:
    """Romaji word → the one document whose file name holds it (words of two documents name neither)."""
    owners: dict[str, set[str]] = {}
    for c in chunks:
        stem = c.source.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
        for word in re.split(r"[^a-z]+", stem):
            if len(word) >= NAME_MIN_LETTERS:
                owners.setdefault(word, set()).add(c.doc_id)
    return {w: next(iter(docs)) for w, docs in owners.items() if len(docs) == 1}


def _noun_romaji(question: str) -> list[tuple[str, str]]:
    from core.evaluation.tokenize import noun_readings

    return [(noun, romaji(reading)) for noun, reading in noun_readings(question)
            if len(noun) >= HEAD_MIN_CHARS and _JAPANESE_WORD.fullmatch(noun)]


def _a_topic(noun: str, texts: Sequence[str]) -> bool:
    return bool(texts) and sum(noun in t for t in texts) > NAME_MAX_SHARE * len(texts)


# Hepburn romaji of katakana, as file names write it: two-kana sounds first, ッ doubles the next
# consonant, ン is n, ー repeats nothing (file names drop it)
_DIGRAPHS = {
    "キャ": "kya", "キュ": "kyu", "キョ": "kyo", "シャ": "sha", "シュ": "shu", "ショ": "sho", "チャ": "cha",
    "チュ": "chu", "チョ": "cho", "ニャ": "nya", "ニュ": "nyu", "ニョ": "nyo", "ヒャ": "hya", "ヒュ": "hyu",
    "ヒョ": "hyo", "ミャ": "mya", "ミュ": "myu", "ミョ": "myo", "リャ": "rya", "リュ": "ryu", "リョ": "ryo",
    "ギャ": "gya", "ギュ": "gyu", "ギョ": "gyo", "ジャ": "ja", "ジュ": "ju", "ジョ": "jo", "ビャ": "bya",
    "ビュ": "byu", "ビョ": "byo", "ピャ": "pya", "ピュ": "pyu", "ピョ": "pyo", "ヂャ": "ja", "ヂュ": "ju", "ヂョ": "jo",
}
_KANA = dict(zip(
    "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲ"
    "ガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポァィゥェォ",
    "a i u e o ka ki ku ke ko sa shi su se so ta chi tsu te to na ni nu ne no ha hi fu he ho ma mi mu me mo "
    "ya yu yo ra ri ru re ro wa o ga gi gu ge go za ji zu ze zo da ji zu de do ba bi bu be bo pa pi pu pe po "
    "a i u e o".split()))


def romaji(katakana: str) -> str:
    """Hepburn romaji of a katakana reading ("ホンペン" → "honpen", "ケッサン" → "kessan"); a character
    it does not know (a Latin letter, a digit) is kept as it is, lower-cased."""
    out: list[str] = []
    double = False
    i = 0
    while i < len(katakana):
        pair, ch = katakana[i:i + 2], katakana[i]
        sound = _DIGRAPHS.get(pair)
        step = 2 if sound else 1
        sound = sound or {"ン": "n", "ー": "", "ッ": ""}.get(ch, _KANA.get(ch, ch.lower()))
        if ch == "ッ":
            double = True
        else:
            if double and sound:
                sound = ("t" if sound.startswith("ch") else sound[0]) + sound
            double = False
            out.append(sound)
        i += step
    return "".join(out)


def _title_line(text: str) -> str:
    # a chunk's text may open with its section path ("AI 事業者ガイドライン案 > 目次"): the title is the
    # first line after it
    lines = [line for line in text.strip().splitlines() if line.strip()]
    first = lines[0]
    return lines[1] if " > " in first and len(lines) > 1 else first


def _segment_heads(line: str) -> set[str]:
    from core.evaluation.tokenize import surfaces

    out = set()
    for segment in _SEGMENT_BREAK.split(line):
        if not segment:
            continue
        words = surfaces(segment, "A")
        head = words[-1] if words else ""
        if len(head) >= HEAD_MIN_CHARS and _JAPANESE_WORD.fullmatch(head):
            out.add(head)
    return out
