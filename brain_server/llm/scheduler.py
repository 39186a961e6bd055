"""One scheduler per LLM endpoint: every completion waits here for a slot.

A game runs in real time and the endpoint is its bottleneck (a 135M model on 2 cores, or a hosted
API at seconds a call), so what waits is ordered by who notices: a person talking to an NPC
first, then conversations and reactions, then plans needed now, then work ahead, then ratings
and reflection. Within a class NPCs take turns, so one busy NPC cannot starve the others. Work
that has gone stale by the time its turn comes (a block already over, a reaction to someone
who left) is dropped instead of run, and each class's queue is bounded.

What a completion is for is said by the code that starts the work: it passes its `Work` down to
each `LLM.complete(work=...)`, which asks for its slot with it.

The endpoint is not the only thing work shares: handling a completion costs the brain's own CPU
(parsing, embedding, storing), and with a fast endpoint the town's thinking can keep the process
so busy that Decides, answered from memory in a millisecond, wait behind it. While the process
is strained (its event loop wakes late, `strained()`), the classes nobody waits for (AHEAD,
BACKGROUND) run one completion at a time, RETRY_STRAINED_S apart at least (with a fast
endpoint, one at a time back to back would still fill the process).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import IntEnum
import time

import structlog

from brain_server.runtime.vitals import Series

log = structlog.get_logger(__name__)
LOG_EVERY_S = 60.0


class Priority(IntEnum):
    """Who notices the wait, most urgent first."""

    PLAYER = 0  # Talk, Interview, Whisper: a person is waiting for the answer
    SOCIAL = 1  # conversations between NPCs and reactions to what they see
    PLAN_NOW = 2  # a day plan, or the block in progress, that an NPC needs now
    AHEAD = 3  # decomposing blocks that start within the next hour
    BACKGROUND = 4  # importance ratings and reflection


DEFERRABLE = frozenset({Priority.AHEAD, Priority.BACKGROUND})  # slowed down while the process is strained
RETRY_STRAINED_S = 0.1


@dataclass(frozen=True)
class Work:
    """What the completions of a piece of work are for. `stale()` is asked when a slot is granted:
    true means the work is no longer worth doing."""

    priority: Priority
    npc_id: str = ""
    stale: Callable[[], bool] | None = None


class WorkDropped(Exception):  # noqa: N818 - like CancelledError: abandoned, not failed
    """The work was dropped before its completion ran: stale when its turn came, or its queue was
    full. Not LLM trouble: `LLM.complete` lets it through (no fallback answer is made up for work
    nobody wants any more) to `Thinking.run`, which notes it; handlers between re-raise it first."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class ClassStats:
    running: int = 0
    dropped_stale: int = 0
    dropped_full: int = 0
    waits: Series = field(default_factory=Series)  # one per completion that got a slot

    @property
    def served(self) -> int:
        return self.waits.count


@dataclass(frozen=True)
class QueueReport:
    priority: Priority
    waiting: int
    running: int
    served: int
    wait_p50_ms: float
    wait_p99_ms: float
    dropped_stale: int
    dropped_full: int


class Scheduler:
    """`slots` completions run at once; one more is kept for the player class, so a person's
    line never waits behind the town's thinking for longer than the slot takes to be asked."""

    def __init__(self, slots: int, *, max_waiting: int = 2000, player_reserve: int = 1,
                 strained: Callable[[], bool] = lambda: False, clock: Callable[[], float] = time.monotonic) -> None:
        self.slots = slots
        self._clock = clock  # spaces deferrable work apart while strained (a test gives its own)
        self.max_waiting = max_waiting
        self.player_reserve = player_reserve
        self.strained = strained  # the process is too busy: deferrable work one at a time
        self._running = 0
        self._deferred_running = 0  # granted slots of DEFERRABLE classes
        self._deferred_last = -RETRY_STRAINED_S  # when the last of them was granted (clock)
        self._retry: asyncio.TimerHandle | None = None
        # Per class: npc_id -> its waiters in order; NPCs take turns (round robin).
        self._queues: dict[Priority, OrderedDict[str, deque[asyncio.Future[None]]]] = {
            p: OrderedDict() for p in Priority}
        self._waiting = dict.fromkeys(Priority, 0)
        self.stats = {p: ClassStats() for p in Priority}
        self._last_log = time.monotonic()

    @asynccontextmanager
    async def slot(self, work: Work) -> AsyncIterator[None]:
        """Hold one of the endpoint's slots for a completion of `work`."""
        stats = self.stats[work.priority]
        asked = time.perf_counter()
        if self._can_start(work.priority):
            self._take(work.priority)
        else:
            await self._wait(work)
        stats.running += 1
        stats.waits.add((time.perf_counter() - asked) * 1000)
        try:
            if work.stale is not None and work.stale():
                stats.dropped_stale += 1
                log.debug("llm_work_dropped", reason="stale", priority=work.priority.name.lower(), npc_id=work.npc_id)
                raise WorkDropped("stale when its turn came")
            yield
        finally:
            stats.running -= 1
            self._give_back(work.priority)
            self._dispatch()
            self._maybe_log()

    def report(self) -> list[QueueReport]:
        spreads = {p: s.waits.spread() for p, s in self.stats.items()}
        return [QueueReport(priority=p, waiting=self._waiting[p], running=s.running, served=s.served,
                            wait_p50_ms=spreads[p].p50_ms, wait_p99_ms=spreads[p].p99_ms,
                            dropped_stale=s.dropped_stale, dropped_full=s.dropped_full)
                for p, s in self.stats.items()]

    def _can_start(self, priority: Priority) -> bool:
        """A free slot, and nobody of this class or a more urgent one waiting for it (no overtaking)."""
        if any(self._waiting[p] for p in Priority if p <= priority):
            return False
        return self._has_room(priority)

    def _has_room(self, priority: Priority) -> bool:
        limit = self.slots + (self.player_reserve if priority is Priority.PLAYER else 0)
        if priority in DEFERRABLE and self.strained() and (
                self._deferred_running or self._clock() - self._deferred_last < RETRY_STRAINED_S):
            return False
        return self._running < limit

    def _take(self, priority: Priority) -> None:
        self._running += 1
        if priority in DEFERRABLE:
            self._deferred_running += 1
            self._deferred_last = self._clock()

    def _give_back(self, priority: Priority) -> None:
        self._running -= 1
        self._deferred_running -= priority in DEFERRABLE

    async def _wait(self, work: Work) -> None:
        npc_id = work.npc_id
        if self._waiting[work.priority] >= self.max_waiting:
            self.stats[work.priority].dropped_full += 1
            raise WorkDropped(f"the {work.priority.name.lower()} queue is full ({self.max_waiting} waiting)")
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues[work.priority].setdefault(npc_id, deque()).append(granted)
        self._waiting[work.priority] += 1
        self._dispatch()  # held back by strain alone, nothing running would ever look again
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self._give_back(work.priority)  # granted just as it was cancelled: give the slot back
                self._dispatch()
            else:
                self._forget(work.priority, npc_id, granted)
            raise

    def _forget(self, priority: Priority, npc_id: str, granted: asyncio.Future[None]) -> None:
        waiters = self._queues[priority].get(npc_id)
        if waiters is not None and granted in waiters:
            waiters.remove(granted)
            self._waiting[priority] -= 1
            if not waiters:
                del self._queues[priority][npc_id]

    def _dispatch(self) -> None:
        """Grant free slots: the most urgent class first, its NPCs in turn."""
        for priority in Priority:
            queue = self._queues[priority]
            while queue and self._has_room(priority):
                npc_id, waiters = next(iter(queue.items()))
                granted = waiters.popleft()
                self._waiting[priority] -= 1
                del queue[npc_id]
                if waiters:
                    queue[npc_id] = waiters  # to the back of the line
                if granted.done():
                    continue  # cancelled while waiting (its handler finds it gone): the slot goes to the next
                self._take(priority)
                granted.set_result(None)
            if queue:
                if priority in DEFERRABLE and self._running < self.slots and self._retry is None:
                    # Held back by strain, not by the endpoint: look again shortly.
                    self._retry = asyncio.get_running_loop().call_later(RETRY_STRAINED_S, self._retried)
                return  # this class still waits: nothing less urgent may overtake it

    def _retried(self) -> None:
        self._retry = None
        self._dispatch()

    def _maybe_log(self) -> None:
        now = time.monotonic()
        if now - self._last_log < LOG_EVERY_S:
            return
        self._last_log = now
        log.info("llm_queues", **{r.priority.name.lower(): f"waiting={r.waiting} running={r.running} "
                                  f"p50={r.wait_p50_ms:.0f}ms p99={r.wait_p99_ms:.0f}ms dropped={r.dropped_stale}"
                                  for r in self.report()})
