#!/usr/bin/env bash
# Installs the app into its own virtual environment (.venv) and starts it; the first visit shows the
# bundled sample documents, ingested. Arguments go to `streamlit run` (e.g. --server.port 8600).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
ensure_venv requirements.txt "app's Python packages"
exec "$VENV_PYTHON" -m streamlit run app.py --server.headless true "$@"
