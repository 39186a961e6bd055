"""Shared fixtures: the fake OpenAI-compatible endpoint and real brain server processes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
import os
from pathlib import Path
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.retrieve import RetrievalWeights
from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.embeddings import MiniLMEmbedder
from brain_server.prompts import PromptLibrary
from brain_server.storage import open_store
from brain_server.storage.base import MemoryStore
from tools.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent
READY = re.compile(r"npc-brain ready grpc=(\S+) http=(\S+)")


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
def stream(fake_llm: FakeOpenAI, store: MemoryStore, minilm: MiniLMEmbedder) -> MemoryStream:
    """A memory stream in-process: embedded Qdrant in tmp_path, local MiniLM, the fake LLM."""
    llm = LLM(base_url=fake_llm.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(), backoff_s=0.01)
    return MemoryStream(store, minilm, llm, RetrievalWeights())


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


@dataclass
class BrainProcess:
    """`npc-brain serve` in a subprocess on free loopback ports."""

    env: dict[str, str]
    args: list[str]
    proc: subprocess.Popen[str] | None = None
    grpc_target: str = ""
    http_url: str = ""
    output: list[str] = field(default_factory=list)

    def start(self, timeout_s: float = 60) -> BrainProcess:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "brain_server.cli", "serve", *self.args], cwd=ROOT, env=self.env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        ready = threading.Event()

        def pump(stream: object) -> None:
            for line in stream:  # type: ignore[attr-defined]
                self.output.append(line.rstrip())
                if match := READY.search(line):
                    self.grpc_target, self.http_url = match.group(1), match.group(2)
                    ready.set()

        threading.Thread(target=pump, args=(self.proc.stdout,), daemon=True).start()
        deadline = time.monotonic() + timeout_s
        while not ready.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("brain did not start:\n" + "\n".join(self.output[-40:]))
        return self

    def kill(self) -> None:
        """SIGKILL: no chance to flush or close anything."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self) -> BrainProcess:
        """SIGKILL, then start again on the same ports, as a supervisor would (clients reconnect)."""
        self.kill()
        self.output.clear()
        self.env["NPC_BRAIN_GRPC_PORT"] = self.grpc_target.rsplit(":", 1)[1]
        self.env["NPC_BRAIN_HTTP_PORT"] = self.http_url.rsplit(":", 1)[1]
        return self.start()


@pytest.fixture
def brain_factory(fake_llm: FakeOpenAI, tmp_path: Path) -> Iterator:
    """`brain_factory(web_root=..., **settings)` starts a brain against the fake LLM and a fresh data dir."""
    started: list[BrainProcess] = []

    def factory(**settings: object) -> BrainProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
        env.update({
            "NPC_BRAIN_LLM_BASE_URL": fake_llm.base_url, "NPC_BRAIN_LLM_MODEL": "fake-model",
            "NPC_BRAIN_GRPC_PORT": "0", "NPC_BRAIN_HTTP_PORT": "0",
            "NPC_BRAIN_DATA_DIR": str(tmp_path / f"data{len(started)}"), "NPC_BRAIN_LOG_JSON": "true",
        })
        env.update({f"NPC_BRAIN_{k.upper()}": str(v) for k, v in settings.items()})
        brain = BrainProcess(env=env, args=[]).start()
        started.append(brain)
        return brain

    yield factory
    for brain in started:
        brain.stop()
        print(f"--- brain output ({brain.grpc_target}) ---", *brain.output[-60:], sep="\n")
