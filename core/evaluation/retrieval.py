"""Retrievers over chunk texts: BM25, TF-IDF on character n-grams, weighted reciprocal-rank
fusion, and an optional dense retriever from a local sentence-transformers folder.

Seed 003 measured every setting by how often the right context came back; these are the settings.
None of them needs a network: BM25 uses bm25s with our Japanese tokenizer, TF-IDF is a few
scipy.sparse lines, and the dense model is only ever loaded from a folder the user already has.

Scope: one index over the whole corpus, or one per document with each question routed to its
document (seed 003's "one retriever per company").
"""
from __future__ import annotations

import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence

import numpy as np
from scipy import sparse

from core.errors import InspectorError
from core.evaluation.naming import file_name_words, named_document, title_heads
from core.evaluation.tokenize import Tokenizer, TokenizerSpec, make_tokenizer, normalize, query_tokens
from core.model import Chunk
from core.text import squash

RETRIEVERS = ("bm25", "tfidf", "fusion", "dense")
SCOPES = ("corpus", "routed")
DENSE_MODEL_ENV = "RLI_DENSE_MODEL"  # where the CLI looks for a local sentence-transformers folder

Progress = Callable[[float, str], None]


class RetrieverUnavailable(InspectorError):
    """A retriever cannot be built here (its package or local model is missing)."""


@dataclass(frozen=True)
class RetrieverOptions:
    tokenizer: TokenizerSpec = field(default_factory=TokenizerSpec)  # for BM25
    bm25_k1: float = 1.5  # term-frequency saturation
    # length normalisation (1 = full); 0.75 let short title and slide chunks outrank the long
    # chunk holding the answer. 0.5-0.6 was a plateau on the tuning half of the Japanese gold set
    bm25_b: float = 0.6
    # weight of a second BM25 over adjacent word pairs (0 = plain BM25): a chunk that has the
    # question's words in the question's order ("サービス規約等の文書化") beats one that merely
    # has them; 0.75-2.0 was a plateau on the tuning half (57 questions). On the whole gold set (409;
    # default policy, window mode, stop 34) 0 / 0.25 / 0.5 / 1.0 / 1.5 gave br@1000 0.934 / 0.944 /
    # 0.949 / 0.939 / 0.922 and page hit@1 0.848 / 0.880 / 0.880 / 0.870 / 0.853: at 1.0 a chunk with
    # one of the question's word pairs outranked the one with more of its words, which the fresh
    # sets (paraphrased questions, few pairs in common) showed most (holdout4 br@1000 0.833 -> 0.867)
    bm25_phrase_weight: float = 0.5
    # total weight of a question token holding a digit ("別添の8", "表1", "2019年") against 1 for
    # any other: a number the question names picks its table row, list item or page, where the
    # words around it recur on every page of a 概要 and its 本編. Chosen on the tuning half
    bm25_number_weight: float = 2.0
    # a question asking when (いつ, 何年, 時期) multiplies the score of a chunk that writes a date
    # (2019年, 8月, 令和) by 1 + this: the answer is a date, and the page that explains the thing
    # without one (a 概要's overview of guidelines) outranked the timeline that dates it.
    # 0.5-2.0 gave the same figures on the tuning half (3 such questions; 0.25 changed nothing)
    bm25_date_weight: float = 0.5
    # a question naming a table or figure by its label (表1, 図3, Table 2) multiplies the score of a
    # chunk with a line that starts with that label (its caption) by 1 + this: the table itself,
    # not the page of running text that refers to it ("以降は「表1. ...」に記載されている").
    # 0.25-1.0 gave the same figures on the tuning half (2 such questions)
    bm25_label_weight: float = 0.5
    # leave the question's interrogatives (いつ, どこ, 何, どのような, ...) out of its tokens, in BM25
    # and in window mode's passage choice: they ask, the answer never prints them, and the rare
    # text that does ("どこが改竄されたのか") got their high IDF and ranked first. On the whole gold set
    # (default policy, window mode) page hit@1 0.873 -> 0.882; naive's and pymupdf4llm's page hit@1
    # rose on 3 of the 4 sets too (counts in the issue-11 notes of stop 29). The question's frame
    # words (…と示されているか: tokenize.QUESTION_FRAME) are left out with them (stop 34)
    drop_interrogatives: bool = True
    # a question asking what a term is (「X」とは, Xとは何を指すか, X をどう定義) multiplies the score of
    # a chunk that defines X (Xとは…, X：…, a glossary line "X •", …（X）) by 1 + this: the term is
    # said on many pages (7）アカウンタビリティ on every page of a part), its definition on one. On the
    # whole gold set (14 such questions; default policy, window mode) 0 -> 0.25/0.5/1.0/2.0 gave
    # br@1000 0.917 -> 0.926/0.926/0.930/0.930, page hit@1 0.882/0.882/0.886/0.886, no question lost
    # up to 1.0 (2.0 lost one first page); naive's and pymupdf4llm's figures rose too
    bm25_definition_weight: float = 1.0
    # a question saying which kind of element holds its answer (…の表で, 図では, 年表によると, 注でいう)
    # multiplies the score of a chunk holding an element of that kind (table; picture; footnote) by
    # 1 + this: the chunk of running text that refers to the table or shares the footnote's words
    # outranked the table or the note itself. Whole gold set (469; default policy, window mode, stop 35):
    # 0 / 0.25 / 0.5 / 1.0 gave br@1000 0.940 / 0.945 / 0.949 / 0.947, page hit@1 0.872 / 0.872 /
    # 0.876 / 0.872; at 0.5 six first pages won (holdout4-6), three lost (two a figure of another page)
    bm25_kind_weight: float = 0.5
    # a question naming one document by its title's head word (概要資料で, of the deck titled "…概要":
    # core.evaluation.naming) multiplies the scores of that document's chunks by 1 + this, corpus-wide
    # (any retriever): a 概要 restates its 本編 in the same words, and the 本編's page won
    named_document_weight: float = 1.0
    ngram_min: int = 2  # TF-IDF character n-gram sizes; bigrams+trigrams suit Japanese words
    ngram_max: int = 3
    fusion_weights: tuple[tuple[str, float], ...] = (("bm25", 0.5), ("tfidf", 0.5))  # retriever -> weight
    rrf_k: int = 60  # reciprocal-rank constant: score = w / (rrf_k + rank)
    depth: int = 100  # how deep each component list goes into the fusion and into MRR/budget
    dense_model_path: str | None = None  # a local folder; never a hub name, never downloaded

    def __post_init__(self) -> None:
        if not 1 <= self.ngram_min <= self.ngram_max:
            raise ValueError(f"need 1 <= ngram_min <= ngram_max, got {self.ngram_min}..{self.ngram_max}")
        for name, weight in self.fusion_weights:
            if name not in ("bm25", "tfidf", "dense"):
                raise ValueError(f"fusion component must be bm25, tfidf or dense, got {name!r}")
            if weight < 0:
                raise ValueError(f"fusion weight of {name} must be >= 0, got {weight}")
        if (self.bm25_k1 < 0 or not 0 <= self.bm25_b <= 1 or self.bm25_phrase_weight < 0
                or min(self.bm25_number_weight, self.bm25_date_weight, self.bm25_label_weight,
                       self.bm25_definition_weight, self.bm25_kind_weight, self.named_document_weight) < 0):
            raise ValueError(f"need bm25_k1 >= 0, 0 <= bm25_b <= 1 and bm25_phrase_weight, bm25_number_weight, "
                             f"bm25_date_weight, bm25_label_weight, bm25_definition_weight, bm25_kind_weight, "
                             f"named_document_weight >= 0, got "
                             f"{self.bm25_k1}, {self.bm25_b}, {self.bm25_phrase_weight}, {self.bm25_number_weight}, "
                             f"{self.bm25_date_weight}, {self.bm25_label_weight}, {self.bm25_definition_weight}, "
                             f"{self.bm25_kind_weight}, {self.named_document_weight}")
        if self.depth < 1 or self.rrf_k < 0:
            raise ValueError(f"depth must be >= 1 and rrf_k >= 0, got {self.depth}, {self.rrf_k}")


@dataclass(frozen=True)
class Ranked:
    index: int  # position in the indexed texts
    score: float


class TextIndex(Protocol):
    name: str

    def search(self, query: str, k: int) -> list[Ranked]: ...


def _top(scores: np.ndarray, k: int, positive_only: bool) -> list[Ranked]:
    """Highest scores first; ties broken by position so runs are reproducible."""
    if positive_only:
        candidates = np.flatnonzero(scores > 0)
    else:
        candidates = np.arange(len(scores))
    if len(candidates) == 0 or k <= 0:
        return []
    if len(candidates) > k:
        part = np.argpartition(-scores[candidates], k - 1)[:k]
        candidates = candidates[part]
    order = sorted(candidates.tolist(), key=lambda i: (-float(scores[i]), i))
    return [Ranked(i, float(scores[i])) for i in order[:k]]


class BM25Index:
    """bm25s over our tokens (bm25s' own tokenizer splits on spaces, useless for Japanese), plus
    `phrase_weight` times a BM25 over adjacent token pairs (a sequential-dependence term: word
    order counts, which plain BM25 ignores). With `drop_interrogatives` the question's いつ/どこ/何…
    and its frame words (…と示されているか) are left out of it (tokenize.INTERROGATIVES,
    QUESTION_FRAME). A question token holding a digit weighs `number_weight` (1 = like any other);
    a question asking when lifts the texts that write a date by the factor 1 + `date_weight`, one
    naming a table or figure by its label lifts the texts captioned with it by 1 + `label_weight`,
    one asking what a term means lifts the texts that define it by 1 + `definition_weight`, and one
    saying which kind of element holds its answer (表, 図, 注) lifts the texts holding one by
    1 + `kind_weight` (`kinds`: each text's element categories; none known, no lift)."""

    name = "bm25"

    def __init__(self, texts: Sequence[str], tokenizer: Tokenizer, k1: float = 1.5, b: float = 0.6,
                 phrase_weight: float = 1.0, number_weight: float = 1.0, date_weight: float = 0.0,
                 label_weight: float = 0.0, drop_interrogatives: bool = False, definition_weight: float = 0.0,
                 kind_weight: float = 0.0, kinds: Sequence[frozenset[str]] | None = None):
        import bm25s

        self._tokenize = tokenizer
        self._drop_interrogatives = drop_interrogatives
        self._size = len(texts)
        self._phrase_weight = phrase_weight
        self._number_weight = number_weight
        # like the captions below, read off the texts only when its weight is set
        self._date_lift = (1.0 + date_weight * np.array([writes_a_date(t) for t in texts], dtype=float)
                           if date_weight else None)
        self._label_weight = label_weight
        self._captions = [caption_labels(t) for t in texts] if label_weight else []
        self._definition_weight = definition_weight
        self._folded = [folded(t) for t in texts] if definition_weight else []
        self._kind_weight = kind_weight
        self._kinds = list(kinds) if kinds is not None and kind_weight else []
        self._bm25 = bm25s.BM25(k1=k1, b=b)
        self._pairs = bm25s.BM25(k1=k1, b=b) if phrase_weight > 0 else None
        if texts:
            tokens = [tokenizer(t) for t in texts]
            self._bm25.index(tokens, show_progress=False)
            if self._pairs is not None:
                # a text of one word has no pair; a placeholder keeps bm25s' rows aligned with ours
                self._pairs.index([word_pairs(t) or [_NO_PAIR] for t in tokens], show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        if not self._size:
            return np.zeros(0)
        tokens = query_tokens(self._tokenize, query, self._drop_interrogatives)
        if not tokens:
            return np.zeros(self._size)
        scores = np.asarray(self._bm25.get_scores(tokens), dtype=float)
        numbers = [t for t in tokens if _HAS_DIGIT.search(t)]
        if numbers and self._number_weight != 1.0:
            scores = scores + (self._number_weight - 1.0) * np.asarray(self._bm25.get_scores(numbers), dtype=float)
        pairs = word_pairs(tokens)
        if self._pairs is not None and pairs:
            scores = scores + self._phrase_weight * np.asarray(self._pairs.get_scores(pairs), dtype=float)
        if self._date_lift is not None and asks_when(query):
            scores = scores * self._date_lift
        term = asked_term(query) if self._definition_weight else None
        if term:
            defined = np.array([defines(t, term) for t in self._folded], dtype=float)
            scores = scores * (1.0 + self._definition_weight * defined)
        named = named_labels(query) if self._label_weight else set()
        if named:
            captioned = np.array([bool(named & own) for own in self._captions], dtype=float)
            scores = scores * (1.0 + self._label_weight * captioned)
        asked = asked_kinds(query) if self._kinds else set()
        if asked:
            holding = np.array([bool(asked & own) for own in self._kinds], dtype=float)
            scores = scores * (1.0 + self._kind_weight * holding)
        return scores

    def search(self, query: str, k: int) -> list[Ranked]:
        return _top(self.scores(query), k, positive_only=True)


_WHEN = re.compile(r"いつ|何年|何月|何日|時期")
_DATE = re.compile(r"\d{4}\s*年|\d{1,2}\s*月|令和|平成|昭和")


def asks_when(question: str) -> bool:
    return bool(_WHEN.search(question))


def writes_a_date(text: str) -> bool:
    return bool(_DATE.search(normalize(text)))


# The term a question asks the meaning of: quoted and followed by とは, or by a word asking for its
# definition; else the run of katakana, kanji and Latin letters right before とは.
# A quoted term that is the question's topic counts too when the question asks how it is defined
# ("「X」は、何を…として定義されているか").
_QUOTED_TERM = re.compile(r"「([^「」]{2,30})」(?:とは|をどう定義|の定義|の意味|とはどういう|には誰|は[^。？?]*定義)")
_BARE_TERM = re.compile(r"([\u30a0-\u30ff\u4e00-\u9fffa-z0-9ー・]{2,30})とは")
_ASKS_MEANING = re.compile(r"とは|定義|意味|でいう")


def folded(text: str) -> str:
    """NFKC, lower case, no whitespace: for matching phrases whose spacing varies (CJK)."""
    return squash(text).lower()


def asked_term(question: str) -> str | None:
    """The term whose definition the question asks for ("自動化バイアスとは何を指すか" -> 自動化バイアス)."""
    q = folded(question)
    if not _ASKS_MEANING.search(q):
        return None
    found = _QUOTED_TERM.search(q) or _BARE_TERM.search(q)
    return found.group(1) if found else None


def defines(folded_text: str, term: str) -> bool:
    """The text defines the term: "Xとは…", "X:…" / "X：…", a glossary line "X•", or "…（X）" / "「X」という"
    after a description (texts `folded`)."""
    t = re.escape(term)
    return bool(re.search(rf"「?{t}」?(?:とは|[:：•])|[（(]{t}[）)]|「{t}」という", folded_text))


# "…の表で", "図では", "年表によると", "注でいう": the question names the kind of element its answer is
# in, as a noun followed by a particle; 公表, 代表, 意図, 注意, 発注 and the like are other words
_ASKS_KIND = {
    "table": re.compile(r"(?<![公発代年辞])表(?=で|では|には|に|によると|の中|中|から|の)|一覧表"),
    "picture": re.compile(r"(?<![意企指合])図(?=で|では|には|に|によると|の中|中|から|の)|年表|グラフ|チャート"),
    "footnote": re.compile(r"脚注|注釈|(?<![発受外])注(?=で|では|には|に|によると|記|から|の)"),
}


def asked_kinds(question: str) -> set[str]:
    """The element categories the question says its answer is in ("…の表で" -> {"table"})."""
    q = folded(question)
    return {kind for kind, cue in _ASKS_KIND.items() if cue.search(q)}


_LABEL = r"(表|図|table|figure|fig\.)\s*(\d+)(?![\d.]*\d)"
_NAMED_LABEL = re.compile(_LABEL)
_CAPTION_LABEL = re.compile(r"(?m)^\s*" + _LABEL)  # a line that opens with the label: a caption


def named_labels(question: str) -> set[tuple[str, str]]:
    """('表', '1') for every table or figure label the question names."""
    return {_label_key(k, n) for k, n in _NAMED_LABEL.findall(normalize(question))}


def caption_labels(text: str) -> set[tuple[str, str]]:
    """The labels that open a line of the text (a caption, not a mention inside a sentence)."""
    return {_label_key(k, n) for k, n in _CAPTION_LABEL.findall(normalize(text))}


def _label_key(kind: str, number: str) -> tuple[str, str]:
    return ("表" if kind == "table" else "図" if kind in ("figure", "fig.") else kind, number)


_HAS_DIGIT = re.compile(r"[0-9]")  # tokens are NFKC-normalised: full-width digits are ASCII here
_NO_PAIR = "\x00"  # never a pair: every pair holds the separator \x1f


def word_pairs(tokens: Sequence[str]) -> list[str]:
    """Adjacent tokens joined, e.g. [サービス, 規約, 文書] -> [サービス\x1f規約, 規約\x1f文書]."""
    return [f"{a}\x1f{b}" for a, b in zip(tokens, tokens[1:])]


def char_ngrams(text: str, n_min: int = 2, n_max: int = 3) -> list[str]:
    s = folded(text)
    return [s[i:i + n] for n in range(n_min, n_max + 1) for i in range(len(s) - n + 1)]


class TfidfIndex:
    """TF-IDF over character n-grams, cosine similarity; needs no tokenizer at all."""

    name = "tfidf"

    def __init__(self, texts: Sequence[str], n_min: int = 2, n_max: int = 3):
        self._n = (n_min, n_max)
        self._vocab: dict[str, int] = {}
        rows, cols, vals = [], [], []
        for row, text in enumerate(texts):
            for gram, tf in Counter(char_ngrams(text, n_min, n_max)).items():
                col = self._vocab.setdefault(gram, len(self._vocab))
                rows.append(row)
                cols.append(col)
                vals.append(1.0 + math.log(tf))  # sublinear tf: a repeated gram is not 10x as telling
        shape = (len(texts), len(self._vocab))
        counts = sparse.csr_matrix((vals, (rows, cols)), shape=shape, dtype=np.float64)
        df = np.bincount(np.asarray(cols, dtype=np.int64), minlength=len(self._vocab))
        self._idf = np.log((1 + len(texts)) / (1 + df)) + 1.0
        weighted = counts.multiply(self._idf[np.newaxis, :]).tocsr() if len(texts) else counts
        self._matrix = _l2_rows(weighted)

    def _query_vector(self, query: str) -> np.ndarray:
        vec = np.zeros(len(self._vocab))
        for gram, tf in Counter(char_ngrams(query, *self._n)).items():
            col = self._vocab.get(gram)
            if col is not None:
                vec[col] = (1.0 + math.log(tf)) * self._idf[col]
        norm = np.linalg.norm(vec)
        return vec / norm if norm else vec

    def scores(self, query: str) -> np.ndarray:
        if self._matrix.shape[0] == 0:
            return np.zeros(0)
        return np.asarray(self._matrix @ self._query_vector(query)).ravel()

    def search(self, query: str, k: int) -> list[Ranked]:
        return _top(self.scores(query), k, positive_only=True)


def _l2_rows(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.diags(1.0 / norms) @ matrix


class DenseIndex:
    """Sentence embeddings from a model folder the user already has. Optional by design."""

    name = "dense"

    def __init__(self, texts: Sequence[str], model_path: str | None):
        self._model = load_dense_model(model_path)
        self._size = len(texts)
        self._emb = (self._model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False)
                     if texts else np.zeros((0, 1)))

    def scores(self, query: str) -> np.ndarray:
        if not self._size:
            return np.zeros(0)
        q = self._model.encode([query], normalize_embeddings=True, show_progress_bar=False)[0]
        return np.asarray(self._emb @ q, dtype=float)

    def search(self, query: str, k: int) -> list[Ranked]:
        return _top(self.scores(query), k, positive_only=False)


def load_dense_model(model_path: str | None):
    if not model_path:
        raise RetrieverUnavailable(
            "the dense retriever needs a sentence-transformers model folder on this machine; give its "
            f"path (set {DENSE_MODEL_ENV}=DIR for the CLI). Nothing is downloaded. The other retrievers "
            "(bm25, tfidf, fusion) need no model."
        )
    path = Path(model_path).expanduser()
    if not path.is_dir():
        raise RetrieverUnavailable(
            f"dense model folder {str(path)!r} does not exist; give the folder of a sentence-transformers "
            "model saved on this machine (models are never downloaded)"
        )
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise RetrieverUnavailable(
            "the dense retriever needs the sentence-transformers package, which is not installed "
            "(`pip install sentence-transformers`); bm25, tfidf and fusion work without it"
        ) from err
    # HF_HUB_OFFLINE makes sure a folder missing files fails here instead of fetching them.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        return SentenceTransformer(str(path), device="cpu")
    except Exception as err:
        raise RetrieverUnavailable(f"cannot load a sentence-transformers model from {str(path)!r}: {err}") from err


class FusionIndex:
    """Weighted reciprocal-rank fusion: each component votes w / (rrf_k + rank) for its top `depth`."""

    name = "fusion"

    def __init__(self, components: Sequence[tuple[TextIndex, float]], rrf_k: int = 60, depth: int = 100):
        if not components:
            raise ValueError("fusion needs at least one component retriever")
        self._components = tuple(components)
        self._rrf_k = rrf_k
        self._depth = depth

    def fused_scores(self, query: str, k: int) -> dict[int, float]:
        depth = max(k, self._depth)
        votes: dict[int, float] = {}
        for index, weight in self._components:
            for rank, hit in enumerate(index.search(query, depth), start=1):
                votes[hit.index] = votes.get(hit.index, 0.0) + weight / (self._rrf_k + rank)
        return votes

    def search(self, query: str, k: int) -> list[Ranked]:
        votes = self.fused_scores(query, k)
        order = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return [Ranked(i, s) for i, s in order if s > 0]


def build_index(kind: str, texts: Sequence[str], options: RetrieverOptions | None = None,
                kinds: Sequence[frozenset[str]] | None = None) -> TextIndex:
    """`kinds`: each text's element categories (ChunkSearch gives its chunks'), for bm25_kind_weight."""
    options = options or RetrieverOptions()
    if kind == "bm25":
        return BM25Index(texts, make_tokenizer(options.tokenizer), options.bm25_k1, options.bm25_b,
                         options.bm25_phrase_weight, options.bm25_number_weight, options.bm25_date_weight,
                         options.bm25_label_weight, options.drop_interrogatives, options.bm25_definition_weight,
                         options.bm25_kind_weight, kinds)
    if kind == "tfidf":
        return TfidfIndex(texts, options.ngram_min, options.ngram_max)
    if kind == "dense":
        return DenseIndex(texts, options.dense_model_path)
    if kind == "fusion":
        parts = [(build_index(name, texts, options, kinds), w) for name, w in options.fusion_weights if w > 0]
        return FusionIndex(parts, options.rrf_k, options.depth)
    raise ValueError(f"retriever must be one of {RETRIEVERS}, got {kind!r}")


@dataclass(frozen=True)
class RetrievedChunk:
    chunk: Chunk
    score: float
    rank: int  # 1-based


class ChunkSearch:
    """A retriever over chunks, scoped corpus-wide or routed per document."""

    def __init__(self, chunks: Sequence[Chunk], kind: str, scope: str = "corpus",
                 options: RetrieverOptions | None = None, progress: Progress | None = None):
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
        if kind not in RETRIEVERS:
            raise ValueError(f"retriever must be one of {RETRIEVERS}, got {kind!r}")
        self.kind, self.scope = kind, scope
        self.options = options or RetrieverOptions()
        self._groups: dict[str | None, tuple[tuple[Chunk, ...], TextIndex]] = {}
        groups: Mapping[str | None, list[Chunk]]
        if scope == "corpus":
            groups = {None: list(chunks)}
        else:
            groups = {}
            for c in chunks:
                groups.setdefault(c.doc_id, []).append(c)  # type: ignore[union-attr]
        for i, (key, members) in enumerate(groups.items()):
            if progress:
                progress(i / max(len(groups), 1), f"indexing {len(members)} chunks with {kind}")
            kinds = [frozenset(c.value for c in m.source_categories) for m in members]
            self._groups[key] = (tuple(members), build_index(kind, [m.text for m in members], self.options, kinds))
        if progress:
            progress(1.0, f"indexed {len(chunks)} chunks with {kind}")
        naming = scope == "corpus" and self.options.named_document_weight > 0
        self._heads = title_heads(chunks) if naming else {}
        self._file_words = file_name_words(chunks) if naming else {}
        self._texts = tuple(c.text for c in chunks) if self._file_words else ()

    def search(self, query: str, k: int, doc_id: str | None = None) -> list[RetrievedChunk]:
        if self.scope == "corpus":
            key = None
        elif doc_id is None:
            raise ValueError("routed retrieval needs the document the question is about")
        else:
            key = doc_id
        if key not in self._groups:
            return []  # a routed question about a document with no chunks retrieves nothing
        members, index = self._groups[key]
        hits = [(members[h.index], h.score) for h in index.search(query, k)]
        named = named_document(query, self._heads, self._file_words, self._texts) if self._heads else None
        if named is not None:
            boost = 1 + self.options.named_document_weight
            hits = sorted(((c, score * boost if c.doc_id == named else score) for c, score in hits),
                          key=lambda cs: -cs[1])  # stable: equal scores keep the index's order
        return [RetrievedChunk(c, score, r) for r, (c, score) in enumerate(hits, start=1)]
