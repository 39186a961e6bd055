"""What the mind keeps of each NPC between Decides, beside its record: one object per NPC, changed
only on the mind's loop, and the snapshot of it that a Decide reads from any thread.

The record (`NpcState`, in `records.py`) is what survives a restart; this is what does not need
to: the game time of its latest Decide, who and what it saw then, a reaction waiting for its
turn, whether its conversation is being written, the work under way. A Decide reads the NPC's
`Snapshot` (a frozen value, replaced whole) inside its `decide.View`, never this object: each new
snapshot is told (`changed`) so the mind publishes the NPC's view again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from brain_server.model.memory import MemoryNode

URGENT_FAMILIES = frozenset({"plan", "react", "decompose"})  # work that may change what an NPC does now
# Work that raised is held off for this long, doubled with each failure in a row up to HELD_LONGEST, in game
# time (so lockstep runs repeat): a bug that fails a plan every time must not cost a call per Decide.
HELD_FIRST, HELD_LONGEST = timedelta(minutes=1), timedelta(hours=1)


@dataclass
class PendingReaction:
    """Someone the NPC saw and may react to, waiting for its turn with the model."""

    observation: MemoryNode
    partner_id: str
    seen_at: datetime
    resumed: bool = False  # seen while one of them rested from talk, taken up when the rest ended (`Senses`)


@dataclass(frozen=True)
class Snapshot:
    """What a Decide needs of the mind: whether the NPC's conversation is being written (it stays
    "chatting"), whether other work under way will change what it does now, whether a reaction
    waits (such work too), and the source the next action of a plan says it comes from (a plan
    just landed: "new_plan" or "fallback")."""

    talking: bool = False
    urgent: bool = False
    reacting: bool = False
    announce: str = "plan"

    @property
    def thinking(self) -> bool:
        """Work under way changes what the NPC does now: it should ask again soon."""
        return self.talking or self.urgent


NOTHING = Snapshot()


@dataclass
class NpcRuntime:
    """One NPC's state in the mind. The fields a Decide reads change through the methods below,
    each of which publishes a new snapshot."""

    npc_id: str
    published: dict[str, Snapshot]  # the mind's snapshots, by NPC
    changed: Callable[[str], None] = field(default=lambda npc_id: None)  # told of each new snapshot
    clock: datetime | None = None  # the game time of its latest Decide
    seen: set[str] = field(default_factory=set)  # who it saw at its latest Decide
    surroundings: set[str] = field(default_factory=set)  # things it saw then in a state the world records
    jobs: dict[str, asyncio.Task[bool]] = field(default_factory=dict)  # work under way, by family
    perceiving: asyncio.Lock = field(default_factory=asyncio.Lock)  # its perceptions stored in the order seen
    reaction: PendingReaction | None = None
    resting_sightings: dict[str, PendingReaction] = field(default_factory=dict)  # by whom, while in sight
    talking: bool = False  # its conversation is being written
    urgent: bool = False  # work under way changes what it does now
    announce: str = "plan"
    crowd: bool = False  # a crowd at its latest Decide: its own calls waiting their turn are dropped then
    failures: dict[str, tuple[int, datetime]] = field(default_factory=dict)  # by family: failures in a row, held until

    def publish(self) -> None:
        snapshot = Snapshot(talking=self.talking, urgent=self.urgent, reacting=self.reaction is not None,
                            announce=self.announce)
        if self.published.get(self.npc_id) != snapshot:
            self.published[self.npc_id] = snapshot
            self.changed(self.npc_id)

    def set_reaction(self, pending: PendingReaction | None) -> PendingReaction | None:
        """Note a reaction to think out (None: take the one waiting); the one waiting before."""
        before, self.reaction = self.reaction, pending
        self.publish()
        return before

    def set_talking(self, talking: bool) -> None:
        self.talking = talking
        self.publish()

    def set_announce(self, source: str) -> None:
        self.announce = source
        self.publish()

    def started(self, family: str, task: asyncio.Task[bool], *, urgent: bool) -> None:
        self.jobs[family] = task
        if urgent and not self.urgent:
            self.urgent = True
            self.publish()

    def failed(self, family: str, now: datetime) -> datetime:
        """Work of `family` raised at game time `now`: held off until the time returned."""
        count = self.failures.get(family, (0, now))[0] + 1
        until = now + min(HELD_FIRST * (1 << min(count - 1, 16)), HELD_LONGEST)
        self.failures[family] = (count, until)
        return until

    def succeeded(self, family: str) -> None:
        self.failures.pop(family, None)

    def held(self, family: str, now: datetime) -> bool:
        """Whether work of `family` waits out its failures (`failed`) at game time `now`."""
        failure = self.failures.get(family)
        return failure is not None and now < failure[1]

    def ended(self, family: str) -> None:
        self.jobs.pop(family, None)
        if self.urgent and not URGENT_FAMILIES & self.jobs.keys():
            self.urgent = False
            self.publish()


class Runtimes:
    """Every NPC's runtime, and their snapshots (read from any thread: a dict read, no lock)."""

    def __init__(self, changed: Callable[[str], None] = lambda npc_id: None) -> None:
        self._npcs: dict[str, NpcRuntime] = {}
        self._published: dict[str, Snapshot] = {}
        self._changed = changed  # an NPC's snapshot changed (the mind publishes its Decides' view again)

    def of(self, npc_id: str) -> NpcRuntime:
        runtime = self._npcs.get(npc_id)
        if runtime is None:
            runtime = self._npcs[npc_id] = NpcRuntime(npc_id, self._published, self._changed)
        return runtime

    def snapshot(self, npc_id: str) -> Snapshot:
        return self._published.get(npc_id, NOTHING)

    def clock(self, npc_id: str, default: datetime) -> datetime:
        runtime = self._npcs.get(npc_id)
        return default if runtime is None or runtime.clock is None else runtime.clock

    def last(self, npc_id: str) -> datetime | None:
        """The game time of the NPC's latest Decide since the start, if any."""
        runtime = self._npcs.get(npc_id)
        return None if runtime is None else runtime.clock

    def talking(self, *npc_ids: str) -> bool:
        return any((r := self._npcs.get(n)) is not None and r.talking for n in npc_ids)

    def drop(self, npc_id: str) -> list[asyncio.Task[bool]]:
        """Forget the NPC's runtime (a reset, a delete, a loaded save); its work under way, to cancel."""
        if self._published.pop(npc_id, None) is not None:
            self._changed(npc_id)
        runtime = self._npcs.pop(npc_id, None)
        return [] if runtime is None else list(runtime.jobs.values())

    def jobs(self) -> list[asyncio.Task[bool]]:
        return [task for runtime in self._npcs.values() for task in runtime.jobs.values()]

    def pending(self) -> int:
        """How many pieces of the NPCs' work are under way (started, not yet finished)."""
        return sum(len(runtime.jobs) for runtime in self._npcs.values())
