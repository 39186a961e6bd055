#!/usr/bin/env bash
# Quick start: install the brain and the lab, build the Godot town for the browser, and run the brain on
# its embedded defaults (Qdrant Edge in ./data, local MiniLM embeddings, and SmolLM2 unless
# NPC_BRAIN_LLM_BASE_URL points at a real model). Open the printed URL to watch the NPCs.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --runtime
exec .venv/bin/npc-lab play "$@"
