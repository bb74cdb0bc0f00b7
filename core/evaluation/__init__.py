"""Evaluation: gold sets (question -> evidence elements), tokenisers, retrievers, and the
metrics that say how often the right context comes back within a budget."""
