"""Shared fixtures: the fake OpenAI-compatible endpoint and real brain server processes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping
import contextlib
import gc
import os
from pathlib import Path
import sys
from typing import Any

import pytest

from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.retrieve import RetrievalWeights
from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.embeddings import MiniLMEmbedder
from brain_server.persistence.storage import open_store
from brain_server.persistence.storage.base import MemoryStore
from brain_server.prompts import PromptLibrary
from npc_lab.fake_openai import FakeOpenAI
from npc_lab.sim.brain import BrainProcess as SimBrainProcess
from tests.clients import Clients
from tests.static_table import brain_env
from tests.town import spawn_json, world_json
from tests.zygote import ZYGOTE

ROOT = Path(__file__).resolve().parent.parent
# The engine's pages draw once a second, not every frame (tools/godot_draw.gd): software WebGL
# was half the suite's CPU, and each draw of the Ville still costs ~0.15 CPU-s (docs/benchmarks.md).
# Set before any test builds a page; a value already set is kept.
os.environ.setdefault("GODOT_WEB_DRAW_HZ", "1")
# The test tiers (tests/tiers.py), each test's CPU seconds (tests/cpu.py), model clients closed
# before the next test (tests/clients_closed.py); pytester runs a pytest
# inside a test (tests/test_tiers.py).
pytest_plugins = ["tests.tiers", "tests.cpu", "tests.clients_closed", "pytester"]


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def store(tmp_path: Path, minilm: MiniLMEmbedder) -> Iterator[MemoryStore]:
    """The embedded Qdrant store in tmp_path."""
    s = open_store(Settings(data_dir=tmp_path / "store"), minilm.dim)
    yield s
    s.close()


@pytest.fixture
def stream(fake_llm: FakeOpenAI, store: MemoryStore, minilm: MiniLMEmbedder) -> Iterator[MemoryStream]:
    """A memory stream in-process: embedded Qdrant in tmp_path, local MiniLM, the fake LLM."""
    llm = LLM(base_url=fake_llm.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(), backoff_s=0.01)
    yield MemoryStream(store, minilm, llm, RetrievalWeights())
    # Its tests run it on several `asyncio.run` loops, all closed now: closing its pooled connections
    # fails, but the client is marked closed first (tests/clients_closed.py).
    with contextlib.suppress(RuntimeError):
        asyncio.run(llm.close())


Run = Callable[[Callable[[MemoryStream], Awaitable[Any]]], Any]


@pytest.fixture
def run(fake_llm: FakeOpenAI, store: MemoryStore, minilm: MiniLMEmbedder) -> Run:
    """Runs a scenario in one event loop with a memory stream like the server's (the client is loop-bound)."""

    def runner(scenario: Callable[[MemoryStream], Awaitable[Any]]) -> Any:
        async def main() -> Any:
            llm = LLM(base_url=fake_llm.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(),
                      max_attempts=2, backoff_s=0.01, timeout_s=5.0)
            try:
                return await scenario(MemoryStream(store, minilm, llm, RetrievalWeights()))
            finally:
                await llm.close()

        return asyncio.run(main())

    return runner


class BrainProcess(SimBrainProcess):
    """The sim's brain process with a clean NPC_BRAIN_* environment, keeping all its output (tests
    read it), and able to crash and come back; forked from a process that imported the brain once
    (tests/zygote.py: a brain's start took half the CPU again without it), as are its embedder and store."""

    def __init__(self, settings: Mapping[str, object]) -> None:
        super().__init__(settings, inherit_env=False, keep_output=True)

    def spawn(self) -> Any:
        module, *args = self.command[2:]  # [python, "-m", "brain_server.cli", "serve"]
        return ZYGOTE.fork(module, args, brain_env(self.env), self.cwd, children=True)


@pytest.fixture(scope="session", autouse=True)
def lab_brains_forked() -> Iterator[None]:
    """The brains the lab starts in a test's process (the sim's, the benchmarks', the evaluation's,
    the load tests') are forks of the zygote too, as the tests' own are: the same `brain_server.cli
    serve` with the same environment, without an interpreter's start and the server's imports
    (issue 40: 1.4 CPU-s a start, 0.35 forked). Another command (an installed `npc-brain`) still
    starts as a process of its own."""
    own = SimBrainProcess.spawn
    served = [sys.executable, "-m", "brain_server.cli", "serve"]

    def spawn(brain: SimBrainProcess) -> Any:
        if brain.command != served:
            return own(brain)
        return ZYGOTE.fork(served[2], served[3:], brain_env(brain.env), brain.cwd)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SimBrainProcess, "spawn", spawn)
        yield


@pytest.fixture
def minilm_brains(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lab's brains this test starts (a sim's, a load test's) embed with MiniLM, as a user's do by
    default, not with the tests' static table (tests/static_table.py): for the tests of what
    retrieval carries and of the MiniLM process. A brain_factory brain asks with embedder="minilm"."""
    monkeypatch.setenv("NPC_BRAIN_EMBEDDER", "minilm")


@pytest.fixture
def brain_factory(fake_llm: FakeOpenAI, tmp_path: Path) -> Iterator:
    """`brain_factory(web_root=..., **settings)` starts a brain against the fake LLM and a fresh data dir.

    Its NPCs think before answering (BACKGROUND_THINKING=false), so a test reads each Decide's
    consequences in its answer; tests of the real-time path pass background_thinking=True."""
    yield from _brains(fake_llm, tmp_path)


@pytest.fixture(scope="module")
def module_brain_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """brain_factory for the tests of a module that only read what a brain answers (errors, headers,
    reflection): its brains and their fake LLM serve all of them (issue 40: a brain per test cost
    the suite a start each). tests/tiers.py counts its tests as `brain` tests too."""
    with FakeOpenAI() as fake:
        yield from _brains(fake, tmp_path_factory.mktemp("brains"))


def _brains(fake_llm: FakeOpenAI, folder: Path) -> Iterator:
    started: list[BrainProcess] = []

    def factory(**settings: object) -> BrainProcess:
        brain = BrainProcess({"llm_base_url": fake_llm.base_url, "llm_model": "fake-model",
                              "data_dir": folder / f"data{len(started)}", "background_thinking": False,
                              **settings}).start()
        started.append(brain)
        return brain

    yield factory
    for brain in started:
        brain.stop()
        print(f"--- brain output ({brain.grpc_target}) ---", *brain.output[-60:], sep="\n")


@pytest.fixture
def clients(brain_factory):
    """A brain with the Ville registered and Isabella spawned, over both transports (a test file may
    define its own `clients` for another town)."""
    c = Clients(brain_factory())
    c.grpc("RegisterWorld", world_json())
    c.grpc("SpawnNpc", spawn_json())
    yield c
    c.close()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection loaded (the brain's modules, the tests') lives as long as the test process:
    frozen out of the collector's sight, as a brain freezes what it loaded (runtime/collector.py)."""
    gc.collect()
    gc.freeze()
