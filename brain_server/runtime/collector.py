"""The collector's pauses kept short in a large town. A pause stops every thread, the transports'
too, so the longest one is the longest wait a Decide can meet. Two things made them long at
2,000-10,000 NPCs (measured with a probe on `gc.callbacks`, 2,000 NPCs: up to 57 ms of CPU for
one collection, 163 ms of wall time on the loaded machine; 10,000 quiet: 270 ms):

- The young generation grew to 30,000-90,000 objects between collections. Python collects it
  when allocations outnumber deallocations by the threshold, and a town mostly replaces what it
  has (each Decide saves a new copy of the NPC's record and frees the old one), so the count
  hardly grows while new objects pile up, and the rare collection walks them all. So the young
  generation is collected every YOUNG_EVERY_S of wall time and the middle one every
  MIDDLE_EVERY_S (`sweep`), each over what a few Decides left. Each middle collection counts
  towards the next full one (Python's 10,000): at this pace more than an hour apart. While much
  survives the young collections (a town's day plans landing: middle collections of 20-29 ms of
  CPU at 1,000 NPCs), the middle one comes sooner, so each walks less (`Collector`).
- A full collection walks every object the town holds (533 ms of CPU at 10,000 NPCs). What
  survives one is moved out of the collector's sight (`gc.freeze`), so the next walks only what
  grew since. Freed objects still go at once (reference counting does not look at generations);
  what a frozen object could leave behind is a reference cycle that became garbage after it was
  frozen (a 10,000-NPC run's last walk found 294 garbage objects), so every REWALK_S the frozen
  objects are given back and the next full collection walks everything once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import gc
import time

YOUNG_EVERY_S = 0.05  # each young collection then holds ~50 ms of a busy brain's new objects
MIDDLE_EVERY_S = 0.5  # and each middle one what survived ten of them
MIDDLE_PAUSE_S = 0.005  # a middle collection foretold to take this much CPU comes now
REWALK_S = 4 * 3600.0  # the longest a frozen garbage cycle waits for a walk over everything
GC_THRESHOLDS = (2_000, 1, 10_000)  # new objects per young collection; young per middle; middle per full


def settle_collector() -> None:
    """The collector's pauses stop every thread, the transports' too: keep each one short. What is
    loaded by now (models, prompts, protocol code: ~180k objects) lives as long as the process, so
    it is frozen out of the collector's sight. A young collection's pause grows with what it finds:
    at GC_THRESHOLDS it looks at a few thousand objects, and what survives it moves on after one
    more collection, so the middle generation never holds more than two young ones' leftovers.
    Measured at 1,000 NPCs: middle collections over what ten young ones left paused 40-97 ms every
    few seconds; over what one left, p90 25 ms and at most 58 ms. Young collections every 50,000
    objects paused 100-300 ms. Full collections, which walk every object the town holds (0.3-0.8 s
    at 1,000 NPCs), wait for 10,000 middle ones: hours apart, as before (Python's default: ten).
    In a large town the counts alone are not enough: `Collector` (the young generations on a timer,
    full collections over what grew since the last)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class Collector:
    """`install` for the process's life (then `remove`); `sweep` runs on a loop until cancelled.
    `full` counts full collections, `frozen` those whose survivors were frozen.

    A middle collection walks what survived the young ones since the last, which those young ones
    walked first: so its CPU is foretold by theirs, at the ratio the last middle one showed
    (`survival`). Every tick the sweep collects the young generation, and the middle one instead
    at every `middle_s`, or sooner, once the foretold pause reaches MIDDLE_PAUSE_S."""

    def __init__(self, *, rewalk_s: float = REWALK_S, clock: Callable[[], float] = time.monotonic,
                 cpu: Callable[[], float] = time.thread_time, collect: Callable[[int], object] = gc.collect) -> None:
        self.rewalk_s, self._clock, self._cpu, self._collect = rewalk_s, clock, cpu, collect
        self._walked = clock()  # when the collector last saw everything
        self.full = self.frozen = 0
        self.survival = 0.0  # the last middle collection's CPU per CPU of the young ones before it

    def install(self) -> None:
        gc.callbacks.append(self._on_gc)

    def remove(self) -> None:
        gc.callbacks.remove(self._on_gc)

    async def sweep(self, every_s: float = YOUNG_EVERY_S, middle_s: float = MIDDLE_EVERY_S) -> None:
        most = max(1, round(middle_s / every_s))
        ticks, young_s = 0, 0.0
        while True:
            await asyncio.sleep(every_s)
            ticks += 1
            if ticks < most and young_s * self.survival < MIDDLE_PAUSE_S:
                young_s += self._collect_cpu(0)
                continue
            middle_cpu = self._collect_cpu(1)
            if young_s > 0:
                self.survival = middle_cpu / young_s
            ticks, young_s = 0, 0.0

    def _collect_cpu(self, generation: int) -> float:
        """Collect `generation` (and the younger); the CPU it took, in seconds."""
        began = self._cpu()
        self._collect(generation)
        return self._cpu() - began

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        """After a full collection the younger generations are empty: what is left is long-lived."""
        if phase != "stop" or info["generation"] != 2:
            return
        self.full += 1
        if self._clock() - self._walked >= self.rewalk_s:
            gc.unfreeze()  # the next full collection walks everything once
            self._walked = self._clock()
            return
        gc.freeze()
        self.frozen += 1
