#!/usr/bin/env bash
# Create or update .venv at the repository root and install the project with its dev tools.
# Re-installs only when pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "Python 3.11 or newer is needed (found $("$PYTHON" --version 2>&1))." >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "== Creating .venv"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  echo "== Installing the project into .venv (first time takes a minute or two; log: var/install.log)"
  mkdir -p var
  if ! { .venv/bin/python -m pip install --disable-pip-version-check --upgrade pip \
         && .venv/bin/python -m pip install --disable-pip-version-check -e '.[dev]'; } > var/install.log 2>&1; then
    grep -v "is ignored: it is neither" var/install.log | tail -20 >&2
    echo "Installing the project failed (full log: var/install.log)." >&2
    exit 1
  fi
  rm -f .venv/.installed-*
  touch "$stamp"
fi
