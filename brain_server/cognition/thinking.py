"""Running the work of `work.py`: one runner for every kind, and the two ways it is scheduled.

In the background (production) each NPC runs at most one piece of work of a family at a time,
each as a task started once the game's burst of Decides is answered (`foreground.py`), each
completion waiting its turn in the endpoint's scheduler (`llm/scheduler.py`); a finished piece
starts whatever became needed (a plan lands -> its first block is decomposed). In lockstep
(`background_thinking` off) the same pieces run inline, inside the Decide: the urgent ones
before the action, the rest after it, in the registry's order, so a run at concurrency 1 is a
pure function of the LLM's answers (record/replay).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Collection
from datetime import datetime
import functools
from typing import Any

import structlog

from brain_server.cognition.runtime import Runtimes
from brain_server.cognition.work import KINDS, Kind, Workshop, needed
from brain_server.config import Settings
from brain_server.llm.scheduler import Work, WorkDropped
from brain_server.model.trace import Trace, TraceBook
from brain_server.persistence.records import Records
from brain_server.runtime.foreground import Foreground

log = structlog.get_logger(__name__)
FIRST = frozenset(k.name for k in KINDS if k.urgent)  # lockstep: before the action (a plan, its reaction, its step)
LOCKSTEP_ROUNDS = 3  # a plan, then its reaction and decomposition


class Thinking:
    """The one runner of the mind's work, scheduled inline (lockstep) or in the background."""

    def __init__(self, workshop: Workshop, records: Records, runtimes: Runtimes, settings: Settings,
                 traces: TraceBook, *, background: bool) -> None:
        self.workshop = workshop  # the thinking of each kind
        self.records = records
        self.runtimes = runtimes
        self.settings = settings
        self.traces = traces
        self.background = background
        self.foreground = Foreground(enabled=background)  # background work waits out a burst of Decides
        # Work of no kind (storing perceptions, remembering a talk), with the NPCs whose state it writes.
        self._tasks: dict[asyncio.Future[object], frozenset[str]] = {}

    async def meanwhile(self, work: Awaitable[object], npc_ids: Collection[str]) -> None:
        """`work` on these NPCs in the background (awaited inline in lockstep)."""
        if self.background:
            self.start(work, npc_ids)
        else:
            await work

    def start(self, work: Awaitable[object], npc_ids: Collection[str]) -> None:
        """`work` on these NPCs as a task of the mind's, cancelled by `close`; a failure is logged."""
        task = asyncio.ensure_future(work)
        self._tasks[task] = frozenset(npc_ids)
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Future[object]) -> None:
        self._tasks.pop(task, None)
        if task.cancelled() or (error := task.exception()) is None:
            return
        if isinstance(error, WorkDropped):  # the scheduler's choice (its class's queue full), not a failure
            log.info("background_dropped", reason=error.reason)
        else:
            log.error("background_failed", exc_info=error)

    async def settle(self, npc_ids: Collection[str]) -> None:
        """Wait for the work of no kind under way now on any of these NPCs (their perceptions being
        stored, a talk they remember): another NPC's work never holds them up."""
        ids = set(npc_ids)
        await asyncio.gather(*[t for t, on in list(self._tasks.items()) if on & ids], return_exceptions=True)

    def needs(self, npc_id: str) -> None:
        """Start the work the NPC needs, each family at most once at a time (background only: in
        lockstep the Decide runs it, `before_acting` and `after_acting`)."""
        npc, runtime = self.records.cached(npc_id), self.runtimes.of(npc_id)
        now = runtime.clock
        if not self.background or npc is None or now is None:
            return
        for kind in needed(npc, now, self.settings, reacting=runtime.reaction is not None):
            if kind.family in runtime.jobs or runtime.held(kind.family, now):
                continue
            work = Work(kind.priority, npc_id, kind.stale(npc, now, runtime, self.settings))
            task = asyncio.create_task(self.run(kind, work, now))
            runtime.started(kind.family, task, urgent=kind.urgent)
            task.add_done_callback(functools.partial(self._finished, npc_id, kind))

    def _finished(self, npc_id: str, kind: Kind, task: asyncio.Task[bool]) -> None:
        self.runtimes.of(npc_id).ended(kind.family)
        if not task.cancelled() and task.result():
            self.needs(npc_id)  # what it changed may need more (a plan lands -> decompose its first block)

    async def run(self, kind: Kind, work: Work, now: datetime, trace: Trace | None = None) -> bool:
        """One piece of work with its own trace (or the Decide's, inline); dropped when stale. Work that
        raises is held off (`NpcRuntime.failed`) instead of being asked again at every Decide."""
        own = trace is None
        trace = trace or Trace(npc_id=work.npc_id, kind="background", game_time=now)
        done = False
        try:
            if own:
                await self.foreground.quiet()
            if work.stale is not None and work.stale():
                raise WorkDropped("stale before it started")
            done = await kind.think(self.workshop, work, now, trace)
            self.runtimes.of(work.npc_id).succeeded(kind.family)
        except WorkDropped as exc:  # before the fallback below: dropped work is no failure
            trace.note(f"{kind.name}: dropped ({exc.reason})")
        except Exception:
            until = self.runtimes.of(work.npc_id).failed(kind.family, now)
            trace.log.exception("background_failed", work=kind.name, held_until=until.isoformat())
            trace.note(f"{kind.name}: failed, held off until {until:%H:%M}")
        if own and (trace.llm_calls or trace.notes):
            self.traces.add(trace)
        return done

    async def before_acting(self, npc_id: str, now: datetime, trace: Trace) -> None:
        """What the action depends on (a plan, a reaction, the block in progress): run inline in
        lockstep, with the Decide's trace; in the background nothing waits (the Decide answered)."""
        if not self.background:
            await self._inline(npc_id, now, FIRST, trace, rounds=LOCKSTEP_ROUNDS)

    async def after_acting(self, npc_id: str, now: datetime) -> None:
        """The rest: in lockstep what no action waits for (ratings, reflection, the next hour's
        steps), inline; in the background all the NPC needs, started as tasks."""
        if self.background:
            self.needs(npc_id)
        else:
            await self._inline(npc_id, now, frozenset(k.name for k in KINDS) - FIRST, None, rounds=1)

    async def _inline(self, npc_id: str, now: datetime, kinds: frozenset[str], trace: Trace | None, *,
                      rounds: int) -> None:
        runtime = self.runtimes.of(npc_id)
        for _ in range(rounds):
            npc = self.records.cached(npc_id)
            assert npc is not None
            due = [k for k in needed(npc, now, self.settings, reacting=runtime.reaction is not None)
                   if k.name in kinds and not runtime.held(k.family, now)]
            if not due:
                return
            for kind in due:
                work = Work(kind.priority, npc_id, kind.stale(npc, now, runtime, self.settings))
                await self.run(kind, work, now, trace)

    async def close(self) -> None:
        """Stop thinking (what was not merged is redone after a restart: the events to rate and
        the reflection counter are in the NPC's record, and a missing plan is noticed again)."""
        tasks: list[asyncio.Future[Any]] = [*self.runtimes.jobs(), *self._tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
