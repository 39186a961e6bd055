"""The registry of the mind's work and each NPC's runtime, without I/O: which kinds an NPC needs
(and which of them make a Decide say `thinking`), and the snapshot a Decide reads."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from brain_server.cognition.runtime import PendingReaction, Runtimes, Snapshot
from brain_server.cognition.thinking import Thinking
from brain_server.cognition.work import KINDS, Kind, needed, thinking_about_now
from brain_server.config import Settings
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, Persona, PlanItem
from brain_server.model.trace import TraceBook

NINE = datetime(2026, 2, 13, 9, tzinfo=UTC)
CAFE = "the Ville:Hobbs Cafe:cafe"


def npc(**fields: object) -> NpcState:
    return NpcState(npc_id="ada", world_name="the Ville", persona=Persona(name="Ada", home=CAFE), **fields)


def planned(*, in_view: bool = True, steps: bool = False) -> NpcState:
    step = PlanItem(start=NINE, duration_minutes=15, activity="brewing", address=CAFE)
    block = PlanItem(start=NINE, duration_minutes=60, activity="opening the cafe", address=CAFE,
                     subtasks=[step] if steps else [])
    later = PlanItem(start=NINE + timedelta(hours=1), duration_minutes=60, activity="serving", address=CAFE)
    return npc(plan_day=NINE.date(), plan=[block, later], in_view=in_view)


def names(state: NpcState, now: datetime = NINE, *, reacting: bool = False) -> list[str]:
    return [k.name for k in needed(state, now, Settings(), reacting=reacting)]


def test_each_kind_is_needed_when_the_npc_lacks_what_it_makes() -> None:
    assert names(npc()) == ["plan"]
    assert names(planned()) == ["decompose_now"]  # the block in progress has no steps
    assert names(planned(steps=True)) == ["decompose"]  # the next hour's block has none yet
    assert names(planned(in_view=False)) == []  # out of view: hour blocks, no steps
    assert names(planned(steps=True), reacting=True) == ["react", "decompose"]
    assert names(npc(), reacting=True) == ["plan"]  # no reaction before the day is planned
    assert names(npc(plan_day=NINE.date(), importance_since_reflection=10_000)) == ["reflect"]
    waiting = npc(plan_day=NINE.date(), unrated_ids=["m"] * 40, unrated_since=NINE)
    assert names(waiting) == ["rate"]


def test_a_reflection_waits_its_gap_whatever_importance_adds_up() -> None:
    """Blind3 rated most of what the Ville's residents saw highly: 20 reflections a game day, two
    calls each. One began an hour ago: none is due, however much importance is waiting; three hours
    after it, one is; a clock set back (a load) does not hold it off; 0 minutes is no gap."""
    heavy = {"plan_day": NINE.date(), "importance_since_reflection": 10_000}
    assert names(npc(**heavy, last_reflection=NINE - timedelta(hours=1))) == []
    assert names(npc(**heavy, last_reflection=NINE - timedelta(hours=3))) == ["reflect"]
    assert names(npc(**heavy, last_reflection=NINE + timedelta(hours=5))) == ["reflect"]
    gapless = needed(npc(**heavy, last_reflection=NINE), NINE, Settings(reflection_min_gap_minutes=0), reacting=False)
    assert [k.name for k in gapless] == ["reflect"]
    assert names(npc(plan_day=NINE.date(), importance_since_reflection=10, last_reflection=None)) == []


def test_a_decide_says_thinking_only_for_work_that_changes_what_the_npc_does_now() -> None:
    settings = Settings()
    assert thinking_about_now(npc(), NINE, settings, reacting=False)
    assert thinking_about_now(planned(), NINE, settings, reacting=False)
    assert not thinking_about_now(planned(steps=True), NINE, settings, reacting=False)  # ahead: not now
    assert thinking_about_now(planned(steps=True), NINE, settings, reacting=True)
    assert {k.name for k in KINDS if k.urgent} == {"plan", "react", "decompose_now"}
    assert {k.family for k in KINDS} == {"plan", "react", "rate", "reflect", "decompose"}


def test_the_snapshot_is_replaced_whole_when_what_a_decide_reads_changes() -> None:
    async def scenario() -> None:
        runtimes = Runtimes()
        assert runtimes.snapshot("ada") == Snapshot()  # an NPC the mind has not seen yet
        runtime = runtimes.of("ada")
        seen = MemoryNode(npc_id="ada", kind=MemoryKind.OBSERVATION, description="Bo is reading", subject="Bo",
                          predicate="is", object="reading", created=NINE, last_accessed=NINE)
        runtime.set_reaction(PendingReaction(seen, "bo", NINE))
        first = runtimes.snapshot("ada")
        assert first.reacting and not first.thinking
        task = asyncio.create_task(asyncio.sleep(0, result=True))
        runtime.started("plan", task, urgent=True)
        second = runtimes.snapshot("ada")
        assert second is not first and second.thinking and first.reacting  # the old one is unchanged
        runtime.started("rate", task, urgent=False)
        runtime.ended("plan")
        assert not runtimes.snapshot("ada").thinking  # rating changes nothing the NPC does now
        runtime.set_talking(True)
        assert runtimes.snapshot("ada").thinking and runtimes.talking("ada", "bo")
        assert runtime.set_reaction(None) is not None and not runtimes.snapshot("ada").reacting
        await task
        with pytest.raises(AttributeError):
            runtimes.snapshot("ada").talking = False  # type: ignore[misc]

    asyncio.run(scenario())


def test_work_that_raises_is_held_off_doubling_until_it_succeeds() -> None:
    """A bug that fails a piece of work every time (stop 107: a prompt fitted in a second round raised,
    and each NPC's day plan was asked again at every Decide) costs one try per hold, not one per
    Decide: held a game minute, then two, four ..., never more than an hour; a success ends it."""
    runtime = Runtimes().of("ada")
    assert not runtime.held("plan", NINE)
    holds = [runtime.failed("plan", NINE) - NINE for _ in range(200)]
    assert holds[:4] == [timedelta(minutes=m) for m in (1, 2, 4, 8)] and holds[-1] == timedelta(hours=1)
    assert runtime.held("plan", NINE + timedelta(minutes=59)) and not runtime.held("plan", NINE + timedelta(hours=1))
    assert not runtime.held("rate", NINE)  # another family goes on
    runtime.succeeded("plan")
    assert not runtime.held("plan", NINE) and runtime.failed("plan", NINE) == NINE + timedelta(minutes=1)


def test_the_runner_holds_off_a_kind_that_raised_and_lets_it_go_when_it_works() -> None:
    outcomes: list[bool | Exception] = [RuntimeError("a bug"), RuntimeError("a bug"), True]

    async def think(workshop: object, work: Work, now: datetime, trace: object) -> bool:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    plan = next(k for k in KINDS if k.name == "plan")
    failing = Kind("plan", plan.priority, plan.urgent, plan.needed, plan.stale, think)
    runtimes, traces = Runtimes(), TraceBook(per_npc=10)
    thinking = Thinking(None, None, runtimes, Settings(), traces, background=False)  # type: ignore[arg-type]

    async def scenario() -> None:
        work = Work(Priority.PLAN_NOW, "ada")
        assert not await thinking.run(failing, work, NINE)
        assert runtimes.of("ada").held("plan", NINE + timedelta(seconds=59))
        assert not await thinking.run(failing, work, NINE + timedelta(minutes=1))
        assert runtimes.of("ada").held("plan", NINE + timedelta(minutes=2))  # two in a row: two minutes
        failed = traces.latest("ada")
        assert failed is not None and failed.notes == ["plan: failed, held off until 09:03"]
        assert await thinking.run(failing, work, NINE + timedelta(minutes=3))
        assert not runtimes.of("ada").held("plan", NINE + timedelta(minutes=3))

    asyncio.run(scenario())
