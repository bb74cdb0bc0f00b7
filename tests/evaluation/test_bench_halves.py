"""bench/retrieval_quality.py's halves: tune1 is the first tuning set, tune2 the fresh one (rj2-*),
tune both; holdout1 the first hold-out half, holdout2 the fresh one (rj3-*), holdout both; a hold-out
row is in no tuning half, and --option reads RetrieverOptions fields."""
from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("retrieval_quality", ROOT / "bench" / "retrieval_quality.py")
rq = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rq)


def test_each_row_of_the_shipped_set_is_in_exactly_the_halves_its_tags_say():
    rows = [json.loads(line) for line in (ROOT / "sample_docs" / "gold_ja_realdata.jsonl").read_text(encoding="utf-8").splitlines()]
    for row in rows:
        tags = row["tags"]
        halves = {h for h in rq.HALVES if rq.in_half(tags, h)}
        if row["id"].startswith("rj3-"):
            assert halves == {"holdout", "holdout2", "all"}, row["id"]
        elif "holdout" in tags:
            assert halves == {"holdout", "holdout1", "all"}, row["id"]
        elif row["id"].startswith("rj2-"):
            assert halves == {"tune", "tune2", "all"}, row["id"]
        else:
            assert halves == {"tune", "tune1", "all"}, row["id"]
    assert sum(rq.in_half(r["tags"], "tune2") for r in rows) >= 50
    assert sum(rq.in_half(r["tags"], "holdout2") for r in rows) >= 50


def test_option_overrides_a_retriever_field_and_refuses_unknown_names():
    parser = argparse.ArgumentParser()
    assert rq.retriever_options(parser, ["bm25_b=0.5", "bm25_number_weight=3"]).bm25_b == 0.5
    with pytest.raises(SystemExit):
        rq.retriever_options(parser, ["bm25_bb=0.5"])
