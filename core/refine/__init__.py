"""Refine: named rules that fix the category errors a parser makes, and reading order on spreads.

Pure `Document -> Document` functions; every element a rule changes records the rule's name."""
