"""The LLM scheduler: the most urgent class first, NPCs in turn within a class, stale work dropped,
bounded queues, a slot kept for the player, and a cancelled waiter gives its turn back; and
background work waiting out a burst of Decides."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
import threading
import time
from typing import Any
import zlib

import pytest

from brain_server.llm.scheduler import RETRY_STRAINED_S, Priority, Scheduler, Work, WorkDropped
from brain_server.runtime.foreground import (
    HANDOFF_POLL_S,
    LONGEST_SPREAD,
    SHORTEST_SPREAD,
    AskSpread,
    Foreground,
    Handoff,
)
from brain_server.runtime.vitals import LOOP_TICK_S, Vitals
from tests.waits import wait_until, wait_until_async


def run_all(scheduler: Scheduler, works: list[Work], *, hold: asyncio.Event | None = None) -> list[str]:
    """Start every work at once (each takes a slot in turn) and return the order they got it."""
    order: list[str] = []

    async def one(work: Work, label: str) -> None:
        try:
            async with scheduler.slot(work):
                order.append(label)
                await asyncio.sleep(0)
        except WorkDropped:
            order.append(f"dropped:{label}")

    async def main() -> None:
        gate = asyncio.Event()

        async def blocker() -> None:
            async with scheduler.slot(Work(Priority.BACKGROUND, "blocker")):
                await gate.wait()

        first = asyncio.create_task(blocker())
        await asyncio.sleep(0)
        tasks = [asyncio.create_task(one(w, f"{w.priority.name.lower()}:{w.npc_id}")) for w in works]
        await asyncio.sleep(0.01)
        gate.set()
        await asyncio.gather(first, *tasks)

    asyncio.run(main())
    return order


def test_the_most_urgent_class_goes_first() -> None:
    works = [Work(Priority.BACKGROUND, "a"), Work(Priority.AHEAD, "b"), Work(Priority.PLAN_NOW, "c"),
             Work(Priority.SOCIAL, "d")]
    order = run_all(Scheduler(1, player_reserve=0), works)
    assert order == ["social:d", "plan_now:c", "ahead:b", "background:a"]


def test_npcs_take_turns_within_a_class() -> None:
    works = [Work(Priority.PLAN_NOW, n) for n in ("a", "a", "a", "b", "c")]
    order = run_all(Scheduler(1, player_reserve=0), works)
    assert order == ["plan_now:a", "plan_now:b", "plan_now:c", "plan_now:a", "plan_now:a"]


def test_work_stale_when_its_turn_comes_is_dropped_and_counted() -> None:
    gone = {"yes": False}
    works = [Work(Priority.SOCIAL, "a", stale=lambda: gone["yes"]), Work(Priority.SOCIAL, "b")]
    gone["yes"] = True
    scheduler = Scheduler(1, player_reserve=0)
    order = run_all(scheduler, works)
    assert order == ["dropped:social:a", "social:b"]
    social = next(r for r in scheduler.report() if r.priority is Priority.SOCIAL)
    assert (social.dropped_stale, social.served) == (1, 2)


def test_a_full_queue_refuses_more_work() -> None:
    scheduler = Scheduler(1, max_waiting=2, player_reserve=0)
    order = run_all(scheduler, [Work(Priority.AHEAD, n) for n in "abc"])
    assert order.count("dropped:ahead:c") == 1 and len(order) == 3
    assert next(r for r in scheduler.report() if r.priority is Priority.AHEAD).dropped_full == 1


def test_the_player_has_a_slot_of_its_own() -> None:
    """Every slot busy with the town's thinking: a player's line still starts at once."""
    scheduler = Scheduler(1, player_reserve=1)

    async def main() -> bool:
        gate = asyncio.Event()

        async def busy() -> None:
            async with scheduler.slot(Work(Priority.PLAN_NOW, "town")):
                await gate.wait()

        hog = asyncio.create_task(busy())
        await asyncio.sleep(0)
        async with asyncio.timeout(1):
            async with scheduler.slot(Work(Priority.PLAYER, "isabella")):
                started = True
        gate.set()
        await hog
        return started

    assert asyncio.run(main())


def test_a_cancelled_waiter_frees_its_place() -> None:
    scheduler = Scheduler(1, player_reserve=0)

    async def main() -> list[str]:
        gate, order = asyncio.Event(), []

        async def one(label: str, wait: asyncio.Event | None = None) -> None:
            async with scheduler.slot(Work(Priority.PLAN_NOW, label)):
                order.append(label)
                if wait:
                    await wait.wait()

        first = asyncio.create_task(one("first", gate))
        await asyncio.sleep(0)
        doomed, last = asyncio.create_task(one("doomed")), asyncio.create_task(one("last"))
        await asyncio.sleep(0)
        doomed.cancel()
        gate.set()
        await asyncio.gather(first, last)
        with pytest.raises(asyncio.CancelledError):
            await doomed
        return order

    assert asyncio.run(main()) == ["first", "last"]
    assert all(r.waiting == 0 and r.running == 0 for r in scheduler.report())


def test_a_strained_process_runs_work_nobody_waits_for_one_at_a_time() -> None:
    """While the event loop wakes late, decomposition ahead and background work run one
    completion at a time, plans needed now keep every slot, and the strain lifting lets the
    held-back work start without waiting for the running one."""
    strain = {"on": True}
    scheduler = Scheduler(4, player_reserve=0, strained=lambda: strain["on"])
    running: list[str] = []
    most_deferred = 0

    async def one(work: Work, label: str, until: asyncio.Event) -> None:
        nonlocal most_deferred
        async with scheduler.slot(work):
            running.append(label)
            most_deferred = max(most_deferred, sum(r.startswith(("ahead", "background")) for r in running))
            await until.wait()
            running.remove(label)

    async def main() -> None:
        release = asyncio.Event()
        works = [(Work(Priority.AHEAD, n), f"ahead:{n}") for n in "ab"] + [(Work(Priority.BACKGROUND, "c"), "background:c")]
        tasks = [asyncio.create_task(one(w, label, release)) for w, label in works]
        await asyncio.sleep(0.05)
        assert running == ["ahead:a"]  # one deferrable at a time, three slots free
        now = asyncio.Event()
        urgent = asyncio.create_task(one(Work(Priority.PLAN_NOW, "d"), "plan_now:d", now))
        await asyncio.sleep(0.01)
        assert "plan_now:d" in running  # needed now: not held back by the strain
        now.set()
        await urgent
        strain["on"] = False
        # The scheduler looks again RETRY_STRAINED_S later: the held-back work starts then.
        await wait_until_async(lambda: len(running) == 3, what="the held-back work started once the strain lifted")
        assert sorted(running) == ["ahead:a", "ahead:b", "background:c"]
        release.set()
        await asyncio.gather(*tasks)

    asyncio.run(main())
    assert most_deferred == 3


def test_a_strained_process_spaces_out_work_nobody_waits_for() -> None:
    """Back to back, one at a time would still fill the process: while strained, each deferrable
    completion starts RETRY_STRAINED_S after the one before, even when nothing else runs. The
    scheduler's clock moves half of that between its looks again (RETRY_STRAINED_S apart)."""
    now, step = [0.0], RETRY_STRAINED_S / 2
    scheduler = Scheduler(4, player_reserve=0, strained=lambda: True, clock=lambda: now[0])
    started: list[float] = []

    async def one(n: int) -> None:
        async with scheduler.slot(Work(Priority.BACKGROUND, f"npc{n}")):
            started.append(now[0])

    async def main() -> None:
        works = asyncio.gather(*(one(n) for n in range(4)))
        while not works.done():
            await asyncio.sleep(RETRY_STRAINED_S * 1.5)  # the scheduler's next look comes first
            await asyncio.sleep(0)  # and a task it granted then records its start before the clock moves
            now[0] += step
        await works

    asyncio.run(main())
    gaps = [b - a for a, b in zip(started, started[1:], strict=False)]
    assert len(started) == 4 and started[0] == 0.0
    assert all(RETRY_STRAINED_S - 1e-9 <= gap <= RETRY_STRAINED_S + step + 1e-9 for gap in gaps), gaps


class _Virtual:
    """A clock the test moves: sleep(s) returns once it has moved s on, whatever the real time."""

    def __init__(self) -> None:
        self.now = 0.0
        self._moved = asyncio.Event()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        until = self.now + seconds
        while self.now < until:
            self._moved.clear()
            await self._moved.wait()

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self._moved.set()


def test_background_work_waits_for_a_burst_of_answers_to_end() -> None:
    """Thinking steps aside while Decides are being answered (brain_server/runtime/foreground.py): it
    starts after the last answer of a burst, and a town that never stops asking still thinks. The
    answers come every 5 ms of a clock the test moves, and it goes on moving once they stop."""
    async def burst(foreground: Foreground, answers: int, clock: _Virtual, log: list[str]) -> None:
        for _ in range(answers):
            foreground.answering()
            log.append("answer")
            clock.advance(0.005)
            await asyncio.sleep(0)  # a thought woken by the clock looks before the next answer
        while "think" not in log:  # quiet: time passes with no answer
            clock.advance(0.005)
            await asyncio.sleep(0)

    async def think(foreground: Foreground, log: list[str]) -> None:
        await asyncio.sleep(0)  # started by the burst's first answer
        await foreground.quiet()
        log.append("think")

    async def main(answers: int, **settings: Any) -> list[str]:
        log: list[str] = []
        clock = _Virtual()
        foreground = Foreground(clock=clock.clock, sleep=clock.sleep, **settings)
        await asyncio.gather(burst(foreground, answers, clock, log), think(foreground, log))
        return log

    assert asyncio.run(main(20, quiet_s=0.05, longest_wait_s=5.0)) == ["answer"] * 20 + ["think"]
    endless = asyncio.run(main(60, quiet_s=0.05, longest_wait_s=0.02))
    assert endless.index("think") < 59, endless  # waited at most longest_wait_s, not for the end
    assert asyncio.run(main(5, enabled=False)).index("think") < 5  # lockstep: amid the answers, no waiting


def _town_asks(spread: AskSpread, clock_at: list[float], npcs: int, *, speed: float, rounds: int = 3) -> None:
    """`npcs` NPCs each asking once a clock_at second of a game running at `speed`."""
    start = datetime(2026, 2, 13, 9, tzinfo=UTC)
    for second in range(rounds):
        for n in range(npcs):
            clock_at[0] = second + n / npcs
            spread.asked(f"npc-{n}", start + timedelta(seconds=clock_at[0] * speed))


def test_a_large_town_asks_again_spread_over_more_game_time() -> None:
    """Steps end on shared marks: a small town spreads its asks over a game minute, as many NPCs as
    ASKS_PER_S would ask within one clock_at second spread theirs over longer, in game time at the
    game's speed, up to LONGEST_SPREAD; a lockstep world keeps a minute."""
    clock_at = [0.0]
    small = AskSpread(clock=lambda: clock_at[0])
    _town_asks(small, clock_at, 25, speed=60)
    assert small.spread() == SHORTEST_SPREAD
    assert small.offset("npc-3") == timedelta(seconds=zlib.crc32(b"npc-3") % 60)

    clock_at = [0.0]
    town = AskSpread(clock=lambda: clock_at[0])
    _town_asks(town, clock_at, 300, speed=60)
    assert timedelta(minutes=2) <= town.spread() <= timedelta(minutes=4)  # 300 asks at 100 a second: 3 s = 3 game min
    offsets = [town.offset(f"npc-{n}") for n in range(300)]
    assert max(offsets) > SHORTEST_SPREAD and all(o < town.spread() for o in offsets)

    clock_at = [0.0]
    huge = AskSpread(clock=lambda: clock_at[0])
    _town_asks(huge, clock_at, 2000, speed=60)
    assert huge.spread() == LONGEST_SPREAD

    clock_at = [0.0]
    slow = AskSpread(clock=lambda: clock_at[0])
    _town_asks(slow, clock_at, 300, speed=1)  # a game at real speed has 3 s to spare in any game minute
    assert slow.spread() == SHORTEST_SPREAD

    clock_at = [0.0]
    skipping = AskSpread(clock=lambda: clock_at[0])
    _town_asks(skipping, clock_at, 300, speed=1)
    for n in range(300):  # the night skipped: eight game hours in a clock_at second, once
        clock_at[0] = 3 + n / 300
        skipping.asked(f"npc-{n}", datetime(2026, 2, 13, 17, tzinfo=UTC))
    assert skipping.spread() < LONGEST_SPREAD

    clock_at = [0.0]
    lockstep = AskSpread(real_time=False, clock=lambda: clock_at[0])
    _town_asks(lockstep, clock_at, 2000, speed=60)
    assert lockstep.spread() == SHORTEST_SPREAD


class _Meter:
    """A clock and a CPU meter for Vitals that move only when it reads the CPU (twice a tick, around
    its sleep): each reading, `step_s` of wall time passes, of which the loop's thread used `share`."""

    def __init__(self) -> None:
        self.now = self.cpu = 0.0
        self.share, self.step_s = 0.0, LOOP_TICK_S

    def clock(self) -> float:
        return self.now

    def cpu_time(self) -> float:
        self.now += self.step_s
        self.cpu += self.share * self.step_s
        return self.cpu


def test_a_loop_whose_thread_keeps_the_interpreter_busy_is_strained() -> None:
    """Busy in short steps, the loop is never late, yet the transports' thread waits for the
    interpreter at every call it answers: a thread using most of a core counts as strained, one
    using half of it does not, and a loop waking late does whatever its thread used."""
    meter = _Meter()
    vitals = Vitals(clock=meter.clock, cpu_time=meter.cpu_time)

    async def after(ticks: int, share: float, late_s: float = 0.0) -> bool:
        meter.share, meter.step_s = share, LOOP_TICK_S + late_s
        until = vitals.loop_late.count + ticks
        while vitals.loop_late.count < until:
            await asyncio.sleep(LOOP_TICK_S)
        return vitals.strained()

    async def main() -> list[bool]:
        vitals.start()
        try:
            return [await after(10, 0.9), await after(10, 0.5), await after(10, 0.0, late_s=0.05),
                    await after(10, 0.0)]
        finally:
            await vitals.stop()

    assert asyncio.run(main()) == [True, False, True, False]


class _CountingLoop(asyncio.SelectorEventLoop):
    """A real loop that counts how often another thread woke it."""

    wakeups = 0

    def call_soon_threadsafe(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        self.wakeups += 1
        return super().call_soon_threadsafe(*args, **kwargs)


def test_a_steady_stream_of_handed_over_calls_wakes_the_loop_once() -> None:
    loop = _CountingLoop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    handoff, ran, threads = Handoff(loop), [], set()

    def call(i: int) -> Callable[[], None]:
        return lambda: (ran.append(i), threads.add(threading.get_ident()))

    try:
        for i in range(200):  # a Decide's record every millisecond: the loop keeps looking
            handoff.post(call(i))
            time.sleep(0.001)
        wait_until(lambda: len(ran) >= 200, what="the 200 handed-over calls ran")
        assert ran == list(range(200)) and threads == {thread.ident}
        assert loop.wakeups <= 20, loop.wakeups  # not once per call (a pause over the poll wakes it again)
        time.sleep(HANDOFF_POLL_S * 20)  # quiet: the loop stops looking; the next call wakes it
        before = loop.wakeups
        handoff.post(call(200))
        wait_until(lambda: len(ran) >= 201, what="the call after the quiet ran", poll_s=0.001)
        assert ran[-1] == 200 and loop.wakeups == before + 1
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
