#!/usr/bin/env bash
# Installs everything the tests need, then runs every test (unit, app, browser) with the project's own
# virtual environment (.venv). Arguments go to pytest (e.g. -k render).
#
# The browser tests need Debian's Chromium and a CJK font: scripts/system_packages.sh installs them
# (with PostgreSQL and Tesseract) where it can (root with apt-get); where it cannot, this script stops
# with the command to run rather than letting the browser tests skip.
set -euo pipefail
cd "$(dirname "$0")/.."
CHROMIUM="${RLI_CHROMIUM:-/usr/bin/chromium}"
CJK_FONT="${RLI_CJK_FONT:-/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc}"

browser_ready() { [ -x "$CHROMIUM" ] && [ -f "$CJK_FONT" ]; }

if ! browser_ready; then
    ./scripts/system_packages.sh || true
fi
if ! browser_ready; then
    echo "The browser tests need Chromium ($CHROMIUM) and fonts-noto-cjk ($CJK_FONT)." >&2
    echo "Install them with: sudo apt-get install -y chromium fonts-noto-cjk   (or run: sudo ./scripts/system_packages.sh)" >&2
    exit 1
fi
source scripts/venv.sh
ensure_venv requirements-dev.txt "test tools and the app's Python packages"
# Browser tests fail instead of skipping when Chromium is missing (tests/browser/conftest.py).
export RLI_REQUIRE_BROWSER=1
exec "$VENV_PYTHON" -m pytest -q "$@"
