"""Brain processes for the tests, forked from one that has imported the brain already.

Starting `python -m brain_server.cli serve` cost 4.7 CPU-s, 2.3 of them importing the server
(openai's client alone is 40% of that), and the suite starts a brain for most of its ~200 brain tests.
A zygote, one per test process, imports the server's modules once; each brain is then a fork of it
that takes the test's environment, working directory and arguments and runs the command line as
`python -m` would (the same code from the same files: what a start does after its imports, the store,
the embedder and the LLM probe, is unchanged). The brain is the zygote's child, not the test's: the
test holds a `Forked` in place of a `subprocess.Popen` (a pidfd for its end, its exit code from the
zygote). The brain's own processes (embedder, store) are started as before.

Only tests use it (tests/conftest.py's BrainProcess); the sim, benchmarks and packaging tests start
brains as a user does."""

from __future__ import annotations

import atexit
import importlib
import json
import os
from pathlib import Path
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from typing import IO

from tests.waits import wait_until

# What the brain imports before it serves: imported once, shared by every fork (copy-on-write).
PRELOAD = ("brain_server.server", "brain_server.cli")
# How long a brain's end may wait for the zygote to say its exit code (it reaps at once).
STATUS_WAIT_S = 10.0


class Forked:
    """The part of subprocess.Popen the tests use, for a brain forked by the zygote."""

    def __init__(self, pid: int, stdout: IO[str], status: Path) -> None:
        self.pid, self.stdout, self._status = pid, stdout, status
        self.returncode: int | None = None
        self._pidfd = os.pidfd_open(pid)

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._pidfd], [], [], 0)[0]:
            self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self._pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"brain {self.pid}", timeout or 0)
            self._ended()
        assert self.returncode is not None
        return self.returncode

    def _ended(self) -> None:
        """Its exit code, as the zygote wrote it on reaping it."""
        wait_until(self._status.exists, what=f"the zygote said how brain {self.pid} ended", limit_s=STATUS_WAIT_S,
                   poll_s=0.01)
        self.returncode = int(self._status.read_text())
        os.close(self._pidfd)

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            signal.pidfd_send_signal(self._pidfd, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The test process's side: starts the zygote once, asks it for each brain."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._statuses = Path(tempfile.mkdtemp(prefix="npc-brain-zygote-"))
        self._count = 0

    def _started(self) -> socket.socket:
        if self._sock is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
            self._proc = subprocess.Popen([sys.executable, "-m", "tests.zygote", str(theirs.fileno())],
                                          cwd=Path(__file__).resolve().parent.parent, env=env,
                                          pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL)
            theirs.close()
            self._sock = ours
            atexit.register(self.close)
        return self._sock

    def fork(self, module: str, args: list[str], env: dict[str, str], cwd: Path) -> Forked:
        """`python -m module *args` with env and cwd, its stdout and stderr one text pipe."""
        read, write = os.pipe()
        try:
            pid, status = self._fork(module, args, env, cwd, [write])
        except RuntimeError:
            os.close(read)
            raise
        return Forked(pid, open(read, encoding="utf-8", errors="replace"), status)  # noqa: SIM115

    def run(self, module: str, args: list[str], env: dict[str, str], cwd: Path,
            timeout: float) -> subprocess.CompletedProcess[str]:
        """`python -m module *args` to its end, as `subprocess.run(capture_output=True, text=True)`
        tells it (its stdout and stderr apart): the command-line tests' processes, without an
        interpreter's start and the server's imports each (issue 40: `check` and `serve` import
        the server, 2.3 CPU-s; `config` and `--help` import none, and cost as much forked)."""
        out, err = os.pipe(), os.pipe()
        try:
            pid, status = self._fork(module, args, env, cwd, [out[1], err[1]])
        except RuntimeError:
            os.close(out[0])
            os.close(err[0])
            raise
        forked = Forked(pid, open(os.devnull), status)  # noqa: SIM115 (closed below)
        texts: dict[int, str] = {}

        def read(fd: int) -> None:
            with open(fd, encoding="utf-8", errors="replace") as pipe:
                texts[fd] = pipe.read()

        readers = [threading.Thread(target=read, args=(fd,), daemon=True) for fd in (out[0], err[0])]
        for reader in readers:
            reader.start()
        command = [sys.executable, "-m", module, *args]
        try:
            code = forked.wait(timeout)
        except subprocess.TimeoutExpired:
            forked.kill()
            forked.wait()
            raise subprocess.TimeoutExpired(command, timeout) from None
        finally:
            forked.stdout.close()
        for reader in readers:
            reader.join()
        return subprocess.CompletedProcess(command, code, texts[out[0]], texts[err[0]])

    def _fork(self, module: str, args: list[str], env: dict[str, str], cwd: Path,
              fds: list[int]) -> tuple[int, Path]:
        """A fork running the module, writing to fds (stdout and stderr, or one for both), which are
        closed here: its pid, and the file its exit code will be written to."""
        with self._lock:
            self._count += 1
            status = self._statuses / f"{self._count}.exit"
            sock = self._started()
            request = {"module": module, "argv": [module, *args], "env": env, "cwd": str(cwd), "status": str(status)}
            socket.send_fds(sock, [json.dumps(request).encode()], fds)
            for fd in fds:
                os.close(fd)
            answer = sock.recv(64)
        if not answer:
            raise RuntimeError("the brain zygote is gone (tests/zygote.py)")
        return int(answer), status

    def close(self) -> None:
        if self._sock is not None and self._proc is not None:
            self._sock.close()  # the zygote ends when it reads the end of its socket
            self._proc.wait(30)
            self._sock = None


ZYGOTE = Zygote()


def _serve(sock: socket.socket) -> dict:
    """The zygote: forks a brain for each request; returns only in a fork, with its request."""
    statuses: dict[int, str] = {}

    def reap(*_: object) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            if path := statuses.pop(pid, None):
                Path(path + ".part").write_text(str(os.waitstatus_to_exitcode(status)))
                os.replace(path + ".part", path)

    signal.signal(signal.SIGCHLD, reap)
    while True:
        data, fds, _, _ = socket.recv_fds(sock, 1 << 20, 2)
        if not data:
            return {}
        request = json.loads(data)
        sys.stdout.flush()
        sys.stderr.flush()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # not reaped before its status path is known
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            sock.close()
            os.dup2(fds[0], 1)
            os.dup2(fds[-1], 2)
            for fd in fds:
                os.close(fd)
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            sys.argv = request["argv"]
            return request
        for fd in fds:
            os.close(fd)
        statuses[pid] = request["status"]
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        sock.send(str(pid).encode())


if __name__ == "__main__":  # the zygote: python -m tests.zygote FD
    for name in PRELOAD:
        importlib.import_module(name)
    if forked := _serve(socket.socket(fileno=int(sys.argv[1]))):
        # As `python -m` runs it: the module itself afresh as __main__ (what it imports stays loaded),
        # without runpy's warning, on stderr, that it was imported already.
        sys.modules.pop(forked["module"], None)
        runpy.run_module(forked["module"], run_name="__main__", alter_sys=True)
