"""The loop probe: which callbacks of a process's main asyncio loop run long, and what they ran.

Put this folder first on PYTHONPATH and set LOOP_PROBE_OUT to a path prefix; every Python process
started so (the brain, its children, the load test) then records, on its main thread's loop:
each callback over LOOP_PROBE_LONG_MS (default 5) with its wall and thread CPU time and what it
stepped (a task's coroutine chain, outermost first, or the callback's name), each callback's
totals, and with LOOP_PROBE_LATE=1 how late the loop woke every 50 ms. LOOP_PROBE_PROFILE=<regex>
runs cProfile inside the callbacks whose name matches. Written at exit and on SIGUSR2 to
<prefix>.<pid>.json (and .prof); `python -m tools.loop_probe <prefix>.*.json` reads them.

Why: a sampling profiler blurs what holds a loop (a thread waiting for the interpreter shows as
time in numpy or a socket call); the loop's own turns name the coroutine that held it. It patches
`asyncio.events.Handle._run` (asyncio's own loop only; uvloop's callbacks are not seen) and costs
two clock reads a callback: a profiling aid, never part of a run that is measured for speed.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import cProfile
import json
import os
import re
import signal
import threading
import time
from typing import Any

OUT = os.environ.get("LOOP_PROBE_OUT")
LONG_S = float(os.environ.get("LOOP_PROBE_LONG_MS", "5")) / 1000
MATCH = os.environ.get("LOOP_PROBE_PROFILE")
TICK_S = 0.05


def _name(handle: asyncio.Handle) -> str:
    callback = handle._callback  # type: ignore[attr-defined]  # what the handle runs: asyncio keeps it there
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        chain, coro = [], owner.get_coro()
        while coro is not None and len(chain) < 40:
            chain.append(getattr(coro, "__qualname__", type(coro).__name__))
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        return "task:" + ">".join(chain if len(chain) <= 5 else [*chain[:2], "...", *chain[-3:]])
    return getattr(callback, "__qualname__", repr(callback))[:120]


class Probe:
    def __init__(self) -> None:
        self.long: list[tuple[float, float, str, float]] = []
        self.wall: collections.Counter[str] = collections.Counter()
        self.cpu: collections.Counter[str] = collections.Counter()
        self.runs: collections.Counter[str] = collections.Counter()
        self.late: list[tuple[float, float]] = []
        self.profile = cProfile.Profile() if MATCH else None
        self._sampling = False
        self._run = asyncio.events.Handle._run

    def install(self) -> None:
        probe = self

        def run(handle: asyncio.Handle) -> None:
            if threading.current_thread() is not threading.main_thread():
                return probe._run(handle)
            if not probe._sampling and os.environ.get("LOOP_PROBE_LATE"):
                probe._sampling = True
                asyncio.get_running_loop().create_task(probe._sample())
            return probe.timed(handle)

        asyncio.events.Handle._run = run  # type: ignore[method-assign]
        atexit.register(self.dump)
        try:
            signal.signal(signal.SIGUSR2, lambda *_: self.dump())
        except (ValueError, OSError):  # not the main thread, or no such signal here
            pass

    def timed(self, handle: asyncio.Handle) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            name = _name(handle)
        except Exception:  # a handle of a shape this does not know: still timed
            name = "?"
        profile = self.profile if self.profile is not None and re.search(MATCH or "", name) else None
        if profile is not None:
            profile.enable()
        try:
            return self._run(handle)
        finally:
            if profile is not None:
                profile.disable()
            took, used = time.perf_counter() - wall, time.thread_time() - cpu
            self.wall[name] += took
            self.cpu[name] += used
            self.runs[name] += 1
            if took > LONG_S:
                self.long.append((round(took * 1000, 2), round(used * 1000, 2), name, time.time()))

    async def _sample(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(TICK_S)
            self.late.append((round(time.time(), 3), round((time.perf_counter() - asked - TICK_S) * 1000, 2)))

    def dump(self) -> None:
        prefix = f"{OUT}.{os.getpid()}"
        if self.profile is not None:
            self.profile.dump_stats(f"{prefix}.prof")
        totals: list[Any] = [(k, round(self.wall[k], 4), round(self.cpu[k], 4), self.runs[k]) for k in self.wall]
        with open(f"{prefix}.json", "w", encoding="utf-8") as out:
            json.dump({"long_ms": LONG_S * 1000, "late": self.late, "long": self.long, "total": totals}, out)


if OUT:
    Probe().install()
