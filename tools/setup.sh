#!/usr/bin/env bash
# Installs everything a developer of this checkout needs into .venv (idempotent): the brain
# (npc-brain, with the protocol code generated from proto/) and the lab (npc-lab, npc_lab/
# pyproject.toml), both editable, the pinned Godot 4.6 web runtime (verified by its npm integrity
# hash) and, for the real-engine tests only, Debian's Chromium. A game needs none of this: it
# installs the npc-brain wheel (README, "Install").
#   tools/setup.sh               brain + lab + tests, with Chromium for the real-engine tests
#   tools/setup.sh --no-browser  the same without Chromium (the Godot tests then skip)
#   tools/setup.sh --runtime     brain + lab only (what `tools/run.sh` needs: `npc-lab play` builds the
#                                town for your own browser), no test tools, no Chromium
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=1
want_browser=1
for arg in "$@"; do
  case "$arg" in
    --runtime) want_tests=0; want_browser=0 ;;
    --no-browser) want_browser=0 ;;
    *) echo "setup: unknown option $arg (--runtime, --no-browser)" >&2; exit 2 ;;
  esac
done

python3 -m venv .venv
# Every third-party package from a universal lock (locks/, written by tools/constraints.py), each file
# checked against the hashes it lists: nothing is resolved here and nothing else is downloaded. The
# build tools our setup.py needs (it generates the protocol code) are in it, pip too.
lock="locks/dev.txt"
[ "$want_tests" = 1 ] || lock="locks/brain-embedded-llm.txt"
.venv/bin/python -m pip install -q --require-hashes --no-deps -r "$lock"

# llama-cpp-python (the embedded LLM) is published as source only: compiling llama.cpp takes
# minutes, so its wheel is built once per machine, from the sdist whose hash locks/llama-cpp-python.txt
# pins, in its own isolated build environment (which brings scikit-build-core and CMake from PyPI),
# and kept in a wheelhouse that every clone on this machine reuses. NPC_BRAIN_WHEELHOUSE moves it; CI
# points it at an empty folder to prove the build from nothing.
# llama.cpp is compiled for this CPU's instruction set: the wheelhouse is keyed by the CPU, so a
# home folder carried to another machine never installs a wheel that would crash there.
cpu_key="$(grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null | sha256sum | cut -c1-12)"
wheelhouse="${NPC_BRAIN_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/npc-brain/wheels}/$(uname -m)-$cpu_key"
mkdir -p "$wheelhouse"
llama_spec="$(grep -m1 -o '^llama-cpp-python==[^ ]*' locks/llama-cpp-python.txt)"
llama_version="${llama_spec#*==}"
# The wheel is py3-none (llama.cpp is loaded through ctypes): one build serves every Python here.
if ! ls "$wheelhouse"/llama_cpp_python-"$llama_version"-*.whl >/dev/null 2>&1; then
  echo "setup: building $llama_spec once for this machine (compiles llama.cpp: ~5 min on 2 cores)"
  started=$SECONDS
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" .venv/bin/pip wheel -q --no-deps --require-hashes -w "$wheelhouse" \
    -r locks/llama-cpp-python.txt
  echo "setup: built $llama_spec in $((SECONDS - started)) s, kept in $wheelhouse"
fi
.venv/bin/pip install -q --no-deps --no-index --find-links "$wheelhouse" "$llama_spec"

# Our own packages, editable, without their dependencies (the lock brought them) and without
# isolation (setup.py generates the protocol code with the build tools above); pip check then
# proves the lock held everything they and theirs require.
.venv/bin/pip install -q --no-deps --no-build-isolation -e . -e ./npc_lab
.venv/bin/pip check

if [ "$want_browser" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing Debian's chromium (for the Godot web runtime)"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
if [ -f tools/godot_web.py ]; then
  .venv/bin/python tools/godot_web.py runtime
fi
if [ "$want_tests" = 1 ] && [ -f tests/static_table.py ]; then
  # What the suite would otherwise make while it runs: the tests' embedding table, distilled from
  # MiniLM (tests/static_table.py, ~30 CPU-s, once; else the first brain test builds it while the
  # other workers' brain tests wait on its lock), and the sources' compiled modules (else every
  # worker compiles them at once).
  .venv/bin/python -m tests.static_table >/dev/null
  .venv/bin/python -m compileall -q -j 0 brain_server npc_lab tools tests >/dev/null
fi
echo "setup: done (.venv)"
