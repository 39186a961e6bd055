"""A day plan held to the working day its persona states (`offline/workday.py`): blind15 put a
shopkeeper's shop hours in her own kitchen, and out of view nobody met her there. No model here:
the plan is given, as a model might write it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from brain_server.cognition.offline.workday import AWAY_FROM_WORK, keep_at_work, meals_kept_short
from brain_server.model.npc import NpcState, Persona, PlanItem

Q = "Harrow Quay"
BED, KITCHEN, SHOP, LOFT = f"{Q}:Osk house:bedroom", f"{Q}:Osk house:kitchen", f"{Q}:Chandlery:shop floor", \
    f"{Q}:Net Loft:loft"
PLACES = [BED, KITCHEN, SHOP, LOFT]
TUESDAY = datetime(2026, 6, 2, tzinfo=UTC)


def mina(lifestyle: str = "wakes up at 6 am, keeps the chandlery open from 8 am to 5 pm, and goes to bed at 10 pm",
         identity: str = "Mina Osk runs the chandlery on the quay and mends sails for the boats.") -> NpcState:
    return NpcState(npc_id="mina", world_name=Q, known_addresses=PLACES,
                    persona=Persona(name="Mina Osk", home=BED, lifestyle=lifestyle, identity=identity))


def day(*blocks: tuple[int, int, str, str], on: datetime = TUESDAY) -> list[PlanItem]:
    return [PlanItem(start=on + timedelta(hours=a), duration_minutes=(b - a) * 60, activity=what, address=where)
            for a, b, what, where in blocks]


def where(items: list[PlanItem]) -> list[tuple[str, str, str]]:
    return [(f"{i.start:%H:%M}-{i.end:%H:%M}", i.activity, i.address) for i in items]


def test_working_hours_planned_away_from_the_workplace_are_worked_there() -> None:
    plan = day((6, 7, "having breakfast", KITCHEN), (7, 12, "busy at the kitchen", KITCHEN),
               (12, 13, "having lunch", KITCHEN), (13, 18, "busy at the kitchen", KITCHEN),
               (18, 22, "relaxing at home", BED), (22, 30, "sleeping", BED))
    kept, away = keep_at_work(plan, mina(), PLACES)
    assert away == timedelta(hours=8)
    assert where(kept) == [
        ("06:00-07:00", "having breakfast", KITCHEN), ("07:00-08:00", "busy at the kitchen", KITCHEN),
        ("08:00-12:00", "working at the shop floor", SHOP), ("12:00-13:00", "having lunch", KITCHEN),
        ("13:00-17:00", "working at the shop floor", SHOP), ("17:00-18:00", "busy at the kitchen", KITCHEN),
        ("18:00-22:00", "relaxing at home", BED), ("22:00-06:00", "sleeping", BED)]
    assert all(a.end == b.start for a, b in zip(kept, kept[1:], strict=False))


def test_a_plan_that_works_at_the_workplace_or_steps_out_briefly_is_kept() -> None:
    at_work = day((6, 8, "having breakfast", KITCHEN), (8, 17, "serving at the counter", SHOP),
                  (17, 30, "sleeping", BED))
    assert keep_at_work(at_work, mina(), PLACES) == (at_work, timedelta(0))
    errand = day((6, 8, "having breakfast", KITCHEN), (8, 10, "serving at the counter", SHOP),
                 (10, 11, "buying rope at the loft", LOFT), (11, 17, "serving at the counter", SHOP),
                 (17, 30, "sleeping", BED))
    assert timedelta(hours=1) <= AWAY_FROM_WORK
    assert keep_at_work(errand, mina(), PLACES) == (errand, timedelta(0))


@pytest.mark.parametrize(("persona", "on"), [
    (mina(lifestyle="wakes up at 6 am and goes to bed at 10 pm"), TUESDAY),  # no working hours stated
    (mina(lifestyle="wakes up at 6 am, works from 8 am to 5 pm, and goes to bed at 10 pm",
          identity="Mina Osk mends sails for the boats."), TUESDAY),  # no workplace named
    (mina(), TUESDAY + timedelta(days=5)),  # Sunday: a working week's day off
])
def test_a_day_the_persona_does_not_state_as_a_working_day_is_kept(persona: NpcState, on: datetime) -> None:
    plan = day((6, 8, "having breakfast", KITCHEN), (8, 17, "busy at the kitchen", KITCHEN),
               (17, 30, "sleeping", BED), on=on)
    assert keep_at_work(plan, persona, PLACES) == (plan, timedelta(0))


def test_working_hours_go_to_the_workplace_the_game_declares_where_the_words_name_none() -> None:
    words = {"lifestyle": "wakes up at 6 am, works from 8 am to 5 pm, and goes to bed at 10 pm",
             "identity": "Mina Osk mends sails for the boats."}
    persona = mina(**words)
    persona.persona.workplace = LOFT
    plan = day((6, 8, "having breakfast", KITCHEN), (8, 17, "busy at the kitchen", KITCHEN),
               (17, 30, "sleeping", BED))
    kept, away = keep_at_work(plan, persona, PLACES)
    assert away == timedelta(hours=9)
    assert where(kept)[1] == ("08:00-17:00", "working at the loft", LOFT)


def test_an_event_a_visit_or_a_promise_in_working_hours_is_kept() -> None:
    plan = day((6, 8, "having breakfast", KITCHEN), (8, 12, "busy at the kitchen", KITCHEN),
               (12, 17, "helping at the net mending", LOFT), (17, 30, "sleeping", BED))
    plan[2] = plan[2].model_copy(update={"one_off": True})
    kept, away = keep_at_work(plan, mina(), PLACES)
    assert away == timedelta(hours=4)
    assert where(kept)[1:3] == [("08:00-12:00", "working at the shop floor", SHOP),
                                ("12:00-17:00", "helping at the net mending", LOFT)]


def test_a_night_shift_is_worked_tonight() -> None:
    keeper = mina(lifestyle="wakes up at 2 pm, keeps the chandlery open from 8 pm to 4 am for the night boats, "
                            "and goes to bed at 6 am")
    plan = day((14, 15, "having breakfast", KITCHEN), (15, 20, "relaxing at home", BED),
               (20, 28, "sorting ropes", KITCHEN), (28, 38, "sleeping", BED))
    kept, away = keep_at_work(plan, keeper, PLACES)
    assert away == timedelta(hours=8)
    assert where(kept)[2] == ("20:00-04:00", "working at the shop floor", SHOP)


def test_a_meal_that_runs_on_through_the_working_hours_keeps_a_lunch_break() -> None:
    """A model that stretches each item of its outline to the next laid "having lunch" from noon to 6 pm
    at home (blind34, the Ville: the cafe shut all afternoon, its host met nobody): the meal keeps an
    hour of the working hours, the rest is worked at the workplace; a lunch of an hour is kept whole."""
    plan = day((6, 8, "having breakfast", KITCHEN), (8, 12, "serving at the counter", SHOP),
               (12, 18, "having lunch", KITCHEN), (18, 22, "relaxing at home", BED), (22, 30, "sleeping", BED))
    kept, away = keep_at_work(plan, mina(), PLACES)
    assert away == timedelta(hours=4)
    assert where(kept) == [
        ("06:00-08:00", "having breakfast", KITCHEN), ("08:00-12:00", "serving at the counter", SHOP),
        ("12:00-13:00", "having lunch", KITCHEN), ("13:00-17:00", "working at the shop floor", SHOP),
        ("17:00-18:00", "free time", KITCHEN), ("18:00-22:00", "relaxing at home", BED), ("22:00-06:00", "sleeping", BED)]
    lunch = day((6, 8, "having breakfast", KITCHEN), (8, 12, "serving at the counter", SHOP),
                (12, 13, "having lunch", KITCHEN), (13, 17, "serving at the counter", SHOP), (17, 30, "sleeping", BED))
    assert keep_at_work(lunch, mina(), PLACES) == (lunch, timedelta(0))
    longer = day((6, 8, "having breakfast", KITCHEN), (8, 12, "serving at the counter", SHOP),
                 (12, 14, "having lunch", KITCHEN), (14, 17, "serving at the counter", SHOP), (17, 30, "sleeping", BED))
    assert keep_at_work(longer, mina(), PLACES) == (longer, timedelta(0))  # an hour over: within the tolerance


def test_a_meal_of_hours_on_a_day_off_keeps_two_and_the_rest_is_free_time_where_it_is() -> None:
    """blind34 in the Ville (seed 7): on her day off the host had "having lunch" from noon to 5 pm at
    home, the evening of her party, and a meal is no time to go and find people. A meal keeps
    MEAL_LONGEST, the rest of its block is free time at the same place; a dinner of two hours, an
    event the model meant and a one-off are kept as planned."""
    saturday = TUESDAY + timedelta(days=4)
    plan = day((7, 8, "having breakfast", KITCHEN), (8, 12, "tidying the loft", LOFT), (12, 17, "having lunch", KITCHEN),
               (17, 19, "having dinner with friends", LOFT), (19, 31, "sleeping", BED), on=saturday)
    assert where(meals_kept_short(plan)) == [
        ("07:00-08:00", "having breakfast", KITCHEN), ("08:00-12:00", "tidying the loft", LOFT),
        ("12:00-14:00", "having lunch", KITCHEN), ("14:00-17:00", "free time", KITCHEN),
        ("17:00-19:00", "having dinner with friends", LOFT), ("19:00-07:00", "sleeping", BED)]
    assert meals_kept_short(plan, meant=lambda item: item.activity == "having lunch") == plan
    event = [plan[2].model_copy(update={"one_off": True})]
    assert meals_kept_short(event) == event
