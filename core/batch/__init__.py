"""Batch over a corpus: `python -m core batch ingest PATH…` reads many PDFs on Ray (or a process
pool), page ranges in parallel, and stores them through one writer; `batch export` writes every
document's chunks as shards with a manifest. `plan.py` decides what to read, `executors.py` runs
the page-range tasks, `ingest.py` drives them, `report.py` counts and reports, `export.py` shards."""
