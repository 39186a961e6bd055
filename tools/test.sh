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
# them (light on the cores: they wait on the fake LLM and the clock). When only such tests failed (a few:
# their checks measure time), they run once more, alone, and are named: the suite's load can take it.
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
# A round that runs past ROUND_LIMIT_S is stopped (its summary printed): a worker that crashed leaves
# xdist's loadgroup waiting for its tests for ever.
ROUND_LIMIT_S="${NPC_BRAIN_ROUND_LIMIT_S:-2400}"
round() {
  if command -v timeout >/dev/null; then
    timeout --signal=INT --kill-after=60 "$ROUND_LIMIT_S" .venv/bin/pytest "$@" && return 0
    local rc=$?
    [ "$rc" = 124 ] && echo "tools/test.sh: the round ran past $ROUND_LIMIT_S s and was stopped (did a worker crash?)"
    return "$rc"
  fi
  .venv/bin/pytest "$@"
}
failures="$(mktemp)"
trap 'rm -f "$failures"' EXIT
export NPC_BRAIN_FAILURES="$failures"
status=0
round "${PARALLEL[@]}" -m "not godot and not timing" "$@" || status=$?
timed=0
round "${TIMED[@]}" -m "godot or timing" "$@" || timed=$?
# 5: no test of that round was selected (PYTEST_ARGS named other tests)
[ "$status" = 5 ] && status=0
[ "$timed" = 5 ] && timed=0
# A `timing` or engine test checks how much happens within a time, and the suite's own load can take
# that time from it: when only such tests failed (at most RETRIED), they run once more, alone, named.
RETRIED=3
if [ "$status$timed" != 00 ] && [ "$status" -le 1 ] && [ "$timed" -le 1 ] && [ -s "$failures" ] \
    && ! grep -qv '^timing ' "$failures"; then
  mapfile -t again < <(sed 's/^timing //' "$failures" | sort -u)
  if [ "${#again[@]}" -le "$RETRIED" ]; then
    echo "tools/test.sh: ${#again[@]} test(s) that measure time failed under the suite's load; once more, alone:"
    printf '  %s\n' "${again[@]}"
    unset NPC_BRAIN_FAILURES
    .venv/bin/pytest -n 0 "${again[@]}" && status=0 timed=0
  fi
fi
[ "$status" != 0 ] && exit "$status"
exit "$timed"
