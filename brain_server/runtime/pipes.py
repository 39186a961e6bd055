"""Framed messages over a child process's pipes: how the brain talks to the processes it starts
for work that would otherwise hold its interpreter (`llm/minilm.py`, `persistence/storage/process.py`), and
the child itself (`Child`).
Each message is its length (4 bytes, big-endian) and its bytes; a reader blocked on a pipe does
not hold Python's interpreter, so the brain's other threads run meanwhile."""

from __future__ import annotations

from collections.abc import Callable
import os
import subprocess
import threading
from typing import IO

import structlog

log = structlog.get_logger(__name__)


def send(pipe: IO[bytes], data: bytes) -> None:
    pipe.write(len(data).to_bytes(4, "big") + data)
    pipe.flush()


def receive(pipe: IO[bytes]) -> bytes | None:
    """One framed message, or None at the end of the stream."""
    head = pipe.read(4)
    if len(head) < 4:
        return None
    size = int.from_bytes(head, "big")
    data = pipe.read(size)
    if len(data) < size:
        raise EOFError("the stream ended inside a message")
    return data


def start_process(command: list[str]) -> subprocess.Popen[bytes]:
    """A child's process, spoken to over its stdin and stdout (its stderr is the brain's). The
    tests' brains replace it with a fork of a process that imported the child's modules already
    (tests/zygote.py)."""
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def replies() -> IO[bytes]:
    """In a child: its stdout for replies, with anything else printed sent to stderr instead."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return out


class Child:
    """A process of the brain's own, spoken to over framed pipes: started on first use (it says "R"
    once ready, or why not), started again when it died, the request then asked again once (every
    request must be safe to repeat); it ends at the end of its input, so with its brain."""

    def __init__(self, command: list[str], name: str, unavailable: Callable[[bytes | None], Exception]) -> None:
        self.name = name
        self._command = command
        self._unavailable = unavailable  # the error for a child that would not start or keeps dying
        self._lock = threading.Lock()  # one exchange at a time
        self._process: subprocess.Popen[bytes] | None = None
        self._killed = False  # by `kill`: not started again

    def process_id(self) -> int:
        """Its pid (started if it is not running)."""
        with self._lock:
            return self._started().pid

    def _started(self) -> subprocess.Popen[bytes]:
        if self._killed:
            raise self._unavailable(None)
        if self._process is None or self._process.poll() is not None:
            process = start_process(self._command)
            assert process.stdout is not None
            ready = receive(process.stdout)
            if ready != b"R":
                process.kill()
                process.wait()
                raise self._unavailable(ready)
            self._process = process
        return self._process

    def ask(self, request: bytes) -> bytes:
        """Its reply to `request`."""
        with self._lock:
            for attempt in (1, 2):
                process = self._started()
                assert process.stdin is not None and process.stdout is not None
                try:
                    send(process.stdin, request)
                    reply = receive(process.stdout)
                except (BrokenPipeError, EOFError):
                    reply = None
                if reply is not None:
                    return reply
                if self._killed:
                    break
                log.warning("child_process_restarted", process=self.name, exit_code=process.wait(), attempt=attempt)
        raise self._unavailable(None)

    def kill(self) -> None:
        """End it at once, even while an exchange waits for its reply (a hung process: stopped,
        deadlocked), which then fails; it is not started again."""
        self._killed = True
        if (process := self._process) is not None:
            process.kill()

    def close(self, timeout_s: float) -> None:
        """End it: its input closed, killed if it has not ended within `timeout_s`, or at once if
        an exchange still waits for its reply after `timeout_s` (a hung process)."""
        if not self._lock.acquire(timeout=timeout_s):
            self.kill()
            self._lock.acquire()
        try:
            process, self._process = self._process, None
            if process is None or process.poll() is not None:
                return
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        finally:
            self._lock.release()
