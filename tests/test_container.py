"""The container recipe names real settings and real files, installs what it copies from the hashed
locks, and its Qdrant health check answers as Qdrant's /readyz does. Building the image and running
the stack need a Docker daemon and the network, which the test machines have not (a Docker CLI at
most): these tests parse the Dockerfile and compose.yaml instead, and docs/deployment.md's
"Containers" section says what was checked and what was not."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
import re
import subprocess
import threading

from packaging.requirements import Requirement
import pytest
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


def test_compose_pins_its_images_and_starts_the_brain_once_qdrant_is_ready() -> None:
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    for name, service in services.items():
        if "image" in service and name != "brain":
            image = re.sub(r"\$\{\w+:-([^}]+)\}", r"\1", service["image"])  # the default of ${VAR:-default}
            assert re.search(r":v?\d+\.\d+\.\d+$", image), f"{name}: {image} is not a release"
    assert services["brain"]["depends_on"]["qdrant"] == {"condition": "service_healthy"}
    assert services["qdrant"]["healthcheck"]["test"][:3] == ["CMD", "bash", "-c"]


class _Ready(BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        code = self.status if self.path == "/readyz" else 404
        self.send_response(code)
        self.end_headers()
        self.wfile.write(b"all shards are ready" if code == 200 else b"not ready")

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("status", [200, 503])
def test_qdrant_s_health_check_passes_only_on_a_ready_answer(status: int) -> None:
    """The health check's own bash line (compose's $$ unescaped), against an HTTP server on loopback
    that answers /readyz as Qdrant does, ready or not; and against a port nobody listens on."""
    [line] = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]["qdrant"]["healthcheck"]["test"][3:]
    handler = type("Ready", (_Ready,), {"status": status})
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]
        done = subprocess.run(["bash", "-c", line.replace("$$", "$").replace("6333", str(port))],
                              capture_output=True, text=True, timeout=30)
        server.shutdown()
    assert (done.returncode == 0) == (status == 200), done.stderr
    closed = subprocess.run(["bash", "-c", line.replace("$$", "$").replace("6333", str(port))],
                            capture_output=True, text=True, timeout=30)
    assert closed.returncode != 0


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continued lines joined, comments left out), in order."""
    text = re.sub(r"\\\n", " ", "\n".join(line for line in (ROOT / "Dockerfile").read_text().splitlines()
                                          if not line.lstrip().startswith("#")))
    return [(m.group(1).upper(), m.group(2)) for m in re.finditer(r"^(\w+)\s+(.*)$", text, re.MULTILINE)]


def _copied() -> set[str]:
    """What the build stage copies from the build context (not --from another stage)."""
    return {source for kind, rest in _instructions() if kind == "COPY" and not rest.startswith("--from")
            for source in rest.split()[:-1]}


def test_the_image_copies_what_it_installs_and_installs_what_it_copies() -> None:
    """What building the brain's wheel reads (tests/test_packaging.py builds it from exactly these),
    its licence, and the locks: no more (the lab, the tests, the Godot project stay out) and no less."""
    from tests.test_packaging import SOURCES

    assert _copied() == {*SOURCES, "LICENSE", "locks"}
    assert all((ROOT / name).exists() for name in _copied())
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert patterns[0] == "*"  # the build context holds only what is let in again
    assert {line[1:].rstrip("/") for line in patterns if line.startswith("!")} == _copied()


def test_the_image_installs_from_the_hashed_locks_only() -> None:
    """Every pip install in the image takes its third-party packages from a lock, checked against its
    hashes, and the brain itself without dependencies; the lock each EXTRAS value picks exists and
    holds what pyproject.toml requires for it. (No Docker daemon here: the build itself is untested.)"""
    from tools.constraints import groups, pins

    installs = [rest for kind, rest in _instructions() if kind == "RUN" for rest in re.split(r"&&|;", rest)
                if "pip install" in rest]
    assert installs
    for command in installs:
        assert "--no-deps" in command, command
        assert ("--require-hashes" in command) == (" -r " in command), command
        assert " -c " not in command and "--upgrade" not in command, command
    own = [c for c in installs if " -r " not in c]
    assert own and all(re.search(r'"\.\$\{EXTRAS:\+\[\$EXTRAS\]\}"', c) for c in own) and "pip check" in "".join(
        rest for kind, rest in _instructions() if kind == "RUN")
    locks = [re.search(r'-r "?([^"\s]+)"?', c).group(1) for c in installs if " -r " in c]
    assert locks == ["locks/brain${EXTRAS:+-$EXTRAS}.txt", "locks/llama-cpp-python.txt"]
    extras = groups()
    # The image's extras: what the brain runs with (not the tools to test, measure or bundle it).
    for extra in ("", *(e for e in extras if e not in ("build", "core", "test", "lab", "bundle")
                        and not e.startswith("lab["))):
        lock = ROOT / "locks" / (f"brain-{extra}.txt" if extra else "brain.txt")
        locked = {r.name.lower() for r in pins(lock)} | ({"llama-cpp-python"} if extra else set())
        wanted = {Requirement(spec).name.lower() for group in ("build", "core", *([extra] if extra else []))
                  for spec in extras[group]}
        assert wanted <= locked, f"{lock.name} lacks {wanted - locked}"
