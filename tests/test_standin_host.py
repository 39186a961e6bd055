"""A stand-in host reads its status as a model would: one who means to ask everyone it meets to
an event plans its free hours where people gather (issue 30: the baker who met nobody), and one
without that aim, or whose event is past, keeps its usual day."""

from __future__ import annotations

import pytest

from tests.test_standin import INVITE, PLACES, _ask, _hard

PLACES_OUT = [*PLACES, "Brookhaven:Anchor Inn:taproom"]
HOST = ("Name: Odile Marsh\nAge: 51\nIdentity: Odile Marsh keeps the lamp at the Lighthouse.\nLifestyle: wakes up at "
        "5 am, works in the lamp room from 8 am to 3 pm, goes to bed at 9 pm\nCurrently: Odile Marsh wants to lead a lantern "
        "walk from the Chapel on March 5 from 6 pm to 8 pm, and to ask everyone she meets to come along.")


def _plan(persona: str, date: str) -> list[tuple[str, str, str]]:
    plan = _ask("daily_plan", persona=persona, date=date, places="\n".join(f"- {p}" for p in PLACES_OUT),
                place_list=PLACES_OUT, memories="- Odile Marsh is polishing the lens")
    return [(b.start, b.activity, b.address) for b in plan.blocks]


@pytest.mark.parametrize("date", ["Tuesday March 3, 2026", "Thursday March 5, 2026"])
def test_a_host_who_means_to_ask_everyone_plans_time_where_people_gather(date: str) -> None:
    blocks = _plan(HOST, date)
    asking = [(start, address) for start, activity, address in blocks if activity == "asking people to come along"]
    assert [s for s, _ in asking] == ["15:00", "16:00"], blocks
    first, then = (address for _, address in asking)
    assert first == "Brookhaven:Anchor Inn:taproom", "where people gather first"
    assert then not in (first, PLACES[0], "Brookhaven:Lighthouse:lamp room"), "then away from home and work"
    assert ("12:00", "having lunch at the taproom", first) in blocks


def test_without_that_aim_or_after_the_event_the_day_is_the_usual_one() -> None:
    usual = HOST.replace(", and to ask everyone she meets to come along", "")
    for persona, date in ((usual, "Tuesday March 3, 2026"), (HOST, "Friday March 6, 2026")):
        blocks = _plan(persona, date)
        assert not [b for b in blocks if "asking" in b[1]], blocks
        assert ("15:00", "relaxing at home", PLACES[0]) in blocks


def test_someone_elses_aim_in_a_status_is_news_not_a_plan_of_ones_own() -> None:
    heard = HOST.replace("Name: Odile Marsh", "Name: Piet Vos").replace("Currently: Odile", "Currently: Piet Vos "
                                                                        "is mending nets. Odile")
    assert not [b for b in _plan(heard, "Tuesday March 3, 2026") if "asking" in b[1]]


@pytest.mark.parametrize("aim", ["to ask everyone she meets to come along", "to ask whoever she meets to come"])
def test_the_hard_host_never_forgets_to_ask_about_what_her_status_says_she_means_to(aim: str) -> None:
    """The hard stand-in forgets a share of the news it passes on (RATES.forget), but not the aim
    its own status states, which a model reads in every prompt, however it is worded (Korrin's
    host means "to ask whoever he meets to come")."""
    host = HOST.replace("to ask everyone she meets to come along", aim)
    partners = ["Piet Vos", "Mina Roe", "Hana Ostrova", "Ruben Kask", "Lotte Brandt", "Emil Sarre", "Tobias Grell",
                "Ada Kern", "Bo Lund", "Cas Moor"]  # the forgetting test's: it forgets some with INVITE alone
    lines = [_hard("converse_turn", seed, partner=p, persona=host, memories=INVITE,
                   time="Tuesday March 3, 10:00").utterance for p in partners for seed in range(3)]
    assert all("lantern walk" in line for line in lines), lines


def test_a_school_is_shut_at_the_weekend_an_inn_is_not() -> None:
    """The prompt's date names a Saturday: a teacher's usual day is free, an innkeeper's is not."""
    teacher = ("Name: Dalia Moss\nIdentity: Dalia Moss teaches at the School.\nLifestyle: wakes up at 7 am, teaches "
               "at the School from 8 am to 3 pm, and goes to bed at 11 pm\nCurrently: Dalia Moss is marking essays.")
    places = ["Wyncombe:Moss cottage:bedroom", "Wyncombe:School:classroom", "Wyncombe:Plough Inn:taproom"]
    innkeeper = teacher.replace("teaches at the School", "runs the Plough Inn")
    for persona, date, working in ((teacher, "Friday April 10, 2026", True), (teacher, "Saturday April 11, 2026", False),
                                   (innkeeper, "Saturday April 11, 2026", True)):
        blocks = _ask("daily_plan", persona=persona, date=date, places="\n".join(f"- {p}" for p in places),
                      place_list=places).blocks
        busy = [b for b in blocks if b.activity.startswith("busy at")]
        assert bool(busy) == working, (date, [(b.start, b.activity) for b in blocks])
        if not working:  # out among people in the afternoon, as the brain's routine has a day off
            assert any(b.start == "14:00" and b.address == places[2] for b in blocks), blocks


def test_a_host_whose_workplace_is_where_people_gather_stays_there_and_skips_its_back_rooms() -> None:
    """A cafe owner's customers come to her: she eats in the cafe, not in its kitchen or elsewhere."""
    places = ["Brookhaven:Ferry House:kitchen", "Brookhaven:Hobbs Cafe:cafe", "Brookhaven:Hobbs Cafe:cafe kitchen",
              "Brookhaven:Anchor Inn:taproom"]
    owner = HOST.replace("keeps the lamp at the Lighthouse", "runs Hobbs Cafe").replace(
        "works in the lamp room", "opens the cafe")
    blocks = _ask("daily_plan", persona=owner, date="Tuesday March 3, 2026", places="\n".join(f"- {p}" for p in places),
                  place_list=places).blocks
    assert [b.address for b in blocks if "lunch" in b.activity] == [places[1]], blocks
    assert places[2] not in {b.address for b in blocks}
    baker = [places[0], "Brookhaven:Market Hall:bakery", "Brookhaven:Market Hall:market"]
    blocks = _ask("daily_plan", persona=owner.replace("runs Hobbs Cafe", "bakes in the bakery"), date="Tuesday March 3, 2026",
                  places="\n".join(f"- {p}" for p in baker), place_list=baker).blocks
    assert [b.address for b in blocks if "lunch" in b.activity] == [baker[2]], "a bakery in a market hall is no cafe"


def test_naming_a_housemate_is_not_naming_their_room() -> None:
    """A student who "lives in the college hall with Tomas Reyes" studies at the college or works at
    the cafe, not in Tomas's room (the Ville, seed 0: Maria Lopez spent her first day's work blocks
    in a housemate's room and met no one); a line that names the room itself still goes there."""
    places = ["Harbour:College Hall:Nadia Orr's room", "Harbour:College Hall:Tomas Reyes's room",
              "Harbour:College Hall:common room", "Harbour:Eastfield College:library",
              "Harbour:Eastfield College:classroom", "Harbour:Quay Cafe:cafe", "Harbour:Gull Park:park"]
    student = ("Name: Nadia Orr\nIdentity: Nadia Orr is a chemistry student at Eastfield College who lives in the "
               "college hall with Tomas Reyes, Lena Park and Ivo Stern. She works part-time shifts at Quay Cafe for Rosa "
               "Bell, and gets help with her lab reports from Otto Vane in the library.\nLifestyle: wakes up around 7 am, "
               "studies and works until evening, and goes to bed around midnight\nCurrently: Nadia Orr is preparing for "
               "an exam.")
    blocks = _ask("daily_plan", persona=student, date="Tuesday March 3, 2026", places="\n".join(f"- {p}" for p in places),
                  place_list=places).blocks
    work = {b.address for b in blocks if b.activity.startswith("busy at")}
    assert work and work <= set(places[3:6]), blocks
    visit = student.replace("an exam.", "an exam. Nadia Orr has a study session at Tomas Reyes's room on March 3 at 6 pm.")
    blocks = _ask("daily_plan", persona=visit, date="Tuesday March 3, 2026", places="\n".join(f"- {p}" for p in places),
                  place_list=places).blocks
    assert any(b.start == "18:00" and b.address == places[1] for b in blocks), blocks
