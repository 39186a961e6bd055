"""The brain's collector (brain_server/runtime/collector.py): survivors of a full collection frozen, all
given back every rewalk, and the young generations swept on a timer whatever the counts say."""

from __future__ import annotations

import asyncio
import gc

import pytest

from brain_server.runtime.collector import MIDDLE_PAUSE_S, Collector
from brain_server.runtime.vitals import Vitals


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_full_collections_freeze_what_they_leave_and_a_rewalk_gives_it_back() -> None:
    now = [0.0]
    collector = Collector(rewalk_s=10, clock=lambda: now[0])
    collector.install()
    try:
        kept = [Node() for _ in range(100)]
        gc.collect()
        assert collector.frozen == 1 and gc.get_freeze_count() >= len(kept)
        now[0] = 11
        gc.collect()
        assert (collector.full, collector.frozen, gc.get_freeze_count()) == (2, 1, 0), "a rewalk sees everything"
        gc.collect()
        assert collector.frozen == 2
    finally:
        collector.remove()
        gc.unfreeze()


def test_the_young_generations_are_swept_when_allocations_and_frees_balance() -> None:
    """A town replacing what it has (a new record copy, the old one freed) keeps Python's count of
    new objects near zero: without the sweep, the young generation grows until something allocates
    more than it frees."""
    old = [[Node()] for _ in range(20_000)]
    gc.collect()
    gc.disable()  # no collection but the sweep's
    try:
        for i in range(len(old)):
            old[i] = [Node()]  # one new, one old freed (refcount: the list)
        young = len(gc.get_objects(0))
        assert young >= len(old), "the churn piles up in the young generation"

        async def swept() -> int:
            # Until the sweep has made a middle collection (every tenth), not for a fixed time: on a
            # loaded machine 50 ms of wall time passed without the loop's thread running once.
            middle = gc.get_stats()[1]["collections"]
            sweeping = asyncio.create_task(Collector().sweep(every_s=0.001, middle_s=0.01))
            for _ in range(5000):
                await asyncio.sleep(0.001)
                if gc.get_stats()[1]["collections"] > middle:
                    break
            sweeping.cancel()
            return len(gc.get_objects(0)) + len(gc.get_objects(1))

        assert asyncio.run(swept()) < young / 10
    finally:
        gc.enable()


def test_every_collection_is_counted_with_its_cpu_apart_from_its_wall_time() -> None:
    """On a busy machine a pause's wall time includes waits for a core: each collection's CPU (the
    collecting thread's) is counted too, every collection, and a pause of 1 ms or more by its wall time."""
    wall, cpu = iter([0.0, 0.030, 1.0, 1.0002]), iter([5.0, 5.004, 6.0, 6.0001])
    vitals = Vitals(clock=lambda: next(wall), cpu_time=lambda: next(cpu))
    for generation in (1, 0):  # a 30 ms middle pause that cost 4 ms of CPU (a core busy elsewhere), a short young one
        vitals._on_gc("start", {"generation": generation})
        vitals._on_gc("stop", {"generation": generation, "collected": 0, "uncollectable": 0})
    assert vitals.gc_cpu.count == 2 and round(vitals.gc_cpu.spread().max_ms, 3) == 4.0
    assert vitals.gc_pauses.count == 1 and round(vitals.gc_pauses.spread().max_ms, 3) == 30.0
    young, middle, full = vitals.gc_cpu_by_generation  # which generation the long ones are (issue 44)
    assert (young.count, middle.count, full.count) == (1, 1, 0)
    assert (round(young.total_ms, 3), round(middle.total_ms, 3)) == (0.1, 4.0)


PER_OBJECT_S = 1e-6  # the injected CPU a collection spends on each object it walks


def test_a_middle_collection_comes_sooner_when_the_young_ones_foretell_a_long_one() -> None:
    """A middle collection walks what survived the young ones since the last; while a town's day
    plans land (here 3,000 new objects a tick that live on, against 100, each walked in 1 us of an
    injected CPU clock), one every tenth tick walked 30,000 objects (30 ms). Counted objects: while
    much survives, the young ones' CPU brings each middle one sooner, so none walks more than a
    couple of ticks' survivors (MIDDLE_PAUSE_S twice over at most); once little survives they come
    every tenth tick again."""
    cpu, young, middle, made = [0.0], [0], [0], []
    burst = range(30, 90)

    class Done(Exception):
        pass

    def collect(generation: int) -> None:
        tick = len(made)
        young[0] += 3000 if tick in burst else 100  # what this tick made, alive at its collection
        walked = young[0] + (middle[0] if generation == 1 else 0)
        cpu[0] += walked * PER_OBJECT_S
        made.append((generation, walked))
        young[0], middle[0] = 0, (0 if generation == 1 else middle[0] + young[0])
        if len(made) == 300:
            raise Done

    collector = Collector(cpu=lambda: cpu[0], collect=collect)
    with pytest.raises(Done):
        asyncio.run(collector.sweep(every_s=1e-6, middle_s=1e-5))
    middles = [(tick, walked) for tick, (generation, walked) in enumerate(made) if generation == 1]
    most = round(2 * MIDDLE_PAUSE_S / PER_OBJECT_S)
    assert max(walked for tick, walked in middles if tick in burst) <= most, "ten ticks of it: 30,000"
    assert sum(tick in burst for tick, _ in middles) >= 15
    quiet = [tick for tick, _ in middles if tick > burst.stop + 20]
    assert len(quiet) >= 10 and all(b - a == 10 for a, b in zip(quiet, quiet[1:], strict=False))
