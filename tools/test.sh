#!/usr/bin/env bash
# Installs everything and runs the whole test suite, the real-engine Godot tests included.
#   tools/test.sh [PYTEST_ARGS...]         the full suite (what CI runs)
#   tools/test.sh --fast [PYTEST_ARGS...]  the fast tier for the edit loop: unit and in-process tests (no
#                                          slow, Godot or brain-process test); installs only without .venv
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fast" ]; then
  shift
  [ -x .venv/bin/pytest ] || tools/setup.sh
  exec .venv/bin/pytest -m "not slow and not godot and not brain" "$@"
fi
tools/setup.sh
exec .venv/bin/pytest "$@"
