#!/usr/bin/env bash
# Sourced by run_app.sh and test.sh: make the project's own virtual environment (.venv, or
# $RLI_VENV) and install a pinned requirements file into it, so nothing is installed into the system
# Python (which Debian and Ubuntu refuse: "externally managed environment", PEP 668).
#
#   source scripts/venv.sh; ensure_venv requirements.txt; "$VENV_PYTHON" -m ...
#
# pip runs only when the requirements (the file and the ones it includes with -r) changed since the
# last install into this environment: a stamp in the environment keeps their SHA-256.
VENV_DIR="${RLI_VENV:-.venv}"
VENV_PYTHON="$VENV_DIR/bin/python"

requirements_hash() {
    # The file, every file it includes with "-r", and the Python version: any change means reinstall.
    local files=("$1") line
    while read -r line; do
        files+=("$(dirname "$1")/${line#-r }")
    done < <(grep -E '^-r ' "$1" | tr -d '\r')
    { cat "${files[@]}"; "$VENV_PYTHON" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1
}

ensure_venv() {
    local requirements="$1" what="${2:-packages}"
    if [ ! -x "$VENV_PYTHON" ]; then
        if ! python3 -m venv "$VENV_DIR" >/dev/null 2>&1; then
            rm -rf "$VENV_DIR"
            echo "cannot create a virtual environment with $(command -v python3 || echo python3):" \
                 "install the venv module (sudo apt-get install -y python3-venv) and run this again" >&2
            return 1
        fi
    fi
    local stamp="$VENV_DIR/.installed-$(basename "$requirements").sha256" want
    want="$(requirements_hash "$requirements")"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0  # nothing changed since the last install: no pip, no network
    fi
    echo "Installing the $what from $requirements into $VENV_DIR (first run or changed requirements; a few minutes)…"
    "$VENV_PYTHON" -m pip install -q --disable-pip-version-check -r "$requirements"
    echo "$want" > "$stamp"
}
