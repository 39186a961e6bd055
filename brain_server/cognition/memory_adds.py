"""Memories stored for many NPCs in one store call (`Adds`), while the brain thinks in the
background; the memory stream (`memory_stream.MemoryStream.adds`) writes through it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from brain_server.model.memory import MemoryNode
from brain_server.persistence.storage.base import MemoryStore

ADD_GATHER_S = 0.05  # thinking in the background: how long a memory waits for others to share its store call


# A caller's memories waiting for the next store call: its store, nodes, vectors, and when they are written.
_Waiting = tuple[MemoryStore, Sequence[MemoryNode], Sequence[Sequence[float]], asyncio.Future[None]]


class Adds:
    """Memories stored for many NPCs in one store call: each call waits `gather_s` for others (0:
    none, as in lockstep, where no other comes meanwhile); what comes while one is being written
    goes in the next. Each caller's memories are durable when its `add` returns, as before. A
    thousand NPCs in view stored ~80 times a second, a node or two each, and a call's own cost
    (a thread's turn and the store process's) was most of it. The store is the caller's (the
    stream's, which may be replaced): a batch holds one call per store."""

    def __init__(self, gather_s: float = 0.0) -> None:
        self.gather_s = gather_s
        self._waiting: list[_Waiting] = []
        self._writer: asyncio.Task[None] | None = None

    async def add(self, store: MemoryStore, nodes: Sequence[MemoryNode], vectors: Sequence[Sequence[float]]) -> None:
        if not self.gather_s:
            await asyncio.to_thread(store.add, nodes, vectors)
            return
        done = asyncio.get_running_loop().create_future()
        entry = (store, nodes, vectors, done)
        self._waiting.append(entry)
        if self._writer is None:
            self._writer = asyncio.create_task(self._write())
        try:
            await done
        except asyncio.CancelledError:  # a job cancelled (its NPC reset) stores nothing it had not begun to
            self._waiting = [e for e in self._waiting if e is not entry]
            raise

    async def _write(self) -> None:
        try:
            while self._waiting:
                await asyncio.sleep(self.gather_s)
                taken, self._waiting = self._waiting, []
                by_store: dict[int, list[_Waiting]] = {}
                for entry in taken:
                    by_store.setdefault(id(entry[0]), []).append(entry)
                for batch in by_store.values():
                    error: Exception | None = None
                    try:
                        await asyncio.to_thread(batch[0][0].add, [n for b in batch for n in b[1]],
                                                [v for b in batch for v in b[2]])
                    except Exception as exc:  # each caller's own error, as its own call would have raised
                        error = exc
                    for *_, done in batch:
                        if done.done():
                            continue
                        if error is None:
                            done.set_result(None)
                        else:
                            done.set_exception(error)
        finally:
            self._writer = None
