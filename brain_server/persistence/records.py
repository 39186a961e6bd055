"""The worlds and NPCs the brain serves, as records in the store with a cache in front.

One place for what the RPCs and the mind share: loading and saving records, one lock per NPC
(held only for the short read-modify-write of its record, never across an LLM call), and the
revision every write raises, so replicas sharing a store never serve an NPC from an old copy.

Nothing here grows with what callers send: the caches keep the most recently used worlds
(WORLDS_CACHED) and NPCs (NPC_BRAIN_NPC_CACHE) and load the rest from the store again (an NPC
whose record is still being written behind stays until it is written); a lock exists only while
someone holds or waits for it, so asking about 10,000 ids that do not exist leaves nothing behind.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
import contextlib
import functools
from itertools import islice
import time
from typing import Any, TypeVar
from weakref import WeakValueDictionary

import structlog

from brain_server.model import validation
from brain_server.model.errors import BrainError, Status, invalid, not_found
from brain_server.model.npc import NpcState
from brain_server.model.validation import NPC_ID, shown  # noqa: F401 - NPC_ID: the lab's models use its pattern
from brain_server.model.world import World
from brain_server.model.world_index import WorldIndex
from brain_server.persistence.storage.base import MemoryStore

WORLD_RECORD, NPC_RECORD = "world", "npc"
PEOPLE_FRESH_S = 2.0  # replicas on one store: how long another replica's newcomer may go unseen
# A record written behind waits this long for other NPCs' saves to share its store call (what a
# crash may lose of a Decide's change grows by as much: its answer was sent before the write).
ROUND_GATHER_S = 0.1
WORLDS_CACHED = 16  # a world is up to MAX_REQUEST_BYTES of tiles: the least recently used go first
T = TypeVar("T")
Apply = Callable[[NpcState], bool | None]  # a result applied to the NPC as it is; False: nothing changed
log = structlog.get_logger(__name__)
check_npc_id = validation.npc_id


class Records:
    """Worlds and NPCs: cached, locked per NPC, saved only when changed."""

    def __init__(self, store: MemoryStore, *, shared_store: bool, npcs_cached: int = 10_000,
                 write_behind: bool = True, gather_s: float = ROUND_GATHER_S) -> None:
        self.store = store
        self._shared = shared_store  # replicas on one store: check the revision before using the cache
        self._writes_behind = write_behind and not shared_store  # replicas read the record before each use
        self._npcs_cached = npcs_cached
        self._worlds: OrderedDict[str, World] = OrderedDict()  # least recently used first
        self._npcs: OrderedDict[str, NpcState] = OrderedDict()
        self._locks: WeakValueDictionary[str, asyncio.Lock] = WeakValueDictionary()  # alive while held or awaited
        self._people_by_world: dict[str, dict[str, str]] = {}  # per cached world
        self._people_read: dict[str, float] = {}  # when each was read from the store (monotonic)
        self._indexes: dict[str, WorldIndex] = {}  # per cached world
        self._saved: set[str] = set()  # NPCs whose cached record is the one last written (or being written)
        # Records have threads of their own: a Decide's write must not queue behind embeddings,
        # which fill the shared default pool while they wait for the one model.
        self._threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="records")
        self._writing: WeakValueDictionary[str, asyncio.Lock] = WeakValueDictionary()  # saves that wait, per NPC
        # Written behind: each NPC's newest record still to be written, taken a round at a time by
        # one writer (`_write_behind`), whose round under way is `_round` writing `_flying`.
        self._behind: dict[str, NpcState] = {}  # NPC id -> its newest record, its text made by the writer
        self._writer: asyncio.Task[None] | None = None
        self._flying: frozenset[str] = frozenset()
        self._round: asyncio.Future[None] | None = None
        self._direct: set[str] = set()  # NPCs a save that waits is writing (the writer leaves them to it)
        self._gather_s = gather_s  # how long a round waits for more NPCs' saves before it is taken
        self._hurry = asyncio.Event()  # set by `drain`: the round is taken without waiting for more (one per writer: its loop's)
        # Raised when an NPC is forgotten or reloaded (ResetNpc, DeleteNpc, LoadWorld): a result
        # thought out from the NPC before is for another timeline, and `revise` drops it.
        self._epochs: dict[str, int] = {}
        # Told of each NPC and world whose cached copy changed or went (the mind's Decide views).
        self.npc_changed: Callable[[str], None] = lambda npc_id: None
        self.world_changed: Callable[[str], None] = lambda name: None

    @property
    def shared(self) -> bool:
        """Replicas share the store: a cached NPC may be old, and is read again before each use."""
        return self._shared

    async def _io(self, call: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._threads, functools.partial(call, *args))

    # --- worlds ---------------------------------------------------------------------------

    async def world(self, name: str) -> World:
        if not name:
            raise invalid("world_name is empty: name the world sent with RegisterWorld")
        world = self._worlds.get(name)
        if world is None:
            record = await self._io(self.store.get_record, WORLD_RECORD, name)
            if record is None:
                raise BrainError(Status.FAILED_PRECONDITION,
                                 f"world {shown(name)} is not registered: call RegisterWorld first")
            world = World.model_validate(record)
            if name in self._worlds:  # put_world landed meanwhile: it is newer than what was read
                world = self._worlds[name]
            self._keep_world(world)
        self._worlds.move_to_end(name)
        return world

    async def put_world(self, world: World) -> None:
        await self._io(self.store.put_record, WORLD_RECORD, world.name, world.model_dump(mode="json"))
        self._keep_world(world)

    def _keep_world(self, world: World) -> None:
        self._worlds[world.name] = world
        self._worlds.move_to_end(world.name)
        while len(self._worlds) > WORLDS_CACHED:
            gone, _ = self._worlds.popitem(last=False)
            self._indexes.pop(gone, None)
            self._people_by_world.pop(gone, None)
            self._people_read.pop(gone, None)
            self.world_changed(gone)
        self.world_changed(world.name)

    def world_lock(self, name: str) -> asyncio.Lock:
        """The lock for a world's read-modify-writes (SetObjectState) and for who lives in it (SpawnNpc)."""
        return self.lock(f"world:{name}")  # ':' is never in an npc_id

    def index(self, world: World) -> WorldIndex:
        """The world's lookups, built once per world version (RegisterWorld and SetObjectState make a new one)."""
        cached = self._indexes.get(world.name)
        if cached is None or cached.world is not world:
            cached = WorldIndex(world)
            if world.name in self._worlds:
                self._indexes[world.name] = cached
        return cached

    async def people(self, world_name: str, *, fresh: bool = False) -> dict[str, str]:
        """Names of the NPCs in a world, to their ids: who an observation is about. Kept up to
        date by every save; replicas sharing a store read it again after PEOPLE_FRESH_S, since
        NPCs spawned by another replica are saved there, and `fresh` reads it now without keeping
        it (SpawnNpc's check for a name in use must see the other replicas' NPCs)."""
        people = self._people_by_world.get(world_name)
        if fresh and self._shared:
            return await self._read_people(world_name)
        if people is None or (self._shared and time.monotonic() - self._people_read[world_name] > PEOPLE_FRESH_S):
            people = await self._read_people(world_name)
            if world_name in self._worlds:
                self._people_by_world[world_name] = people
                self._people_read[world_name] = time.monotonic()
        return people

    async def _read_people(self, world_name: str) -> dict[str, str]:
        records = await self._io(self.store.list_records, NPC_RECORD)
        return {r["persona"]["name"]: r["npc_id"] for r in records if r["world_name"] == world_name}

    # --- NPCs -----------------------------------------------------------------------------

    def lock(self, npc_id: str) -> asyncio.Lock:
        return self._locks.setdefault(npc_id, asyncio.Lock())

    async def npc_or_none(self, npc_id: str) -> NpcState | None:
        """The NPC from the cache; with a shared store (replicas on one Qdrant) the cache is checked
        against the stored revision first, so an NPC moved back, or changed by a partner's replica
        in a conversation, is never served from an old copy."""
        cached = self._npcs.get(npc_id)
        if cached is not None and not self._shared:
            self._npcs.move_to_end(npc_id)
            return cached
        record = await self._io(self.store.get_record, NPC_RECORD, npc_id)
        if record is None:
            return cached
        if npc_id in self._npcs and self._npcs[npc_id] is not cached:
            return self._npcs[npc_id]  # saved while the record was read: newer than the record
        if cached is None or record.get("revision", 0) != cached.revision:
            cached = NpcState.model_validate(record)
            self._saved.add(npc_id)
            self._keep(cached)
        return cached

    async def npc(self, npc_id: str) -> NpcState:
        check_npc_id(npc_id)
        npc = await self.npc_or_none(npc_id)
        if npc is None:
            raise not_found(f"no NPC {npc_id!r}: spawn it with SpawnNpc first")
        return npc

    def cached_npcs(self) -> int:
        return len(self._npcs)

    def cached(self, npc_id: str) -> NpcState | None:
        """The NPC as this process has it, without touching the store (for staleness checks)."""
        return self._npcs.get(npc_id)

    def current(self, npc_id: str) -> NpcState | None:
        """The cached NPC when it is known to be current (no other replica writes to the store),
        without I/O or any change to the cache, so any thread may ask; None when it must be loaded."""
        return None if self._shared else self._npcs.get(npc_id)

    def cached_world(self, name: str) -> World | None:
        """The cached world, without I/O or any change to the cache, so any thread may ask."""
        return self._worlds.get(name)

    async def save(self, npc: NpcState, *, wait: bool = False) -> None:
        """Write the NPC's record, unless it is what was last written (a Decide that only reads
        the plan's current step changes nothing, and should cost no write). Thinking in the
        background, the record is written right after, by a writer of its own, so no one holds
        the NPC's lock while the disk works (a Decide waiting on that lock would wait for the
        disk); `wait` is for what a caller is told is stored (SpawnNpc). In lockstep, and for
        replicas sharing a store, every save waits. An NPC's writes never overtake each other.
        Whether it changed is asked of the record last written (`_unchanged`), and the text written
        behind is made by the writer: an NPC saved twice before its round (a Decide and what it
        saw, stored a moment later) is made into text once."""
        if not (npc.npc_id in self._saved and _unchanged(npc, self._npcs.get(npc.npc_id))):
            npc.revision += 1
            if wait or not self._writes_behind:
                await self._write_now(npc)
            else:
                self._behind[npc.npc_id] = npc
                if self._writer is None:
                    self._writer = asyncio.create_task(self._write_behind())
            self._saved.add(npc.npc_id)
        self._keep(npc)
        self._people_by_world.get(npc.world_name, {})[npc.persona.name] = npc.npc_id

    def _keep(self, npc: NpcState) -> None:
        """Cache the NPC as most recently used; forget the least recently used beyond the bound,
        except those whose record is still to be written (the store has an older one)."""
        self._npcs[npc.npc_id] = npc
        self._npcs.move_to_end(npc.npc_id)
        self.npc_changed(npc.npc_id)
        excess = len(self._npcs) - self._npcs_cached
        if excess <= 0:
            return
        for npc_id in list(islice(self._npcs, excess + len(self._behind) + len(self._flying) + 1)):
            if excess <= 0:
                break
            if npc_id != npc.npc_id and npc_id not in self._behind and npc_id not in self._flying:
                del self._npcs[npc_id]
                self._saved.discard(npc_id)
                self.npc_changed(npc_id)
                excess -= 1

    async def _write_now(self, npc: NpcState) -> None:
        """The NPC's record written before this returns, after its round written behind, if one is
        under way (an NPC's writes never overtake each other); what waited behind is older."""
        async with self._writing.setdefault(npc.npc_id, asyncio.Lock()):
            self._behind.pop(npc.npc_id, None)
            self._direct.add(npc.npc_id)
            try:
                while npc.npc_id in self._flying and self._round is not None:
                    await asyncio.wait([self._round])
                await self._io(self.store.put_record, NPC_RECORD, npc.npc_id, npc.model_dump(mode="json"))
            finally:
                self._direct.discard(npc.npc_id)
                if self._behind and self._writer is None:  # saved behind meanwhile: left to the writer
                    self._writer = asyncio.create_task(self._write_behind())

    async def _write_behind(self) -> None:
        """Write the newest records waiting, every NPC's in one store call a round (a town's Decides
        each change their NPC's record: one call each was most of their CPU on the mind's loop),
        until none is waiting; those a save that waits is writing are left to it. A round waits
        `gather_s` for more NPCs' saves first (unless `drain` hurries it): a thousand NPCs in view
        saved ~115 times a second, one NPC a round, a store call and a thread's turn each."""
        self._hurry = asyncio.Event()
        try:
            while True:
                if self._gather_s and not self._hurry.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._hurry.wait(), self._gather_s)
                self._hurry.clear()
                if not (ids := [npc_id for npc_id in self._behind if npc_id not in self._direct]):
                    break
                records = {npc_id: self._behind.pop(npc_id) for npc_id in ids}
                self._flying, self._round = frozenset(ids), asyncio.get_running_loop().create_future()
                try:
                    await self._io(self._put_texts, records)
                except Exception:
                    for npc_id in ids:
                        self._saved.discard(npc_id)  # the next save writes it again
                    log.exception("record_write_failed", npc_ids=ids)
                finally:
                    self._flying = frozenset()
                    self._round.set_result(None)
        finally:
            self._writer = None

    def _put_texts(self, records: dict[str, NpcState]) -> None:
        """A round's records made into text and written, on the records' thread (a saved record is
        never changed, so any thread may read it)."""
        self.store.put_records(NPC_RECORD, {npc_id: npc.model_dump_json() for npc_id, npc in records.items()})

    async def drain(self) -> None:
        """Wait until the records waiting or being written now are written (not those saved later,
        which a town deciding all along would never stop adding)."""
        pending = self._behind.keys() | self._flying
        while (self._writer is not None or self._direct) and pending & (self._behind.keys() | self._flying):
            self._hurry.set()
            if self._round is None or self._round.done():
                await asyncio.sleep(0)  # the writer is about to take its next round
            else:
                await asyncio.wait([self._round])

    async def revise(self, npc_id: str, think: Callable[[NpcState], Awaitable[Apply | bool]]) -> bool:
        """Read, copy, think, merge: `think` works on a copy of the NPC (no lock is held while a
        model thinks) and returns what to apply to the NPC as it is when the result lands
        (`merge`), or whether it changed anything without a merge (a conversation saves both
        NPCs itself). True when something was applied or changed."""
        epoch = self._epochs.get(npc_id, 0)
        outcome = await think((await self.npc(npc_id)).model_copy(deep=True))
        if isinstance(outcome, bool):
            return outcome
        if self._epochs.get(npc_id, 0) != epoch:
            log.info("result_dropped", npc_id=npc_id, reason="the NPC was reset or reloaded meanwhile")
            return False
        await self.merge(npc_id, outcome)
        return True

    async def merge(self, npc_id: str, apply: Apply) -> NpcState | None:
        """Apply a result to the NPC as it is now (a Decide may have changed it while the result was
        being thought out), under its lock, and save it; `apply` returning False keeps it unchanged."""
        async with self.lock(npc_id):
            live = await self.npc_or_none(npc_id)
            if live is None:
                return None
            draft = live.model_copy(deep=True)
            if apply(draft) is False:
                return live
            await self.save(draft)
            return draft


    # --- forgetting and reloading (ResetNpc, DeleteNpc, LoadWorld) ------------------------------

    async def forget(self, npc: NpcState, *, keep_record: bool = False) -> None:
        """Delete the NPC's memories and (unless `keep_record`) its record, after any write of it
        still under way; results thought out from it before are dropped (`revise`). The caller
        holds its lock."""
        npc_id = npc.npc_id
        self._epochs[npc_id] = self._epochs.get(npc_id, 0) + 1
        self._behind.pop(npc_id, None)
        if npc_id in self._flying and self._round is not None:
            await asyncio.wait([self._round])
        await self._io(self.store.forget, npc_id)
        self._npcs.pop(npc_id, None)
        self._saved.discard(npc_id)
        self.npc_changed(npc_id)
        people = self._people_by_world.get(npc.world_name, {})
        if people.get(npc.persona.name) == npc_id:
            del people[npc.persona.name]
        if not keep_record:
            await self._io(self.store.delete_record, NPC_RECORD, npc_id)

    async def evict(self, npc_ids: list[str], world_names: list[str]) -> None:
        """These NPCs and worlds out of the cache, their records kept in the store (a town that
        sleeps: api/towns.py), once every record still being written is written."""
        await self.drain()
        for npc_id in npc_ids:
            if npc_id in self._behind or npc_id in self._flying:
                continue  # written again meanwhile: kept until its write lands, as `_keep` keeps it
            self._npcs.pop(npc_id, None)
            self._saved.discard(npc_id)
            self._epochs[npc_id] = self._epochs.get(npc_id, 0) + 1  # a result landing anyway is dropped (`revise`)
            self.npc_changed(npc_id)
        for name in world_names:
            self._worlds.pop(name, None)
            self._indexes.pop(name, None)
            self._people_by_world.pop(name, None)
            self._people_read.pop(name, None)
            self.world_changed(name)

    def renamed(self, world_name: str, old_name: str) -> None:
        """An NPC's persona took another name: the old one is free in its world."""
        self._people_by_world.get(world_name, {}).pop(old_name, None)

    async def world_npcs(self, world_name: str) -> list[NpcState]:
        """Every NPC of a world as stored (newest records first written: `drain`)."""
        await self.drain()
        records = await self._io(self.store.list_records, NPC_RECORD)
        return [NpcState.model_validate(r) for r in records if r["world_name"] == world_name]


def _unchanged(npc: NpcState, written: NpcState | None) -> bool:
    """Whether `npc` says what `written` (the record last written, never changed since) says,
    apart from its revision. Compared field by field: a Decide's copy shares all but a few fields
    with it (found by identity), where the record's JSON text, which this replaced, was made of
    every field (~40-150 us at 1,000 NPCs, twice a Decide). The same object saved again may have
    been changed in place: it is written."""
    if written is None or written is npc:
        return False
    if npc.revision != written.revision:
        npc = npc.model_copy(update={"revision": written.revision})
    return npc == written
