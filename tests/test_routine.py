"""The shape of a day drawn from the persona (routine.py), and its two uses: the provisional
action while the plan is being thought out (asleep in bed at night, getting ready after waking,
at the workplace its identity names on a weekday, yesterday's routine when there is one) and the
day plan when the model cannot write one (plan.fallback_plan). Checked in the Ville and in towns
of our own."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from itertools import pairwise

import pytest

from brain_server.cognition.locate import accessible_places
from brain_server.cognition.offline.lifestyle import wake_and_bed, work_hours
from brain_server.cognition.offline.routine import day_shape, provisional_action, workplace
from brain_server.cognition.plan import fallback_plan, schedule
from brain_server.model.npc import NpcState, Persona, PlanItem, is_sleep
from npc_lab import residents as loaders

HARBOUR = "Saltmarsh"
COTTAGE = f"{HARBOUR}:Ferreira cottage:bedroom"
KITCHEN = f"{HARBOUR}:Ferreira cottage:kitchen"
LIGHTHOUSE = f"{HARBOUR}:North Point Lighthouse:lamp room"
CHANDLERY = f"{HARBOUR}:Chandlery:shop floor"
QUAY = f"{HARBOUR}:Harbour:quay"
OBJECTS = {COTTAGE: ["wardrobe", "bed", "washstand"], LIGHTHOUSE: ["great lamp", "logbook"],
           CHANDLERY: ["counter"], KITCHEN: ["stove"], QUAY: ["bollard"]}
MONDAY = datetime(2031, 3, 3, tzinfo=UTC)


def keeper(**persona: object) -> NpcState:
    fields = {"name": "Inês Ferreira", "identity": "Inês keeps the North Point lighthouse and logs every ship.",
              "lifestyle": "rises at 5:30 am and is asleep by 9 pm", "home": COTTAGE,
              "known_areas": [LIGHTHOUSE, CHANDLERY]} | persona
    return NpcState(npc_id="ines", world_name=HARBOUR, persona=Persona(**fields),
                    known_addresses=[COTTAGE, KITCHEN, LIGHTHOUSE, CHANDLERY, QUAY])


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


def test_without_a_workplace_the_morning_is_at_home_and_the_afternoon_out() -> None:
    # It was a day at home: nobody walked. Now the afternoon is at a public place it knows.
    npc = keeper(identity="Inês is retired.", lifestyle="")
    action = provisional_action(npc, at(10), OBJECTS)
    assert action.address == COTTAGE and action.duration_minutes >= 5
    assert provisional_action(npc, at(14, 30), OBJECTS).address in (CHANDLERY, QUAY, LIGHTHOUSE)
    assert provisional_action(npc, at(17), OBJECTS).address == COTTAGE


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


def test_a_one_off_block_is_not_replayed_as_routine() -> None:
    """Yesterday's party (a promise made in conversation, tagged one-off) is neither the provisional
    action at that hour today nor part of the fallback plan: the day shape and the routine stand."""
    npc = keeper()
    yesterday = MONDAY - timedelta(days=1)
    npc.plan = [PlanItem(start=at(5, 30, day=yesterday), duration_minutes=14 * 60 + 30, activity="keeping the light",
                         address=LIGHTHOUSE),
                PlanItem(start=at(20, day=yesterday), duration_minutes=9 * 60 + 30, activity="sleeping",
                         address=COTTAGE)]
    npc.plan_day = yesterday.date()
    npc.commit(PlanItem(start=at(17, day=yesterday), duration_minutes=120, activity="going to Rosa's birthday party",
                        address=QUAY))
    evening = provisional_action(npc, at(18), OBJECTS)
    assert "party" not in evening.description and evening.address == KITCHEN  # the day shape's dinner
    assert provisional_action(npc, at(10), OBJECTS).address == LIGHTHOUSE  # the routine around it stays
    places = [COTTAGE, LIGHTHOUSE, QUAY]
    plan = schedule(fallback_plan(npc, at(5, 30), places), at(5, 30), places, COTTAGE)
    assert not any("party" in i.activity for i in plan)
    assert where(plan, at(18)) == ("keeping the light", LIGHTHOUSE)
    assert [i.one_off for i in npc.plan] == [False, True, False, False]


# --- the day's shape, and the fallback plan drawn from it --------------------------------------


def assert_a_day(blocks: list, wake: datetime) -> None:
    """Gap-free from waking up to waking up the next day, the last block asleep at home."""
    assert blocks[0].start == wake and blocks[-1].end == wake + timedelta(days=1)
    assert all(a.end == b.start for a, b in pairwise(blocks))
    assert all(b.end - b.start >= timedelta(minutes=5) for b in blocks)
    assert is_sleep(blocks[-1].activity) and sum(is_sleep(b.activity) for b in blocks) == 1


def where(blocks: list, when: datetime) -> tuple[str, str]:
    block = next(b for b in blocks if b.start <= when < b.end)
    return block.activity, block.address


def test_a_working_day_goes_to_work_has_lunch_there_and_comes_home() -> None:
    npc = keeper(lifestyle="rises at 5:30 am, keeps the lamp from 8 am to 4 pm, and is asleep by 9 pm",
                 identity="Inês keeps the North Point lighthouse and logs every ship.")
    day = day_shape(npc, MONDAY.date(), UTC)
    assert_a_day(day, at(5, 30))
    assert where(day, at(5, 45)) == ("getting ready for the day", COTTAGE)
    assert where(day, at(6, 30)) == ("having breakfast", KITCHEN)
    assert where(day, at(9)) == ("working at the lamp room", LIGHTHOUSE)
    assert where(day, at(12, 30)) == ("having lunch", LIGHTHOUSE)
    assert where(day, at(18, 30)) == ("having dinner", KITCHEN)
    assert where(day, at(20))[1] == COTTAGE and where(day, at(23))[1] == COTTAGE
    assert sum("lunch" in b.activity for b in day) == 1


def test_a_day_off_goes_out_to_a_place_the_persona_names_then_home() -> None:
    npc = keeper(identity="Inês keeps the North Point lighthouse and buys rope at the chandlery.")
    sunday = day_shape(npc, (MONDAY - timedelta(days=1)).date(), UTC)
    assert_a_day(sunday, at(5, 30, MONDAY - timedelta(days=1)))
    assert all(b.address != LIGHTHOUSE for b in sunday)
    assert where(sunday, at(15, day=MONDAY - timedelta(days=1))) == ("spending time at the shop floor", CHANDLERY)


@pytest.mark.parametrize(("lifestyle", "saturday", "sunday"), [
    ("rises at 5:30 am, keeps the lamp every day from 8 am to 4 pm, and is asleep by 9 pm", True, True),
    ("rises at 5:30 am, keeps the lamp daily, 8 am to 4 pm, and is asleep by 9 pm", True, True),
    ("rises at 5:30 am, keeps the lamp from 8 am to 4 pm, Monday to Saturday, and is asleep by 9 pm", True, False),
    ("rises at 5:30 am, keeps the lamp from 8 am to 4 pm, and is asleep by 9 pm", False, False),
])
def test_a_lifestyle_that_works_at_weekends_goes_to_work_then(lifestyle: str, saturday: bool, sunday: bool) -> None:
    """A keeper whose lamp is kept "every day" was at home each weekend (the lamp of the
    embedded default's engine test stayed dark on a Saturday): the days the lifestyle names are
    working days."""
    npc = keeper(lifestyle=lifestyle)
    for offset, works in ((5, saturday), (6, sunday)):
        day = MONDAY + timedelta(days=offset)
        assert (where(day_shape(npc, day.date(), UTC), at(10, day=day))[1] == LIGHTHOUSE) is works, (lifestyle, offset)


def test_working_hours_come_from_the_lifestyle() -> None:
    assert work_hours("works at the forge from 7 am to 3 pm") == (time(7), time(15))
    assert work_hours("wakes at 6, opens the bakery at 6:30 am, closes it at 2 pm") == (time(6, 30), time(14))
    assert work_hours("opens the pub at 2 pm, closes after midnight") == (time(14), time(22))
    assert work_hours("sleeps in until about 9 am") == (time(9), time(17))
    assert wake_and_bed("sleeps in until about 9 am, and goes to bed around 1 am") == (time(9), time(1))


def test_only_what_the_persona_does_there_makes_a_workplace() -> None:
    assert workplace(keeper(identity="Inês is married to Rui, who runs the Chandlery.", lifestyle="")) is None
    assert workplace(keeper(identity="Inês retired from keeping the North Point lighthouse.", lifestyle="")) is None
    assert workplace(keeper(identity="Inês works on the quay, mending nets.", lifestyle="")) == QUAY
    # A place the NPC may not go is no workplace (the plan's places leave it out).
    assert workplace(keeper(), [COTTAGE, KITCHEN, CHANDLERY]) is None


# A town of our own: a bakery on a hill, a baker on the night shift and a painter with no workplace.
HILL = "Brackenfold"
BAKERY, SQUARE, LOFT = f"{HILL}:Crust and Crumb Bakery:bakehouse", f"{HILL}:Market Square:fountain", f"{HILL}:Loft:attic"
MILL = f"{HILL}:Old Mill:mill room"


def villager(npc_id: str, **persona: object) -> NpcState:
    fields = {"name": npc_id.title(), "home": LOFT, "known_areas": [BAKERY, SQUARE, MILL]} | persona
    return NpcState(npc_id=npc_id, world_name=HILL, persona=Persona(**fields), known_addresses=[LOFT, BAKERY, SQUARE, MILL])


def test_a_night_shift_is_worked_at_night() -> None:
    baker = villager("oda", identity="Oda works nights at the Crust and Crumb Bakery, baking the town's bread.",
                     lifestyle="wakes at 4 pm, works from 10 pm to 6 am, and goes to bed at 8 am")
    day = day_shape(baker, MONDAY.date(), UTC)
    assert_a_day(day, at(16))
    assert where(day, at(23)) == ("working at the bakehouse", BAKERY)
    assert where(day, at(18, 30))[0] == "having dinner"
    assert where(day, at(9, day=MONDAY + timedelta(days=1)))[0] == "sleeping"
    night = provisional_action(baker, at(3, day=MONDAY + timedelta(days=1)), {})
    assert (night.address, night.source) == (BAKERY, "provisional")



def test_a_workplace_the_game_declares_outweighs_the_words() -> None:
    # Words that name no place of work: blind22's Korrin laid no working night for such a driver.
    words = {"identity": "Bram drives the night mail coach over the moor.",
             "lifestyle": "wakes at 2 pm, drives from 9 pm to 5 am, and goes to bed at 7 am"}
    assert workplace(villager("bram", **words)) is None
    driver = villager("bram", **words, workplace=f"{MILL}:millstone")
    assert workplace(driver) == MILL
    day = day_shape(driver, MONDAY.date(), UTC)
    assert_a_day(day, at(14))
    assert where(day, at(23)) == ("working at the mill room", MILL)
    assert where(day, at(4, day=MONDAY + timedelta(days=1)))[1] == MILL
    # Words that name another place than the one the game says it works at.
    baker = villager("oda", identity="Oda works at the Crust and Crumb Bakery.", lifestyle="works from 8 am to 4 pm")
    assert workplace(baker) == BAKERY
    assert workplace(baker.model_copy(update={"persona": baker.persona.model_copy(
        update={"workplace": SQUARE})})) == SQUARE


def test_a_stretch_the_lifestyle_spends_at_a_place_is_the_working_day_whatever_the_verb() -> None:
    # Each stayed home all day: no word of work came before the place.
    miller = villager("ruth", identity="Ruth Abiodun is the miller's widow.",
                      lifestyle="wakes at 5 am, tends the Old Mill from 6 am to 2 pm, and goes to bed at 9 pm")
    day = day_shape(miller, MONDAY.date(), UTC)
    assert where(day, at(6, 30)) == ("working at the mill room", MILL)
    assert where(day, at(13, 30))[1] == MILL and where(day, at(15))[1] != MILL
    # A short stretch somewhere is no working day, and a place with no word of work is none either.
    walker = villager("tam", identity="Tam is retired.", lifestyle="walks in the Market Square from 7 am to 8 am")
    assert workplace(walker) is None
    # An arena named on its own outweighs its sector's name: the bakehouse, not the building's other room.
    hall = [f"{HILL}:Market Hall:market", f"{HILL}:Market Hall:bakery", LOFT]
    baker = villager("mina", identity="Mina runs the bakery in the Market Hall.", lifestyle="")
    assert workplace(baker, hall) == f"{HILL}:Market Hall:bakery"


def test_lifestyles_worded_without_a_word_of_work_keep_their_hours_and_places() -> None:
    """Issue 42: a working day said with any verb ("minds the sluices", "hauls freight"), a night one,
    a place called by the end of its name ("the kiln" of Hollin Kiln), a farm among two that is the
    one it lives on; each was 9 to 5 or at home all day. A stretch asleep is no working day."""
    assert work_hours("rises at 3 am, minds the sluice gates from 4 am to noon, asleep by 7 pm") == (time(4), time(12))
    assert work_hours("up at 1 pm, hauls freight on the night goods from 9 pm to 5 am, bed at 6 am") == (
        time(21), time(5))
    assert work_hours("sleeps from 11 pm to 7 am and reads a lot") == (time(9), time(17))
    kiln, upper, lower = f"{HILL}:Hollin Kiln:firing floor", f"{HILL}:Upper Croft:barn", f"{HILL}:Lower Croft:byre"
    home = f"{HILL}:Lower Croft:bedroom"
    places = [home, kiln, upper, lower, SQUARE]
    for lifestyle, identity, place, hours in (
            ("wakes at 5 am, works the kiln from 6 am to 3 pm, and goes to bed at 9 pm", "Wyn fires bricks.",
             kiln, (6, 15)),
            ("wakes at 4 am, is out on the croft with the goats from 5 am to 6 pm, and goes to bed at 9 pm",
             "Wyn works on the croft.", lower, (5, 18))):
        wyn = NpcState(npc_id="wyn", world_name=HILL, persona=Persona(name="Wyn Ash", identity=identity,
                                                                      lifestyle=lifestyle, home=home),
                       known_addresses=places)
        day = day_shape(wyn, MONDAY.date(), UTC)
        assert workplace(wyn) == place, lifestyle
        assert where(day, at(hours[0], 30))[1] == place and where(day, at(hours[1] - 1, 30))[1] == place
        assert where(day, at(hours[1], 30))[1] != place
    night = NpcState(npc_id="bram", world_name=HILL, persona=Persona(
        name="Bram Eke", identity="Bram works for the Hollin Kiln, hauling its bricks.", home=LOFT,
        lifestyle="gets up at 1 pm, hauls freight from 9 pm to 5 am, and goes to bed at 6 am"), known_addresses=places)
    day = day_shape(night, MONDAY.date(), UTC)
    assert where(day, at(23))[1] == kiln and where(day, at(4, day=MONDAY + timedelta(days=1)))[1] == kiln
    assert where(day, at(15))[1] != kiln


def test_an_arena_with_a_name_of_its_own_is_found_as_written() -> None:
    """A world that names its rooms ("the Canteen", "Crane Cabin 07" in a sector "Terminal 3 Yard"):
    each stayed home all day, its capitalised name taken for someone else's."""
    port = "Port 42"
    rooms = [f"{port}:Terminal 3 Yard:Canteen", f"{port}:Terminal 3 Yard:Crane Cabin 07",
             f"{port}:Terminal 3 Yard:Stack Field 1", f"{port}:Terminal 3 Yard:Bunk Room A"]
    for lifestyle, room in (("cooks in the Canteen from 5 am to 1 pm", rooms[0]),
                            ("works in the Crane Cabin 07 from 6 am to 2 pm", rooms[1]),
                            ("works at Stack Field 1 from 8 am to 4 pm", rooms[2])):
        worker = NpcState(npc_id="w", world_name=port, persona=Persona(
            name="Chidi Okafor", identity="Chidi Okafor lives at the port.", lifestyle=lifestyle, home=rooms[3]))
        assert workplace(worker, rooms) == room, lifestyle


def test_midnight_and_noon_are_times() -> None:
    """"Goes to bed at midnight" slept at 23:00 (the default), and a shift "from noon" had no start."""
    assert wake_and_bed("wakes up at 7 am, goes to bed at midnight") == (time(7), time(0))
    innkeeper = villager("ines", identity="Ines runs the Old Mill.",
                         lifestyle="works at the Old Mill from noon to 11 pm and goes to bed at midnight")
    assert work_hours(innkeeper.persona.lifestyle) == (time(12), time(23))
    day = day_shape(innkeeper, MONDAY.date(), UTC)
    assert where(day, at(23, 30))[0] != "sleeping" and is_sleep(where(day, at(0, 30, day=MONDAY + timedelta(days=1)))[0])


def test_without_a_stated_wake_up_time_it_gets_up_in_time_for_work() -> None:
    baker = villager("lin", identity="Lin works at the Crust and Crumb Bakery from 6 am to 2 pm.")
    day = day_shape(baker, MONDAY.date(), UTC)
    assert day[0].start == at(4, 45) and day[0].activity == "getting ready for the day"
    assert where(day, at(6, 0)) == ("working at the bakehouse", BAKERY)
    sunday = MONDAY - timedelta(days=1)
    assert where(day_shape(baker, sunday.date(), UTC), at(7, 0, day=sunday))[0] == "getting ready for the day"
    late = villager("lin", identity=baker.persona.identity, lifestyle="wakes at 7 am")
    assert day_shape(late, MONDAY.date(), UTC)[0].start == at(7, 0)  # it says when: as it says

def test_the_fallback_plan_is_the_persona_day_at_the_places_it_may_go() -> None:
    painter = villager("ilse", identity="Ilse paints the fountain in Market Square at every season.",
                       lifestyle="wakes up around 8 am and goes to bed around midnight")
    places = [LOFT, BAKERY, SQUARE, MILL]
    now = MONDAY + timedelta(hours=8)
    plan = schedule(fallback_plan(painter, now, places), now, places, LOFT)
    assert plan[0].start == at(8) and plan[-1].end == at(8, day=MONDAY + timedelta(days=1))
    assert all(a.end == b.start for a, b in pairwise(plan)) and is_sleep(plan[-1].activity)
    assert {i.address for i in plan} == {LOFT, SQUARE}  # home, and out to the place she paints
    out = next(i for i in plan if i.address == SQUARE)
    assert out.start == at(14) and out.duration_minutes == 120
    # The provisional action and the fallback plan are one day: the same place at every hour.
    for hour in range(8, 24):
        planned = next(i for i in plan if i.start <= at(hour) < i.end)
        assert provisional_action(painter, at(hour), {}).address == planned.address


VILLE = loaders.load_town_layout(loaders.TOWN_LAYOUT_PATH)
FRIDAY = datetime(2026, 2, 13, tzinfo=UTC)


@pytest.mark.parametrize("resident", loaders.load_residents(loaders.RESIDENTS_DIR), ids=lambda r: r.npc_id)
def test_every_ville_resident_has_a_day_that_leaves_home(resident: loaders.Resident) -> None:
    persona = resident.persona(VILLE.world.name)
    npc = NpcState(npc_id=resident.npc_id, world_name=VILLE.world.name, persona=persona,
                   known_addresses=sorted({persona.home, *persona.known_areas}))
    places = accessible_places(VILLE.world, npc).arena_addresses()
    home_sector = persona.home.rsplit(":", 1)[0]
    for day in (FRIDAY, FRIDAY + timedelta(days=1)):
        plan = schedule(fallback_plan(npc, day, places), day, places, persona.home)
        assert all(i.address in places for i in plan)
        assert all(a.end == b.start for a, b in pairwise(plan)) and is_sleep(plan[-1].activity)
        out = [i for i in plan if not i.address.startswith(home_sector + ":")]
        if resident.workplace.startswith(home_sector + ":") and day.weekday() < 5:
            continue  # works at home: the study, the studio
        assert out, f"{resident.npc_id} stays home all {day:%A}"


def test_an_outing_is_in_the_morning_when_the_persona_says_so() -> None:
    walker = villager("bo", identity="Bo is retired.", lifestyle="wakes at 6 am and walks to the Old Mill after breakfast")
    assert where(day_shape(walker, MONDAY.date(), UTC), at(9, 30)) == ("spending time at the mill room", MILL)
    idler = villager("cy", identity="Cy is retired and likes the Old Mill.", lifestyle="wakes at 6 am")
    day = day_shape(idler, MONDAY.date(), UTC)
    assert where(day, at(9, 30))[1] == LOFT and where(day, at(15))[1] == MILL
