"""Retrieval evaluation: how often does the right context come back (seed 003), per policy and
retriever, on one gold set.

Levels:
- element: a retrieved chunk is a hit when its `source_record_refs` include an evidence element;
- page: a retrieved chunk is a hit when its page range covers an evidence page.

Honest counts: a question whose evidence could not be anchored is a miss in every metric (its
unanchored evidence is a unit nothing can cover), never left out of an average; every summary row
says how many questions there were (`total`), how many anchored fully (`anchored`) and how many the
row averages over (`scored`: all of them, except that the element row leaves out questions whose
evidence is only a page).

Metrics per question, averaged over the questions that have evidence at that level:
- hit@k: some evidence unit is covered within the top k;
- recall@k: share of the question's evidence units covered within the top k;
- mrr: 1 / rank of the first covering chunk in the retrieved list (depth `RetrieverOptions.depth`);
- ndcg@k: binary relevance per chunk (it covers some evidence unit), ideal = every relevant chunk
  of the scope ranked first;
- budget_recall@N (the headline): share of the question's evidence found within the first N
  characters of the ranked chunks' texts joined by newlines. Other documents' chunks spend the
  budget too. "Found" = the evidence quote (else the element's text) lies wholly inside that prefix,
  compared after NFKC with whitespace removed, in one piece or in parts of MIN_PART_CHARS or more
  (evidence spread over chunks); or, as anchoring does for a quote whose lines the parser put in
  another order (a figure's labels, a table row read across cells), every line of the quote
  (anchoring.quote_lines) lies inside one retrieved passage of the prefix. An element with no text
  of its own (an empty form field, a check box, whose ☐/☑ glyph does not count) is found when a
  chunk citing it ends inside the prefix. Budget recall does not depend on the level; it is
  repeated on both rows so each row reads on its own.

hit@k alone rewards oversized chunks (a whole page always "hits"); the budget figure does not.
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from core.errors import BadInput
from core.evaluation.anchoring import quote_lines
from core.evaluation.baselines import PYMUPDF4LLM, pymupdf4llm_chunks
from core.evaluation.gold import ANCHORED, PAGE_ONLY, GoldItem, match_text
from core.evaluation.modes import DocumentRouter, PageExpansion, expand_pages
from core.evaluation.retrieval import RETRIEVERS, SCOPES, ChunkSearch, RetrievedChunk, RetrieverOptions
from core.evaluation.tokenize import make_tokenizer
from core.evaluation.windows import PassageScorer, PassageWindow, element_texts_of, window_ranking
from core.model import Chunk, Document

DEFAULT_KS = (1, 3, 5, 10)
DEFAULT_BUDGETS = (500, 1000, 2000, 4000)
LEVELS = ("element", "page")
BUDGET_JOINER = "\n"  # between chunks in the budget prefix; it costs one character like a real prompt's
# A check box's glyph is how it is drawn, not what it says: chunks state "X は 選択されている" instead.
SELECTION_GLYPHS = "☐☑☒□■✓✔◉○●◯"
# A quote split over chunks is found piecewise; shorter pieces would match anywhere by chance.
MIN_PART_CHARS = 8
UNANCHORED_CATEGORY = "unanchored"

Progress = Callable[[float, str], None]


# ---- evidence units ---------------------------------------------------------------------------
@dataclass(frozen=True)
class EvidenceUnit:
    doc_id: str
    record_id: str | None  # None: page-only evidence
    page: int | None
    category: str  # the element's category in the corrected Document ("page" for page-only evidence)
    text: str  # what must appear in the budget prefix: the quote, else the element's text
    anchored: bool = True  # False: the quote was not found in the document; a miss everywhere
    also: tuple[str, ...] = ()  # further elements holding parts of the quote: citing any of them covers it
    copy_elements: tuple[tuple[str, str], ...] = ()  # (doc_id, record_id) where the same quote is printed again
    copy_pages: tuple[tuple[str, int], ...] = ()  # (doc_id, page) of those copies

    @property
    def element_key(self) -> tuple[str, str] | None:
        return (self.doc_id, self.record_id) if self.record_id else None

    @property
    def page_key(self) -> tuple[str, int] | None:
        return (self.doc_id, self.page) if self.page else None


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    doc_id: str
    evidence: tuple[EvidenceUnit, ...]
    tags: tuple[str, ...] = ()
    skipped: int = 0  # unanchored evidence: scored as misses, and reported

    @property
    def anchored(self) -> bool:
        return bool(self.evidence) and all(u.anchored for u in self.evidence)


def question_from_item(item: GoldItem, doc: Document | None) -> Question:
    index = doc.element_index() if doc else {}
    units: list[EvidenceUnit] = []
    skipped = 0
    for ev in item.evidence:
        if ev.level == ANCHORED and ev.record_id in index:
            element = index[ev.record_id]
            also = tuple(a for a in ev.also if a in index)
            units.append(EvidenceUnit(item.doc_id, element.id, element.page, element.category.value,
                                      ev.quote or element.text, also=also, **copy_fields(ev)))
        elif ev.level == PAGE_ONLY or (ev.level == ANCHORED and ev.page):
            # an id the document no longer has still tells us the page
            units.append(EvidenceUnit(item.doc_id, None, ev.page, "page", ev.quote, **copy_fields(ev)))
        else:
            skipped += 1  # kept as a unit nothing covers: the question is not excused from the average
            units.append(EvidenceUnit(item.doc_id, None, None, UNANCHORED_CATEGORY, ev.quote, anchored=False))
    return Question(item.id, item.question, item.doc_id, tuple(units), item.tags, skipped)


def copy_fields(ev) -> dict[str, tuple]:
    """The places an anchored evidence's quote is printed again (gold.Copy), as scoring keys."""
    elements = tuple((c.doc_id, rid) for c in ev.copies if c.record_id for rid in (c.record_id, *c.also))
    return {"copy_elements": elements, "copy_pages": tuple((c.doc_id, c.page) for c in ev.copies)}


# ---- metric primitives (hand-checkable) ----------------------------------------------------------
def hit_at_k(relevant: Sequence[bool], k: int) -> float:
    return 1.0 if any(relevant[:k]) else 0.0


def recall_at_k(covered: Sequence[frozenset], n_units: int, k: int) -> float:
    if n_units == 0:
        return 0.0
    found: set = set()
    for units in covered[:k]:
        found |= units
    return len(found) / n_units


def reciprocal_rank(relevant: Sequence[bool]) -> float:
    for rank, rel in enumerate(relevant, start=1):
        if rel:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(relevant: Sequence[bool], k: int, n_relevant: int) -> float:
    """Binary nDCG; the ideal ranking puts all `n_relevant` relevant chunks first."""
    dcg = sum(1.0 / math.log2(rank + 1) for rank, rel in enumerate(relevant[:k], start=1) if rel)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, n_relevant) + 1))
    return dcg / ideal if ideal else 0.0


def budget_prefix(texts: Iterable[str], budget: int) -> tuple[str, list[int]]:
    """The first `budget` characters of the joined texts, and where each text ends in the join."""
    joined = ""
    ends: list[int] = []
    for text in texts:
        if joined:
            joined += BUDGET_JOINER
        joined += text
        ends.append(len(joined))
        if len(joined) >= budget:
            break
    return joined[:budget], ends


def found_in_prefix(prefix: str, text: str) -> bool:
    """The whole text inside the prefix, in one piece or in parts (evidence spread over chunks)."""
    needle = match_text(text)
    if not needle:
        return False
    haystack = match_text(prefix)
    return needle in haystack or covered_in_parts(haystack, needle)


def lines_in_one_passage(prefix: str, ends: Sequence[int], text: str) -> bool:
    """Every line of `text` (two or more of them) inside one passage of the budget prefix, in any
    order: the budget's side of anchoring's lines-in-element. One passage, not the whole prefix,
    because short lines ("検証", "3）") are inside almost any few hundred characters of a corpus."""
    lines = quote_lines(text, match_text)
    if len(lines) < 2:
        return False
    start = 0
    for end in ends:
        if start >= len(prefix):
            break
        passage = match_text(prefix[start:end])
        if all(line in passage for line in lines):
            return True
        start = end + len(BUDGET_JOINER)
    return False


def covered_in_parts(haystack: str, needle: str, min_part: int = MIN_PART_CHARS) -> bool:
    """`needle` is a concatenation of pieces (each >= min_part characters, or the whole needle)
    that each occur in `haystack`; greedy longest piece first, which is exact for this test
    because a shorter prefix of a found piece is found too."""
    rest = needle
    while rest:
        longest = _longest_found_prefix(haystack, rest)
        if longest < min(min_part, len(rest)):
            return False
        rest = rest[longest:]
    return True


def _longest_found_prefix(haystack: str, text: str) -> int:
    lo, hi = 0, len(text)
    while lo < hi:  # invariant: text[:lo] is in haystack
        mid = (lo + hi + 1) // 2
        if text[:mid] in haystack:
            lo = mid
        else:
            hi = mid - 1
    return lo


# ---- scoring one question ---------------------------------------------------------------------
@dataclass(frozen=True)
class LevelScore:
    hit: Mapping[int, float]
    recall: Mapping[int, float]
    rr: float
    ndcg: Mapping[int, float]
    first_rank: int | None


@dataclass(frozen=True)
class EvidenceOutcome:
    unit: EvidenceUnit
    element_rank: int | None  # first rank of a chunk citing the element
    page_rank: int | None  # first rank of a chunk whose pages cover the evidence page
    budget_found: Mapping[int, bool]

    def to_dict(self, budgets: Sequence[int]) -> dict[str, Any]:
        return {"record_id": self.unit.record_id, "page": self.unit.page, "category": self.unit.category,
                "quote": self.unit.text[:80], "element_rank": self.element_rank, "page_rank": self.page_rank,
                **{f"budget_found@{n}": self.budget_found.get(n, False) for n in budgets}}


@dataclass(frozen=True)
class QuestionResult:
    question: Question
    policy: str
    retriever: str
    retrieved: tuple[RetrievedChunk, ...]
    levels: Mapping[str, LevelScore]  # only levels the question has evidence for
    budget: Mapping[int, float]  # share of budget-scorable evidence found; empty when none is
    evidence: tuple[EvidenceOutcome, ...]

    def to_dict(self, ks: Sequence[int], budgets: Sequence[int], top: int) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.question.id, "question": self.question.question, "doc_id": self.question.doc_id,
            "policy": self.policy, "retriever": self.retriever, "skipped_evidence": self.question.skipped,
        }
        for level in LEVELS:
            score = self.levels.get(level)
            out[level] = None if score is None else {
                **{f"hit@{k}": score.hit[k] for k in ks}, **{f"recall@{k}": score.recall[k] for k in ks},
                "mrr": score.rr, **{f"ndcg@{k}": score.ndcg[k] for k in ks}, "first_rank": score.first_rank,
            }
        out.update({f"budget_recall@{n}": self.budget.get(n) for n in budgets})
        out["evidence"] = [e.to_dict(budgets) for e in self.evidence]
        out["retrieved"] = [
            {"rank": r.rank, "id": r.chunk.id, "doc_id": r.chunk.doc_id, "start_page": r.chunk.start_page,
             "end_page": r.chunk.end_page, "chars": len(r.chunk.text), "score": round(r.score, 6)}
            for r in self.retrieved[:top]
        ]
        return out


def _element_keys(chunk: Chunk) -> frozenset:
    return frozenset((chunk.doc_id, r.record_id) for r in chunk.refs)


def _page_covers(chunk: Chunk, key: tuple[str, int]) -> bool:
    return chunk.doc_id == key[0] and chunk.start_page <= key[1] <= chunk.end_page


def score_question(question: Question, retrieved: Sequence[RetrievedChunk], scope_chunks: Sequence[Chunk],
                   ks: Sequence[int], budgets: Sequence[int], policy: str = "", retriever: str = "") -> QuestionResult:
    chunks = [r.chunk for r in retrieved]
    element_units = {u.element_key for u in question.evidence if u.element_key}
    page_units = {u.page_key for u in question.evidence if u.page_key}

    # unanchored evidence (or none at all) is a unit nothing covers, at both levels: a miss
    missing = sum(not u.anchored for u in question.evidence) + (0 if question.evidence else 1)
    # a chunk citing any element of the evidence, or of a copy of its quote elsewhere, covers it
    alias = {key: u.element_key for u in question.evidence if u.element_key
             for key in ((u.doc_id, u.record_id), *((u.doc_id, a) for a in u.also), *u.copy_elements)}
    places: dict[tuple[str, int], set] = {}
    for u in question.evidence:
        if u.page_key:
            places.setdefault(u.page_key, {u.page_key}).update(u.copy_pages)
    covered_e = [frozenset(alias[k] for k in _element_keys(c) if k in alias) for c in chunks]
    covered_p = [frozenset(k for k in page_units if any(_page_covers(c, p) for p in places[k])) for c in chunks]
    levels: dict[str, LevelScore] = {}
    if element_units or missing:
        n_rel = sum(1 for c in scope_chunks if _element_keys(c) & alias.keys())
        levels["element"] = _level_score(covered_e, len(element_units) + missing, n_rel, ks)
    if page_units or missing:
        n_rel = sum(1 for c in scope_chunks if any(_page_covers(c, p) for k in page_units for p in places[k]))
        levels["page"] = _level_score(covered_p, len(page_units) + missing, n_rel, ks)

    outcomes = []
    prefixes = {n: budget_prefix((c.text for c in chunks), n) for n in budgets}
    for unit in question.evidence:
        e_rank = next((i + 1 for i, keys in enumerate(covered_e) if unit.element_key in keys), None)
        p_rank = next((i + 1 for i, keys in enumerate(covered_p) if unit.page_key in keys), None)
        found = {n: _found_within(unit, chunks, *prefixes[n]) for n in budgets}
        outcomes.append(EvidenceOutcome(unit, e_rank, p_rank, found))
    scorable = [o for o in outcomes if _budget_scorable(o.unit)]
    # no scorable evidence is a question nobody can answer from the context: 0, not left out
    budget = {n: (sum(o.budget_found[n] for o in scorable) / len(scorable) if scorable else 0.0)
              for n in budgets}
    return QuestionResult(question, policy, retriever, tuple(retrieved), levels, budget, tuple(outcomes))


def _level_score(covered: Sequence[frozenset], n_units: int, n_relevant: int, ks: Sequence[int]) -> LevelScore:
    relevant = [bool(c) for c in covered]
    first = next((i + 1 for i, rel in enumerate(relevant) if rel), None)
    return LevelScore(
        hit={k: hit_at_k(relevant, k) for k in ks},
        recall={k: recall_at_k(covered, n_units, k) for k in ks},
        rr=reciprocal_rank(relevant),
        ndcg={k: ndcg_at_k(relevant, k, n_relevant) for k in ks},
        first_rank=first,
    )


def own_text(unit: EvidenceUnit) -> str:
    """The text that must appear in the budget: the quote or element text, check-box glyphs aside."""
    return match_text(unit.text).strip(SELECTION_GLYPHS)


def _budget_scorable(unit: EvidenceUnit) -> bool:
    return bool(own_text(unit)) or unit.record_id is not None or not unit.anchored


def _found_within(unit: EvidenceUnit, chunks: Sequence[Chunk], prefix: str, ends: Sequence[int]) -> bool:
    if not unit.anchored:
        return False
    if own_text(unit):
        return found_in_prefix(prefix, unit.text) or lines_in_one_passage(prefix, ends, unit.text)
    if unit.element_key is None:
        return False
    # no text of its own (empty field, check box): found when a chunk citing it fits in the budget
    return any(end <= len(prefix) and unit.element_key in _element_keys(c) for c, end in zip(chunks, ends))


# ---- a whole run ------------------------------------------------------------------------------
@dataclass(frozen=True)
class EvalConfig:
    ks: tuple[int, ...] = DEFAULT_KS  # cut-offs for hit/recall/nDCG
    budgets: tuple[int, ...] = DEFAULT_BUDGETS  # context budgets in characters
    scope: str = "corpus"  # corpus: one index over all chunks; routed: one per document, the question routed (modes.py)
    options: RetrieverOptions = field(default_factory=RetrieverOptions)
    expansion: PageExpansion | None = None  # hand a small first hit's whole page up (modes.py)
    window: PassageWindow | None = None  # hand up each hit's best passage window, not its head (windows.py)

    def __post_init__(self) -> None:
        if not self.ks or any(k < 1 for k in self.ks):
            raise ValueError(f"k values must be positive integers, got {self.ks}")
        if not self.budgets or any(n < 1 for n in self.budgets):
            raise ValueError(f"budgets must be positive character counts, got {self.budgets}")
        if self.scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, got {self.scope!r}")

    @property
    def depth(self) -> int:
        return max(max(self.ks), self.options.depth)


# Retrieval modes run side by side (each a row of its own, labelled by mode_label):
# plain = the config's retriever over one corpus index; routed = one index per document;
# pages = page expansion of a small first hit (PageExpansion's default threshold unless the config sets one);
# window = each hit cut to its best passage window (PassageWindow's default length unless the config sets one).
MODES = ("plain", "routed", "pages", "window")


def mode_config(config: EvalConfig, mode: str) -> EvalConfig:
    if mode not in MODES:
        raise BadInput(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "routed":
        return replace(config, scope="routed", expansion=None, window=None)
    if mode == "pages":
        return replace(config, scope="corpus", expansion=config.expansion or PageExpansion(), window=None)
    if mode == "window":
        return replace(config, scope="corpus", expansion=None, window=config.window or PassageWindow())
    return replace(config, scope="corpus", expansion=None, window=None)


def evaluate_chunks(questions: Sequence[Question], chunks: Sequence[Chunk], policy: str, retriever: str,
                    config: EvalConfig = EvalConfig(), progress: Progress | None = None,
                    element_texts: Mapping[tuple[str, str], str] | None = None) -> list[QuestionResult]:
    """Score one (policy, retriever) pair: `chunks` is the whole corpus that policy produced;
    window mode needs `element_texts` ((doc_id, record_id) -> text, windows.element_texts_of) to
    know which elements a window keeps."""
    if config.window and element_texts is None:
        raise ValueError("window mode needs the element texts to cite what a window keeps")
    search = ChunkSearch(chunks, retriever, config.scope, config.options, progress)
    scorer = (PassageScorer([c.text for c in chunks], make_tokenizer(config.options.tokenizer),
                            config.options.drop_interrogatives) if config.window else None)
    router = DocumentRouter(chunks, retriever, config.options) if config.scope == "routed" else None
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    label = mode_label(retriever, config)
    results = []
    for q in questions:
        target = router.route(q.question) if router else None
        retrieved = (search.search(q.question, config.depth, target) if target else []) if router else \
            search.search(q.question, config.depth)
        if config.expansion:
            retrieved = expand_pages(retrieved, by_doc, config.expansion)
        if scorer:
            retrieved = window_ranking(retrieved, q.question, scorer, element_texts or {}, config.window)
        scope = chunks if router is None else by_doc.get(target or "", [])
        results.append(score_question(q, retrieved, scope, config.ks, config.budgets, policy, label))
    return results


def mode_label(retriever: str, config: EvalConfig) -> str:
    """The retriever column names the mode too, so modes are rows of their own."""
    return (retriever + ("·routed" if config.scope == "routed" else "") + ("·pages" if config.expansion else "")
            + ("·window" if config.window else ""))


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summary_rows(results: Sequence[QuestionResult], ks: Sequence[int], budgets: Sequence[int]) -> list[dict[str, Any]]:
    """One row per (policy, retriever, level) with the keys `evaluate --json` promises."""
    rows = []
    for (policy, retriever), group in _groups(results).items():
        budget = {n: _mean([r.budget[n] for r in group if r.budget]) for n in budgets}
        anchored = sum(r.question.anchored for r in group)
        for level in LEVELS:
            scores = [r.levels[level] for r in group if level in r.levels]
            row: dict[str, Any] = {"policy": policy, "retriever": retriever, "level": level,
                                   "total": len(group), "anchored": anchored, "scored": len(scores)}
            row.update({f"hit@{k}": _mean([s.hit[k] for s in scores]) for k in ks})
            row.update({f"recall@{k}": _mean([s.recall[k] for s in scores]) for k in ks})
            row["mrr"] = _mean([s.rr for s in scores])
            row.update({f"ndcg@{k}": _mean([s.ndcg[k] for s in scores]) for k in ks})
            row.update({f"budget_recall@{n}": budget[n] for n in budgets})
            row["n"] = len(scores)
            rows.append(row)
    return rows


def question_counts(results: Sequence[QuestionResult]) -> dict[str, int]:
    """Questions total / anchored (every evidence found in its document) / scored (all of them:
    an unanchored question is scored as a miss)."""
    questions = {r.question.id: r.question for r in results}
    return {"total": len(questions), "anchored": sum(q.anchored for q in questions.values()),
            "scored": len(questions)}


def category_rows(results: Sequence[QuestionResult], ks: Sequence[int], budgets: Sequence[int]) -> list[dict[str, Any]]:
    """Per evidence category: which kinds of evidence a policy loses (element recall and budget)."""
    rows = []
    for (policy, retriever), group in _groups(results).items():
        by_cat: dict[str, list[EvidenceOutcome]] = {}
        for r in group:
            for o in r.evidence:
                by_cat.setdefault(o.unit.category, []).append(o)
        for category in sorted(by_cat):
            outcomes = by_cat[category]
            with_elem = [o for o in outcomes if o.unit.record_id]
            row: dict[str, Any] = {"policy": policy, "retriever": retriever, "category": category}
            row.update({f"recall@{k}": _mean([float(o.element_rank is not None and o.element_rank <= k)
                                              for o in with_elem]) for k in ks})
            scorable = [o for o in outcomes if _budget_scorable(o.unit)]
            row.update({f"budget_recall@{n}": _mean([float(o.budget_found[n]) for o in scorable]) for n in budgets})
            row["n"] = len(outcomes)
            rows.append(row)
    return rows


def _groups(results: Sequence[QuestionResult]) -> dict[tuple[str, str], list[QuestionResult]]:
    groups: dict[tuple[str, str], list[QuestionResult]] = {}
    for r in results:
        groups.setdefault((r.policy, r.retriever), []).append(r)
    return groups


@dataclass(frozen=True)
class EvaluationReport:
    results: tuple[QuestionResult, ...]
    config: EvalConfig
    chunk_counts: Mapping[str, int]  # policy -> chunks in the corpus
    skipped_evidence: int  # unanchored evidence, scored as misses
    modes: tuple[str, ...] = ()  # modes run side by side (empty: the config's own scope and expansion)

    def rows(self) -> list[dict[str, Any]]:
        return summary_rows(self.results, self.config.ks, self.config.budgets)

    def category_rows(self) -> list[dict[str, Any]]:
        return category_rows(self.results, self.config.ks, self.config.budgets)

    def per_question(self) -> list[dict[str, Any]]:
        return [r.to_dict(self.config.ks, self.config.budgets, max(self.config.ks)) for r in self.results]

    def counts(self) -> dict[str, int]:
        return question_counts(self.results)

    def unanchored_ids(self) -> list[str]:
        return sorted({r.question.id for r in self.results if not r.question.anchored})

    def to_json(self) -> dict[str, Any]:
        return {"questions": self.counts(), "unanchored": self.unanchored_ids(), "modes": list(self.modes),
                "results": self.rows(), "by_category": self.category_rows(), "per_question": self.per_question()}

    def runs(self) -> str:
        """What was run, in words: the modes side by side, or the one scope."""
        if self.modes:
            return "modes " + ", ".join(self.modes)
        return f"scope {self.config.scope}" + (" with page expansion" if self.config.expansion else "")

    def to_csv(self) -> str:
        """The summary rows as CSV; every row carries the question counts (total, anchored, scored),
        and a first comment line says them once for the whole run."""
        rows = self.rows()
        counts = self.counts()
        out = io.StringIO()
        out.write(f"# questions: {counts['total']} total, {counts['anchored']} anchored, {counts['scored']} scored; "
                  f"{self.runs()}\n")
        if rows:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        return out.getvalue()


def evaluate_workspace(ws, items: Sequence[GoldItem], policies: Sequence[Any], retrievers: Sequence[str],
                       config: EvalConfig = EvalConfig(), corpus_doc_ids: Sequence[str] | None = None,
                       progress: Progress | None = None, modes: Sequence[str] = ()) -> EvaluationReport:
    """Every policy × retriever (× mode, when `modes` names some: each policy is chunked once) on
    the same gold set; the corpus is the gold set's documents unless `corpus_doc_ids` names more
    (their chunks then also compete for the budget)."""
    from core.chunks.pipeline import chunks_for
    from core.review.corrections import corrected_document
    from core.chunks.policy import load_policy

    if not items:
        raise BadInput("the gold set is empty; write questions on the Gold page or import a gold/v1 file")
    for r in retrievers:
        if r not in RETRIEVERS:
            raise BadInput(f"retriever must be one of {RETRIEVERS}, got {r!r}")
    doc_ids = list(dict.fromkeys([*(corpus_doc_ids or ()), *(i.doc_id for i in items)]))
    for doc_id in doc_ids:
        ws.document(doc_id)  # UnknownDocument with the ingest hint
    docs = {d: corrected_document(ws, d) for d in doc_ids}
    questions = [question_from_item(i, docs.get(i.doc_id)) for i in items]
    texts = element_texts_of(docs.values())
    loaded = [p if p == PYMUPDF4LLM else load_policy(p) for p in policies]
    configs = [mode_config(config, m) for m in dict.fromkeys(modes)] or [config]
    steps = max(len(loaded) * (len(doc_ids) + len(retrievers) * len(configs)), 1)
    done = 0
    results: list[QuestionResult] = []
    counts: dict[str, int] = {}
    labels = _unique_labels([_policy_label(name, policy) for name, policy in zip(policies, loaded)])
    for label, policy in zip(labels, loaded):
        chunks: list[Chunk] = []
        for doc_id in doc_ids:
            if progress:
                progress(done / steps, f"{label}: chunking {docs[doc_id].source}")
            chunks.extend(pymupdf4llm_chunks(ws, doc_id) if policy == PYMUPDF4LLM else chunks_for(ws, doc_id, policy))
            done += 1
        counts[label] = len(chunks)
        for retriever in retrievers:
            for run_config in configs:
                if progress:
                    progress(done / steps, f"{label}: {mode_label(retriever, run_config)} over {len(chunks)} chunks")
                results.extend(evaluate_chunks(questions, chunks, label, retriever, run_config,
                                               element_texts=texts))
                done += 1
    if progress:
        progress(1.0, "done")
    return EvaluationReport(tuple(results), config, counts, sum(q.skipped for q in questions), tuple(modes))


def _policy_label(name: Any, policy: Any) -> str:
    label = getattr(policy, "name", None)
    return str(label) if label else str(name)


def _unique_labels(labels: Sequence[str]) -> list[str]:
    """Two policies with one name (a TOML copy of the default) must not be averaged together."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out


# ---- plain-text report ------------------------------------------------------------------------
def format_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    def cell(v: Any) -> str:
        if v is None:
            return "-"
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    body = [[cell(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(c), *(len(b[i]) for b in body)) if body else len(c) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(b, widths)) for b in body]
    return "\n".join(lines)


def render_tables(report: EvaluationReport) -> str:
    ks, budgets = report.config.ks, report.config.budgets
    columns = (["policy", "retriever", "level"] + [f"budget_recall@{n}" for n in budgets]
               + [f"hit@{k}" for k in ks] + ["mrr"] + [f"recall@{max(ks)}", f"ndcg@{max(ks)}"]
               + ["total", "anchored", "scored"])
    cat_columns = (["policy", "retriever", "category", "n"] + [f"budget_recall@{n}" for n in budgets]
                   + [f"recall@{k}" for k in ks])
    chunks = ", ".join(f"{p}: {n} chunks" for p, n in report.chunk_counts.items())
    counts = report.counts()
    return "\n\n".join([
        f"{report.runs()}; corpus: {chunks}",
        f"questions: {counts['total']} total, {counts['anchored']} anchored, {counts['scored']} scored "
        "(unanchored questions count as misses)",
        format_table(report.rows(), columns),
        "by evidence category (element level):",
        format_table(report.category_rows(), cat_columns),
    ])
