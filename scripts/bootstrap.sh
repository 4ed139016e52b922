#!/usr/bin/env bash
# Create or update .venv at the repository root and install the project with its dev tools, at the versions
# pinned in requirements.lock (`make lock` writes it). Re-installs only when pyproject.toml or the lock changed.
# A lock older than pyproject.toml (someone added a dependency and did not run `make lock`) still installs:
# the pinned versions as constraints, the new dependency at its newest version, and a warning to run
# `make lock`.
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
project_hash=$(sha256sum pyproject.toml | cut -c1-64)
lock_hash=""
[ -f requirements.lock ] && lock_hash=$(sed -n 's/^# pyproject-sha256: //p' requirements.lock | head -1)
if [ -f requirements.lock ] && [ "$lock_hash" != "$project_hash" ]; then
  echo "WARNING: requirements.lock is older than pyproject.toml: run 'make lock' and commit requirements.lock." >&2
  echo "         (Installing with the lock as constraints, so only the new dependencies float.)" >&2
fi
stamp=.venv/.installed-$({ cat pyproject.toml; [ ! -f requirements.lock ] || cat requirements.lock; } | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  echo "== Installing the project into .venv (first time takes a minute or two; log: var/install.log)"
  mkdir -p var
  pip=(.venv/bin/python -m pip install --disable-pip-version-check)
  if [ ! -f requirements.lock ]; then
    install=("${pip[@]}" -e '.[dev]')
  elif [ "$lock_hash" = "$project_hash" ]; then  # the lock is complete: install it, then the project itself
    install=("${pip[@]}" -r requirements.lock)
  else
    install=("${pip[@]}" -c requirements.lock -e '.[dev]')
  fi
  if ! { "${pip[@]}" --upgrade pip && "${install[@]}" && "${pip[@]}" --no-deps -e .; } > var/install.log 2>&1; then
    grep -v "is ignored: it is neither" var/install.log | tail -20 >&2
    echo "Installing the project failed (full log: var/install.log)." >&2
    exit 1
  fi
  rm -f .venv/.installed-*
  touch "$stamp"
fi
