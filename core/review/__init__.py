"""Review: the reviewer's correction log replayed over the machine Document.

Event kinds and their validation, replay, the corrected view and recording, undo and redo, events
as people read them, re-anchoring after a re-ingest, review status, and the text under a drawn box."""
