"""The product's core: no streamlit here (see ARCHITECTURE.md)."""
import sys

# PyMuPDF 2.0's `import pymupdf` also imports pymupdf.layout, which loads the ONNX layout model
# (~0.8 s of start-up and its memory) into every process that touches a PDF. Only the layout
# worker process runs the model (core.ingest.layout_worker.load_layout_model lifts this block
# there), so everywhere else the side-effect import is declined; PyMuPDF treats it as "layout not
# installed".
if "pymupdf" not in sys.modules:
    sys.modules.setdefault("pymupdf.layout", None)
