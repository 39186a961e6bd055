"""What a game does to the brain in its first week, driven as a newcomer's game would, over both
transports of a real brain (fake LLM): a world of one sector whose places carry numbers and are
renamed in the editor between runs, verbs of its own, and the mistakes a hand-written client makes.
Found driving a harbour town of our own (docs/saves.md, "Changing the world")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.conftest import BrainProcess

pytestmark = pytest.mark.brain  # one brain process for the module
W = "Port 42"
YARD = "Terminal 3 Yard, Gate 12B"


def at(arena: str, obj: str = "") -> str:
    return ":".join([W, YARD, arena, *([obj] if obj else [])])


def port(bunks: str = "Bunk Room B") -> dict[str, Any]:
    arenas = [{"name": name, "objects": [{"name": o} for o in objects]} for name, objects in
              (("Stack Field 1", ["Container 001", "Container 117"]), ("Crane Cabin 07", ["Crane 07 controls"]),
               ("Canteen", ["Kettle #2"]), (bunks, ["Bunk 4"]))]
    return {"world": {"name": W, "sectors": [{"name": YARD, "arenas": arenas}],
                      "verbs": [{"name": "ring_shift_bell", "description": "ring the shift bell", "place": "VERB_PLACE_ANYWHERE"}]}}


def ruth(home: str = "Bunk Room B") -> dict[str, Any]:
    return {"worldName": W, "npcId": "dockmaster", "persona": {
        "name": "Ruth Okonkwo", "age": 62, "identity": "Ruth Okonkwo is the dock master of Terminal 3.",
        "lifestyle": "works at Crane Cabin 07 from 7 am to 7 pm, sleeps around 10 pm", "home": at(home)}}


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clients]:
    data: Path = tmp_path_factory.mktemp("game-changes")
    with FakeOpenAI() as fake:
        brain = BrainProcess({"llm_base_url": fake.base_url, "llm_model": "fake-model", "data_dir": data,
                              "background_thinking": False}).start()
        c = Clients(brain)
        try:
            yield c
        finally:
            c.close()
            brain.stop()


def test_an_arena_renamed_in_the_editor_is_never_sent_to_the_game(clients: Clients) -> None:
    """The game renames its NPC's bunk room and registers the world again, then respawns the NPC
    with its new home: the plan made before still names the old room, yet every Decide answers
    places the world has, the nights in the new room (the old room was answered until the next
    day's plan)."""
    clients.grpc("RegisterWorld", port())
    clients.grpc("SpawnNpc", ruth())
    clients.grpc("Decide", {"npcId": "dockmaster", "gameTime": "2026-03-02T06:00:00Z", "address": at("Bunk Room B")})
    clients.grpc("RegisterWorld", port("Bunk Room 2"))
    assert clients.grpc("SpawnNpc", ruth("Bunk Room 2"))["changed"] == ["home"]
    places = {at(a["name"], o["name"]) for a in port("Bunk Room 2")["world"]["sectors"][0]["arenas"]
              for o in a["objects"]} | {at(a["name"]) for a in port("Bunk Room 2")["world"]["sectors"][0]["arenas"]}
    answered = {}
    for hour in (6, 12, 22, 23):
        action = clients.grpc("Decide", {"npcId": "dockmaster", "gameTime": f"2026-03-02T{hour:02d}:00:00Z",
                                         "address": at("Canteen")})["action"]
        answered[hour] = action["address"]
        assert action["address"] in places, (hour, action)
    assert answered[23] == at("Bunk Room 2"), answered


def test_an_attention_out_of_range_is_refused(clients: Clients) -> None:
    """An enum number the protocol does not have (a client built from a newer proto, or a typo) was
    taken as in view; it says what to send instead."""
    clients.grpc("RegisterWorld", port())
    clients.grpc("SpawnNpc", ruth())
    body = {"npcId": "dockmaster", "gameTime": "2026-03-02T09:00:00Z", "attention": 7}
    refused = clients.connect("Decide", body)
    assert refused.status_code == 400 and "attention 7" in refused.json()["message"], refused.text
    assert "ATTENTION_OUT_OF_VIEW" in refused.json()["message"]
    with pytest.raises(grpc.RpcError) as failed:
        clients.grpc("Decide", body)
    assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    batch = clients.grpc("DecideBatch", {"requests": [body]})["results"][0]
    assert batch["code"] == "invalid_argument", batch


def test_an_npc_verb_named_as_a_world_verb_is_refused(clients: Clients) -> None:
    """Two verbs of one name, the world's and the NPC's, made the model read both and the game
    receive the world's: SpawnNpc refuses the NPC's, naming the clash, and keeps nothing."""
    clients.grpc("RegisterWorld", port())
    own = {**ruth(), "npcId": "bosun", "persona": {**ruth()["persona"], "name": "Bosun Two"},
           "verbs": [{"name": "ring_shift_bell", "description": "ring it twice"}]}
    refused = clients.connect("SpawnNpc", own)
    assert refused.status_code == 400, refused.text
    assert "'ring_shift_bell'" in refused.json()["message"] and "world" in refused.json()["message"], refused.text
    assert clients.connect("ListMemories", {"npcId": "bosun"}).status_code == 404


def test_an_outcome_without_a_target_is_remembered_as_a_sentence(clients: Clients) -> None:
    """A verb done anywhere reported without its target was remembered as "... did ring_shift_bell at"."""
    clients.grpc("RegisterWorld", port())
    clients.grpc("SpawnNpc", ruth())
    clients.grpc("Decide", {"npcId": "dockmaster", "gameTime": "2026-03-02T09:05:00Z", "verbOutcomes": [
        {"name": "ring_shift_bell", "done": True, "detail": "the bell rang"}]})
    memories = [m["description"] for m in clients.grpc("ListMemories", {"npcId": "dockmaster"})["memories"]]
    assert "Ruth Okonkwo did ring_shift_bell: the bell rang" in memories, memories


@pytest.mark.parametrize(("body", "says"), [
    ('["dockmaster"]', "a JSON object"),
    ('{"npcId": "dockmaster", "gameTime": "2026-03-02T09:00:00"}', '"2026-02-13T09:00:00Z"'),
    ('{"npcId": "dockmaster", "gameTime": "2026-03-02 09:00:00"}', '"2026-02-13T09:00:00Z"'),
    ('{"npcId": "dockmaster", "gameTime": 1772442000}', '"2026-02-13T09:00:00Z"'),
])
def test_a_body_a_hand_written_client_gets_wrong_says_what_to_send(clients: Clients, body: str, says: str) -> None:
    """A body that is not an object, and a game time without its zone (what Godot's
    Time.get_datetime_string_from_system gives), with a space, or as seconds."""
    refused = clients.connect("Decide", body)
    assert refused.status_code == 400 and says in refused.json()["message"], refused.text

