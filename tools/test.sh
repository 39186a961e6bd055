#!/usr/bin/env bash
# Installs everything and runs the whole test suite, the real-engine Godot tests included.
#   tools/test.sh [PYTEST_ARGS...]         the full suite (what CI runs)
#   tools/test.sh --fast [PYTEST_ARGS...]  the fast tier for the edit loop: unit and in-process tests (no
#                                          slow, Godot, brain-process or timing test); installs only without .venv
# Both run on pytest-xdist workers (PARALLEL below; `-n 0` in PYTEST_ARGS runs in one process): most
# tests wait on brain processes, the fake LLM's latency and game clocks, so more workers than cores
# pay. tests/tiers.py keeps a module's shared fixture on one worker, runs at most two Godot engines
# at once and starts the longest tests first (as long as they took last time, in .pytest_cache).
# The full suite runs in two rounds: everything else on 4 workers, then the tests whose checks
# measure time (the real engine's, `timing`) on 3 workers, so their deadlines do not share the cores
# with the long simulations: two run the engine's two lanes, the third the `timing` tests beside
# them (light on the cores: they wait on the fake LLM and the clock).
set -euo pipefail
cd "$(dirname "$0")/.."
# Compiled modules are kept (__pycache__, ignored by git) even where the environment says
# PYTHONDONTWRITEBYTECODE: else every worker, brain and lab process compiles the sources again (a
# worker's collection took 8 CPU-s so, 3.4 with them kept).
export PYTHONDONTWRITEBYTECODE=""
PARALLEL=(-n 4 --dist loadgroup --no-loadscope-reorder)
TIMED=(-n 3 --dist loadgroup --no-loadscope-reorder)
if [ "${1:-}" = "--fast" ]; then
  shift
  [ -x .venv/bin/pytest ] || tools/setup.sh
  exec .venv/bin/pytest "${PARALLEL[@]}" -m "not slow and not godot and not brain and not timing" "$@"
fi
tools/setup.sh
status=0
.venv/bin/pytest "${PARALLEL[@]}" -m "not godot and not timing" "$@" || status=$?
timed=0
.venv/bin/pytest "${TIMED[@]}" -m "godot or timing" "$@" || timed=$?
# 5: no test of that round was selected (PYTEST_ARGS named other tests)
[ "$status" = 5 ] && status=0
[ "$timed" = 5 ] && timed=0
[ "$status" != 0 ] && exit "$status"
exit "$timed"
