"""The refine entry point: named rules run in order, and the whole pipeline on a sample document
against its ground truth."""
from __future__ import annotations

import pytest

from core.ingest.pdf import parse_pdf
from core.refine.rules import RULE_NAMES, refine
from core.store.records import doc_id_for, sha256_of
from refine_fixtures import furnished
from truth_match import format_table, load_truth, recall_by_category


def test_refine_runs_named_rules_in_order_and_refuses_unknown_names():
    assert RULE_NAMES[:3] == ("form_table", "heading_split", "selection_glyph") and "decorative" in RULE_NAMES
    with pytest.raises(ValueError, match="'typo'"):
        refine(furnished(3), rules=["typo"])
    doc = furnished(3)
    assert refine(doc, rules=[]) == doc
    once = refine(doc)
    assert refine(once) == once  # rules are idempotent: refining stored output changes nothing


def test_each_rule_lifts_recall_on_the_sample_regulation(sample_docs):
    pdf = sample_docs / "keihi_seisan_kitei.pdf"
    data = pdf.read_bytes()
    sha = sha256_of(data)
    machine = parse_pdf(data, doc_id=doc_id_for(sha), sha256=sha, filename=pdf.name, engine="fast").document
    truth = load_truth(pdf)
    before = recall_by_category(machine, truth)
    after = recall_by_category(refine(machine), truth)
    print("\nbefore refine\n" + format_table({pdf.name: before}) + "\nafter refine\n" + format_table({pdf.name: after}))
    for category in ("code", "footnote", "caption", "page_footer", "document_index", "reference", "formula",
                     "decorative"):
        hit_before, n = before[category]
        hit_after, _ = after[category]
        assert hit_after == n and hit_after > hit_before, category
