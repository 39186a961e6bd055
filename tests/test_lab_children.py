"""A lab run stopped by a signal takes its processes with it: the brain (and the brain's own store
and embedder), the stand-in model and the fake endpoint it started. SIGTERM, as `timeout`, `kill`
and a CI's cancel send it, runs no `finally` in the lab process: before, all of them kept running."""

from __future__ import annotations

import json
import os
from pathlib import Path
import signal
import subprocess
import sys

import pytest

from brain_server.runtime import parent
from tests.static_table import brain_env
from tests.waits import wait_until
from tools.loadtest import process_tree

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the brain's children")

# A lab run: starts what `npc-lab sim --stand-in-llm` and `npc-lab bench realtime` start, says their
# pids, and waits to be stopped.
LAB = """import json, sys, time
from npc_lab.realtime import FakeProcess
from npc_lab.sim.brain import BrainProcess
from npc_lab.standin_openai import StandInProcess
fake = FakeProcess(0.0).start()
stand_in = StandInProcess(seed=0, mood="hard").start()
brain = BrainProcess({"data_dir": sys.argv[1], "llm_base_url": fake.base_url, "llm_model": "fake-model"}).start()
print(json.dumps([fake.proc.pid, stand_in.proc.pid, brain.proc.pid]), flush=True)
time.sleep(600)
"""


@pytest.mark.slow
@pytest.mark.brain
def test_a_lab_run_stopped_by_sigterm_leaves_no_process_behind(tmp_path: Path) -> None:
    lab = subprocess.Popen([sys.executable, "-c", LAB, str(tmp_path / "data")], stdout=subprocess.PIPE, text=True,
                           env=brain_env(dict(os.environ)))
    started: list[int] = []
    try:
        assert lab.stdout is not None
        fake, stand_in, brain = json.loads(lab.stdout.readline())
        started += [fake, stand_in, *process_tree(brain)]
        assert len(started) >= 4 and all(parent.alive(p) for p in started)  # the brain's store at least
        lab.send_signal(signal.SIGTERM)
        lab.wait(60)
        assert lab.returncode == -signal.SIGTERM  # no handler: as a user's run stopped so ends
        wait_until(lambda: not any(parent.alive(p) for p in started),
                   what=f"every process the lab started ending after it: {started}", limit_s=120)
    finally:
        for pid in [lab.pid, *started]:  # what failed the test is not left running
            if parent.alive(pid):
                os.kill(pid, signal.SIGKILL)
        lab.wait()
