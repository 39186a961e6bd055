"""Answers before thinking: background work steps aside while the game is being answered.

The brain answers Decides and thinks in one process, and Python runs one of them at a time. A
town asks in bursts (its NPCs start together; steps end on shared minutes), each Decide takes
about a millisecond, and the thinking each one starts (embedding what it saw, retrieval, building
a prompt) takes the interpreter for milliseconds at a time: started at once, it interleaves with
the rest of the burst and the last Decides of the burst wait for it. So background work starts
only once no Decide has been answered for QUIET_S, and never waits more than LONGEST_WAIT_S for
that (a town asking without pause still thinks). Thinking waits for the LLM for seconds anyway;
this adds milliseconds to it.

The same holds for the machine's cores: work that wants all the CPU it can get (embedding text)
runs in a process of its own at a lower priority (`lower_process_priority`), so the threads that
answer the game are scheduled first and it takes what they leave. And a large town's asks are
spread over more game time (`AskSpread`), so that its steps ending together do not ask together.

And a Decide is answered on the transports' own thread, from the NPC as the mind published it,
never waiting for the mind's loop, which is busy with the town's thinking: what the Decide changed
(where the NPC stands, what it saw, the action it was given) goes to the mind's loop afterwards
(`Handoff`). Which call runs on which loop is decided here, in one place (`Home`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from datetime import datetime, timedelta
import os
import sys
import time
from typing import Any, TypeVar
import zlib

HANDOFF_POLL_S = 0.005  # how often the mind's loop looks for Decides' records while they keep coming
QUIET_S = 0.01  # no answer for this long: the burst is over
LONGEST_WAIT_S = 0.25  # background work never waits longer than this for a quiet moment
BACKGROUND_NICENESS = 10  # a process at +10 gets about a tenth of a core that the answering threads want
ASKS_PER_S = 100  # a town asks at most about this many times a wall second at step ends (answering ~2 ms each)
SHORTEST_SPREAD = timedelta(minutes=1)  # a small town's asks spread over a game minute
LONGEST_SPREAD = timedelta(minutes=10)  # the longest an NPC keeps a finished step, however large the town
ACTIVE_S = 60.0  # an NPC that asked within this many wall seconds is part of the town being answered
FASTEST_GAME = 600.0  # game seconds per wall second: faster is a jump in time, not a speed
T = TypeVar("T")


class Foreground:
    """When the game was last answered, and a wait for a quiet moment after it (on `clock`, waiting
    with `sleep`: the real ones unless a test moves its own)."""

    def __init__(self, *, enabled: bool = True, quiet_s: float = QUIET_S, longest_wait_s: float = LONGEST_WAIT_S,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.enabled = enabled  # lockstep runs its thinking inside the Decide: nothing to step aside for
        self.quiet_s = quiet_s
        self.longest_wait_s = longest_wait_s
        self._clock, self._sleep = clock, sleep
        self._answered = float("-inf")

    def now(self) -> float:
        """The time on this foreground's clock (read from any thread)."""
        return self._clock()

    def answering(self, at: float | None = None) -> None:
        """A Decide was answered `at` (a time on `now`'s clock; None: now). On the mind's loop: a
        Decide answered on the transports' thread says when in its `Decided` message."""
        self._answered = max(self._answered, self._clock() if at is None else at)

    async def quiet(self) -> None:
        """Return once no Decide was answered for `quiet_s`, or after `longest_wait_s`."""
        if not self.enabled:
            return
        give_up = self._clock() + self.longest_wait_s
        while (now := self._clock()) < give_up and (left := self._answered + self.quiet_s - now) > 0:
            await self._sleep(min(left, give_up - now))


def lower_process_priority() -> None:
    """Every thread of this process, and those its threads start, yields the CPU to other processes
    (for a process of its own that does background work: libraries it imported may have started
    threads already); elsewhere than Linux, nothing changes. A niceness, not SCHED_IDLE: an idle
    class process gets no CPU at all while others keep the cores busy (an embedded model writing
    an answer on both), and the player's line waits for its embedding (measured: a query not
    embedded in 100 s beside two busy threads)."""
    if sys.platform == "linux":  # relative: a brain run niced keeps its embedder below it
        for tid in os.listdir("/proc/self/task"):
            niceness = min(19, os.getpriority(os.PRIO_PROCESS, int(tid)) + BACKGROUND_NICENESS)
            os.setpriority(os.PRIO_PROCESS, int(tid), niceness)


class AskSpread:
    """When each NPC of a town should ask again, so that the town does not ask at once.

    Plan steps end on shared marks (every hour block ends on the hour), and an NPC asks again when
    its step ends: a town of a thousand would ask within one instant, and the last of them wait
    for all the others. So each NPC asks its own fraction of a spread later (fixed per NPC): a game
    minute for a small town, and for a large one as many game seconds as the town's asks take at
    ASKS_PER_S, at the game's speed (game seconds per wall second, as the Decides show it). A
    lockstep world waits for its answers: there the spread stays a game minute.
    """

    def __init__(self, *, real_time: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.real_time = real_time
        self._clock = clock
        self._asked: dict[str, tuple[float, datetime]] = {}  # npc_id -> (wall, game) of its latest ask
        self._speed = 1.0  # game seconds per wall second, a moving average over the town's asks
        self._active, self._counted = 0, float("-inf")

    def asked(self, npc_id: str, now: datetime) -> None:
        """An NPC asks at game time `now`."""
        wall = self._clock()
        last = self._asked.get(npc_id)
        if last is not None and wall - last[0] >= 0.1 and now >= last[1]:
            speed = (now - last[1]).total_seconds() / (wall - last[0])
            if speed <= FASTEST_GAME:  # faster is a game skipping time (a night slept through), not its speed
                self._speed = 0.95 * self._speed + 0.05 * speed
        self._asked[npc_id] = (wall, now)
        if wall - self._counted >= 1.0:  # counted once a second: a town asks hundreds of times a second
            self._active = sum(wall - w < ACTIVE_S for w, _ in list(self._asked.values()))  # a copy: any thread asks
            self._counted = wall

    def spread(self) -> timedelta:
        """The game time over which the town's asks are spread."""
        if not self.real_time:
            return SHORTEST_SPREAD
        wanted = timedelta(seconds=self._active / ASKS_PER_S * self._speed)
        return min(LONGEST_SPREAD, max(SHORTEST_SPREAD, wanted))

    def offset(self, npc_id: str) -> timedelta:
        """The NPC's own share of the spread (fixed per NPC, whole game seconds)."""
        return timedelta(seconds=zlib.crc32(npc_id.encode()) % int(self.spread().total_seconds()))


class Home:
    """The threading policy: the mind's state lives on the mind's loop (`loop`), and every core
    method runs there, except those answered on the caller's loop (`anywhere`: a Decide, when the
    mind thinks in the background and publishes what a Decide reads). None: no other loop (tests
    and tools that run everything on one)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None, *, anywhere: frozenset[str] = frozenset()) -> None:
        self.loop = loop
        self.anywhere = anywhere
        self._handoff = Handoff(loop) if loop is not None else None

    def here(self) -> bool:
        """Whether the caller runs on the mind's loop."""
        return self.loop is None or asyncio.get_running_loop() is self.loop

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """`work` run on the mind's loop, whichever loop awaits it."""
        return await work if self.loop is None or self.here() else await run_on(self.loop, work)

    def post(self, call: Callable[[], None]) -> None:
        """`call` run on the mind's loop soon, in the order posted (see `Handoff`); at once when here."""
        if self._handoff is None or self.here():
            call()
        else:
            self._handoff.post(call)

    def route(self, name: str, method: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
        """The core method `name` as a transport on a loop of its own calls it."""
        if name in self.anywhere:
            return method

        async def call(request: Any) -> Any:
            async def there() -> Any:
                return await method(request)

            return await self.run(there())

        return call


async def run_on(loop: asyncio.AbstractEventLoop, work: Coroutine[Any, Any, T]) -> T:
    """`work` run on `loop`, awaited from the running one; its result, its errors and its
    cancellation (a caller gone, a deadline passed) cross over both ways."""
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))


class Handoff:
    """Calls handed to an event loop from another thread, without waking it for each.

    Waking a loop writes to its self-pipe, a system call that gives up the interpreter; while the
    loop's thread thinks, getting it back takes up to a switch interval (server.py). Answering a
    town's Decides, the transports' thread would wait that long for each Decide. Here the first
    call wakes the loop, which then looks for more every HANDOFF_POLL_S for as long as calls keep
    coming: a town's steady stream of Decides hands its records over without a system call, each
    at most HANDOFF_POLL_S late. A poll that finds nothing ends it; the next call wakes the loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._calls: deque[Callable[[], None]] = deque()
        self._woken = False

    def post(self, call: Callable[[], None]) -> None:
        """Run `call` on the loop soon, after the calls posted before it."""
        self._calls.append(call)
        if not self._woken:
            self._woken = True
            self.loop.call_soon_threadsafe(self._run)

    def _run(self) -> None:
        if not self._calls:
            self._woken = False  # before looking again: one posted from now on wakes the loop
            if self._calls:  # posted between the two looks, while the flag still said awake
                self._woken = True
                self.loop.call_soon(self._run)
            return
        while self._calls:
            self._calls.popleft()()
        self.loop.call_later(HANDOFF_POLL_S, self._run)
