"""The collector's pauses kept short in a large town. A pause stops every thread, the transports'
too, so the longest one is the longest wait a Decide can meet. Two things made them long at
2,000-10,000 NPCs (measured with a probe on `gc.callbacks`, 2,000 NPCs: pauses of up to 98 ms of
CPU, 450 ms of wall time on the loaded machine; 10,000 quiet: 270 ms):

- The young generation grew to 30,000-90,000 objects between collections. Python collects it
  when allocations outnumber deallocations by the threshold, and a town mostly replaces what it
  has (each Decide saves a new copy of the NPC's record and frees the old one), so the count
  hardly grows while new objects pile up, and the rare collection walks them all. So the young
  generations are collected every YOUNG_EVERY_S of wall time (`sweep`), each over what a few
  Decides left: what survives it is long-lived and goes to the oldest generation.
- A full collection walks every object the town holds. What survives one is moved out of the
  collector's sight (`gc.freeze`), so the next walks only what grew since. Freed objects still go
  at once (reference counting does not look at generations); what a frozen object could leave
  behind is a reference cycle that became garbage after it was frozen, so every REWALK_S the frozen
  objects are given back and the next full collection walks everything once.
- The first full collection after a town spawns walks all of it (533 ms of CPU at 10,000 NPCs),
  and with the young generations swept it came some eight minutes into play. So the sweep makes
  the full collections itself, each time the heap has grown by WALK_BLOCKS since the last
  (`sys.getallocatedblocks`, a count Python keeps): a town that spawns, or grows as it plans and
  remembers, is walked in small steps (each over what grew since the last), never all at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import gc
import sys
import time

YOUNG_EVERY_S = 0.05  # each young collection then holds ~50 ms of a busy brain's new objects
REWALK_S = 3600.0  # the longest a frozen garbage cycle waits: one full walk an hour
WALK_BLOCKS = 200_000  # the heap's growth that asks for a full collection: ~600 NPCs, a walk of ~10-20 ms


class Collector:
    """`install` for the process's life (then `remove`); `sweep` runs on a loop until cancelled.
    `full` counts full collections, `frozen` those whose survivors were frozen."""

    def __init__(self, *, rewalk_s: float = REWALK_S, walk_blocks: int = WALK_BLOCKS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rewalk_s, self.walk_blocks, self._clock = rewalk_s, walk_blocks, clock
        self._walked = clock()  # when the collector last saw everything
        self._blocks = sys.getallocatedblocks()  # the heap after the last full collection
        self.full = self.frozen = 0

    def install(self) -> None:
        gc.callbacks.append(self._on_gc)

    def remove(self) -> None:
        gc.callbacks.remove(self._on_gc)

    async def sweep(self, every_s: float = YOUNG_EVERY_S) -> None:
        looked = self._clock()
        while True:
            await asyncio.sleep(every_s)
            if self._clock() - looked >= 1.0 and sys.getallocatedblocks() - self._blocks >= self.walk_blocks:
                looked = self._clock()
                gc.collect()  # a full walk over what grew since the last (the callback freezes what it leaves)
                self._blocks = sys.getallocatedblocks()
            else:
                gc.collect(1)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        """After a full collection the younger generations are empty: what is left is long-lived."""
        if phase != "stop" or info["generation"] != 2:
            return
        self.full += 1
        self._blocks = sys.getallocatedblocks()
        if self._clock() - self._walked >= self.rewalk_s:
            gc.unfreeze()  # the next full collection walks everything once
            self._walked = self._clock()
            return
        gc.freeze()
        self.frozen += 1
