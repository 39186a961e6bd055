"""Provisional actions: what an NPC does, chosen in code, while its plan is being thought out:
asleep in bed at night, getting ready after waking, at the workplace its identity names on a
weekday, yesterday's routine when there is one. Checked in the Ville and in a town of our own."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from brain_server.cognition.routine import provisional_action, wake_and_bed, workplace
from brain_server.npc import NpcState, Persona, PlanItem

HARBOUR = "Saltmarsh"
COTTAGE = f"{HARBOUR}:Ferreira cottage:bedroom"
LIGHTHOUSE = f"{HARBOUR}:North Point Lighthouse:lamp room"
CHANDLERY = f"{HARBOUR}:Chandlery:shop floor"
OBJECTS = {COTTAGE: ["wardrobe", "bed", "washstand"], LIGHTHOUSE: ["great lamp", "logbook"],
           CHANDLERY: ["counter"]}
MONDAY = datetime(2031, 3, 3, tzinfo=UTC)


def keeper(**persona: object) -> NpcState:
    fields = {"name": "Inês Ferreira", "identity": "Inês keeps the North Point lighthouse and logs every ship.",
              "lifestyle": "rises at 5:30 am and is asleep by 9 pm", "home": COTTAGE,
              "known_areas": [LIGHTHOUSE, CHANDLERY]} | persona
    return NpcState(npc_id="ines", world_name=HARBOUR, persona=Persona(**fields),
                    known_addresses=[COTTAGE, LIGHTHOUSE, CHANDLERY])


def at(hour: int, minute: int = 0, day: datetime = MONDAY) -> datetime:
    return day + timedelta(hours=hour, minutes=minute)


def test_lifestyle_times_are_read_with_their_half_of_the_day() -> None:
    assert wake_and_bed("rises at 5:30 am and is asleep by 9 pm") == (time(5, 30), time(21))
    assert wake_and_bed("goes to bed around 11pm, wakes up around 6am") == (time(6), time(23))
    assert wake_and_bed("goes to bed at 11 and gets up at 7") == (time(7), time(23))
    assert wake_and_bed("likes long walks") == (time(7), time(23))


def test_the_workplace_is_the_known_place_the_identity_names() -> None:
    assert workplace(keeper()) == LIGHTHOUSE
    assert workplace(keeper(identity="Inês sells rope at the chandlery.")) == CHANDLERY
    assert workplace(keeper(identity="Inês is retired.", lifestyle="")) is None


def test_the_hours_of_a_day_without_a_plan() -> None:
    npc = keeper()
    night = provisional_action(npc, at(2), OBJECTS)
    assert (night.description, night.address, night.source) == ("Inês Ferreira is sleeping", f"{COTTAGE}:bed",
                                                                "provisional")
    assert night.end_time <= at(5, 30)
    assert provisional_action(npc, at(22), OBJECTS).address == f"{COTTAGE}:bed"
    assert "getting ready" in provisional_action(npc, at(6), OBJECTS).description
    work = provisional_action(npc, at(10), OBJECTS)
    assert work.address == LIGHTHOUSE and "working" in work.description
    assert "lunch" in provisional_action(npc, at(12, 30), OBJECTS).description
    sunday = provisional_action(npc, at(10, day=MONDAY - timedelta(days=1)), OBJECTS)
    assert sunday.address == COTTAGE


def test_without_a_workplace_the_day_is_spent_at_home() -> None:
    npc = keeper(identity="Inês is retired.", lifestyle="")
    action = provisional_action(npc, at(10), OBJECTS)
    assert action.address == COTTAGE and action.duration_minutes >= 5


def test_yesterdays_plan_is_the_routine_at_this_hour() -> None:
    npc = keeper()
    yesterday = MONDAY - timedelta(days=1)
    npc.plan = [PlanItem(start=at(6, day=yesterday), duration_minutes=180, activity="mending nets", emoji="🪢",
                         address=CHANDLERY),
                PlanItem(start=at(9, day=yesterday), duration_minutes=60, activity="walking the pier",
                         address=LIGHTHOUSE)]
    action = provisional_action(npc, at(7), OBJECTS)
    assert (action.description, action.address) == ("Inês Ferreira is mending nets", CHANDLERY)
    assert action.end_time == at(8)  # an hour at most, then it is asked again
    assert provisional_action(npc, at(9, 30), OBJECTS).address == LIGHTHOUSE
