"""Chunks: the category policy, per-page evidence (what joins what, what goes to metadata),
the chunker, the naive baseline, figure and table crops, caption/footnote links, and the cached
pipeline the workspace runs (corrections -> forms -> crops -> chunking)."""
