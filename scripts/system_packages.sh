#!/usr/bin/env bash
# Debian packages the tests and the app use: the browser and a CJK font for browser tests,
# PostgreSQL for the team backend, Tesseract with its Japanese models for OCR.
# Installs only what is missing; does nothing (and says so) where apt-get is not available.
set -euo pipefail
PACKAGES=(chromium fonts-noto-cjk postgresql tesseract-ocr tesseract-ocr-eng tesseract-ocr-jpn tesseract-ocr-jpn-vert)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
    echo "system packages missing: ${missing[*]} (install them with: sudo apt-get install -y ${missing[*]})" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
echo "installing system packages: ${missing[*]}"
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
