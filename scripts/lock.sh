#!/usr/bin/env bash
# `make lock`: pin every dependency of pyproject.toml (with the dev extra) in requirements.lock, for every
# Python from 3.11 on (uv's universal resolution), and record pyproject.toml's hash in its first line so
# scripts/bootstrap.sh can tell when the lock is older than pyproject.toml. Run it after changing dependencies
# and commit requirements.lock with pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
.venv/bin/python -m pip install --disable-pip-version-check -q "uv>=0.5,<1"
hash=$(sha256sum pyproject.toml | cut -c1-64)
.venv/bin/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 --quiet \
  --no-header --output-file requirements.lock.tmp
{
  echo "# pyproject-sha256: $hash"
  echo "# Pinned by \`make lock\` (scripts/lock.sh, uv pip compile --universal): the versions CI tested."
  echo "# Installed by scripts/bootstrap.sh; regenerate after changing pyproject.toml's dependencies."
  cat requirements.lock.tmp
} > requirements.lock
rm -f requirements.lock.tmp
echo "requirements.lock written ($(grep -c '==' requirements.lock) pinned packages)."
