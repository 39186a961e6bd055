"""The transports' own event loop, on a thread of its own.

The mind's loop runs a town's thinking as well as its answers: with a thousand NPCs it has
thousands of callbacks ready at a time, and a call waited its turn there at every step of its way
(accepted, read, handled, answered). Measured at 1,000 NPCs: the handler took 0.6 ms (p99 3 ms)
and the loop woke at most 0.3-0.6 s late, yet calls took seconds end to end. Here the servers
accept, decode, guard and answer on a loop that does nothing else, and hand each call's core
method to the mind's loop in one step (`core_methods`), where it runs without waiting behind itself.
A Decide does not wait for the mind's loop at all: it is answered here, from the NPC as it is, and
hands what it changed to the mind's loop afterwards (`foreground.Home`, `Mind.decide`).

The loop is uvloop's where it is installed (uvicorn[standard] installs it on Linux and macOS):
libuv accepts, reads and writes without the interpreter, where asyncio's own loop makes each of
those a system call from Python that gives the interpreter up and waits to get it back from the
mind's thread. Measured at 1,000 NPCs, Connect alone: p99 27.7 and 27.9 ms against 44-72 ms.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
import threading
from typing import Any, TypeVar

try:
    import uvloop
except ImportError:  # Windows: asyncio's own loop
    uvloop = None  # type: ignore[assignment]  # the module is absent there: None says so

from brain_server.runtime.foreground import run_on

T = TypeVar("T")


class EdgeLoop:
    """An event loop running on its own thread until `close`."""

    def __init__(self) -> None:
        self.loop = uvloop.new_event_loop() if uvloop else asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="transports", daemon=True)
        self._thread.start()

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """`work` run on this loop, awaited from another."""
        return await run_on(self.loop, work)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()
