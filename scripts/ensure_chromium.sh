#!/usr/bin/env bash
# The browser tests drive Debian's chromium through Playwright (Playwright's own browser download does not work
# here). Install it when missing; say clearly what to do when that is impossible.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
echo "== Installing Debian's chromium for the browser tests"
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "chromium is missing and this user cannot install packages: run 'apt-get install chromium' as root." >&2
    exit 1
  fi
fi
if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null; }; then
  echo "Could not install chromium with apt-get; install Debian's 'chromium' package and run the tests again." >&2
  exit 1
fi
command -v chromium >/dev/null
