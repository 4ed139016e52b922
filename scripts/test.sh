#!/usr/bin/env bash
# The whole test suite: lint, the engine contract check, and every pytest test (browser tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/ensure_chromium.sh
scripts/ensure_system_libs.sh
echo "== ruff check"
.venv/bin/ruff check .
echo "== ruff format --check"
.venv/bin/ruff format --check --quiet . || { echo "Run 'make fmt' to format." >&2; exit 1; }
if [ -x ../shared/tools/contract-check ] || [ -f ../shared/tools/contract-check ]; then
  echo "== engine contract check (../shared/tools/contract-check)"
  .venv/bin/python ../shared/tools/contract-check
fi
echo "== pytest"
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-2}" "$@"
