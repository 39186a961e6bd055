"""The container recipe names real settings and real files. Building the image and running the
stack need a Docker daemon and the network, which the test machines have not: docs/deployment.md's
"Containers" section says what was checked (`docker compose config`) and what was not."""

from __future__ import annotations

from pathlib import Path
import re

import yaml

from brain_server.config import Settings
from brain_server.settings_cli import env_name

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = {env_name(name) for name in Settings.model_fields}


def test_every_npc_brain_variable_in_the_recipe_is_a_setting() -> None:
    for path in (ROOT / "Dockerfile", ROOT / "compose.yaml"):
        named = set(re.findall(r"\bNPC_BRAIN_[A-Z0-9_]+", path.read_text()))
        assert named and named <= SETTINGS, f"{path.name}: not settings: {named - SETTINGS}"


def test_compose_runs_the_brain_with_qdrant_and_ollama() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert {"brain", "qdrant", "ollama"} <= services.keys()
    brain = services["brain"]["environment"]
    assert brain["NPC_BRAIN_QDRANT_URL"] == "http://qdrant:6333"
    assert brain["NPC_BRAIN_LLM_BASE_URL"] == "http://ollama:11434/v1"
    assert "NPC_BRAIN_AUTH_TOKEN" in brain  # off loopback the brain refuses to start without one
    major, minor = map(int, re.search(r"qdrant/qdrant:v(\d+)\.(\d+)", services["qdrant"]["image"]).groups())
    assert (major, minor) >= (1, 14), "formula queries need Qdrant 1.14"


def test_the_image_copies_what_the_install_needs() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for needed in ("constraints.txt", "pyproject.toml", "setup.py", "README.md", "LICENSE", "proto", "brain_server"):
        assert re.search(rf"^COPY [^\n]*\b{re.escape(needed)}\b", dockerfile, re.MULTILINE), needed
        assert (ROOT / needed).exists()
    assert "-c constraints.txt" in dockerfile
