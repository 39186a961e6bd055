"""Three residents and a party scenario in the Ville (the town as Godot lays it out) for the
headless sim's tests, in the same form as godot_project/data (the tolerant readers of
brain_server/sim/data.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from brain_server.residents import TownLayout, load_town_layout
from brain_server.sim.data import Resident, Scenario, resident_from_dict, scenario_from_dict
from brain_server.sim.runner import SimConfig

HOMES = {"Isabella Rodriguez": "Isabella Rodriguez's apartment:main room",
         "Klaus Mueller": "Dorm for Oak Hill College:Klaus Mueller's room",
         "Maria Lopez": "Dorm for Oak Hill College:Maria Lopez's room"}


def small_town(hours: float = 4) -> tuple[TownLayout, list[Resident], Scenario]:
    town = load_town_layout()
    residents = [resident_from_dict({
        "name": n, "age": 30, "traits": ["kind"], "identity": f"{n} knows everyone in the Ville.",
        "lifestyle": "wakes up around 7am, goes to bed around 11pm", "home": home,
        "known_areas": ["Hobbs Cafe:cafe", "Johnson Park:park"]}, town.name) for n, home in HOMES.items()]
    scenario = scenario_from_dict({
        "name": "party", "start_time": "2026-02-13T06:00:00Z", "hours": hours,
        "whispers": [{"npc_id": "isabella_rodriguez", "game_time": "2026-02-13T07:00:00Z",
                      "text": "Isabella Rodriguez wants to throw a Valentine's Day party at Hobbs Cafe tomorrow at 5 pm."}],
        "measure": {"topic": "Valentine's Day party at Hobbs Cafe", "question": "Do you know about a Valentine's Day party?",
                    "host": "isabella_rodriguez", "place": "the Ville:Hobbs Cafe:cafe",
                    "window": ["2026-02-13T08:00:00Z", "2026-02-13T10:00:00Z"]}}, residents, town.name,
        [s.name for s in town.world.sectors])
    return town, residents, scenario


def config(out: Path, base_url: str, **kw: Any) -> SimConfig:
    settings = {"llm_base_url": base_url, "llm_model": "fake-model", **kw.pop("settings", {})}
    return SimConfig(out=out, brain_settings=settings, progress_s=0, **kw)
