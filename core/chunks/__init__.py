"""Chunks: the category policy, per-page evidence (what joins what, what goes to metadata),
the chunker, the naive baseline, figure and table crops, and caption/footnote links."""
