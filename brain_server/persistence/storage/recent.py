"""Each NPC's newest observations, kept beside the store process as they are written, so that
`latest(npc, n, OBSERVATION)` (perception's retention: which events it has just seen, asked
before every perception is stored) is answered without a call. At 1,000 NPCs in view that call
was a third of the store process's CPU (a scroll ordered by time) and a round trip of pickles.

What is kept answers exactly as the engine would (`_payload.newest` over the engine's
`limit + TIE_SLACK` newest): for each NPC, every observation newer than a cut (`Entry.cut`; none:
all it has), each as the engine gives it back (its payload read again). An answer is given only
where the engine's own has no choice to make: the `n` newest, and every observation as old as the
n-th among the `limit + TIE_SLACK` the engine would read; else the engine is asked, and what it
answered is kept. A write of an NPC's observations adds them (those newer than its cut); anything
else that changes them (their last access, their importance, the NPC forgotten) drops what was
kept of the NPC, and an answer the engine gave while such a write was under way is not kept
(`version`): any thread may call the store.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
import threading
import uuid

from brain_server.model.memory import MemoryKind, MemoryNode
import brain_server.persistence.storage._payload as pl

KEPT_NPCS = 20_000  # NPCs whose newest observations are kept, the least recently asked about dropped first
WRITES_KEPT = 4 * KEPT_NPCS  # NPCs whose latest write is remembered (an answer asked before it is not kept)
KEPT_PER_NPC = 24  # observations kept per NPC at most (perception asks for its retention, 5 by default, + TIE_SLACK)


Key = tuple[float, str]  # `_payload.newest`'s order: newest first, then by id


def _key(node: MemoryNode) -> Key:
    return -node.created.timestamp(), str(uuid.UUID(node.id))


@dataclass
class Entry:
    """One NPC's observations newer than `cut` (a timestamp; None: all it has), in order."""

    cut: float | None
    ordered: list[tuple[Key, MemoryNode]] = field(default_factory=list)
    keys: dict[str, Key] = field(default_factory=dict)  # by id

    def add(self, node: MemoryNode) -> None:
        key = _key(node)
        if self.cut is not None and -key[0] <= self.cut:
            return
        if (old := self.keys.pop(node.id, None)) is not None:
            del self.ordered[bisect.bisect_left(self.ordered, old, key=_first)]
        bisect.insort(self.ordered, (key, node), key=_first)
        self.keys[node.id] = key
        if len(self.ordered) > 2 * KEPT_PER_NPC:  # the cut moves up to the oldest time it keeps whole
            self.cut = -self.ordered[KEPT_PER_NPC - 1][0][0]
            self.ordered = self.ordered[:bisect.bisect_left(self.ordered, -self.cut, key=_time)]
            self.keys = {n.id: k for k, n in self.ordered}

    def newest(self, limit: int) -> list[MemoryNode] | None:
        """The engine's answer for `limit`, or None where it must be asked (module docstring)."""
        if len(self.ordered) < limit and self.cut is not None:
            return None
        newest = self.ordered[:limit]
        if newest and bisect.bisect_right(self.ordered, newest[-1][0][0], key=_time) > limit + pl.TIE_SLACK:
            return None  # the engine would read only some of those as old as the n-th: its choice
        return [node for _, node in newest]


def _first(item: tuple[Key, MemoryNode]) -> Key:
    return item[0]


def _time(item: tuple[Key, MemoryNode]) -> float:
    return item[0][0]


class RecentObservations:
    """The newest observations of the NPCs perception asked about (module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, Entry] = OrderedDict()
        self._clock = 0  # raised by every write
        self._written: OrderedDict[str, int] = OrderedDict()  # NPC -> the clock at its latest write
        self.answered = 0  # latest() calls answered here, not by the engine

    def version(self) -> int:
        """The clock now: what the engine answers after this may be kept if the NPC is not written meanwhile."""
        with self._lock:
            return self._clock

    def _write(self, npc_id: str) -> None:
        self._clock += 1
        self._written[npc_id] = self._clock
        self._written.move_to_end(npc_id)
        while len(self._written) > WRITES_KEPT:
            self._written.popitem(last=False)

    def latest(self, npc_id: str, limit: int) -> list[MemoryNode] | None:
        """The engine's answer to latest(npc_id, limit, OBSERVATION), or None where it must be asked."""
        with self._lock:
            entry = self._entries.get(npc_id)
            newest = None if entry is None else entry.newest(limit)
            if newest is None:
                return None
            self._entries.move_to_end(npc_id)
            self.answered += 1
            return [n.model_copy() for n in newest]

    def answered_by_engine(self, npc_id: str, limit: int, version: int, found: Sequence[MemoryNode]) -> None:
        """Keep what the engine answered (asked at `version`): all the NPC's observations if fewer
        than `limit`, else those newer than the last one it gave."""
        with self._lock:
            if self._written.get(npc_id, 0) > version:
                return  # written meanwhile: the answer may be from before
            entry = Entry(cut=None if len(found) < limit else found[-1].created.timestamp())
            for node in found:
                entry.add(node.model_copy())
            self._entries[npc_id] = entry
            self._entries.move_to_end(npc_id)
            while len(self._entries) > KEPT_NPCS:
                self._entries.popitem(last=False)

    def written(self, nodes: Iterable[MemoryNode]) -> None:
        """Nodes the engine now holds: each observation kept as the engine gives it back."""
        observations = [n for n in nodes if n.kind is MemoryKind.OBSERVATION]
        if not observations:
            return
        stored = [pl.node_from_payload(pl.node_to_payload(n)) for n in observations]
        with self._lock:
            for node in stored:
                self._write(node.npc_id)
                entry = self._entries.get(node.npc_id)
                if entry is not None:
                    entry.add(node)

    def changed(self, npc_id: str) -> None:
        """The NPC's memories changed otherwise (their last access or importance, or forgotten)."""
        with self._lock:
            self._write(npc_id)
            self._entries.pop(npc_id, None)
