"""Where actions happen and object states, against the fake OpenAI-compatible server (real client)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from brain_server.cognition.locate import accessible_places, choose_address, learn_places
from brain_server.cognition.object_state import set_object_state
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.npc import NpcState, Persona
from brain_server.model.trace import Trace
from brain_server.model.world import World
from brain_server.prompts import PromptLibrary
from npc_lab.fake_openai import FakeOpenAI

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


W = "the Ville"
CAFE = f"{W}:Hobbs Cafe:cafe"
CAFE_KITCHEN = f"{W}:Hobbs Cafe:kitchen"
HOME = f"{W}:Isabella Rodriguez's apartment:main room"
BATHROOM = f"{W}:Isabella Rodriguez's apartment:bathroom"
MOORE_KITCHEN = f"{W}:Moore family's house:kitchen"
PARK = f"{W}:Johnson Park:park"
SHOP = f"{W}:Harvey Oak Supply Store:shop"


def sector(name: str, arenas: dict[str, list[str]], residents: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"name": name, "residents": list(residents), "arenas": [
        {"name": arena, "objects": [{"name": o, "state": "idle"} for o in objects]} for arena, objects in arenas.items()]}


WORLD = World.model_validate({"name": W, "sectors": [
    sector("Hobbs Cafe", {"cafe": ["cafe counter", "coffee machine"], "kitchen": ["stove", "sink"]}),
    sector("Isabella Rodriguez's apartment", {"main room": ["bed", "desk"], "bathroom": ["shower"]},
           ("Isabella Rodriguez",)),
    sector("Moore family's house", {"kitchen": ["stove", "refrigerator"], "living room": ["sofa"]},
           ("Sam Moore", "Jennifer Moore")),
    sector("Johnson Park", {"park": ["bench"]}),
    sector("Harvey Oak Supply Store", {"shop": ["shelf"]}),
]})


def isabella(address: str = CAFE) -> NpcState:
    return NpcState(npc_id="isabella", world_name=W, address=address,
                    persona=Persona(name="Isabella Rodriguez", identity="Isabella runs Hobbs Cafe.", home=HOME),
                    known_addresses=[CAFE, f"{CAFE_KITCHEN}:stove", MOORE_KITCHEN, PARK])


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeOpenAI]:
    """One server for the module: stopping one takes up to half a second (serve_forever's poll)."""
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def fake_llm(fake_server: FakeOpenAI) -> FakeOpenAI:
    fake_server.reset()
    return fake_server


def make_llm(fake: FakeOpenAI) -> LLM:
    return LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(), backoff_s=0.01)


def trace() -> Trace:
    return Trace(npc_id="isabella", kind="decide", game_time=datetime(2026, 2, 13, 9, tzinfo=UTC))


def choose(fake: FakeOpenAI, npc: NpcState, activity: str = "making coffee", **kwargs: Any) -> str:
    return asyncio.run(choose_address(activity, npc, WORLD, make_llm(fake), trace(), **kwargs, work=WORK))


def scripted(sector_name: str, arena: str, obj: str = "") -> dict[str, Any]:
    return {"json": {"place": {"sector": sector_name, "arena": arena, "object": obj}}}


def test_accessible_places_are_known_and_not_private() -> None:
    places = accessible_places(WORLD, isabella())
    assert set(places.arena_addresses()) == {CAFE, CAFE_KITCHEN, HOME, BATHROOM, PARK}
    assert f"{CAFE_KITCHEN}:sink" in places.addresses()  # a known arena brings its objects
    invited = accessible_places(WORLD, isabella(), {"Moore family's house"})
    assert set(invited.arena_addresses()) == {CAFE, CAFE_KITCHEN, HOME, BATHROOM, PARK, MOORE_KITCHEN}
    sam = NpcState(npc_id="sam", world_name=W, persona=Persona(name="Sam Moore", home=f"{MOORE_KITCHEN}:stove"),
                   known_addresses=[HOME, PARK])
    assert set(accessible_places(WORLD, sam).arena_addresses()) == {
        MOORE_KITCHEN, f"{W}:Moore family's house:living room", PARK}


def test_residents_may_be_npc_ids() -> None:
    # Godot's addon lists residents by npc id (a persona's name changes more often than its id).
    moores = WORLD.sectors[2].model_copy(update={"residents": ["sam_moore", "isabella"]})
    world = WORLD.model_copy(update={"sectors": [*WORLD.sectors[:2], moores, *WORLD.sectors[3:]]})
    assert MOORE_KITCHEN in accessible_places(world, isabella()).arena_addresses()
    assert MOORE_KITCHEN not in accessible_places(WORLD, isabella()).arena_addresses()


def test_the_sector_of_the_workplace_the_game_declares_is_never_private_to_it() -> None:
    keeper = isabella()
    keeper.persona.workplace = MOORE_KITCHEN  # she keeps house for the Moores
    assert MOORE_KITCHEN in accessible_places(WORLD, keeper).arena_addresses()
    assert MOORE_KITCHEN not in accessible_places(WORLD, isabella()).arena_addresses()


def test_learn_places_keeps_only_valid_new_arenas() -> None:
    npc = isabella()
    perceived = [f"{SHOP}:shelf", "the Ville:Nowhere:room", "other town:Hobbs Cafe:cafe", "garbage", CAFE, "", SHOP]
    assert learn_places(npc, WORLD, perceived) == 1
    assert npc.known_addresses[-1] == SHOP
    assert learn_places(npc, WORLD, perceived) == 0
    assert SHOP in accessible_places(WORLD, npc).arena_addresses()


def test_stays_in_the_current_arena_when_the_model_does(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(scripted("Isabella Rodriguez's apartment", "bathroom", "shower"), purpose="choose_address")
    assert choose(fake_llm, isabella(BATHROOM), "brushing her teeth") == f"{BATHROOM}:shower"
    [request] = fake_llm.chat_requests("choose_address")
    branches = request["body"]["response_format"]["json_schema"]["schema"]["properties"]["place"]["anyOf"]
    first = branches[0]["properties"]
    assert (first["sector"]["enum"], first["arena"]["enum"], first["object"]["enum"]) == (
        ["Isabella Rodriguez's apartment"], ["bathroom"], ["shower", ""])
    assert len(branches) == 5
    prompt = request["body"]["messages"][1]["content"]
    assert "- Isabella Rodriguez's apartment (here, home)\n  - bathroom (here): shower\n  - main room: bed" in prompt
    assert "in the bathroom at Isabella Rodriguez's apartment" in prompt and "brushing her teeth" in prompt


@pytest.mark.parametrize(("reply", "expected"), [
    (scripted("Hobbs Cafe", "cafe", "espresso machine"), f"{CAFE}:coffee machine"),
    (scripted("Hobbs Caffe", "kitchn", "stove"), f"{CAFE_KITCHEN}:stove"),
    (scripted("Johnson Park", "cafe", "bench"), f"{PARK}:bench"),
    (scripted("Mars", "crater", "rover"), CAFE),
    (scripted("Harvey Oak Supply Store", "shop", "shelf"), CAFE),  # exists, but Isabella never saw it
    ({"content": "the cafe, obviously"}, CAFE),
])
def test_invalid_answers_are_repaired_to_accessible_places(
    fake_llm: FakeOpenAI, reply: dict[str, Any], expected: str
) -> None:
    fake_llm.queue(*[reply] * 3, purpose="choose_address")
    npc = isabella()
    address = choose(fake_llm, npc)
    assert address == expected
    assert address in accessible_places(WORLD, npc).addresses()


@pytest.mark.parametrize("reply", [
    scripted("Moore family's house", "kitchen", "refrigerator"),
    scripted("Moore family's house", "living room", "sofa"),
    scripted("Moore family house", "kitchen", "stove"),
    scripted("Isabella Rodriguez's apartment", "kitchen", "refrigerator"),
])
def test_another_familys_rooms_are_never_chosen_uninvited(fake_llm: FakeOpenAI, reply: dict[str, Any]) -> None:
    fake_llm.queue(reply, purpose="choose_address")
    npc = isabella(PARK)
    address = choose(fake_llm, npc, "getting a snack")
    assert "Moore" not in address and address in accessible_places(WORLD, npc).addresses()
    [request] = fake_llm.chat_requests("choose_address")
    assert "Moore" not in str(request["body"]["messages"]) and "Moore" not in str(request["body"]["response_format"])


def test_invited_rooms_can_be_chosen(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(scripted("Moore family's house", "kitchen", "refrigerator"), purpose="choose_address")
    address = choose(fake_llm, isabella(PARK), "helping Jennifer cook", invited_sectors={"Moore family's house"})
    assert address == f"{MOORE_KITCHEN}:refrigerator"


def test_failed_call_falls_back_home_when_the_current_room_is_private(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(*[{"content": "no idea"}] * 3, purpose="choose_address")
    assert choose(fake_llm, isabella(f"{MOORE_KITCHEN}:stove")) == HOME


def test_no_place_to_go_is_an_error(fake_llm: FakeOpenAI) -> None:
    stranger = NpcState(npc_id="x", world_name=W, persona=Persona(name="X", home="elsewhere:a:b"))
    with pytest.raises(ValueError, match="may enter no place"):
        choose(fake_llm, stranger)
    assert fake_llm.chat_requests() == []


def test_set_object_state_is_a_pure_update() -> None:
    updated = set_object_state(WORLD, f"{CAFE}:coffee machine", "brewing coffee")
    states = {o.name: o.state for s in updated.sectors for a in s.arenas for o in a.objects if a.name == "cafe"}
    assert states == {"cafe counter": "idle", "coffee machine": "brewing coffee"}
    assert WORLD.sectors[0].arenas[0].objects[1].state == "idle"
    assert updated.addresses() == WORLD.addresses()
    moore_stove = updated.sectors[2].arenas[0].objects[0]
    assert moore_stove.state == "idle" and WORLD.sectors[0].arenas[1].objects[0].state == "idle"


@pytest.mark.parametrize("address", [CAFE, f"{CAFE}:espresso machine", "other town:Hobbs Cafe:cafe:coffee machine",
                                     f"{CAFE}:coffee machine:extra", ""])
def test_set_object_state_rejects_what_is_not_an_object(address: str) -> None:
    with pytest.raises(ValueError, match="is not an object of world 'the Ville'"):
        set_object_state(WORLD, address, "broken")


def test_a_place_named_for_the_activity_is_taken_without_a_call(fake_llm: FakeOpenAI) -> None:
    """A conversation's plan item names where the party is: it is booked there, not re-guessed (nor
    "stay where you are": she talked in the park); a named place she may not enter is chosen anew."""
    assert choose(fake_llm, isabella(PARK), "going to the party", named=CAFE) == CAFE
    assert fake_llm.chat_requests("choose_address") == []
    fake_llm.queue(scripted("Johnson Park", "park"), purpose="choose_address")
    private = f"{W}:Moore family's house:living room"
    assert choose(fake_llm, isabella(PARK), "going to the party", named=private) == PARK
    assert len(fake_llm.chat_requests("choose_address")) == 1
