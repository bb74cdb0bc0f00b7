#!/usr/bin/env bash
# Every CLI output on the four samples, both engines, one file each, for checking that a change which
# should not change behaviour did not:
#     scripts/cli_snapshot.sh OLD_CHECKOUT /tmp/snap && mv /tmp/snap /tmp/before
#     scripts/cli_snapshot.sh .            /tmp/snap && diff -r /tmp/before /tmp/snap
# (the same OUT path both times: the gold export's message names it). About a minute.
set -uo pipefail
REPO=$(cd "$1" && pwd); OUT=$2
rm -rf "$OUT"; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd); cd "$REPO"
core() { python3 -m core "$@"; }
for eng in fast layout; do
  WS=$OUT/ws_$eng
  core ingest sample_docs/*.pdf --engine $eng --workspace "$WS" > "$OUT/$eng.ingest.jsonl" 2> "$OUT/$eng.ingest.err"
  for id in $(python3 -c "import json,sys; [print(json.loads(l)['doc_id']) for l in open(sys.argv[1])]" "$OUT/$eng.ingest.jsonl"); do
    core elements "$id" --workspace "$WS" > "$OUT/$eng.$id.elements.jsonl" 2>&1
    core elements "$id" --machine --workspace "$WS" > "$OUT/$eng.$id.elements_machine.jsonl" 2>&1
    core forms "$id" --workspace "$WS" > "$OUT/$eng.$id.forms.jsonl" 2>&1
    for pol in default naive; do for fmt in jsonl langchain llamaindex; do
      core chunks "$id" --policy $pol --format $fmt --workspace "$WS" > "$OUT/$eng.$id.chunks.$pol.$fmt" 2>&1
    done; done
  done
  core gold import sample_docs/gold_ja.jsonl --workspace "$WS" > "$OUT/$eng.goldimport.txt" 2>&1
  core gold export "$OUT/$eng.gold_export.jsonl" --workspace "$WS" > "$OUT/$eng.goldexport.txt" 2>&1
  for f in llamaindex ragas; do
    core gold export "$OUT/$eng.gold_export.$f.json" --format $f --workspace "$WS" > /dev/null 2>&1
  done
  core evaluate --gold sample_docs/gold_ja.jsonl --json --workspace "$WS" > "$OUT/$eng.evaluate.json" 2>&1
  core evaluate --gold sample_docs/gold_ja.jsonl --retriever bm25 --retriever tfidf --retriever fusion --scope routed \
      --json --workspace "$WS" > "$OUT/$eng.evaluate2.json" 2>&1
  core evaluate --gold sample_docs/gold_ja.jsonl --workspace "$WS" > "$OUT/$eng.evaluate.txt" 2>&1
  rm -rf "$WS"
done
core --help > "$OUT/help.txt" 2>&1
for c in ingest import elements forms correct chunks gold evaluate; do core $c --help > "$OUT/help.$c.txt" 2>&1; done
