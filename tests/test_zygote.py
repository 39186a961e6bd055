"""The tests' brains are forks of one process that imported the server once (tests/zygote.py): each
serves, is the zygote's child rather than the test's, and ends as a process started with Popen does
(SIGKILL -9, a stop 0), so a crash-and-restart test reads the same codes."""

from __future__ import annotations

from pathlib import Path
import signal
import socket

from tests.clients import Clients
from tests.town import world_json
from tests.zygote import ZYGOTE, _answer


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[1])


def test_a_forked_brain_serves_and_ends_like_a_process(brain_factory) -> None:
    brain = brain_factory()
    assert ZYGOTE._proc is not None and _parent(brain.proc.pid) == ZYGOTE._proc.pid
    clients = Clients(brain)
    assert clients.grpc("RegisterWorld", world_json())["sectorCount"]
    brain.kill()
    assert brain.proc.poll() == -signal.SIGKILL
    brain.restart()  # on the same ports: the clients reconnect
    assert brain.proc.poll() is None and clients.grpc("RegisterWorld", world_json())["sectorCount"]
    clients.close()
    brain.stop()
    assert brain.proc.returncode == 0


def test_the_zygote_goes_on_when_a_brain_ends_before_its_answer() -> None:
    """A brain killed while it asked for its embedder or store is gone when the zygote answers; the
    zygote, which reaps every test brain, must not end with it (issue 40: a run's last brains then
    never had their exit codes written)."""
    zygote_end, brain_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    brain_end.close()
    _answer(zygote_end, 12345)
    zygote_end.close()


def test_a_test_process_leaves_no_zygote_folder_behind(tmp_path: Path) -> None:
    """A process that imports the zygote and never forks makes no folder; one that forked removes
    its folder at exit (every test process left one in /tmp: 1,001 in two days of suites)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", "import tests.zygote"], cwd=root, env=env, check=True, timeout=60)
    assert list(tmp_path.iterdir()) == []
    forks = ("import sys; from pathlib import Path; from tests.zygote import ZYGOTE; "
             "done = ZYGOTE.run('json.tool', ['--help'], {}, Path('.'), timeout=60); "
             "assert done.returncode == 0 and ZYGOTE._statuses.exists(), done; print(ZYGOTE._statuses)")
    done = subprocess.run([sys.executable, "-c", forks], cwd=root, env=env, timeout=120, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith(str(tmp_path)) and list(tmp_path.iterdir()) == []
    assert not list(root.glob("*.exit")), "a fork's exit code was written outside the zygote's folder"
