"""Towns that sleep: a tenant idle for NPC_BRAIN_TENANT_IDLE_S is saved and unloaded, and its next
call of any RPC restores it first (docs/deployment.md, "Towns that sleep").

A hosted brain serves many players' towns, most of them not being played at any moment; each
awake town holds its NPCs' records, views, runtimes and traces in memory. Asleep, a town holds
nothing here: its records and memories are in the store, as they are after a restart, and a save
of each of its worlds is written to SLEEP_SLOT first (the save machinery, `saves.py`: a copy an
operator can load or export; the game cannot name it, so it never overwrites one of the game's).

Sleeping is what a restart does to one tenant: the mind's work for its NPCs is cancelled and
awaited (what was not merged is redone, as after a restart: the record keeps what to do), what
the Decides answered is stored, and the records still being written are written before the cache
lets them go. Waking reads nothing: each NPC's record and its world are read back from the store by
the first call that needs them, as after a restart, so the first Decide answers from the restored
record as a cold NPC's Decide does (a town of 25 would otherwise be 26 reads in its first call).

Calls and sleeps never overlap: a call is counted from its start to its end (`visit`), a town is
put to sleep only with no call of it in flight, and a call that finds its town asleep, or going to
sleep, waits on the mind's loop for the sleep to end before it reads anything, so it never sees a
town half unloaded. The awake check is a set lookup under a thread lock: a Decide answered on the
transports' loop does not wait for the mind's loop unless its town sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
import threading
import time
from typing import Any

import structlog

from brain_server.api.saves import Saves
from brain_server.cognition.inbox import Evict
from brain_server.cognition.mind import Mind
from brain_server.model.errors import BrainError
from brain_server.model.trace import TraceBook
from brain_server.persistence.records import NPC_RECORD, WORLD_RECORD, Records

log = structlog.get_logger(__name__)
SLEEP_SLOT = "brain.asleep"  # a '.' is no slot name a game may send (validation.slot): never one of the game's
SWEEPS_PER_IDLE = 4  # a town sleeps at most a quarter of its idle time late
LONGEST_SWEEP_S = 60.0
SHORTEST_SWEEP_S = 1.0


class Towns:
    """Each tenant's calls in flight and last call, and its sleeps and wakes (on the mind's loop);
    `clock` is monotonic seconds (tests move their own)."""

    def __init__(self, idle_s: float, records: Records, mind: Mind, saves: Saves, traces: TraceBook,
                 run: Callable[[Coroutine[Any, Any, None]], Awaitable[None]], *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_s = idle_s
        self.records, self.mind, self.saves, self.traces = records, mind, saves, traces
        self._run = run  # a coroutine run on the mind's loop (foreground.Home.run)
        self.clock = clock
        self._guard = threading.Lock()  # calls start and end on the transports' loop, sleeps on the mind's
        self._seen: dict[str, float] = {}  # awake tenants: when their last call started or ended
        self._busy: dict[str, int] = {}  # calls in flight, per tenant
        self._asleep: set[str] = set()  # asleep, or going to sleep
        self._turns: dict[str, asyncio.Lock] = {}  # one sleep or wake of a tenant at a time
        self.slept = self.restored = 0
        self.unload_s = self.restore_s = 0.0  # seconds every sleep and every wake (its calls' wait) took, in all
        self.unloaded_npcs = 0  # NPCs of every sleep (the load generator's ms per NPC)

    @property
    def enabled(self) -> bool:
        return self.idle_s > 0

    def asleep(self) -> int:
        return len(self._asleep)

    def in_flight(self, tenant: str) -> int:
        return self._busy.get(tenant, 0)

    @asynccontextmanager
    async def visit(self, tenant: str) -> AsyncIterator[None]:
        """A call of `tenant`, from its start to its end: its town awake throughout."""
        if not self.enabled:
            yield
            return
        with self._guard:
            self._busy[tenant] = self._busy.get(tenant, 0) + 1
            awake = tenant not in self._asleep
        try:
            if not awake:
                await self._run(self.wake(tenant))
            yield
        finally:
            with self._guard:
                self._busy[tenant] -= 1
                if not self._busy[tenant]:
                    del self._busy[tenant]
                if tenant not in self._asleep:  # a wake that failed leaves it asleep: the next call tries again
                    self._seen[tenant] = self.clock()

    async def sweep(self) -> list[str]:
        """Put every town idle for `idle_s` to sleep (on the mind's loop); the tenants put to sleep."""
        if not self.enabled:
            return []
        now = self.clock()
        with self._guard:
            idle = [t for t, seen in self._seen.items() if now - seen >= self.idle_s and t not in self._busy]
        return [tenant for tenant in idle if await self.sleep(tenant)]

    async def run(self) -> None:
        """Sweep for as long as the brain serves (a task of its own)."""
        while True:
            await asyncio.sleep(min(LONGEST_SWEEP_S, max(SHORTEST_SWEEP_S, self.idle_s / SWEEPS_PER_IDLE)))
            try:
                await self.sweep()
            except Exception:  # a sweep that failed leaves the towns awake; the next one tries again
                log.exception("towns_sweep_failed")

    async def sleep(self, tenant: str) -> bool:
        """Save and unload the tenant's town, if it is still idle with no call in flight."""
        async with self._turn(tenant):
            with self._guard:
                seen = self._seen.get(tenant)
                if tenant in self._busy or seen is None or self.clock() - seen < self.idle_s or tenant in self._asleep:
                    return False
                self._asleep.add(tenant)  # from here a call waits for the wake (`visit`)
                del self._seen[tenant]
            started = time.perf_counter()
            try:
                npcs, phases = await self._unload(f"{tenant}.")
            except (BrainError, OSError) as exc:  # a save refused (slots full, disk): awake, tried again later
                with self._guard:
                    self._asleep.discard(tenant)
                    self._seen[tenant] = self.clock()
                log.warning("town_sleep_failed", tenant=tenant, error=str(exc))
                return False
            took = time.perf_counter() - started
            self.slept, self.unload_s, self.unloaded_npcs = self.slept + 1, self.unload_s + took, self.unloaded_npcs + npcs
        log.info("town_slept", tenant=tenant, npcs=npcs, ms=round(took * 1000, 1), **phases)
        return True

    async def wake(self, tenant: str) -> None:
        """The tenant's town awake again (on the mind's loop), once a sleep under way has ended; at
        once if it is awake. Nothing is read here: each NPC's record and its world are read from
        the store by the first call that needs them, as after a restart (a cold NPC's Decide)."""
        started = time.perf_counter()
        async with self._turn(tenant):
            if tenant not in self._asleep:
                return  # woken by the call before this one
            with self._guard:
                self._asleep.discard(tenant)
                self._seen[tenant] = self.clock()
            took = time.perf_counter() - started
            self.restored, self.restore_s = self.restored + 1, self.restore_s + took
        log.info("town_restored", tenant=tenant, ms=round(took * 1000, 1))

    @asynccontextmanager
    async def _turn(self, tenant: str) -> AsyncIterator[None]:
        turn = self._turns.setdefault(tenant, asyncio.Lock())
        try:
            async with turn:
                yield
        finally:
            if not turn.locked() and self._turns.get(tenant) is turn:
                del self._turns[tenant]

    async def _names(self, prefix: str) -> tuple[list[str], list[str]]:
        """The tenant's worlds and NPCs, as stored."""
        worlds = await asyncio.to_thread(self.records.store.list_records, WORLD_RECORD)
        await self.records.drain()
        npcs = await asyncio.to_thread(self.records.store.list_records, NPC_RECORD)
        return ([w["name"] for w in worlds if w["name"].startswith(prefix)],
                [n["npc_id"] for n in npcs if n["npc_id"].startswith(prefix)])

    async def _unload(self, prefix: str) -> tuple[int, dict[str, float]]:
        """The town saved, its work ended and stored, and let go; its NPCs and each phase's ms (logged)."""
        phases, began = {}, time.perf_counter()

        def phase(name: str) -> None:
            nonlocal began
            phases[f"{name}_ms"], began = round((time.perf_counter() - began) * 1000, 1), time.perf_counter()

        worlds, npc_ids = await self._names(prefix)
        for world in worlds:
            await self.saves.save(world, SLEEP_SLOT, None)
        phase("save")
        await self.mind.handle(Evict(npc_ids, worlds, phase))
        self.traces.drop(npc_ids)
        return len(npc_ids), phases
