"""Residents and scenarios in the simulator's shapes, and the town, read from godot_project/data/.

The town is `town_layout.json` as the Godot engine exports it (`brain_server.residents.TownLayout`).
residents/*.json and scenarios/*.json are read and validated by `brain_server.residents` (`load_all`);
the tolerant `*_from_dict` readers build small casts for tests: a resident {"npc_id"?, "name", "age",
"traits", "identity", "lifestyle", "currently", "home", "known_areas"} (addresses may omit the world),
a scenario {"name", "start", "days"|"hours", "whispers": [{"npc", "at", "text"}], "question",
"keywords", "event": {"address", "start", "end", "invited": [...]}}.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
import re
from typing import Any

from brain_server import residents as loaders
from brain_server.residents import TownLayout

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = loaders.DATA_DIR


@dataclass
class Resident:
    npc_id: str
    persona: dict[str, Any]  # proto3 JSON form of Persona (camelCase keys)
    perception: dict[str, Any] = field(default_factory=dict)  # PerceptionSettings, proto3 JSON

    @property
    def vision_radius(self) -> float:
        return float(self.perception.get("visionRadius") or 8.0)

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


def npc_id_for(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:64]


def parse_time(value: Any, default: datetime | None = None) -> datetime:
    if value in (None, ""):
        if default is None:
            raise ValueError("a time is missing")
        return default
    when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _address(world: str, value: str) -> str:
    return value if value.startswith(world + ":") else f"{world}:{value}"


def resident_from_dict(data: dict[str, Any], world: str) -> Resident:
    get = lambda *keys, default=None: next((data[k] for k in keys if k in data), default)  # noqa: E731
    persona = {
        "name": data["name"], "age": int(get("age", default=0) or 0), "traits": list(get("traits", default=[])),
        "identity": get("identity", default=""), "lifestyle": get("lifestyle", default=""),
        "currently": get("currently", default=""), "home": _address(world, get("home", default="")),
        "knownAreas": [_address(world, a) for a in get("known_areas", "knownAreas", default=[])],
    }
    npc_id = get("npc_id", "npcId", "id", default=None) or npc_id_for(data["name"])
    return Resident(npc_id, persona)


def scenario_from_dict(data: dict[str, Any], residents: list[Resident], world: str = "the Ville",
                       places: tuple[str, ...] | list[str] = ()) -> Scenario:
    by_name = {r.name: r.npc_id for r in residents}
    ids = {r.npc_id for r in residents}

    def who(value: str) -> str:
        return value if value in ids else by_name.get(value, npc_id_for(value))

    start = parse_time(data.get("start") or data.get("start_time"), datetime(2023, 2, 13, 6, tzinfo=UTC))
    if "hours" in data:
        duration = timedelta(hours=float(data["hours"]))
    else:
        duration = timedelta(days=float(data.get("days", 1)))
    whispers = [Whisper(who(w.get("npc") or w.get("npc_id") or w["name"]), parse_time(w.get("at") or w.get("game_time"), start),
                        w["text"]) for w in data.get("whispers", [])]
    event = data.get("event") or {}
    measure = data.get("measure") or data.get("measurement") or {}
    question = data.get("question") or measure.get("question") or event.get("question") or ""
    topic = measure.get("topic", "")
    keywords = data.get("keywords") or measure.get("keywords") or event.get("keywords") \
        or topic_keywords(topic, [r.name for r in residents] + list(places))
    window = measure.get("window") or [event.get("start"), event.get("end")]
    place = event.get("address") or measure.get("place") or ""
    return Scenario(
        name=data.get("name", "scenario"), start=start, duration=duration, whispers=whispers,
        question=question, keywords=[k.lower() for k in keywords],
        event_address=_address(world, place) if place else "",
        event_start=parse_time(window[0]) if window[0] else None,
        event_end=parse_time(window[1]) if window[1] else None,
        invited=[who(x) for x in event.get("invited", [])], host=who(measure["host"]) if measure.get("host") else "",
        topic=topic, raw=data,
    )


STOPWORDS = {"a", "an", "the", "at", "for", "of", "on", "in", "to", "and", "day", "s", "who", "is", "about"}


def topic_keywords(topic: str, proper_names: list[str]) -> list[str]:
    """Words of a topic that say the news itself: "Sam Moore's candidacy for mayor" -> candidacy,
    mayor (names of people and places are everywhere in memories, so they do not count)."""
    names = {w for n in proper_names for w in re.findall(r"[a-z]+", n.lower())}
    words = [w.removesuffix("s") if w.endswith("'s") else w for w in re.findall(r"[a-z']+", topic.lower())]
    words = [w.replace("'", "").removesuffix("s") if "'" in w else w for w in words]
    return [w for w in dict.fromkeys(words) if w not in STOPWORDS and w not in names and len(w) > 2]


def load_all(scenario: str, layout_path: Path | None = None, residents_dir: Path | None = None
             ) -> tuple[TownLayout, list[Resident], Scenario]:
    """The town as Godot lays it out, its residents and a scenario (a name under data/scenarios or a
    path), read and validated by `brain_server.residents`; residents and scenario in the sim's shapes."""
    town = loaders.load_town_layout(layout_path or loaders.TOWN_LAYOUT_PATH)
    world = town.world
    people = []
    for r in loaders.load_residents(residents_dir or loaders.RESIDENTS_DIR):
        p = r.persona(world.name)
        people.append(Resident(r.npc_id, {"name": p.name, "age": p.age, "traits": p.traits, "identity": p.identity,
                                          "lifestyle": p.lifestyle, "currently": p.currently, "home": p.home,
                                          "knownAreas": p.known_areas},
                               {"visionRadius": r.perception.vision_radius,
                                "attentionBandwidth": r.perception.attention_bandwidth,
                                "retention": r.perception.retention}))
    path = Path(scenario)
    if not path.is_file():
        path = (loaders.SCENARIOS_DIR / f"{scenario}.json")
    sc = loaders.load_scenario(path)
    m = sc.measure
    names = [r.name for r in people] + [s.name for s in world.sectors] + [world.name]
    return town, people, Scenario(
        name=sc.name, start=sc.start_time, duration=sc.end_time - sc.start_time,
        whispers=[Whisper(w.npc_id, w.game_time, w.text) for w in sc.whispers], question=m.question,
        keywords=topic_keywords(m.topic, names), event_address=m.place,
        event_start=m.window[0] if m.window else None, event_end=m.window[1] if m.window else None,
        host=m.host, topic=m.topic, raw=sc.model_dump(mode="json"))
