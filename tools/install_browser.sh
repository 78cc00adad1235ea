#!/usr/bin/env bash
# Set-up of `make test-browser`: Debian's Chromium and Playwright for Python.
#
# Playwright drives the system browser (/usr/bin/chromium); it never downloads
# one, so `playwright install` is not run.  Idempotent: each step is skipped
# when its result is already there.
#
#   tools/install_browser.sh [PYTHON]     PYTHON defaults to .venv/bin/python
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-.venv/bin/python}"
CHROMIUM="${RAGMETRICS_CHROMIUM:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
    echo "chromium: $CHROMIUM is there"
else
    if ! command -v apt-get >/dev/null; then
        echo "error: $CHROMIUM is missing and apt-get is not available;" \
             "install Chromium and set RAGMETRICS_CHROMIUM to its path" >&2
        exit 1
    fi
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        # never prompt for a password (CI has no terminal): fail with a message instead
        if ! sudo -n true 2>/dev/null; then
            echo "error: $CHROMIUM is missing and installing it needs root;" \
                 "run 'sudo apt-get install chromium' once, or set RAGMETRICS_CHROMIUM" >&2
            exit 1
        fi
        SUDO="sudo -n"
    fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
fi

if "$PY" -c "import playwright.sync_api" 2>/dev/null; then
    echo "playwright: installed"
else
    "$PY" -m pip install "playwright>=1.40"
fi
