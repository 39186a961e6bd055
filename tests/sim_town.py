"""Three residents and a party scenario in the Ville (the town as Godot lays it out) for the
headless sim's tests, written as resident and scenario files are (`npc_lab.residents`)."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

from npc_lab import residents as loaders
from npc_lab.sim.data import Resident, Scenario, resident, scenario
from npc_lab.sim.runner import SimConfig

HOMES = {"Isabella Rodriguez": "Isabella Rodriguez's apartment:main room",
         "Klaus Mueller": "Dorm for Oak Hill College:Klaus Mueller's room",
         "Maria Lopez": "Dorm for Oak Hill College:Maria Lopez's room"}


def small_town(hours: float = 4) -> tuple[loaders.TownLayout, list[Resident], Scenario]:
    town = loaders.load_town_layout()
    residents = [resident(loaders.Resident.model_validate({
        "npc_id": name.lower().replace(" ", "_"), "name": name, "age": 30, "traits": ["kind"],
        "identity": f"{name} knows everyone in the Ville.",
        "lifestyle": "wakes up around 7am, goes to bed around 11pm", "home": f"the Ville:{home}",
        "known_areas": ["the Ville:Hobbs Cafe:cafe", "the Ville:Johnson Park:park"]}), town.name)
        for name, home in HOMES.items()]
    party = loaders.Scenario.model_validate({
        "name": "party", "start_time": "2026-02-13T06:00:00Z", "days": 1,
        "whispers": [{"npc_id": "isabella_rodriguez", "game_time": "2026-02-13T07:00:00Z",
                      "text": "Isabella Rodriguez wants to throw a Valentine's Day party at Hobbs Cafe tomorrow at 5 pm."}],
        "measure": {"topic": "Valentine's Day party at Hobbs Cafe", "question": "Do you know about a Valentine's Day party?",
                    "host": "isabella_rodriguez", "place": "the Ville:Hobbs Cafe:cafe",
                    "window": ["2026-02-13T08:00:00Z", "2026-02-13T10:00:00Z"]}})
    return town, residents, dataclasses.replace(scenario(party, residents, town), duration=timedelta(hours=hours))


def config(out: Path, base_url: str, **kw: Any) -> SimConfig:
    settings = {"llm_base_url": base_url, "llm_model": "fake-model", **kw.pop("settings", {})}
    return SimConfig(out=out, brain_settings=settings, progress_s=0, **kw)
