"""Brain processes for the tests, forked from one that has imported the brain already.

Starting `python -m brain_server.cli serve` cost 4.7 CPU-s, 2.3 of them importing the server
(openai's client alone is 40% of that), and the suite starts a brain for most of its ~200 brain tests.
A zygote, one per test process, imports the server's modules once; each brain is then a fork of it
that takes the test's environment, working directory and arguments and runs the command line as
`python -m` would (the same code from the same files: what a start does after its imports, the store,
the embedder and the LLM probe, is unchanged). The brain is the zygote's child, not the test's: the
test holds a `Forked` in place of a `subprocess.Popen` (a pidfd for its end, its exit code from the
zygote). A test's brain asks the zygote for its own processes too (`children=True`: the embedder and
the store, `brain_server.runtime.pipes.start_process`), forked with their modules imported (issue 40:
a start of both cost 1.4 CPU-s, 0.5 so); they run the same code over the same pipes, as the zygote's
children, not the brain's, and end at the end of their input as before. The lab's brains keep theirs
(the load test reads a brain's children as its embedder and store). What the zygote loaded is frozen out of
the collector's sight before it forks (`gc.freeze`, as a brain's `settle_collector` freezes what it
loaded), and it holds the tests' static table (tests/static_table.py) read once: a brain's start and
stop cost 0.9 CPU-s with the table, 0.4 so (issue 40).

Only tests use it (tests/conftest.py's BrainProcess); the sim, benchmarks and packaging tests start
brains as a user does."""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import os
from pathlib import Path
import runpy
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from typing import IO, Any

from tests.waits import wait_until

# What the brain and its processes import before they serve: imported once, shared by every fork
# (copy-on-write). Not onnxruntime: its import starts a thread that a fork lacks, and a forked brain
# that had it crashed as it exited; the embedder imports it (0.05 CPU-s) and loads its model.
PRELOAD = ("brain_server.server", "brain_server.cli", "brain_server.llm.minilm",
           "brain_server.persistence.storage.process")
# How long a brain's end may wait for the zygote to say its exit code: it reaps at once, but on a
# machine three simulations and the suite kept at a load of 20 it took over 10 s (a guard, not a bar).
STATUS_WAIT_S = 60.0


class Forked:
    """The part of subprocess.Popen the tests use, for a brain forked by the zygote."""

    def __init__(self, pid: int, stdout: IO, status: Path, stdin: IO[bytes] | None = None) -> None:
        self.pid, self.stdout, self.stdin, self._status = pid, stdout, stdin, status
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
        wait_until(self._status.exists, what=f"the zygote said how brain {self.pid} ended ({ZYGOTE.health()})",
                   limit_s=STATUS_WAIT_S, poll_s=0.01)
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
        self._statuses = Path()  # made with the zygote, removed at its close
        self._count = 0

    def _started(self) -> socket.socket:
        if self._sock is None:
            self._statuses = Path(tempfile.mkdtemp(prefix="npc-brain-zygote-"))
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
            with (self._statuses / "zygote.log").open("ab") as log:
                self._proc = subprocess.Popen([sys.executable, "-m", "tests.zygote", str(theirs.fileno())],
                                              cwd=Path(__file__).resolve().parent.parent, env=env,
                                              pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stderr=log)
            theirs.close()
            self._sock = ours
            atexit.register(self.close)
        return self._sock

    def health(self) -> str:
        """What a failed wait on the zygote says of it: running, or how it ended and what it wrote."""
        if self._proc is None or self._proc.poll() is None:
            return "the zygote is running"
        log = (self._statuses / "zygote.log").read_text(errors="replace")[-2000:]
        return f"the zygote ended with {self._proc.returncode}; its stderr ends: {log}"

    def fork(self, module: str, args: list[str], env: dict[str, str], cwd: Path, *, children: bool = False) -> Forked:
        """`python -m module *args` with env and cwd, its stdout and stderr one text pipe; with
        `children`, the processes it starts are forked by the zygote too."""
        read, write = os.pipe()
        try:
            pid, status = self._fork(module, args, env, cwd, [write], children=children)
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
              fds: list[int], *, children: bool = False) -> tuple[int, Path]:
        """A fork running the module, writing to fds (stdout and stderr, or one for both), which are
        closed here: its pid, and the file its exit code will be written to."""
        with self._lock:
            sock = self._started()  # first: it makes the folder the status is written in
            self._count += 1
            status = self._statuses / f"{self._count}.exit"
            request = {"module": module, "argv": [module, *args], "env": env, "cwd": str(cwd), "status": str(status),
                       "children": children}
            socket.send_fds(sock, [json.dumps(request).encode()], fds)
            for fd in fds:
                os.close(fd)
            answer = sock.recv(64)
        if not answer:
            raise RuntimeError("the brain zygote is gone (tests/zygote.py)")
        return int(answer), status

    def close(self) -> None:
        """Ends the zygote and removes its folder (every test process left one in /tmp: 1,001 of
        them in two days of suites)."""
        if self._sock is not None and self._proc is not None:
            self._sock.close()  # the zygote ends when it reads the end of its socket
            self._proc.wait(30)
            self._sock = None
            shutil.rmtree(self._statuses, ignore_errors=True)


ZYGOTE = Zygote()


def _children_through(channel: socket.socket, status: str) -> None:
    """In a brain forked with `children`: its processes started by the zygote over `channel`, each
    a `Forked` with its stdin and stdout pipes (a command other than `python -m`/`-c` as before)."""
    from brain_server.runtime import pipes

    started = pipes.start_process
    lock, count = threading.Lock(), [0]

    def start(command: list[str]) -> Any:
        if command[0] != sys.executable or command[1] not in ("-m", "-c"):
            return started(command)
        stdin, stdout = os.pipe(), os.pipe()
        with lock:
            count[0] += 1
            request = {"command": command[1:], "env": dict(os.environ), "cwd": os.getcwd(),
                       "status": f"{status}.child-{count[0]}"}
            socket.send_fds(channel, [json.dumps(request).encode()], [stdin[0], stdout[1], 2])
            answer = channel.recv(64)
        os.close(stdin[0])
        os.close(stdout[1])
        if not answer:
            os.close(stdin[1])
            os.close(stdout[0])
            raise OSError("the brain zygote is gone (tests/zygote.py)")
        return Forked(int(answer), open(stdout[0], "rb"), Path(request["status"]),  # noqa: SIM115
                      stdin=open(stdin[1], "wb"))  # noqa: SIM115

    pipes.start_process = start


def _serve(sock: socket.socket) -> dict:
    """The zygote: forks a brain for each request of the test, and a process for each request of a
    brain forked with `children`; returns only in a fork, with what it is to run."""
    statuses: dict[int, str] = {}
    brains: list[socket.socket] = []  # the zygote's end of each living brain's channel

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
    # A signal may be delivered to a thread the preloaded modules started, which leaves the main
    # thread in select() with the reaping not run until the next request: a brain's end went
    # unsaid for 60 s once in the suite. The wakeup fd wakes the main thread whichever receives it.
    woken, wake = socket.socketpair()
    woken.setblocking(False)
    wake.setblocking(False)
    signal.set_wakeup_fd(wake.fileno())
    while True:
        for source in select.select([sock, *brains, woken], [], [])[0]:
            if source is woken:
                with contextlib.suppress(BlockingIOError):
                    while woken.recv(512):
                        pass
                reap()
                continue
            try:
                data, fds, _, _ = socket.recv_fds(source, 1 << 20, 3)
            except ConnectionResetError:  # a brain that ended as it asked
                data, fds = b"", []
            if not data:
                if source is sock:
                    return {}
                brains.remove(source)  # that brain has ended
                source.close()
                continue
            request = json.loads(data)
            channel = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) if request.get("children") else None
            sys.stdout.flush()
            sys.stderr.flush()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # not reaped before its status path is known
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                woken.close()
                wake.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
                for other in (sock, *brains):
                    other.close()
                return _forked(request, fds, channel)
            for fd in fds:
                os.close(fd)
            if channel is not None:
                channel[1].close()
                brains.append(channel[0])
            statuses[pid] = request["status"]
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            _answer(source, pid)


def _answer(source: socket.socket, pid: int) -> None:
    """Tells who asked the pid of its fork. A brain killed while it asked for a process is not there
    to read it: the zygote goes on (its channel reads as ended next), and the process, whose pipes
    that brain held, reads the end of its input and ends."""
    try:
        source.send(str(pid).encode())
    except (BrokenPipeError, ConnectionResetError):
        pass


def _forked(request: dict, fds: list[int], channel: tuple[socket.socket, socket.socket] | None) -> dict:
    """In a fork: its pipes, directory and environment set; what it is to run. A brain's process
    (a request with a "command") reads fds[0] and writes fds[1], fds[2] its stderr."""
    if "command" in request:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
    else:
        os.dup2(fds[0], 1)
        os.dup2(fds[-1], 2)
    for fd in fds:
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    if "command" in request:  # ["-m", module, *args] or ["-c", code, *args]
        flag, target, *args = request["command"]
        sys.argv = [target if flag == "-m" else "-c", *args]
        return {"module": target} if flag == "-m" else {"code": target}
    if channel is not None:
        channel[0].close()
        _children_through(channel[1], request["status"])
    sys.argv = request["argv"]
    return request


def _open_static_table() -> None:
    """The tests' static table (tests/static_table.py) and its tokenizer read once, if built, for
    every brain forked to embed with it (static_embed's _OPENED: 0.25 CPU-s a start otherwise)."""
    from brain_server.llm.minilm import model_files
    from brain_server.llm.static_embed import STATIC_DIM, StaticModel, table_path
    from tests.static_table import TABLE_DIR

    if table_path(TABLE_DIR, *model_files(None, None), STATIC_DIM).is_file():
        StaticModel(TABLE_DIR)


if __name__ == "__main__":  # the zygote: python -m tests.zygote FD
    for name in PRELOAD:
        importlib.import_module(name)
    _open_static_table()
    # What the zygote holds now lives as long as each fork: out of the collector's sight (as the
    # brain's settle_collector does with what it loaded), the forks' collections and their exits'
    # walk only their own objects and leave the shared pages unwritten (issue 40: a fork's
    # collection and exit walked 124k inherited objects, ~0.2 CPU-s, in each brain, store and embedder).
    gc.collect()
    gc.freeze()
    if (forked := _serve(socket.socket(fileno=int(sys.argv[1])))) and "code" in forked:
        exec(compile(forked["code"], "<string>", "exec"), {"__name__": "__main__"})  # as `python -c` runs it
    elif forked:
        # As `python -m` runs it: the module itself afresh as __main__ (what it imports stays loaded),
        # without runpy's warning, on stderr, that it was imported already.
        sys.modules.pop(forked["module"], None)
        runpy.run_module(forked["module"], run_name="__main__", alter_sys=True)
