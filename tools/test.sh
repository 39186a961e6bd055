#!/usr/bin/env bash
# Installs everything and runs the whole test suite, the real-engine Godot tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
exec .venv/bin/pytest "$@"
