"""The town, residents and scenarios as data files (godot_project/data/), read tolerantly.

town.json: {"name": "the Ville", "sectors": [{"name", "residents": [...], "arenas": [{"name",
"objects": ["bed", {"name": "desk", "state": ""}]}]}]} (sectors/arenas may also be dicts keyed by
name). residents/*.json: one persona each ({"npc_id"?, "name", "age", "traits", "identity",
"lifestyle", "currently", "home", "known_areas"}); home/known areas may be given without the world
prefix. scenarios/*.json: {"name", "start", "days"|"hours", "whispers": [{"npc", "at", "text"}],
"question", "keywords", "event": {"address", "start", "end", "invited": [...]}}.
The project's files are read with `brain_server.residents` (`load_all`); the tolerant
`*_from_dict` readers build small towns for tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
import re
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = ROOT / "godot_project" / "data"


@dataclass
class ObjectSpec:
    name: str
    state: str = ""


@dataclass
class ArenaSpec:
    name: str
    objects: list[ObjectSpec] = field(default_factory=list)


@dataclass
class SectorSpec:
    name: str
    arenas: list[ArenaSpec] = field(default_factory=list)
    residents: list[str] = field(default_factory=list)


@dataclass
class Town:
    name: str
    sectors: list[SectorSpec]

    def tree(self) -> dict[str, dict[str, list[str]]]:
        """sector -> arena -> object names: what the data says, for comparison."""
        return {s.name: {a.name: [o.name for o in a.objects] for a in s.arenas} for s in self.sectors}


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


def _named(items: Any) -> list[tuple[str, Any]]:
    if isinstance(items, dict):
        return list(items.items())
    out = []
    for item in items or []:
        if isinstance(item, str):
            out.append((item, {}))
        else:
            out.append((item["name"], item))
    return out


def town_from_dict(data: dict[str, Any]) -> Town:
    sectors = []
    for sector_name, sector in _named(data.get("sectors", [])):
        if isinstance(sector, dict) and ("arenas" in sector or "residents" in sector):
            arenas_raw = sector.get("arenas", [])
        else:
            arenas_raw = sector  # {"Hobbs Cafe": {"cafe": ["piano"]}}
        arenas = []
        for arena_name, arena in _named(arenas_raw):
            objects_raw = arena.get("objects", []) if isinstance(arena, dict) else arena
            objects = [ObjectSpec(name, (o or {}).get("state", "") if isinstance(o, dict) else "")
                       for name, o in _named(objects_raw)]
            arenas.append(ArenaSpec(arena_name, objects))
        residents = list(sector.get("residents", [])) if isinstance(sector, dict) and "arenas" in sector else []
        sectors.append(SectorSpec(sector_name, arenas, residents))
    name = data.get("name") or data.get("world") or "the Ville"
    return Town(name if isinstance(name, str) else name.get("name", "the Ville"), sectors)


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


def load_all(scenario: str, town_path: Path | None = None, residents_dir: Path | None = None
             ) -> tuple[Town, list[Resident], Scenario]:
    """The town, its residents and a scenario (a name under data/scenarios or a path), read and
    validated by `brain_server.residents`, in the simulator's own shapes."""
    from brain_server import residents as loaders

    world = loaders.load_town(town_path or loaders.TOWN_PATH)
    town = Town(world.name, [SectorSpec(s.name, [ArenaSpec(a.name, [ObjectSpec(o.name, o.state) for o in a.objects])
                                                 for a in s.arenas], list(s.residents)) for s in world.sectors])
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
    names = [r.name for r in people] + [s.name for s in town.sectors] + [town.name]
    return town, people, Scenario(
        name=sc.name, start=sc.start_time, duration=sc.end_time - sc.start_time,
        whispers=[Whisper(w.npc_id, w.game_time, w.text) for w in sc.whispers], question=m.question,
        keywords=topic_keywords(m.topic, names), event_address=m.place,
        event_start=m.window[0] if m.window else None, event_end=m.window[1] if m.window else None,
        host=m.host, topic=m.topic, raw=sc.model_dump(mode="json"))
