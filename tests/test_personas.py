"""Personas you can edit (issue 28): SpawnNpc with a changed persona updates it and keeps the
NPC's memories and plans; ResetNpc forgets an NPC, DeleteNpc frees it and its name. Through both
transports against a real brain, and in-process: the new persona is in the next prompt."""

from __future__ import annotations

from collections.abc import Iterator
import json

import grpc
import pytest

from brain_server.api.service import BrainCore
from brain_server.config import Settings
from brain_server.model.world import arena_of
from npc_brain.v1 import brain_pb2 as pb
from tests.clients import Clients
from tests.test_untrusted_races import request
from tests.town import WORLD, spawn_json, world_json

CAFE = f"{WORLD}:Hobbs Cafe:cafe"
HOME = f"{WORLD}:Isabella Rodriguez's apartment:main room"



def edited(**changes: object) -> dict:
    body = spawn_json()
    body["persona"].update(changes)
    return body


def memory_ids(clients: Clients, npc_id: str = "isabella") -> list[str]:
    return [m["id"] for m in clients.grpc("ListMemories", {"npcId": npc_id, "limit": 1000}).get("memories", [])]


def test_an_edited_persona_keeps_memories_and_plans_on_both_transports(clients: Clients, fake_llm) -> None:
    clients.grpc("Whisper", {"npcId": "isabella", "text": "The bakery closes early on Sundays",
                             "gameTime": "2026-02-13T08:58:00Z"})  # before the plan: no re-plan of random words
    first = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"})["action"]
    before = memory_ids(clients)
    plans = len(fake_llm.chat_requests("daily_plan"))

    answer = clients.connect("SpawnNpc", edited(traits=["grumpy", "precise"], home=CAFE))
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"npcId": "isabella", "updated": True, "changed": ["traits", "home"]}
    after = clients.grpc("ListMemories", {"npcId": "isabella", "limit": 1000})["memories"]
    assert set(before) < {m["id"] for m in after}  # every memory kept, the edit remembered beside them
    thoughts = {m["description"] for m in after if m["id"] not in before}
    assert thoughts == {"Isabella Rodriguez is now grumpy, precise",
                        "Isabella Rodriguez now lives at Hobbs Cafe, cafe in the Ville"}
    trace = clients.grpc("GetTrace", {"npcId": "isabella"})["trace"]
    assert trace["kind"] == "edit" and "traits, home changed" in trace["notes"][0]
    # The plan is the same one: the next step comes from it (the same block's place; a step's object
    # is the model's), without a new day plan.
    again = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:04:00Z"})["action"]
    assert again["source"] == "ACTION_SOURCE_PLAN" and arena_of(again["address"]) == arena_of(first["address"])
    assert len(fake_llm.chat_requests("daily_plan")) == plans
    # The same persona again resumes; an edit over gRPC updates too.
    assert clients.grpc("SpawnNpc", edited(traits=["grumpy", "precise"], home=CAFE))["resumed"] is True
    answer = clients.grpc("SpawnNpc", edited(traits=["grumpy", "precise"], home=CAFE, lifestyle="sleeps at noon"))
    assert answer["updated"] is True and answer["changed"] == ["lifestyle"]
    answer = clients.connect("SpawnNpc", edited(traits=["grumpy", "precise"], home=CAFE, lifestyle="sleeps at noon",
                                                workplace=CAFE))
    assert answer.json()["changed"] == ["workplace"], answer.text
    assert "Isabella Rodriguez now works at Hobbs Cafe, cafe in the Ville" in {
        m["description"] for m in clients.grpc("ListMemories", {"npcId": "isabella", "limit": 1000})["memories"]}


@pytest.fixture(scope="module")
def two_towns(module_brain_factory) -> Iterator[Clients]:
    """The Ville with Isabella and Klaus, and a world named Elsewhere, in one brain for the refused
    edits: each leaves it as it was (each test checks that), so they share it (issue 40)."""
    clients = Clients(module_brain_factory())
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    klaus = spawn_json("klaus")
    klaus["persona"].update(name="Klaus Mueller", home=CAFE, knownAreas=[CAFE])
    clients.grpc("SpawnNpc", klaus)
    elsewhere = world_json()
    elsewhere["world"]["name"] = "Elsewhere"
    clients.grpc("RegisterWorld", elsewhere)
    yield clients
    clients.close()


@pytest.mark.parametrize(("body", "code", "fragment"), [
    (edited(home=f"{WORLD}:Atlantis:harbour"), "invalid_argument", "not in world"),
    (edited(name="Klaus Mueller"), "already_exists", "own name"),
    (json.loads(json.dumps(spawn_json()).replace(WORLD, "Elsewhere")), "already_exists", "DeleteNpc"),
])
def test_a_bad_edit_is_refused_and_changes_nothing(two_towns: Clients, body: dict, code: str, fragment: str) -> None:
    clients = two_towns
    response = clients.connect("SpawnNpc", body)
    assert response.json()["code"] == code and fragment in response.json()["message"], response.text
    with pytest.raises(grpc.RpcError) as info:
        clients.grpc("SpawnNpc", body)
    assert info.value.code().name.lower() == code
    assert clients.grpc("SpawnNpc", spawn_json())["resumed"] is True


def test_reset_forgets_an_npc_and_keeps_its_persona(clients: Clients, fake_llm) -> None:
    clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"})
    clients.grpc("Whisper", {"npcId": "isabella", "text": "I owe Klaus ten dollars", "gameTime": "2026-02-13T09:01:00Z"})
    count = len(memory_ids(clients))
    answer = clients.connect("ResetNpc", {"npcId": "isabella"})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"npcId": "isabella", "forgotten": str(count)}  # int64: a string in proto3 JSON
    assert memory_ids(clients) == []
    assert clients.grpc("SpawnNpc", spawn_json())["resumed"] is True  # the persona is kept
    plans = len(fake_llm.chat_requests("daily_plan"))
    decided = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T10:00:00Z"})["action"]
    assert decided["source"] == "ACTION_SOURCE_NEW_PLAN"  # its old plan is gone: it plans its day anew
    assert len(fake_llm.chat_requests("daily_plan")) == plans + 1
    assert clients.grpc("ResetNpc", {"npcId": "isabella"})["forgotten"] != "0"  # over gRPC too
    assert memory_ids(clients) == []
    missing = clients.connect("ResetNpc", {"npcId": "nobody"})
    assert missing.json()["code"] == "not_found"


def test_delete_frees_the_npc_and_its_name(clients: Clients) -> None:
    clients.grpc("Whisper", {"npcId": "isabella", "text": "I keep a key under the mat",
                             "gameTime": "2026-02-13T09:01:00Z"})
    assert clients.grpc("DeleteNpc", {"npcId": "isabella"}) == {"npcId": "isabella", "forgotten": "1"}
    gone = clients.connect("ListMemories", {"npcId": "isabella"})
    assert gone.json()["code"] == "not_found"
    # Its name is free for another id, and its id for another spawn (which starts empty).
    assert clients.grpc("SpawnNpc", spawn_json("isabella2")) == {"npcId": "isabella2"}
    answer = clients.connect("DeleteNpc", {"npcId": "isabella2"})
    assert answer.status_code == 200 and answer.json()["npcId"] == "isabella2", answer.text
    assert clients.grpc("SpawnNpc", spawn_json()) == {"npcId": "isabella"}
    assert memory_ids(clients) == []
    with pytest.raises(grpc.RpcError) as info:
        clients.grpc("DeleteNpc", {"npcId": "nobody"})
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_next_prompt_uses_the_edited_persona(run, fake_llm, tmp_path) -> None:
    async def scenario(stream):
        core = BrainCore(Settings(data_dir=tmp_path / "brain", background_thinking=False), stream)
        try:
            await core.register_world(request(pb.RegisterWorldRequest, world_json()))
            await core.spawn_npc(request(pb.SpawnNpcRequest, spawn_json()))
            await core.decide(request(pb.DecideRequest, {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"}))
            answer = await core.spawn_npc(request(pb.SpawnNpcRequest, edited(
                traits=["suspicious"], identity="Isabella is a retired spy who trusts nobody.")))
            assert answer.updated and list(answer.changed) == ["traits", "identity"]
            fake_llm.reset()
            await core.interview(request(pb.InterviewRequest, {"npcId": "isabella", "question": "Who are you?",
                                                               "gameTime": "2026-02-13T09:30:00Z"}))
        finally:
            await core.close()

    run(scenario)
    prompt = "\n".join(m["content"] for r in fake_llm.chat_requests() for m in r["body"]["messages"])
    assert "retired spy who trusts nobody" in prompt and "suspicious" in prompt
    assert "friendly, outgoing" not in prompt  # the old traits are gone from the persona
