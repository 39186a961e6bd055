"""The registry of the mind's work and each NPC's runtime, without I/O: which kinds an NPC needs
(and which of them make a Decide say `thinking`), and the snapshot a Decide reads."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from brain_server.cognition.runtime import PendingReaction, Runtimes, Snapshot
from brain_server.cognition.work import KINDS, needed, thinking_about_now
from brain_server.config import Settings
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, Persona, PlanItem

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
