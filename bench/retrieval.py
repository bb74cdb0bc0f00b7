"""BM25 over 10k generated Japanese chunks × 1k questions: index and query time against the budget.

DESIGN.md budget: BM25 over 10k chunks × 1k questions ≤ 10 s in total on this machine. The figure
includes Sudachi tokenisation of every chunk and question (the slow part), bm25s indexing, and
top-10 retrieval for every question.

    python bench/retrieval.py [--chunks 10000] [--questions 1000] [--tokenizer sudachi|bigram]

Chunks are sentences assembled from a fixed vocabulary of business-document words with a fixed seed,
so every run measures the same text; each question is built from words of one chunk, so the share
of questions whose chunk comes back first is printed as a sanity check that retrieval works.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.evaluation.retrieval import BM25Index  # noqa: E402
from core.evaluation.tokenize import TokenizerSpec, make_tokenizer  # noqa: E402

BUDGET_SECONDS = 10.0

SUBJECTS = ["申請者", "所属長", "経理部", "総務部", "人事部", "従業員", "役員", "派遣社員", "監査役", "取締役会",
            "営業本部", "情報システム部", "購買部", "法務部", "品質保証部", "研究開発部", "海外子会社", "支店長"]
OBJECTS = ["交通費", "宿泊費", "日当", "会議費", "交際費", "消耗品費", "仮払金", "領収書", "請求書", "見積書",
           "契約書", "発注書", "稟議書", "出張報告書", "経費精算書", "支払証明書", "振込記録", "利用明細",
           "固定資産", "減価償却費", "売上高", "営業利益", "研究開発費", "設備投資", "在庫", "外注費"]
VERBS = ["提出する", "承認する", "確認する", "保存する", "差し戻す", "支給する", "精算する", "申請する",
         "記録する", "照合する", "報告する", "廃棄する", "更新する", "登録する", "返還を求める"]
CONDITIONS = ["翌月10日までに", "5営業日以内に", "事前に", "原則として", "毎月25日に", "四半期ごとに",
              "年度末までに", "速やかに", "遅滞なく", "必要に応じて", "7年間", "3か月以内に"]
QUALIFIERS = ["ただし、所属長の承認がある場合はこの限りでない。", "上限額を超える部分は自己負担とする。",
              "電子帳簿保存法に従うものとする。", "詳細は別表に定める。", "※1 海外出張の場合を除く。",
              "金融機関の休業日の場合は前営業日とする。", ""]


def sentence(rng: random.Random) -> str:
    amount = f"{rng.randint(1, 400) * 500:,}円"  # amounts and form numbers make chunks tell apart, as in real rules
    return (f"{rng.choice(SUBJECTS)}は、{rng.choice(CONDITIONS)}{amount}を超える{rng.choice(OBJECTS)}及び"
            f"様式第{rng.randint(1, 60)}号の{rng.choice(OBJECTS)}を{rng.choice(VERBS)}。{rng.choice(QUALIFIERS)}")


def make_corpus(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [f"第{i % 40 + 1}条（{rng.choice(OBJECTS)}の取扱い）\n" + "".join(sentence(rng) for _ in range(rng.randint(3, 6)))
            for i in range(n)]


def make_questions(corpus: list[str], n: int, seed: int = 11) -> list[tuple[str, int]]:
    """Each question quotes a clause of one chunk and asks about it, like a reviewer would."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        target = rng.randrange(len(corpus))
        clauses = [c for c in corpus[target].split("。") if len(c) > 12]
        clause = rng.choice(clauses).split("\n")[-1]
        out.append((f"{clause}のはどのような場合か？", target))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--questions", type=int, default=1_000)
    parser.add_argument("--tokenizer", choices=("sudachi", "bigram"), default="sudachi")
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()

    corpus = make_corpus(args.chunks)
    questions = make_questions(corpus, args.questions)
    tokenizer = make_tokenizer(TokenizerSpec(kind=args.tokenizer))
    tokenizer("ウォームアップ")  # loads the dictionary once, outside the timed part
    chars = sum(len(t) for t in corpus)

    load_before = os.getloadavg()[0]
    start, cpu = time.perf_counter(), time.process_time()
    index = BM25Index(corpus, tokenizer)
    index_s, index_cpu = time.perf_counter() - start, time.process_time() - cpu

    start, cpu = time.perf_counter(), time.process_time()
    first = 0
    for question, target in questions:
        hits = index.search(question, args.k)
        first += bool(hits) and hits[0].index == target
    query_s, query_cpu = time.perf_counter() - start, time.process_time() - cpu

    total = index_s + query_s
    print(f"corpus: {len(corpus)} chunks, {chars} characters (mean {chars / len(corpus):.0f}); "
          f"{len(questions)} questions; tokenizer {args.tokenizer}")
    print(f"index (tokenise + bm25s): {index_s:.2f} s wall, {index_cpu:.2f} s CPU  "
          f"({len(corpus) / index_s:,.0f} chunks/s)")
    print(f"query (tokenise + top-{args.k}): {query_s:.2f} s wall, {query_cpu:.2f} s CPU  "
          f"({query_s / len(questions) * 1000:.2f} ms/question)")
    print(f"total: {total:.2f} s wall = {total / BUDGET_SECONDS:.2f}× the {BUDGET_SECONDS:.0f} s budget "
          f"({'within' if total <= BUDGET_SECONDS else 'OVER'} budget); CPU {index_cpu + query_cpu:.2f} s = "
          f"{(index_cpu + query_cpu) / BUDGET_SECONDS:.2f}×")
    # other work on a 2-core machine inflates wall time; the load average says how busy it was
    print(f"load average when the run started: {load_before:.1f} (cores: {os.cpu_count()})")
    print(f"sanity: the question's own chunk ranked first for {first / len(questions):.1%} of questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
