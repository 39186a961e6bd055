"""The towns of npc_lab/towns/ (issue 42's untuned towns) as the sim reads them: their files are the
ones their modules write, parse, fit together (every address in the layout, every home in its
own sector, nobody working in someone else's home), can be walked, and their event falls on the
second day at a place the town has, planned by one of its residents, in words no persona uses."""

from __future__ import annotations

import calendar
from datetime import timedelta
import json
from pathlib import Path
import re
from types import ModuleType

import pytest

from brain_server.model.world import SEPARATOR
from npc_lab import residents as loaders
from npc_lab.sim.data import load_all
from npc_lab.sim.grid import layout
from npc_lab.sim.measure import news_keywords
from npc_lab.towns import brinnick, cauldwell, corvin, hijaltola, korrin, plan, ravnholmen, ribalonga, tamrit, tarnbeck

TOWNS = {"tarnbeck": tarnbeck, "korrin": korrin, "brinnick": brinnick, "cauldwell": cauldwell, "corvin": corvin,
         "tamrit": tamrit, "hijaltola": hijaltola, "ravnholmen": ravnholmen, "ribalonga": ribalonga}


def _files(town: ModuleType) -> tuple[Path, Path, Path]:
    return town.FOLDER / "town_layout.json", town.FOLDER / "residents", town.FOLDER / f"{town.EVENT.file}.json"


@pytest.fixture(params=sorted(TOWNS))
def town(request: pytest.FixtureRequest) -> ModuleType:
    return TOWNS[request.param]


def test_the_files_are_what_the_module_writes(town: ModuleType, tmp_path: Path) -> None:
    town.write_files(tmp_path)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.json"))
    assert written == sorted(p.relative_to(town.FOLDER) for p in town.FOLDER.rglob("*.json"))
    for name in written:
        assert json.loads((town.FOLDER / name).read_text()) == json.loads((tmp_path / name).read_text()), (
            f"{name} is stale: run python -m {town.__name__}")


def test_the_files_fit_together(town: ModuleType) -> None:
    layout_path, residents_dir, scenario_path = _files(town)
    world = loaders.load_town_layout(layout_path).world
    people = loaders.load_residents(residents_dir)
    scenario = loaders.load_scenario(scenario_path)
    assert loaders.problems(world, people, [scenario]) == []
    arenas = {a for a in world.addresses() if a.count(SEPARATOR) == 2}
    homes = {s.name: set(s.residents) for s in world.sectors}
    for r in people:
        assert {r.home, r.workplace, *r.known_areas} <= arenas, r.npc_id
        assert r.workplace and r.workplace != r.home
        owners = homes[r.workplace.split(SEPARATOR)[1]]
        assert not owners or r.name in owners, f"{r.npc_id} works in the home of {sorted(owners)}"
        assert r.known_areas[:2] == [r.home, r.workplace]
    assert len(people) == len(town.PEOPLE) and all(len(r.known_areas) < len(arenas) for r in people)


def test_the_event_is_on_the_second_day_at_a_place_of_the_town(town: ModuleType) -> None:
    layout_path, residents_dir, scenario_path = _files(town)
    world, people, scenario = load_all(str(scenario_path), layout_path, residents_dir)
    m = loaders.load_scenario(scenario_path).measure
    assert m.host in {r.npc_id for r in people} and m.place in world.world.addresses()
    assert scenario.event_start and scenario.event_end
    day_two = scenario.start.replace(hour=0, minute=0) + timedelta(days=1)
    assert day_two <= scenario.event_start < scenario.event_end <= day_two + timedelta(days=1)
    # Two hours, or less where the brief asked for less (Ravnholmen's: no more than one hour around midday).
    assert timedelta(0) < scenario.event_end - scenario.event_start <= timedelta(hours=2)
    [whisper] = scenario.whispers
    assert whisper.npc_id == m.host and whisper.at == scenario.start
    sector, arena = m.place.split(SEPARATOR)[1:]
    assert sector in whisper.text and arena in whisper.text
    # The day: its month, or "tomorrow" in a whisper heard the day before (Cauldwell's), or its weekday in a
    # whisper heard within the week before (Bir Tamrit's), naming no other weekday, or its day of the month alone
    # ("on the 12th") in a whisper heard within four weeks before (Hijaltola's), naming no other day of a month.
    ahead = (scenario.event_start.date() - whisper.at.date()).days
    tomorrow = "tomorrow" in whisper.text.lower() and ahead == 1
    days = [d for d in calendar.day_name if d in whisper.text]
    weekday = 0 < ahead < 7 and days == [scenario.event_start.strftime("%A")]
    dates = set(re.findall(r"\b(\d{1,2})(?:st|nd|rd|th)\b", whisper.text))
    dated = 0 < ahead < 28 and dates == {str(scenario.event_start.day)}
    assert scenario.event_start.strftime("%B") in whisper.text or tomorrow or weekday or dated


def test_no_persona_already_holds_the_news(town: ModuleType) -> None:
    """The measure counts anyone whose persona names the news as knowing from the start."""
    layout_path, residents_dir, scenario_path = _files(town)
    _, people, scenario = load_all(str(scenario_path), layout_path, residents_dir)
    keywords = news_keywords(scenario.topic, scenario.keywords)
    assert keywords
    for r in people:
        text = " ".join(str(r.persona.get(k, "")) for k in ("identity", "lifestyle", "currently")).lower()
        assert not [k for k in keywords if k in text], r.npc_id


def test_everyone_can_walk_from_home_to_work_and_to_the_event(town: ModuleType) -> None:
    layout_path, residents_dir, scenario_path = _files(town)
    town_layout, people, scenario = load_all(str(scenario_path), layout_path, residents_dir)
    grid = layout(town_layout)

    def tile(address: str) -> tuple[int, int]:
        spot = grid.destination(address, "walker")
        assert spot is not None, address
        return spot

    for r in people:
        home = tile(r.persona["home"])
        for there in (r.persona["knownAreas"][1], scenario.event_address):
            assert grid.path(home, tile(there)), f"{r.npc_id} cannot walk to {there}"


def test_a_room_behind_a_barrier_is_refused() -> None:
    shut_in = [plan.Building("Hut", (1, 1), (plan.Room("room"),)), plan.Building("Yard", (10, 1), (plan.Room("yard"),),
                                                                               walled=False)]
    with pytest.raises(ValueError, match="cannot be walked to: Yard:yard"):
        plan.layout("Isle", (20, 8), shut_in, barriers=((8, 0, 8, 7),))
    with pytest.raises(ValueError, match="already"):
        plan.layout("Heap", (20, 8), [shut_in[0], plan.Building("Shed", (3, 1), (plan.Room("shed"),))])
