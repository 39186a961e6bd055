"""Towns, residents and scenarios as data files (`godot_project/data/`, format in docs/residents.md).

- `town.json`: the spatial tree world > sector > arena > object, names only (Godot places the tiles).
- `town_layout.json`: that tree with its tiles and walls as the Godot engine lays it out, exported by
  `python -m tools.godot_web export-town` (the headless sim walks it; never edited by hand).
- `residents/<npc_id>.json`: one NPC each: persona, home, workplace, known areas, perception.
- `scenarios/<name>.json`: a start time, whispers to plant, and what to measure afterwards.

Addresses in the files always start with the town's name (`the Ville:Hobbs Cafe:cafe`);
`Resident.to_spawn_request` re-roots them when the world is registered under another name.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
import json
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from pydantic import BaseModel, ConfigDict, Field, model_validator

from brain_server.model.npc import Perception, Persona
from brain_server.model.world import SEPARATOR, Arena, GameObject, Sector, World, arena_of
from brain_server.persistence.records import NPC_ID
from npc_brain.v1 import brain_pb2 as pb


def _data_dir() -> Path:
    """The checkout's godot_project/data: the one around this package (run from the sources, or
    installed editable), else the working folder's (a wheel of the lab, run in a checkout)."""
    beside = Path(__file__).resolve().parent.parent / "godot_project" / "data"
    return beside if beside.is_dir() else Path.cwd() / "godot_project" / "data"


DATA_DIR = _data_dir()
TOWN_PATH = DATA_DIR / "town.json"
TOWN_LAYOUT_PATH = DATA_DIR / "town_layout.json"
RESIDENTS_DIR = DATA_DIR / "residents"
SCENARIOS_DIR = DATA_DIR / "scenarios"
NPC_ID_PATTERN = NPC_ID.pattern


class _Data(BaseModel):
    # Unknown keys are typos in a hand-written file: refuse them.
    model_config = ConfigDict(extra="forbid")


# --- the town ---------------------------------------------------------------------------------


class TownArena(_Data):
    name: str = Field(min_length=1)
    objects: list[str] = Field(default_factory=list)


class TownSector(_Data):
    name: str = Field(min_length=1)
    # Names of the people who live here: the sector is private to everyone else.
    residents: list[str] = Field(default_factory=list)
    arenas: list[TownArena] = Field(min_length=1)


class Town(_Data):
    name: str = Field(min_length=1)
    sectors: list[TownSector] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self) -> Town:
        _require_unique((s.name for s in self.sectors), "sector")
        for sector in self.sectors:
            _require_unique((a.name for a in sector.arenas), f"arena of {sector.name!r}")
            for arena in sector.arenas:
                _require_unique(arena.objects, f"object of {sector.name}:{arena.name}")
        for part in (self.name, *(s.name for s in self.sectors)):
            if SEPARATOR in part:
                raise ValueError(f"{part!r}: names may not contain {SEPARATOR!r}")
        return self

    def to_world(self) -> World:
        """The brain's World tree (as RegisterWorld carries it), without tiles."""
        return World(name=self.name, sectors=[
            Sector(name=s.name, residents=list(s.residents), arenas=[
                Arena(name=a.name, objects=[GameObject(name=o) for o in a.objects]) for a in s.arenas])
            for s in self.sectors])


def load_town(path: Path | str = TOWN_PATH) -> World:
    return Town.model_validate(_read(path)).to_world()


class TownLayout(_Data):
    """The town as the engine lays it out: the World Godot registers (every tile) and the wall tiles
    of its walk grid; every other tile inside `world.width` x `world.height` is walkable."""

    world: World
    tile_size: int = Field(gt=0)
    walls: list[tuple[int, int]] = Field(default_factory=list)

    @property
    def name(self) -> str:
        return self.world.name


def load_town_layout(path: Path | str = TOWN_LAYOUT_PATH) -> TownLayout:
    return TownLayout.model_validate(_read(path))


def register_world_request(world: World) -> pb.RegisterWorldRequest:
    """RegisterWorld for `world` (add tiles first where the receiver needs them)."""
    return pb.RegisterWorldRequest(world=json_format.ParseDict(world.model_dump(mode="json"), pb.World()))


# --- residents --------------------------------------------------------------------------------


class Resident(_Data):
    npc_id: str = Field(pattern=NPC_ID_PATTERN)
    name: str = Field(min_length=1)
    age: int = Field(ge=0)
    traits: list[str] = Field(default_factory=list)
    identity: str = ""
    lifestyle: str = ""
    currently: str = ""
    # The arena of the resident's bed, where it spawns and sleeps.
    home: str
    # Where it works, "" if nowhere in particular; always among the areas it knows.
    workplace: str = ""
    known_areas: list[str] = Field(default_factory=list)
    perception: Perception = Field(default_factory=Perception)

    def addresses(self) -> list[str]:
        """Every address the file names: home, workplace, known areas."""
        return [self.home, *([self.workplace] if self.workplace else []), *self.known_areas]

    def persona(self, world_name: str | None = None) -> Persona:
        def root(address: str) -> str:
            return _in_world(address, world_name) if world_name else address

        known = list(dict.fromkeys(root(a) for a in [*self.known_areas, *([self.workplace] if self.workplace else [])]))
        return Persona(name=self.name, age=self.age, traits=list(self.traits), identity=self.identity,
                       lifestyle=self.lifestyle, currently=self.currently, home=root(self.home), known_areas=known,
                       workplace=root(self.workplace) if self.workplace else "")

    def to_spawn_request(self, world_name: str) -> pb.SpawnNpcRequest:
        """SpawnNpc at home in `world_name` (addresses re-rooted to it); Godot adds the tile."""
        persona = self.persona(world_name)
        return pb.SpawnNpcRequest(
            world_name=world_name, npc_id=self.npc_id, address=persona.home,
            persona=pb.Persona(name=persona.name, age=persona.age, traits=persona.traits, identity=persona.identity,
                               lifestyle=persona.lifestyle, currently=persona.currently, home=persona.home,
                               known_areas=persona.known_areas, workplace=persona.workplace),
            perception=pb.PerceptionSettings(vision_radius=self.perception.vision_radius,
                                             attention_bandwidth=self.perception.attention_bandwidth,
                                             retention=self.perception.retention))


def load_resident(path: Path | str) -> Resident:
    resident = Resident.model_validate(_read(path))
    if Path(path).stem != resident.npc_id:
        raise ValueError(f"{path}: npc_id {resident.npc_id!r} does not match the file name")
    return resident


def load_residents(directory: Path | str = RESIDENTS_DIR) -> list[Resident]:
    """Every `*.json` in `directory`, sorted by npc_id; names and ids must be unique."""
    residents = [load_resident(p) for p in sorted(Path(directory).glob("*.json"))]
    _require_unique((r.name for r in residents), "resident name")
    return residents


# --- scenarios --------------------------------------------------------------------------------


class ScenarioWhisper(_Data):
    npc_id: str = Field(pattern=NPC_ID_PATTERN)
    game_time: datetime
    # The thought, as the NPC will remember it (third person reads best: "Sam Moore has decided ...").
    text: str = Field(min_length=1)


class Measure(_Data):
    """What to check after the run: who knows (ask `question` by Interview), and who came."""

    topic: str = Field(min_length=1)
    question: str = Field(min_length=1)
    # The NPC whose news it is (counted as knowing from the start).
    host: str = Field(pattern=NPC_ID_PATTERN)
    # Where and when to count attendance, if the topic is an event ("" / None otherwise).
    place: str = ""
    window: tuple[datetime, datetime] | None = None

    @model_validator(mode="after")
    def _window_in_order(self) -> Measure:
        if self.window and self.window[0] >= self.window[1]:
            raise ValueError("measure.window must be [start, end] with start before end")
        return self


class Scenario(_Data):
    name: str = Field(min_length=1)
    description: str = ""
    start_time: datetime
    days: int = Field(ge=1)
    whispers: list[ScenarioWhisper] = Field(default_factory=list)
    measure: Measure

    @property
    def end_time(self) -> datetime:
        return self.start_time + timedelta(days=self.days)

    @model_validator(mode="after")
    def _times_in_run(self) -> Scenario:
        for whisper in self.whispers:
            if not self.start_time <= whisper.game_time < self.end_time:
                raise ValueError(f"whisper to {whisper.npc_id} at {whisper.game_time} is outside the run")
        return self

    def npc_ids(self) -> set[str]:
        return {w.npc_id for w in self.whispers} | {self.measure.host}


def load_scenario(path: Path | str) -> Scenario:
    return Scenario.model_validate(_read(path))


def load_scenarios(directory: Path | str = SCENARIOS_DIR) -> dict[str, Scenario]:
    """Every `*.json` in `directory`, by file stem."""
    return {p.stem: load_scenario(p) for p in sorted(Path(directory).glob("*.json"))}


# --- consistency --------------------------------------------------------------------------------


def problems(world: World, residents: Iterable[Resident], scenarios: Iterable[Scenario] = ()) -> list[str]:
    """What does not fit together across the files; empty when the data set is consistent."""
    people = list(residents)
    found: list[str] = []
    valid = world.addresses()
    by_name = {r.name: r for r in people}
    sectors = {s.name: s for s in world.sectors}
    for r in people:
        found += [f"{r.npc_id}: {a!r} is not in {world.name!r}" for a in r.addresses() if a not in valid]
        if r.home in valid and arena_of(r.home) != r.home:
            found.append(f"{r.npc_id}: home {r.home!r} must be an arena, not an object")
        home = sectors.get(r.home.split(SEPARATOR)[1]) if r.home.count(SEPARATOR) >= 2 else None
        if home is not None and home.residents and r.name not in home.residents:
            found.append(f"{r.npc_id}: lives in {home.name!r} but is not among its residents")
    for sector in world.sectors:
        for name in sector.residents:
            person = by_name.get(name)
            if person is None:
                found.append(f"{sector.name}: resident {name!r} has no resident file")
            elif person.home.split(SEPARATOR)[1:2] != [sector.name]:
                found.append(f"{sector.name}: {name} is listed as living here but their home is {person.home!r}")
    ids = {r.npc_id for r in people}
    for scenario in scenarios:
        found += [f"scenario {scenario.name!r}: no resident {i!r}" for i in sorted(scenario.npc_ids() - ids)]
        if scenario.measure.place and scenario.measure.place not in valid:
            found.append(f"scenario {scenario.name!r}: place {scenario.measure.place!r} is not in {world.name!r}")
    return found


def _in_world(address: str, world_name: str) -> str:
    return SEPARATOR.join([world_name, *address.split(SEPARATOR)[1:]])


def _require_unique(names: Iterable[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"two of {what} are named {name!r}")
        seen.add(name)


def _read(path: Path | str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)
