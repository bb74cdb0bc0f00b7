"""Review: the reviewer's correction log replayed over the machine Document.

Corrections and their validation, re-anchoring after a re-ingest, review status, and the text
under a box a reviewer draws."""
