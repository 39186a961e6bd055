"""Three NPCs live one game day through the real gRPC transport, as Godot would drive them:
each tick they are placed where their action sends them and perceive whoever shares the arena.
Their traces and memories must show the whole architecture at work."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from google.protobuf import json_format
import grpc
import pytest

from brain_server.model.world import arena_of
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.town import WORLD, tiles

pytestmark = pytest.mark.slow
HOMES = {"isabella": "Isabella Rodriguez's apartment", "klaus": "Klaus Mueller's room", "maria": "Maria Lopez's room"}
NAMES = {"isabella": "Isabella Rodriguez", "klaus": "Klaus Mueller", "maria": "Maria Lopez"}
# One public place, so the three often meet there (Godot would also report passers-by).
PUBLIC = {"Hobbs Cafe": ("cafe", ["cafe counter", "coffee machine", "table"])}


def world() -> dict:
    sectors = [{"name": sector, "arenas": [{"name": arena, "tiles": tiles(i * 10, 0, i * 10 + 8, 6),
                                             "objects": [{"name": o, "tiles": [{"x": i * 10 + j, "y": 1}]}
                                                         for j, o in enumerate(objects)]}]}
               for i, (sector, (arena, objects)) in enumerate(PUBLIC.items())]
    for i, (npc_id, sector) in enumerate(HOMES.items()):
        sectors.append({"name": sector, "residents": [NAMES[npc_id]], "arenas": [
            {"name": "bedroom", "tiles": tiles(i * 10, 10, i * 10 + 8, 16),
             "objects": [{"name": "bed", "tiles": [{"x": i * 10 + 1, "y": 11}]},
                         {"name": "desk", "tiles": [{"x": i * 10 + 3, "y": 11}]}]}]})
    return {"world": {"name": WORLD, "width": 40, "height": 20, "sectors": sectors}}


def persona(npc_id: str) -> dict:
    public = [f"{WORLD}:{sector}:{arena}" for sector, (arena, _) in PUBLIC.items()]
    return {"name": NAMES[npc_id], "age": 30, "traits": ["curious", "kind"],
            "identity": f"{NAMES[npc_id]} lives in the Ville and knows the other two residents well.",
            "lifestyle": "wakes up around 7am, goes to bed around 11pm",
            "home": f"{WORLD}:{HOMES[npc_id]}:bedroom", "knownAreas": public}


def town_with_three(brain: object) -> tuple[Callable[[str, dict], dict], set[str]]:
    """A gRPC caller for `brain` once the town is registered and its three NPCs spawned, and the
    town's valid addresses."""
    stub = brain_pb2_grpc.BrainServiceStub(grpc.insecure_channel(brain.grpc_target))  # type: ignore[attr-defined]

    def call(method: str, body: dict) -> dict:
        request = json_format.ParseDict(body, getattr(pb, f"{method}Request")())
        return json_format.MessageToDict(getattr(stub, method)(request, timeout=60))

    call("RegisterWorld", world())
    for npc_id in NAMES:
        call("SpawnNpc", {"worldName": WORLD, "npcId": npc_id, "persona": persona(npc_id),
                          "address": f"{WORLD}:{HOMES[npc_id]}:bedroom"})
    return call, set(_addresses(world()["world"]))


def test_three_npcs_live_a_day(brain_factory, fake_llm) -> None:
    call, valid = town_with_three(brain_factory(reflection_threshold=60))
    actions: dict[str, dict] = {}
    seen: list[dict] = []
    now, end = datetime(2026, 2, 13, 6, tzinfo=UTC), datetime(2026, 2, 13, 23, 30, tzinfo=UTC)
    while now < end:
        for npc_id in NAMES:
            here = arena_of(actions[npc_id]["address"]) if npc_id in actions else f"{WORLD}:{HOMES[npc_id]}:bedroom"
            perceptions = [
                {"subject": NAMES[other], "predicate": a.get("eventPredicate", "is"),
                 "object": a.get("eventObject", ""), "description": a["description"], "address": a["address"],
                 "distance": 2}
                for other, a in actions.items() if other != npc_id and arena_of(a["address"]) == here]
            decided = call("Decide", {"npcId": npc_id, "gameTime": now.isoformat(), "address": here,
                                      "perceptions": perceptions})
            actions[npc_id] = decided["action"]
            seen.append({"npc": npc_id, "at": now, **decided["action"]})
        now += timedelta(minutes=10)

    # Every place an NPC was sent is a real address.
    assert {a["address"] for a in seen} <= valid
    # The day plan was decomposed into 5-15 minute steps (sleep never is).
    steps = [a for a in seen if "chatting" not in a["description"] and "sleep" not in a["description"]]
    assert sum(5 <= a["durationMinutes"] <= 15 for a in steps) >= len(steps) // 2
    assert fake_llm.chat_requests("daily_plan")
    # Steps that use an object say what state it is in, for Godot to show.
    used = [a for a in seen if a.get("objectStates")]
    assert used and all(s["address"] == a["address"] and s["state"] for a in used for s in a["objectStates"])
    # At least one conversation, stored in both participants' memories.
    chats = [a for a in seen if a.get("chattingWith")]
    assert chats, "no NPC-to-NPC conversation happened"
    first = chats[0]
    for npc_id, partner in ((first["npc"], first["chattingWith"]), (first["chattingWith"], first["npc"])):
        memories = call("ListMemories", {"npcId": npc_id, "kind": "MEMORY_KIND_CHAT", "limit": 100})["memories"]
        assert any(NAMES[partner] in m["description"] for m in memories)
    assert first["dialogue"] and {d["speakerNpcId"] for d in first["dialogue"]} <= set(NAMES)
    # At least one reflection whose evidence are memories of the same NPC.
    reflected = False
    for npc_id in NAMES:
        thoughts = call("ListMemories", {"npcId": npc_id, "kind": "MEMORY_KIND_THOUGHT", "limit": 200}).get("memories", [])
        everything = {m["id"] for m in call("ListMemories", {"npcId": npc_id, "limit": 1000}).get("memories", [])}
        for thought in thoughts:
            if thought.get("evidenceIds"):
                assert set(thought["evidenceIds"]) <= everything
                reflected = True
    assert reflected, "no reflection with evidence"
    usage_reply = call("GetUsage", {})
    assert {h["npcId"] for h in usage_reply["hourly"]} == set(NAMES)
    usage = usage_reply["counters"]
    calls = sum(int(c["calls"]) for c in usage)
    awake_hours = 16 * len(NAMES)
    by_purpose = {}
    for c in usage:
        by_purpose[c["purpose"]] = by_purpose.get(c["purpose"], 0) + int(c["calls"])
    print(by_purpose)
    print(f"LLM calls: {calls} for {awake_hours} awake NPC-hours = {calls / awake_hours:.1f} per NPC-hour")


def _addresses(w: dict) -> list[str]:
    out = []
    for s in w["sectors"]:
        for a in s["arenas"]:
            out.append(f"{w['name']}:{s['name']}:{a['name']}")
            out += [f"{w['name']}:{s['name']}:{a['name']}:{o['name']}" for o in a["objects"]]
    return out
