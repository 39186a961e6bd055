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
  and with the young generations swept it came some eight minutes into the game. So when the heap
  has grown by half since the last full collection (`sys.getallocatedblocks`, a count Python
  keeps) and has stopped growing, the sweep makes that walk itself: once, while the town is still
  being set up, not in the middle of play.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import gc
import sys
import time

YOUNG_EVERY_S = 0.05  # each young collection then holds ~50 ms of a busy brain's new objects
REWALK_S = 3600.0  # the longest a frozen garbage cycle waits: one full walk an hour
GROWN = 0.5  # the heap's growth since the last full collection that asks for a walk now ...
GROWN_BLOCKS = 500_000  # ... and at least this many blocks (~1,500 NPCs; a small town's walk is short)
SETTLED = 0.05  # ... once it grew less than this share over the last second


class Collector:
    """`install` for the process's life (then `remove`); `sweep` runs on a loop until cancelled.
    `full` counts full collections, `frozen` those whose survivors were frozen."""

    def __init__(self, *, rewalk_s: float = REWALK_S, grown_blocks: int = GROWN_BLOCKS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rewalk_s, self.grown_blocks, self._clock = rewalk_s, grown_blocks, clock
        self._walked = clock()  # when the collector last saw everything
        self._blocks = sys.getallocatedblocks()  # the heap after the last full collection
        self.full = self.frozen = 0

    def install(self) -> None:
        gc.callbacks.append(self._on_gc)

    def remove(self) -> None:
        gc.callbacks.remove(self._on_gc)

    async def sweep(self, every_s: float = YOUNG_EVERY_S) -> None:
        looked, before = self._clock(), sys.getallocatedblocks()
        while True:
            await asyncio.sleep(every_s)
            if self._clock() - looked >= 1.0:  # once a second: has the heap grown in bulk, and settled?
                looked, blocks = self._clock(), sys.getallocatedblocks()
                settled, before = blocks - before < SETTLED * blocks, blocks
                if settled and blocks - self._blocks >= max(self.grown_blocks, GROWN * self._blocks):
                    gc.collect()  # the walk (the callback freezes what it leaves)
                    self._blocks = sys.getallocatedblocks()
                    continue
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
