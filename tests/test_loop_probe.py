"""The loop probe (tools/loop_probe): a process started with it on PYTHONPATH names the coroutine
that held its loop, and the reader tells it."""

from __future__ import annotations

import json
import os
from pathlib import Path
import subprocess
import sys

from tools.loop_probe.__main__ import report

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = """
import asyncio, time

async def holds_the_loop():
    deadline = time.thread_time() + 0.03
    while time.thread_time() < deadline:  # 30 ms of CPU in one turn
        pass

async def quick():
    await asyncio.sleep(0)

async def main():
    await asyncio.gather(holds_the_loop(), *(quick() for _ in range(20)))

asyncio.run(main())
"""


def test_the_probe_names_the_coroutine_that_held_the_loop(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tools" / "loop_probe"), str(ROOT)]),
           "LOOP_PROBE_OUT": str(tmp_path / "probe")}
    subprocess.run([sys.executable, "-c", PROGRAM], env=env, check=True, timeout=60)
    (written,) = tmp_path.glob("probe.*.json")
    data = json.loads(written.read_text())
    # By the CPU each long turn took: on a busy machine a short turn may be preempted past 5 ms of wall.
    held = [name for _, cpu, name, _ in data["long"] if cpu >= 25]
    assert held == ["task:holds_the_loop"], data["long"]
    runs = {name: count for name, _, _, count in data["total"]}
    assert runs["task:quick"] >= 20  # each quick() stepped at least once
    assert "1 x task:holds_the_loop: wall median" in report(data, top=5)


def test_without_its_prefix_the_probe_does_nothing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "LOOP_PROBE_OUT"}
    env["PYTHONPATH"] = str(ROOT / "tools" / "loop_probe")
    out = subprocess.run([sys.executable, "-c", "import asyncio; print(asyncio.events.Handle._run.__module__)"],
                         env=env, check=True, timeout=60, capture_output=True, text=True, cwd=tmp_path)
    assert out.stdout.strip() == "asyncio.events"
