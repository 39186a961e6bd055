#!/usr/bin/env bash
# Installs everything and runs the whole test suite, the real-engine Godot tests included.
#   tools/test.sh [PYTEST_ARGS...]         the full suite (what CI runs)
#   tools/test.sh --fast [PYTEST_ARGS...]  the fast tier for the edit loop: unit and in-process tests (no
#                                          slow, Godot or brain-process test); installs only without .venv
# Both run in one round on pytest-xdist workers (PARALLEL below; `-n 0` in PYTEST_ARGS runs in one
# process): most tests wait on brain processes, the fake LLM's latency and game clocks, so more
# workers than cores pay. tests/tiers.py keeps a module's shared fixture on one worker, runs at most
# two Godot engines at once and starts the longest tests first (as long as they took last time, in
# .pytest_cache). No test checks a time against a number (tests/test_no_clocks.py), so the suite's
# own load cannot turn one red, and a failure is not run again: it is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# Compiled modules are kept (__pycache__, ignored by git) even where the environment says
# PYTHONDONTWRITEBYTECODE: else every worker, brain and lab process compiles the sources again (a
# worker's collection took 8 CPU-s so, 3.4 with them kept).
export PYTHONDONTWRITEBYTECODE=""
PARALLEL=(-n 4 --dist loadgroup --no-loadscope-reorder)
if [ "${1:-}" = "--fast" ]; then
  shift
  [ -x .venv/bin/pytest ] || tools/setup.sh
  exec .venv/bin/pytest "${PARALLEL[@]}" -m "not slow and not godot and not brain" "$@"
fi
tools/setup.sh
# A run past RUN_LIMIT_S is stopped (its summary printed): a worker that crashed leaves xdist's
# loadgroup waiting for its tests for ever.
RUN_LIMIT_S="${NPC_BRAIN_RUN_LIMIT_S:-3600}"
if command -v timeout >/dev/null; then
  status=0
  timeout --signal=INT --kill-after=60 "$RUN_LIMIT_S" .venv/bin/pytest "${PARALLEL[@]}" "$@" || status=$?
  [ "$status" = 124 ] && echo "tools/test.sh: the run went past $RUN_LIMIT_S s and was stopped (did a worker crash?)"
  exit "$status"
fi
exec .venv/bin/pytest "${PARALLEL[@]}" "$@"
