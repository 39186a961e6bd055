#!/usr/bin/env bash
# Installs everything the project needs into .venv (idempotent): Python packages with the
# protocol code generated from proto/, Debian's Chromium for the real-engine tests, and the
# pinned Godot 4.6 web runtime (verified by its npm integrity hash).
#   tools/setup.sh            product + tests
#   tools/setup.sh --runtime  product only (what `tools/run.sh` needs)
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=1
[ "${1:-}" = "--runtime" ] && want_tests=0

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# Build tools first, so the editable install can generate the protocol code without isolation.
.venv/bin/pip install -q "setuptools>=68" wheel grpcio-tools==1.85.1 protoc-gen-connectrpc==0.13.0
extras="embedded-llm"
[ "$want_tests" = 1 ] && extras="embedded-llm,test"
.venv/bin/pip install -q --no-build-isolation -e ".[${extras}]"

need_chromium=$want_tests
[ -d godot_project ] && need_chromium=1
if [ "$need_chromium" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing Debian's chromium (for the Godot web runtime)"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
if [ -f tools/godot_web.py ]; then
  .venv/bin/python tools/godot_web.py runtime
fi
echo "setup: done (.venv)"
