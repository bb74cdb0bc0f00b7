"""Ingest: a PDF (or another parser's JSON) becomes a machine Document in the workspace.

The PDF engines (`layout`, `fast`) read pages with PyMuPDF; the importers translate Docling, Azure and
Textract output. `pipeline.py` is the entry point: parse, refine, store."""
