"""The brain ends with the game that started it (`serve --parent-pid`), and the embedded LLM's
server with its brain: real parent processes, killed with SIGKILL, as a crashing game would be."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
import signal
import subprocess
import sys

import pytest

from brain_server.runtime import parent
from tests.waits import wait_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and a POSIX parent")


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


def test_alive_until_killed_and_a_zombie_counts_as_gone() -> None:
    process = _sleeper()
    assert parent.alive(process.pid)
    process.kill()
    wait_until(lambda: not parent.alive(process.pid), what="the killed process (not reaped yet) seen as gone")
    process.wait()
    assert not parent.alive(process.pid)


def test_watch_calls_back_once_the_process_is_gone() -> None:
    process = _sleeper()
    gone: list[int] = []
    looks = 0

    async def run() -> None:
        nonlocal looks
        watching = asyncio.create_task(parent.watch(process.pid, lambda: gone.append(process.pid), poll_s=0.01))
        while not watching.done():
            looks += 1
            if looks == 5:
                assert not gone  # it still runs: nothing said yet
                process.kill()
            await asyncio.sleep(0.01)

    asyncio.run(run())
    process.wait()
    assert gone == [process.pid] and looks >= 5


# A game: starts a child with its own pid in the child's command line, says the child's pid, waits.
GAME = """import json, os, subprocess, sys
command = [a.replace("{PARENT}", str(os.getpid())) for a in json.loads(sys.argv[1])]
child = subprocess.Popen(command, stdout=open(sys.argv[2], "w"), stderr=subprocess.STDOUT)
print(child.pid, flush=True)
child.wait()
"""


def _game(command: list[str], log: Path) -> tuple[subprocess.Popen[str], int]:
    game = subprocess.Popen([sys.executable, "-c", GAME, json.dumps(command), str(log)], stdout=subprocess.PIPE,
                            text=True)
    assert game.stdout is not None
    return game, int(game.stdout.readline())


def _killed_game_takes(child: int, game: subprocess.Popen[str]) -> None:
    os.kill(game.pid, signal.SIGKILL)
    game.wait()
    wait_until(lambda: not parent.alive(child), what="the child ending after its parent was killed", limit_s=120)


@pytest.mark.slow
@pytest.mark.brain
def test_a_brain_started_with_parent_pid_ends_when_its_game_is_killed(fake_llm, tmp_path: Path) -> None:
    log = tmp_path / "brain.log"
    brain_command = [sys.executable, "-m", "brain_server.cli", "serve", "--parent-pid", "{PARENT}", "--grpc-port", "0",
                 "--http-port", "0", "--data-dir", str(tmp_path / "data"), "--llm-base-url", fake_llm.base_url,
                 "--llm-model", "fake-model"]
    game, brain = _game(brain_command, log)
    wait_until(lambda: "npc-brain ready" in log.read_text(), what="the brain's ready line", limit_s=180)
    assert parent.alive(brain)
    _killed_game_takes(brain, game)
    assert "stopping" in log.read_text()  # a clean stop (the kernel's SIGTERM or the poll, whichever came first)


@pytest.mark.slow
@pytest.mark.brain
def test_a_brain_polls_for_a_game_that_is_not_its_parent(fake_llm, tmp_path: Path) -> None:
    """The path Windows and macOS take, and Linux when a shell stood between game and brain."""
    game = _sleeper()
    log = tmp_path / "brain.log"
    with log.open("w") as out:
        brain = subprocess.Popen([sys.executable, "-m", "brain_server.cli", "serve", "--parent-pid", str(game.pid),
                                  "--grpc-port", "0", "--http-port", "0", "--data-dir", str(tmp_path / "data"),
                                  "--llm-base-url", fake_llm.base_url, "--llm-model", "fake-model"],
                                 stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: "npc-brain ready" in log.read_text(), what="the brain's ready line", limit_s=180)
        assert brain.poll() is None
        game.kill()
        game.wait()
        wait_until(lambda: brain.poll() is not None, what="the brain ending after the game was killed", limit_s=120)
    finally:
        if brain.poll() is None:
            brain.kill()
        brain.wait()
    assert "the process that started the brain is gone" in log.read_text()


def test_the_embedded_llm_server_ends_when_its_brain_is_killed(tmp_path: Path) -> None:
    server = [sys.executable, "-m", "brain_server.llm.embedded", "--port", "0", "--parent-pid", "{PARENT}"]
    game, child = _game(server, tmp_path / "llm.log")
    assert parent.alive(child)
    _killed_game_takes(child, game)


# A brain's part that starts the embedded model: says the model server's pid once it answers, waits.
EMBEDDING_BRAIN = """import time
from brain_server.llm.embedded import EmbeddedLLM
llm = EmbeddedLLM(threads=1).start()
print(llm._process.pid, flush=True)
time.sleep(600)
"""


@pytest.mark.slow
def test_the_embedded_model_started_by_a_brain_ends_when_the_brain_is_killed() -> None:
    brain = subprocess.Popen([sys.executable, "-c", EMBEDDING_BRAIN], stdout=subprocess.PIPE, text=True)
    assert brain.stdout is not None
    server = int(brain.stdout.readline())
    assert parent.alive(server)
    os.kill(brain.pid, signal.SIGKILL)
    brain.wait()
    wait_until(lambda: not parent.alive(server), what="the model server ending after its brain was killed",
               limit_s=120)
