#!/usr/bin/env bash
# Installs the app and starts it; the first visit shows the bundled sample documents, ingested.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -r requirements.txt
exec python3 -m streamlit run app.py --server.headless true "$@"
