"""A loop of its own for the `openai` client's whole completions.

Building a request, httpx's sending and receiving and parsing the answer run on this thread, so
none of their callbacks holds the loop that records Decides and perceives (at 1,000 NPCs in view
they were 30% of that loop's samples: docs/benchmarks.md). The interpreter lock is still shared:
what this gains is the mind's loop's lateness, not CPU. Started at the first completion, so an
`LLM` never asked (a test's, a probe's, a zygote's before it forks) starts no thread."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
import threading
from typing import Any, TypeVar

T = TypeVar("T")


class ClientLoop:
    """One event loop on a daemon thread; `run` awaits a coroutine there from any other loop."""

    def __init__(self, name: str = "npc-brain-llm") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, name=self._name, daemon=True)
                self._thread.start()
            return self._loop

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    async def run(self, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """What the coroutine `make()` returns, run on this loop (made there, so nothing of it
        touches the caller's loop); cancelling the caller cancels it there."""

        async def there() -> T:
            return await make()

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(there(), self._started()))

    async def close(self, closing: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """`closing()` run where the client lived (on the caller's loop if it never started), then
        the loop stopped and its thread joined."""
        if self._loop is None or self._thread is None:
            await closing()
            return
        await self.run(closing)
        loop, thread = self._loop, self._thread
        loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join)
        loop.close()
        with self._lock:
            self._loop = self._thread = None
