"""Evaluate: how often each policy and retriever brings the evidence back, on one gold set.

Pick the gold questions, policies, retrievers, k and budgets; run (a progress bar while chunking and
indexing). The headline is evidence recall within a context budget; below it the metric table, the
hit@k and budget curves, the per-category breakdown, and a per-question drill-down showing the
evidence boxes and a retrieved chunk's boxes on the page side by side.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import streamlit as st

from core.chunks.policy import load_policy, policy_from_mapping
from core.errors import InspectorError
from core.evaluation.gold import GoldItem, all_tags, anchor_items, load_items, parse_gold_jsonl
from core.evaluation.baselines import PYMUPDF4LLM
from core.evaluation.modes import PageExpansion
from core.evaluation.report_export import report_csv, report_json_text
from core.evaluation.retrieval import RETRIEVERS, RetrieverOptions
from core.evaluation.scoring import EvalConfig, EvaluationReport, QuestionResult, evaluate_workspace
from core.evaluation.tokenize import TokenizerSpec
from core.render import Box
from ui import state
from ui.page_view import page_view
from ui.tables import pickable_table
from ui.text import md_escape, shorten

REPORT_KEY = "rli:eval:report"
POLICY_DIR = Path(__file__).resolve().parents[1] / "policies"
EVIDENCE_COLOUR = "#ffbf00"  # same amber as the Gold page
HIT_COLOUR = "#2ca02c"
MISS_COLOUR = "#1f77b4"
K_CHOICES = (1, 3, 5, 10, 20)
BUDGET_CHOICES = (250, 500, 1000, 2000, 4000, 8000)
ALL = "(all)"
HEADLINE_COLUMNS = 4
OPEN_KEY = "rli:eval:open"


# ---- choosing what to run ---------------------------------------------------------------------------
def gold_questions(ws) -> list[GoldItem] | None:
    source = st.radio("Gold questions", ["workspace", "file"], horizontal=True, key="rli:eval:gold_source",
                      format_func={"workspace": "This workspace's gold set", "file": "A gold/v1 file"}.__getitem__)
    if source == "file":
        upload = st.file_uploader("gold/v1 JSONL", type=["jsonl", "json", "txt"], key="rli:eval:gold_file")
        if upload is None:
            return None
        items = parse_gold_jsonl(upload.getvalue().decode("utf-8", errors="replace"), origin=upload.name)
        anchored, report = anchor_items(ws, items)  # anchored here, not stored
        problems = sum(not r.ok for r in report.items)
        if problems:
            st.warning(f"{problems} question(s) have evidence that could not be anchored; they count as misses "
                       "(import the file on the Gold page to see why).")
        return anchored
    everything = load_items(ws)
    if not everything:
        st.info("No gold questions yet: write some on the Gold set page, or import the sample set there.")
        st.page_link("pages/gold.py", label="Go to Gold set", icon=":material/star:")
        return None
    records = {r.doc_id: r.source for r in ws.documents()}
    doc_col, tag_col = st.columns(2)
    doc = doc_col.selectbox("Document", [ALL, *sorted({i.doc_id for i in everything})], key="rli:eval:doc",
                            format_func=lambda d: records.get(d, d))
    tag = tag_col.selectbox("Tag", [ALL, *all_tags(everything)], key="rli:eval:tag")
    items = [i for i in everything if (doc == ALL or i.doc_id == doc) and (tag == ALL or tag in i.tags)]
    st.caption(f"{len(items)} of {len(everything)} question(s)")
    return items


def chosen_policies() -> list:
    files = sorted(POLICY_DIR.glob("*.toml")) if POLICY_DIR.exists() else []
    options = ["default", "naive", PYMUPDF4LLM, *[str(p) for p in files]]
    names = st.multiselect("Policies", options, default=["default", "naive"], key="rli:eval:policies",
                           format_func=lambda p: Path(p).name if p.endswith(".toml") else p)
    upload = st.file_uploader("…or a policy TOML of your own", type=["toml"], key="rli:eval:policy_file")
    policies: list = [n if n == PYMUPDF4LLM else load_policy(n) for n in names]
    if upload is not None:
        try:
            data = tomllib.loads(upload.getvalue().decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise InspectorError(f"policy file {upload.name}: not valid TOML ({err})") from None
        policies.append(policy_from_mapping(data, default_name=Path(upload.name).stem))
    return policies


MODE_LABELS = {"plain": "plain: one index over all documents",
               "routed": "routed: one index per document, the question routed by the document it names (or its best)",
               "pages": "page expansion: a small first hit hands up its whole page",
               "window": "passage window: each hit hands up its best passage first, then the rest of it"}


def settings() -> tuple[list, list[str], EvalConfig, list[str]] | None:
    left, right = st.columns(2)
    with left:
        policies = chosen_policies()
    with right:
        retrievers = st.multiselect("Retrievers", list(RETRIEVERS), default=["bm25"], key="rli:eval:retrievers")
        dense_path = ""
        if "dense" in retrievers:
            dense_path = st.text_input("Dense model folder (sentence-transformers, on this machine)",
                                       key="rli:eval:dense", help="Never downloaded: give a folder you already have.")
        weights = fusion_weights(retrievers)
        ks = st.multiselect("k", K_CHOICES, default=[1, 3, 5, 10], key="rli:eval:k")
        budgets = st.multiselect("Context budgets (characters)", BUDGET_CHOICES, default=[500, 1000, 2000, 4000],
                                 key="rli:eval:budgets")
        tokenizer = st.selectbox("BM25 tokenizer", ["sudachi-B", "sudachi-A", "sudachi-C", "bigram"],
                                 key="rli:eval:tokenizer",
                                 help="Sudachi split mode A is finest, C keeps compounds whole; bigram needs no dictionary.")
        modes = st.multiselect("Retrieval modes (side by side: each is a row of its own)", list(MODE_LABELS),
                               default=["plain"], key="rli:eval:modes", format_func=MODE_LABELS.__getitem__)
        expand = st.number_input("Page expansion: a first hit shorter than this many characters hands up its "
                                 "whole page", min_value=1, max_value=5000, value=400, step=100,
                                 key="rli:eval:expand", disabled="pages" not in modes)
    if not policies or not retrievers or not ks or not budgets or not modes or weights is None:
        st.caption("Pick at least one policy, retriever, k, budget and mode (and a fusion weight above 0).")
        return None
    kind, _, mode = tokenizer.partition("-")
    options = RetrieverOptions(tokenizer=TokenizerSpec(kind=kind, mode=mode or "B"), dense_model_path=dense_path or None,
                               fusion_weights=weights)
    config = EvalConfig(ks=tuple(sorted(ks)), budgets=tuple(sorted(budgets)), options=options,
                        expansion=PageExpansion(small_below=int(expand)))
    return policies, retrievers, config, modes


def fusion_weights(retrievers: list[str]) -> tuple[tuple[str, float], ...] | None:
    """The fusion retriever's weights per component (bm25, tfidf, and dense when chosen); None when
    all are 0, which would fuse nothing."""
    default = RetrieverOptions().fusion_weights
    if "fusion" not in retrievers:
        return default
    names = ["bm25", "tfidf", *(["dense"] if "dense" in retrievers else [])]
    columns = st.columns(len(names))
    start = dict(default)
    weights = tuple((name, float(column.number_input(f"Fusion weight: {name}", min_value=0.0, max_value=10.0,
                                                     value=start.get(name, 0.5), step=0.1,
                                                     key=f"rli:eval:weight:{name}")))
                    for name, column in zip(names, columns))
    return weights if any(w > 0 for _, w in weights) else None


def run(ws, items: list[GoldItem], policies: list, retrievers: list[str], config: EvalConfig, modes: list[str],
        whole_workspace: bool) -> None:
    bar = st.progress(0.0, text="starting")
    corpus = [r.doc_id for r in ws.documents()] if whole_workspace else None
    try:
        report = evaluate_workspace(ws, items, policies, retrievers, config, corpus_doc_ids=corpus,
                                    progress=lambda f, message: bar.progress(min(max(f, 0.0), 1.0), text=message),
                                    modes=modes)
    except InspectorError as err:
        bar.empty()
        st.error(str(err))
        return
    bar.empty()
    st.session_state[REPORT_KEY] = report


# ---- results ------------------------------------------------------------------------------------------
def headline(report: EvaluationReport) -> None:
    budgets = report.config.budgets
    n = 1000 if 1000 in budgets else budgets[len(budgets) // 2]
    st.subheader(f"Evidence found within {n:,} characters of context")
    st.caption("The share of each question's evidence that lies wholly inside the first N characters of the "
               "ranked chunks. hit@k alone rewards oversized chunks; this does not.")
    rows = [r for r in report.rows() if r["level"] == "element"]
    base = rows[0][f"budget_recall@{n}"] if rows else None
    for start in range(0, len(rows), HEADLINE_COLUMNS):  # every run gets its figure, four to a line
        line = rows[start:start + HEADLINE_COLUMNS]
        for column, row in zip(st.columns(HEADLINE_COLUMNS if len(rows) > HEADLINE_COLUMNS else len(line)), line):
            value = row[f"budget_recall@{n}"]
            delta = None if value is None or base is None or row is rows[0] else f"{(value - base) * 100:+.1f} pt"
            column.metric(f"{row['policy']} · {row['retriever']}", "—" if value is None else f"{value:.1%}", delta,
                          delta_color=headline_colour(value))
    counts = report.counts()
    chunks = ", ".join(f"{p}: {c} chunks" for p, c in report.chunk_counts.items())
    st.markdown(f"**Questions: {counts['total']} total · {counts['anchored']} anchored · "
                f"{counts['scored']} scored**")
    st.caption(f"{report.runs()} · {chunks} · a question whose evidence could not be anchored "
               "counts as a miss in every figure")
    if report.unanchored_ids():
        st.warning(f"{len(report.unanchored_ids())} question(s) could not be anchored and count as misses: "
                   + ", ".join(report.unanchored_ids()[:20]))


def headline_colour(value: float | None) -> str:
    """A zero (or missing) headline is never drawn in green, whatever its difference to the first run."""
    return "normal" if value else "off"


def metric_table(report: EvaluationReport) -> None:
    st.dataframe(pd.DataFrame(report.rows()), hide_index=True, width="stretch")
    ws = state.workspace()
    json_col, csv_col = st.columns(2)
    json_col.download_button("Download the results (JSON: counts, rows, categories, per question)",
                             data=report_json_text(ws, report).encode("utf-8"), file_name="evaluation.json",
                             mime="application/json", key="rli:eval:download_json")
    csv_col.download_button("Download the metric table (CSV, with the question counts)",
                            data=report_csv(ws, report).encode("utf-8"), file_name="evaluation.csv",
                            mime="text/csv", key="rli:eval:download_csv")


def curves(report: EvaluationReport) -> None:
    rows = [r for r in report.rows() if r["level"] == "element"]
    label = {id(r): f"{r['policy']} · {r['retriever']}" for r in rows}
    hit = pd.DataFrame({label[id(r)]: [r[f"hit@{k}"] for k in report.config.ks] for r in rows},
                       index=pd.Index(report.config.ks, name="k"))
    budget = pd.DataFrame({label[id(r)]: [r[f"budget_recall@{n}"] for n in report.config.budgets] for r in rows},
                          index=pd.Index(report.config.budgets, name="budget (characters)"))
    hit_col, budget_col = st.columns(2)
    with hit_col:
        st.markdown("**hit@k** (element level)")
        st.line_chart(hit)
    with budget_col:
        st.markdown("**Evidence recall by context budget**")
        st.line_chart(budget)


def category_chart(report: EvaluationReport) -> None:
    rows = report.category_rows()
    if not rows:
        return
    budgets = report.config.budgets
    n = st.selectbox("Budget for the category breakdown", budgets, index=budgets.index(1000) if 1000 in budgets else 0,
                     key="rli:eval:cat_budget")
    frame = pd.DataFrame(rows)
    frame["run"] = frame["policy"] + " · " + frame["retriever"]
    st.markdown(f"**Which evidence each policy loses** · evidence recall within {n:,} characters, by the "
                "evidence element's category")
    chart = category_frame(frame, f"budget_recall@{n}")
    if chart is None:
        st.info(f"Nothing to draw: no evidence of any category was found within {n:,} characters.")
    else:
        st.bar_chart(chart, stack=False)
    with st.expander("Category table"):
        st.dataframe(frame.drop(columns=["run"]), hide_index=True, width="stretch")


def category_frame(frame: pd.DataFrame, column: str) -> pd.DataFrame | None:
    """Categories × runs with at least one bar taller than zero, else None (an empty chart says nothing)."""
    values = frame.dropna(subset=[column])
    if values.empty or not (values[column] > 0).any():
        return None
    return values.pivot_table(index="category", columns="run", values=column, aggfunc="mean").fillna(0.0)


# ---- per question ---------------------------------------------------------------------------------------
def question_table(report: EvaluationReport) -> str | None:
    k = max(report.config.ks)
    n = 1000 if 1000 in report.config.budgets else report.config.budgets[0]
    by_question: dict[str, dict] = {}
    for r in report.results:
        row = by_question.setdefault(r.question.id, {"id": r.question.id,
                                                     "question": shorten(r.question.question, 60)})
        element = r.levels.get("element")
        rank = element.first_rank if element else None
        row[f"{r.policy}·{r.retriever} rank"] = rank if rank is not None and rank <= k else None
        row[f"{r.policy}·{r.retriever} found@{n}"] = r.budget.get(n)
    frame = pd.DataFrame(list(by_question.values()))
    st.caption(f"rank = first retrieved chunk citing an evidence element (empty: not in the top {k}); "
               f"found@{n} = share of the evidence inside the first {n:,} characters")
    return pickable_table(frame, list(by_question), table_key="rli:eval:questions", open_key=OPEN_KEY,
                          label="Open a question (or click its row)",
                          describe=lambda i: by_question[i]["question"])


def drill_down(report: EvaluationReport, question_id: str) -> None:
    runs = [r for r in report.results if r.question.id == question_id]
    labels = {i: f"{r.policy} · {r.retriever}" for i, r in enumerate(runs)}
    chosen = runs[st.selectbox("Run", list(labels), format_func=labels.__getitem__, key="rli:eval:run")]
    q = chosen.question
    st.markdown(f"**Q:** {md_escape(q.question)}")
    ws = state.workspace()
    if ws.find_document(q.doc_id) is None:
        st.warning(f"Document {q.doc_id} is no longer in the workspace.")
        return
    doc = state.corrected_doc(q.doc_id)
    evidence_col, retrieved_col = st.columns(2)
    with evidence_col:
        evidence_view(chosen, doc)
    with retrieved_col:
        retrieved_view(chosen, ws, max(report.config.ks))


def evidence_boxes(result: QuestionResult, doc, page: int) -> list[Box]:
    index = doc.element_index()
    boxes = []
    for i, outcome in enumerate(result.evidence):
        element = index.get(outcome.unit.record_id or "")
        if element is not None and element.page == page:
            boxes.append(Box(element.bbox, EVIDENCE_COLOUR, f"E{i + 1}", fill_alpha=80, width=4))
    return boxes


def evidence_view(result: QuestionResult, doc) -> None:
    st.markdown("**Evidence**")
    budgets = list(result.evidence[0].budget_found) if result.evidence else []
    for i, o in enumerate(result.evidence):
        found = ", ".join(f"{n:,}: {'✓' if o.budget_found[n] else '✗'}" for n in budgets)
        rank = o.element_rank if o.element_rank is not None else "—"
        st.caption(f"E{i + 1} · p{o.unit.page} · {o.unit.category} · first cited at rank {rank} · within {found}")
        st.text(shorten(o.unit.text or "(no text of its own)", 120))
    pages = sorted({o.unit.page for o in result.evidence if o.unit.page})
    if pages:
        page = pages[0] if len(pages) == 1 else st.selectbox("Evidence page", pages, key="rli:eval:evidence_page")
        page_view(doc, page, zoom=0.75, key="eval-evidence", elements=[],
                  boxes=evidence_boxes(result, doc, page), clickable=False)


def retrieved_view(result: QuestionResult, ws, k: int) -> None:
    st.markdown("**Retrieved**")
    if not result.retrieved:
        st.caption("Nothing was retrieved for this question.")
        return
    wanted = {o.unit.record_id for o in result.evidence if o.unit.record_id}
    top = result.retrieved[:k]
    labels = {r.rank: (f"#{r.rank} · {'hit' if wanted & {s.record_id for s in r.chunk.refs} else 'miss'} · "
                       f"{r.chunk.source} p{r.chunk.start_page}–{r.chunk.end_page} · {len(r.chunk.text)} chars")
              for r in top}
    rank = st.selectbox("Chunk", list(labels), format_func=labels.__getitem__, key="rli:eval:rank")
    chunk = next(r.chunk for r in top if r.rank == rank)
    if ws.find_document(chunk.doc_id) is None:
        st.warning("That chunk's document is no longer in the workspace.")
        return
    doc = state.corrected_doc(chunk.doc_id)
    page = chunk.start_page if chunk.start_page == chunk.end_page else st.selectbox(
        "Chunk page", list(range(chunk.start_page, chunk.end_page + 1)), key="rli:eval:chunk_page")
    boxes = [Box(ref.bbox, HIT_COLOUR if ref.record_id in wanted else MISS_COLOUR, "",
                 fill_alpha=60 if ref.record_id in wanted else 30)
             for ref in chunk.refs if ref.page == page]
    boxes += evidence_boxes(result, doc, page) if chunk.doc_id == result.question.doc_id else []
    page_view(doc, page, zoom=0.75, key="eval-retrieved", elements=[], boxes=boxes, clickable=False)
    with st.expander("Chunk text", expanded=False):
        st.text(chunk.text)


# ---- the page ------------------------------------------------------------------------------------------------
st.title("Evaluate")
ws = state.workspace()
try:
    items = gold_questions(ws)
    chosen = settings() if items else None
except InspectorError as err:
    st.error(str(err))
    items, chosen = None, None
if items and chosen:
    whole = st.checkbox("Put every document of the workspace in the corpus (their chunks compete for the budget)",
                        key="rli:eval:whole")
    if st.button("Run evaluation", type="primary", key="rli:eval:run_button"):
        run(ws, items, *chosen, whole_workspace=whole)

report = st.session_state.get(REPORT_KEY)
if report is not None:
    st.divider()
    headline(report)
    metric_table(report)
    curves(report)
    category_chart(report)
    st.subheader("Per question")
    selected = question_table(report)
    if selected is not None:
        drill_down(report, selected)
    else:
        st.caption("Select a question to see its evidence and what was retrieved, on the page.")
