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
