"""The town, residents and a scenario from godot_project/data/, for the headless sim.

Everything is read and validated by `npc_lab.residents`: the town is `town_layout.json` as the
Godot engine exports it (`TownLayout`); residents and the scenario are converted to the shapes the sim
sends over gRPC (persona and perception in proto3 JSON) and measures (topic keywords, time window).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
import re
from typing import Any

from google.protobuf import json_format

from brain_server.model.npc import Perception
from npc_lab import residents as loaders
from npc_lab.residents import TownLayout

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = loaders.DATA_DIR


@dataclass
class Resident:
    npc_id: str
    persona: dict[str, Any]  # proto3 JSON form of Persona (camelCase keys)
    perception: dict[str, Any] = field(default_factory=dict)  # PerceptionSettings, proto3 JSON

    @property
    def vision_radius(self) -> float:
        return float(self.perception.get("visionRadius") or Perception().vision_radius)

    @property
    def name(self) -> str:
        return self.persona["name"]


@dataclass
class Whisper:
    npc_id: str
    at: datetime
    text: str


@dataclass
class Scenario:
    name: str
    start: datetime
    duration: timedelta
    whispers: list[Whisper] = field(default_factory=list)
    question: str = ""
    keywords: list[str] = field(default_factory=list)
    event_address: str = ""
    event_start: datetime | None = None
    event_end: datetime | None = None
    invited: list[str] = field(default_factory=list)
    host: str = ""
    topic: str = ""
    raw: dict[str, Any] = field(default_factory=dict)


def resident(r: loaders.Resident, world_name: str) -> Resident:
    """A resident file's model in the sim's shape: persona and perception as SpawnNpc carries them."""
    spawn = r.to_spawn_request(world_name)
    return Resident(r.npc_id, json_format.MessageToDict(spawn.persona), json_format.MessageToDict(spawn.perception))


def scenario(sc: loaders.Scenario, people: list[Resident], town: TownLayout) -> Scenario:
    """A scenario file's model in the sim's shape, with the topic's keywords for the measurements."""
    m = sc.measure
    names = [r.name for r in people] + [s.name for s in town.world.sectors] + [town.name]
    return Scenario(
        name=sc.name, start=sc.start_time, duration=sc.end_time - sc.start_time,
        whispers=[Whisper(w.npc_id, w.game_time, w.text) for w in sc.whispers], question=m.question,
        keywords=topic_keywords(m.topic, names), event_address=m.place,
        event_start=m.window[0] if m.window else None, event_end=m.window[1] if m.window else None,
        host=m.host, topic=m.topic, raw=sc.model_dump(mode="json"))


STOPWORDS = {"a", "an", "the", "at", "for", "of", "on", "in", "to", "and", "day", "s", "who", "is", "about", "from",
             "with", "by"}


def topic_keywords(topic: str, proper_names: list[str]) -> list[str]:
    """Words of a topic that say the news itself: "Sam Moore's candidacy for mayor" -> candidacy,
    mayor (names of people and places are everywhere in memories, so they do not count)."""
    names = {w for n in proper_names for w in re.findall(r"[a-z]+", n.lower())}
    words = [w.removesuffix("s") if w.endswith("'s") else w for w in re.findall(r"[a-z']+", topic.lower())]
    words = [w.replace("'", "").removesuffix("s") if "'" in w else w for w in words]
    return [w for w in dict.fromkeys(words) if w not in STOPWORDS and w not in names and len(w) > 2]


def load_all(name: str, layout_path: Path | None = None, residents_dir: Path | None = None
             ) -> tuple[TownLayout, list[Resident], Scenario]:
    """The town as Godot lays it out, its residents and a scenario (a name under data/scenarios or a
    path), read and validated by `npc_lab.residents`; residents and scenario in the sim's shapes."""
    town = loaders.load_town_layout(layout_path or loaders.TOWN_LAYOUT_PATH)
    people = [resident(r, town.name) for r in loaders.load_residents(residents_dir or loaders.RESIDENTS_DIR)]
    path = Path(name)
    if not path.is_file():
        path = loaders.SCENARIOS_DIR / f"{name}.json"
    return town, people, scenario(loaders.load_scenario(path), people, town)


def repeated_spawn_requests(residents: list[Resident], world_name: str, n: int) -> list[dict[str, Any]]:
    """n SpawnNpc bodies: the residents repeated, copies numbered in id and name so each is its own NPC."""
    bodies = []
    for i in range(n):
        r, copy = residents[i % len(residents)], i // len(residents)
        persona = dict(r.persona, name=f"{r.name} {copy}" if copy else r.name)
        bodies.append({"worldName": world_name, "npcId": f"{r.npc_id}_{copy}", "persona": persona,
                       "address": r.persona["home"]})
    return bodies
