"""A day plan held to the waking hours the persona states (`offline/awake.py`), against the fake
OpenAI server with the real client and store: a model that reads "goes to bed at 1 am" as 13:00
must not put the NPC to bed for the afternoon and evening, where nobody can meet it."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest

from brain_server.cognition.offline.awake import awake_window
from brain_server.model.npc import NpcState, Persona, PlanItem, is_sleep
from npc_lab.fake_openai import FakeOpenAI
from tests.conftest import Run
from tests.test_plan import CAFE, DAY1, HOME, PARK, W, assert_gap_free, block, new_day

LATE = "Wren gets up at 6 am and goes to bed at 1 am."
# What a literal model wrote for LATE: up at six, the cafe all morning, "bed at 1" read as one in the afternoon.
READ_AS_AFTERNOON = {"wake_up_hour": 6, "outline": ["open the cafe", "serve the morning", "lunch in the park", "bed at 1"],
                     "blocks": [block("06:00", 60, "getting up and dressed", HOME, "🪥"),
                                block("07:00", 300, "serving at the cafe"),
                                block("12:00", 60, "having lunch", PARK, "🥪"),
                                block("13:00", 600, "sleeping", HOME, "😴")]}


def wren(lifestyle: str) -> NpcState:
    persona = Persona(name="Wren Ashby", age=41, identity="Wren runs the cafe on the square.", lifestyle=lifestyle,
                      home=HOME, known_areas=[CAFE, PARK])
    return NpcState(npc_id="isabella", world_name=W, persona=persona, known_addresses=[HOME, CAFE, PARK])


def asleep_between(plan: list[PlanItem], start: datetime, end: datetime) -> timedelta:
    return sum((min(i.end, end) - max(i.start, start) for i in plan
                if is_sleep(i.activity) and i.start < end and i.end > start), timedelta(0))


def test_a_plan_that_sleeps_through_the_stated_waking_hours_gets_the_usual_day_there(
        run: Run, fake_llm: FakeOpenAI) -> None:
    fake_llm.queue({"json": READ_AS_AFTERNOON}, purpose="daily_plan")
    npc = wren(LATE)
    t = run(lambda stream: new_day(npc, DAY1, stream))
    plan = npc.plan
    assert_gap_free(plan)
    assert plan[0].start == DAY1 and plan[-1].end == DAY1 + timedelta(days=1)
    assert asleep_between(plan, DAY1, DAY1 + timedelta(hours=19)) == timedelta(0), \
        [(f"{i.start:%H:%M}", i.activity) for i in plan]
    # What the model planned before one o'clock stands; the night's sleep starts when Wren says.
    assert [(f"{i.start:%H:%M}", i.activity) for i in plan[:3]] == [
        ("06:00", "getting up and dressed"), ("07:00", "serving at the cafe"), ("12:00", "having lunch")]
    assert is_sleep(plan[-1].activity) and plan[-1].start == DAY1.replace(hour=1) + timedelta(days=1)
    afternoon = [i for i in plan if DAY1.replace(hour=13) <= i.start < DAY1.replace(hour=23)]
    assert afternoon and {i.address for i in afternoon} <= {HOME, CAFE, PARK}
    assert any("lifestyle is awake" in n for n in t.notes)


@pytest.mark.parametrize("lifestyle", ["Wren likes long walks and strong tea.",  # says nothing of sleep
                                       "Wren gets up at 6 am and goes to bed at 2 pm."])  # says she sleeps then
def test_sleep_the_lifestyle_does_not_contradict_is_kept(run: Run, fake_llm: FakeOpenAI, lifestyle: str) -> None:
    fake_llm.queue({"json": READ_AS_AFTERNOON}, purpose="daily_plan")
    npc = wren(lifestyle)
    t = run(lambda stream: new_day(npc, DAY1, stream))
    sleep = next(i for i in npc.plan if is_sleep(i.activity))
    assert sleep.start == DAY1.replace(hour=13) and sleep.end == DAY1 + timedelta(days=1)
    assert not any("lifestyle is awake" in n for n in t.notes)


def test_an_early_night_is_the_models_to_plan(run: Run, fake_llm: FakeOpenAI) -> None:
    """An hour and a half of sleep inside the stated hours is a plan's choice (an early night), not a misreading."""
    early = {**READ_AS_AFTERNOON, "blocks": [*READ_AS_AFTERNOON["blocks"][:3], block("13:00", 690, "reading", HOME, "📖"),
                                             block("23:30", 390, "sleeping", HOME, "😴")]}
    fake_llm.queue({"json": early}, purpose="daily_plan")
    npc = wren(LATE)
    run(lambda stream: new_day(npc, DAY1, stream))
    assert next(i for i in npc.plan if is_sleep(i.activity)).start == DAY1.replace(hour=23, minute=30)


@pytest.mark.parametrize(("lifestyle", "window"), [
    ("Wren gets up at 6 am and goes to bed at 1 am.", (time(6), time(1), 1)),
    ("Sam works the night shift; he goes to bed at 8 am and gets up at 3 pm.", (time(15), time(8), 1)),
    ("Ada wakes at 5.", (time(5), time(17), 0)),  # waking stated only: a twelve-hour day at least
    ("Bo goes to bed at 10 pm.", (time(7), time(22), 0)),  # bed stated only: the usual morning
])
def test_the_waking_hours_a_lifestyle_states(lifestyle: str, window: tuple[time, time, int]) -> None:
    found = awake_window(lifestyle, DAY1.date(), UTC)
    assert found is not None
    start, end = found
    assert (start.time(), end.time(), (end.date() - start.date()).days) == window
    assert awake_window("Likes tea.", DAY1.date(), UTC) is None
