#!/usr/bin/env bash
# Quick start: install everything, build the Godot town for the browser, and run the brain on
# its embedded defaults (Qdrant Edge in ./data, local MiniLM embeddings, and SmolLM2 unless
# NPC_BRAIN_LLM_BASE_URL points at a real model). Open the printed URL to watch the NPCs.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --runtime
.venv/bin/python tools/godot_web.py build .cache/web
echo "run: open http://${NPC_BRAIN_HOST:-127.0.0.1}:${NPC_BRAIN_HTTP_PORT:-8080}/ to watch the town (Ctrl-C stops)"
exec .venv/bin/npc-brain serve --web-root .cache/web "$@"
