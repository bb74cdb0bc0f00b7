#!/usr/bin/env bash
# Installs everything the tests need, then runs every test (unit, app, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -r requirements-dev.txt
python3 -m pytest -q "$@"
