#!/usr/bin/env bash
# WeasyPrint needs Pango; pdftotext/pdftoppm (poppler-utils) check the PDFs in the tests.
set -euo pipefail
missing=()
ldconfig -p 2>/dev/null | grep -q libpango-1.0 || missing+=(libpango-1.0-0 libpangoft2-1.0-0)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "== Installing system packages: ${missing[*]}"
SUDO=""; [ "$(id -u)" != 0 ] && SUDO="sudo"
{ $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; } || {
  echo "Could not install ${missing[*]}; install them with apt-get and run again." >&2; exit 1; }
