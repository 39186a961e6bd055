"""How responsive the brain itself is: time spent inside each RPC, how late its event loop runs,
and how long the garbage collector stops it. A game that sees a slow Decide can tell from these
(GetUsage) whether the brain was slow or the network and the machine around it were."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
import gc
import time
from typing import Any

KEPT = 2000  # recent samples per series, for the percentiles
LOOP_TICK_S = 0.05  # how often the loop watcher asks to wake
# The loop's lateness is read over the last minute of ticks: KEPT ticks were 100 s and more, so a
# minute's load was read together with whatever came before it (a town's day plans landing).
LATE_KEPT = round(60 / LOOP_TICK_S)
GC_PAUSE_MS = 1.0  # collections this long or longer are counted, of any generation
STRAINED_MS = 10.0  # the loop's recent lateness (moving average) above which the process is strained
# The share of a core the loop's thread recently used above which the process is strained: Python runs
# one thread at a time, and the transports' thread needs the interpreter for every call it answers.
STRAINED_CPU = 0.6


def percentile(values: Iterable[float], q: float) -> float:
    """The q-quantile (nearest rank) of the values; 0 when there are none."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True)
class Spread:
    """Count, p50, p99 and max of a series of milliseconds (recent samples)."""

    count: int
    p50_ms: float
    p99_ms: float
    max_ms: float


class Series:
    """Recent samples of one measure, and how many there were in all and their sum (/metrics)."""

    def __init__(self, kept: int = KEPT) -> None:
        self.count = 0
        self.total_ms = 0.0
        self.samples_ms: deque[float] = deque(maxlen=kept)

    def add(self, ms: float) -> None:
        self.count += 1
        self.total_ms += ms
        self.samples_ms.append(ms)

    def spread(self) -> Spread:
        kept = list(self.samples_ms)
        return Spread(self.count, percentile(kept, 0.5), percentile(kept, 0.99), max(kept, default=0.0))


class Vitals:
    """RPC times by method, event-loop lateness and collector pauses of this process. `clock` and
    `cpu_time` (the loop's thread's CPU seconds) are the real ones unless a test gives its own."""

    def __init__(self, *, clock: Callable[[], float] = time.perf_counter,
                 cpu_time: Callable[[], float] = time.thread_time) -> None:
        self._clock, self._cpu_time = clock, cpu_time
        self.rpcs: dict[str, Series] = {}
        self.loop_late = Series(LATE_KEPT)
        self.gc_pauses = Series()
        # Every collection's CPU (the collecting thread's): what it walked, which the machine's load
        # hardly changes, where a pause's wall time on a busy machine includes waits for a core.
        self.gc_cpu = Series()
        # The same by generation: young collections walk ~a thousand objects, middle ones what
        # survived the young ones since, full ones every object not frozen (collector.py).
        self.gc_cpu_by_generation = (Series(), Series(), Series())
        self._late_ms = 0.0  # moving average of the loop's lateness, over the last ~second
        self._cpu = 0.0  # moving average of the share of a core the loop's thread used, over the last ~second
        self._gc_started = self._gc_cpu_started = 0.0
        self._watcher: asyncio.Task[None] | None = None

    def timed(self, name: str, method: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
        """`method` timed from the core's first line to its answer (decoding and the wire excluded)."""
        series = self.rpcs.setdefault(name, Series())

        async def call(request: Any) -> Any:
            started = self._clock()
            try:
                return await method(request)
            finally:
                series.add((self._clock() - started) * 1000)

        return call

    def start(self) -> None:
        """Watch the running loop and the collector until `stop`."""
        if self._watcher is None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch_loop(), name="vitals")
            gc.callbacks.append(self._on_gc)

    async def stop(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            await asyncio.gather(self._watcher, return_exceptions=True)
            self._watcher = None
            gc.callbacks.remove(self._on_gc)

    async def _watch_loop(self) -> None:
        while True:
            asked, used = self._clock(), self._cpu_time()
            await asyncio.sleep(LOOP_TICK_S)
            woke = self._clock()
            late = max(0.0, (woke - asked - LOOP_TICK_S) * 1000)
            self.loop_late.add(late)
            self._late_ms = 0.8 * self._late_ms + 0.2 * late
            self._cpu = 0.8 * self._cpu + 0.2 * (self._cpu_time() - used) / (woke - asked)

    def strained(self) -> bool:
        """The event loop has recently been waking late, or its thread has kept the interpreter busy:
        everything it serves waits, and so do the calls the transports' thread answers (llm/scheduler.py)."""
        return self._late_ms > STRAINED_MS or self._cpu > STRAINED_CPU

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started, self._gc_cpu_started = self._clock(), self._cpu_time()
            return
        cpu = (self._cpu_time() - self._gc_cpu_started) * 1000
        self.gc_cpu.add(cpu)
        self.gc_cpu_by_generation[info["generation"]].add(cpu)
        if (paused := (self._clock() - self._gc_started) * 1000) >= GC_PAUSE_MS:
            self.gc_pauses.add(paused)
