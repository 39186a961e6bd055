"""Framed messages over a child process's pipes: how the brain talks to the processes it starts
for work that would otherwise hold its interpreter (`llm/minilm.py`, `storage/process.py`).
Each message is its length (4 bytes, big-endian) and its bytes; a reader blocked on a pipe does
not hold Python's interpreter, so the brain's other threads run meanwhile."""

from __future__ import annotations

import os
from typing import IO


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


def replies() -> IO[bytes]:
    """In a child: its stdout for replies, with anything else printed sent to stderr instead."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return out
