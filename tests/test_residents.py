"""The 25 Smallville residents, the town and the two scenarios as data files: complete, consistent with
each other, and accepted by a real brain (RegisterWorld, SpawnNpc for all 25, the scenarios' whispers)."""

from __future__ import annotations

import json
from pathlib import Path
import re

from google.protobuf import json_format
import pytest

from brain_server.model.world import Tile, World
from npc_brain.v1 import brain_pb2 as pb
from npc_lab.residents import (
    Resident,
    load_resident,
    load_residents,
    load_scenario,
    load_scenarios,
    load_town,
    problems,
    register_world_request,
)
from tests.clients import Clients

NAMES = ("Abigail Chen, Adam Smith, Arthur Burton, Ayesha Khan, Carlos Gomez, Carmen Ortiz, Eddy Lin, Francisco Lopez, "
         "Giorgio Rossi, Hailey Johnson, Isabella Rodriguez, Jane Moreno, Jennifer Moore, John Lin, Klaus Mueller, "
         "Latoya Williams, Maria Lopez, Mei Lin, Rajiv Patel, Ryan Park, Sam Moore, Tamara Taylor, Tom Moreno, "
         "Wolfgang Schulz, Yuriko Yamamoto").split(", ")
SECTORS = [
    "artist's co-living space", "Arthur Burton's apartment", "Ryan Park's apartment",
    "Isabella Rodriguez's apartment", "Giorgio Rossi's apartment", "Carlos Gomez's apartment",
    "The Rose and Crown Pub", "Hobbs Cafe", "Oak Hill College", "Dorm for Oak Hill College", "Johnson Park",
    "Harvey Oak Supply Store", "The Willows Market and Pharmacy", "Adam Smith's house", "Yuriko Yamamoto's house",
    "Moore family's house", "Tamara Taylor and Carmen Ortiz's house", "Moreno family's house", "Lin family's house",
]
WORLD = "the Ville"


@pytest.fixture(scope="module")
def town() -> World:
    return load_town()


@pytest.fixture(scope="module")
def residents() -> list[Resident]:
    return load_residents()


def test_all_25_residents_once_with_ids_from_their_names(residents: list[Resident]) -> None:
    assert sorted(r.name for r in residents) == sorted(NAMES)
    for r in residents:
        assert r.npc_id == r.name.lower().replace(" ", "_")
        assert r.perception.model_dump() == {"vision_radius": 8, "attention_bandwidth": 8, "retention": 8}
        assert r.traits and r.identity and r.lifestyle and r.currently and 15 <= r.age <= 90


def test_the_19_sectors_and_a_rich_but_small_tree(town: World) -> None:
    assert town.name == WORLD
    assert sorted(s.name for s in town.sectors) == sorted(SECTORS)
    for sector in town.sectors:
        assert 1 <= len(sector.arenas) <= 8, sector.name
        for arena in sector.arenas:
            assert 2 <= len(arena.objects) <= 8, f"{sector.name}:{arena.name}"


def test_every_address_a_resident_names_exists(town: World, residents: list[Resident]) -> None:
    valid = town.addresses()
    arenas = set(town.arena_addresses())
    for r in residents:
        assert r.home in arenas, r.npc_id
        assert not r.workplace or r.workplace in arenas, r.npc_id
        assert set(r.known_areas) <= valid, r.npc_id
        # Godot reads known_areas only: the workplace must be among them.
        assert r.known_areas[0] == r.home and (not r.workplace or r.workplace in r.known_areas)
    assert problems(town, residents, load_scenarios().values()) == []


def test_private_sectors_list_exactly_the_people_who_live_there(town: World, residents: list[Resident]) -> None:
    lives_in: dict[str, set[str]] = {}
    for r in residents:
        lives_in.setdefault(r.home.split(":")[1], set()).add(r.name)
    listed = {s.name: set(s.residents) for s in town.sectors if s.residents}
    assert listed == lives_in
    assert lives_in["Lin family's house"] == {"John Lin", "Mei Lin", "Eddy Lin"}
    assert len(lives_in["artist's co-living space"]) == 5 and len(lives_in["Dorm for Oak Hill College"]) == 4


def test_each_identity_names_at_least_two_other_residents(residents: list[Resident]) -> None:
    for r in residents:
        others = {n for n in NAMES if n != r.name and n in r.identity}
        assert len(others) >= 2, (r.name, others)
    # Everyone is named by someone else too: nobody is a stranger to the whole town.
    named = {n for r in residents for n in NAMES if n != r.name and n in r.identity}
    assert named == set(NAMES)


def test_scenarios_load_and_refer_to_residents(residents: list[Resident]) -> None:
    ids = {r.npc_id for r in residents}
    party = load_scenario(Path("godot_project/data/scenarios/valentines_party.json"))
    assert party.start_time.isoformat() == "2026-02-13T07:00:00+00:00" and party.days == 2
    assert {w.npc_id for w in party.whispers} == {"isabella_rodriguez", "maria_lopez"}
    assert "Klaus Mueller" in next(w.text for w in party.whispers if w.npc_id == "maria_lopez")
    assert party.measure.host == "isabella_rodriguez" and party.measure.place == "the Ville:Hobbs Cafe:cafe"
    assert party.measure.window and [t.hour for t in party.measure.window] == [17, 19]
    assert party.measure.window[0].date().isoformat() == "2026-02-14"
    election = load_scenario("godot_project/data/scenarios/mayoral_election.json")
    assert election.measure.host == "sam_moore" and "mayor" in election.whispers[0].text
    for scenario in (party, election):
        assert scenario.npc_ids() <= ids


def test_to_spawn_request_is_valid_and_re_roots_addresses(residents: list[Resident]) -> None:
    isabella = next(r for r in residents if r.npc_id == "isabella_rodriguez")
    request = isabella.to_spawn_request(WORLD)
    assert request.world_name == WORLD and request.npc_id == "isabella_rodriguez"
    assert request.address == request.persona.home == "the Ville:Isabella Rodriguez's apartment:main room"
    assert "the Ville:Hobbs Cafe:cafe" in request.persona.known_areas
    assert request.persona.workplace == isabella.workplace == "the Ville:Hobbs Cafe:cafe"
    assert (request.perception.vision_radius, request.perception.retention) == (8, 8)
    assert request.persona.identity == isabella.identity and list(request.persona.traits) == isabella.traits
    again = pb.SpawnNpcRequest.FromString(request.SerializeToString())
    assert again == request
    moved = isabella.to_spawn_request("the_ville")
    assert all(a.startswith("the_ville:") for a in [moved.address, moved.persona.workplace, *moved.persona.known_areas])


def test_data_files_refuse_typos_and_mismatched_names(tmp_path: Path) -> None:
    data = json.loads(Path("godot_project/data/residents/sam_moore.json").read_text())
    (tmp_path / "sam_moore.json").write_text(json.dumps(data | {"hometown": "x"}))
    with pytest.raises(ValueError, match="hometown"):
        load_resident(tmp_path / "sam_moore.json")
    (tmp_path / "sam.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="file name"):
        load_resident(tmp_path / "sam.json")


def test_the_town_and_all_25_spawn_in_a_real_brain(brain_factory, town: World, residents: list[Resident]) -> None:
    # Godot places tiles; here each arena gets one dummy tile and each object that tile.
    town = town.model_copy(deep=True)
    for i, arena in enumerate(a for s in town.sectors for a in s.arenas):
        arena.tiles = [Tile(x=i, y=0)]
        for game_object in arena.objects:
            game_object.tiles = [Tile(x=i, y=0)]
    clients = Clients(brain_factory())
    try:
        registered = clients.grpc("RegisterWorld", json_format.MessageToDict(register_world_request(town)))
        assert registered == {"worldName": WORLD, "sectorCount": 19, "arenaCount": len(town.arena_addresses()),
                              "objectCount": len(town.object_addresses())}
        for r in residents:
            reply = clients.grpc("SpawnNpc", json_format.MessageToDict(r.to_spawn_request(WORLD)))
            assert reply == {"npcId": r.npc_id}, reply
        # Spawning again (a game restart) resumes rather than failing.
        body = json_format.MessageToDict(residents[0].to_spawn_request(WORLD))
        assert clients.connect("SpawnNpc", body).json() == {"npcId": residents[0].npc_id, "resumed": True}
        for scenario in load_scenarios().values():
            for whisper in scenario.whispers:
                reply = clients.grpc("Whisper", {"npcId": whisper.npc_id, "text": whisper.text,
                                                 "gameTime": whisper.game_time.isoformat().replace("+00:00", "Z")})
                assert re.fullmatch(r"\S+", reply["memoryId"])
    finally:
        clients.close()
