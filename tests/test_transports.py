"""Both transports against a real brain process: gRPC (reflection, health, calls, status codes)
and Connect JSON over HTTP/1.1 (calls, error JSON, CORS), answering identically."""

from __future__ import annotations

from collections.abc import Iterator
import gc
import json

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
import pytest

from brain_server.model.world import arena_of
from brain_server.transport import proto_json
from brain_server.transport.connect_http import CompactJSON
from npc_brain.v1 import brain_pb2 as pb
from tests.clients import Clients
from tests.town import WORLD, spawn_json, world_json

METHOD_NAMES = ["RegisterWorld", "SpawnNpc", "Decide", "Whisper", "Interview", "ListMemories", "GetTrace", "GetUsage",
                "SetObjectState", "Talk", "TalkStream", "ResetNpc", "DeleteNpc", "SaveWorld", "LoadWorld", "ExportWorld",
                "ImportWorld", "ListSaves", "DeleteSave", "SkipTime", "DecideBatch", "TakeBack"]


@pytest.fixture
def clients(brain_factory):
    c = Clients(brain_factory())
    yield c
    c.close()


@pytest.fixture(scope="module")
def town(module_brain_factory) -> Iterator[Clients]:
    """One brain, the Ville registered and Isabella spawned, for the tests that change nothing in it
    (refusals, reflection, headers): a brain each cost the suite ten starts (issue 40)."""
    c = Clients(module_brain_factory())
    c.grpc("RegisterWorld", world_json())
    c.grpc("SpawnNpc", spawn_json())
    yield c
    c.close()


def test_reflection_lists_the_service_and_health_is_serving(town: Clients) -> None:
    clients = town
    db = ProtoReflectionDescriptorDatabase(clients.channel)
    assert "npc_brain.v1.BrainService" in db.get_services()
    service = db.FindFileContainingSymbol("npc_brain.v1.BrainService").service[0]
    assert [m.name for m in service.method] == METHOD_NAMES
    health = health_pb2_grpc.HealthStub(clients.channel)
    for name in ("", "npc_brain.v1.BrainService"):
        status = health.Check(health_pb2.HealthCheckRequest(service=name)).status
        assert status == health_pb2.HealthCheckResponse.SERVING


def test_world_spawn_decide_over_connect(clients: Clients, fake_llm) -> None:
    edge_of_map = world_json()
    edge_of_map["world"]["sectors"][0]["arenas"][0]["objects"][0]["tiles"] = [{"x": 0, "y": 0}]
    world = clients.connect("RegisterWorld", edge_of_map)
    assert world.status_code == 200, world.text
    assert world.json() == {"worldName": WORLD, "sectorCount": 2, "arenaCount": 2, "objectCount": 4}
    assert clients.connect("SpawnNpc", spawn_json()).json() == {"npcId": "isabella"}
    decided = clients.connect("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"}).json()
    action = decided["action"]
    assert action["source"] == "ACTION_SOURCE_NEW_PLAN"
    assert arena_of(action["address"]) in {f"{WORLD}:Hobbs Cafe:cafe",
                                          f"{WORLD}:Isabella Rodriguez's apartment:main room"}
    assert action["description"].startswith("Isabella Rodriguez is ")
    assert len(fake_llm.chat_requests("daily_plan")) == 1
    # The next decision inside the same plan block comes from the plan: no LLM call.
    again = clients.connect("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:04:00Z"}).json()
    assert again["action"]["source"] == "ACTION_SOURCE_PLAN"
    assert again["action"]["address"] == action["address"]
    assert len(fake_llm.chat_requests("daily_plan")) == 1
    # Spawning again with the same persona resumes; with another persona it updates (tests/test_personas.py).
    assert clients.connect("SpawnNpc", spawn_json()).json() == {"npcId": "isabella", "resumed": True}
    other = spawn_json()
    other["persona"]["age"] = 99
    updated = clients.connect("SpawnNpc", other)
    assert updated.json() == {"npcId": "isabella", "updated": True, "changed": ["age"]}


def test_both_transports_answer_the_same_request_identically(brain_factory) -> None:
    # No background preparation, so nothing changes between the two calls of a pair.
    clients = Clients(brain_factory(prepare_ahead_minutes=0))
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    first = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T10:00:00Z"})
    perceive = {"npcId": "isabella", "gameTime": "2026-02-13T10:00:00Z", "perceptions": [
        {"subject": "Klaus Mueller", "predicate": "is", "object": "reading",
         "description": "Klaus Mueller is reading a book", "address": f"{WORLD}:Hobbs Cafe:cafe", "distance": 2}]}
    via_grpc = clients.grpc("Decide", perceive)
    via_connect = clients.connect("Decide", perceive).json()
    assert via_grpc["action"] == via_connect["action"] == {**first["action"], "source": "ACTION_SOURCE_PLAN"}
    trace_id = via_grpc["traceId"]
    assert clients.grpc("GetTrace", {"traceId": trace_id}) == clients.connect("GetTrace", {"traceId": trace_id}).json()
    for body in ({"npcId": "isabella", "limit": 10}, {"npcId": "isabella", "query": "Klaus reading"}):
        assert clients.grpc("ListMemories", body) == clients.connect("ListMemories", body).json()
    vitals = ("rpcs", "loopLate", "gcPauses")  # the brain's own timings move between the two calls
    usage_grpc, usage_connect = clients.grpc("GetUsage", {}), clients.connect("GetUsage", {}).json()
    assert {k: v for k, v in usage_grpc.items() if k not in vitals} == {
        k: v for k, v in usage_connect.items() if k not in vitals}
    clients.close()


def test_trace_shows_retrieval_prompts_and_answers(clients: Clients) -> None:
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    clients.grpc("Whisper", {"npcId": "isabella", "text": "I want to throw a Valentine's party at Hobbs Cafe",
                             "gameTime": "2026-02-13T06:00:00Z"})
    decided = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T08:00:00Z"})
    trace = clients.grpc("GetTrace", {"traceId": decided["traceId"]})["trace"]
    assert trace["npcId"] == "isabella" and trace["kind"] == "decide"
    [retrieved] = trace["retrieved"]
    assert "Valentine" in retrieved["memory"]["description"]
    assert {"recency", "importance", "relevance", "score"} <= set(retrieved) or retrieved["score"] >= 0
    [plan_call] = [c for c in trace["llmCalls"] if c["purpose"] == "daily_plan"]
    assert plan_call["purpose"] == "daily_plan" and plan_call["attempts"] == 1
    assert "Valentine" in plan_call["messages"][1]["content"]
    assert json.loads(plan_call["parsedJson"])["blocks"]
    assert trace["action"] == decided["action"]
    # The NPC's latest trace: this decision, or the thinking it started (the next hour's steps).
    latest = clients.grpc("GetTrace", {"npcId": "isabella"})["trace"]
    assert latest["traceId"] == decided["traceId"] or (latest["kind"], latest["llmCalls"][0]["purpose"]) == (
        "background", "decompose")


def test_interview_answers_from_memories(clients: Clients, fake_llm) -> None:
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    clients.grpc("Whisper", {"npcId": "isabella", "text": "Maria Lopez has a crush on Klaus Mueller",
                             "gameTime": "2026-02-13T06:00:00Z"})
    answer = clients.grpc("Interview", {"npcId": "isabella", "question": "Who does Maria like?",
                                        "gameTime": "2026-02-13T07:00:00Z"})
    assert answer["answer"]
    [request] = fake_llm.chat_requests("interview")
    assert "Maria Lopez has a crush on Klaus Mueller" in request["body"]["messages"][1]["content"]


@pytest.mark.parametrize(("method", "body", "code", "fragment"), [
    ("Decide", {"npcId": "nobody", "gameTime": "2026-02-13T07:00:00Z"}, "not_found", "spawn it with SpawnNpc"),
    ("Decide", {"npcId": "isabella"}, "invalid_argument", "game_time is missing"),
    ("Decide", {"npcId": "bad id!", "gameTime": "2026-02-13T07:00:00Z"}, "invalid_argument", "npc_id"),
    ("SpawnNpc", {**spawn_json("ghost"), "worldName": "Atlantis"}, "failed_precondition", "RegisterWorld first"),
    ("Whisper", {"npcId": "isabella", "text": " ", "gameTime": "2026-02-13T07:00:00Z"}, "invalid_argument", "text is empty"),
    ("GetTrace", {"traceId": "nope"}, "not_found", "no trace"),
    ("RegisterWorld", {"world": {"name": "w"}}, "invalid_argument", "sectors is empty"),
])
def test_errors_have_the_same_status_on_both_transports(town: Clients, method: str, body: dict, code: str,
                                                        fragment: str) -> None:
    clients = town
    response = clients.connect(method, body)
    assert response.json()["code"] == code and fragment in response.json()["message"]
    assert response.status_code == {"not_found": 404, "invalid_argument": 400, "failed_precondition": 400}[code]
    with pytest.raises(grpc.RpcError) as info:
        clients.grpc(method, body)
    assert info.value.code().name.lower() == code and fragment in info.value.details()


def test_malformed_json_is_invalid_argument_and_server_stays_up(town: Clients) -> None:
    clients = town
    for bad in ("{not json", '{"npcId": 5, "gameTime": []}', '{"noSuchField": 1}'):
        response = clients.connect("Decide", bad)
        assert response.status_code == 400, (bad, response.text)
        assert response.json()["code"] == "invalid_argument"
    assert clients.connect("GetUsage", {}).status_code == 200


def test_cors_preflight_allows_connect_headers(town: Clients) -> None:
    clients = town
    response = clients.http.options("/npc_brain.v1.BrainService/Decide", headers={
        "Origin": "http://localhost:8060", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,connect-protocol-version,authorization,x-npc-id"})
    assert response.status_code == 200
    allowed = response.headers["access-control-allow-headers"].lower()
    assert all(h in allowed for h in ("content-type", "authorization", "x-npc-id"))  # what Godot's client sends
    answer = clients.connect("GetUsage", {}, Origin="http://localhost:8060")
    assert answer.headers["access-control-allow-origin"] in ("*", "http://localhost:8060")


def test_a_memory_survives_sigkill(brain_factory) -> None:
    brain = brain_factory()
    clients = Clients(brain)
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    memory_id = clients.grpc("Whisper", {"npcId": "isabella", "text": "The bakery closes early on Sundays",
                                         "gameTime": "2026-02-13T07:00:00Z"})["memoryId"]
    clients.close()
    brain.restart(same_ports=False)  # new clients follow: another process may have taken the old ports
    clients = Clients(brain)
    listed = clients.connect("ListMemories", {"npcId": "isabella"}).json()
    assert [m["id"] for m in listed["memories"]] == [memory_id]
    assert listed["memories"][0]["description"] == "The bakery closes early on Sundays"
    assert clients.connect("SpawnNpc", spawn_json()).json()["resumed"] is True
    clients.close()


def test_get_usage_reports_time_inside_the_brain_per_rpc_and_the_event_loop(clients: Clients) -> None:
    """GetUsage tells a game whether a slow answer was the brain: time inside each RPC the core
    served (both transports counted), how late its loop woke, and full collections."""
    assert clients.connect("RegisterWorld", world_json()).status_code == 200
    assert clients.connect("SpawnNpc", spawn_json()).status_code == 200
    for minute in range(3):
        assert clients.connect("Decide", {"npcId": "isabella", "gameTime": f"2026-02-13T09:0{minute}:00Z"}).status_code == 200
    clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:05:00Z"})
    clients.connect("Decide", {"npcId": "nobody", "gameTime": "2026-02-13T09:05:00Z"})  # failed calls are timed too
    usage = clients.connect("GetUsage", {}).json()
    rpcs = {r["name"]: r for r in usage["rpcs"]}
    assert set(rpcs) == {"RegisterWorld", "SpawnNpc", "Decide"}  # GetUsage itself answers before it is counted
    assert int(rpcs["Decide"]["count"]) == 5
    assert 0 < rpcs["Decide"]["p50Ms"] <= rpcs["Decide"]["p99Ms"] <= rpcs["Decide"]["maxMs"]
    assert int(usage["loopLate"]["count"]) >= 1  # the watcher wakes every 50 ms from the start
    assert "gcPauses" in usage


def test_connect_json_answers_leave_no_reference_cycles() -> None:
    """Each answer's encoding is freed as it goes: none is left for the collector, whose pauses
    stop every thread (pretty-printed, json's Python encoder left ~33 objects in cycles per answer)."""
    answer = pb.DecideResponse(trace_id="t-1", thinking=True)
    answer.action.description = "Ada Park is brewing coffee"
    answer.action.object_states.add(address="town:cafe:kitchen:stove", state="hot")
    codec = CompactJSON()
    assert json.loads(codec.encode(answer))["action"]["objectStates"][0]["state"] == "hot"
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(50):
            codec.encode(answer)
        gc.collect()
        # Only the encoders' own: under xdist other tests' threads may still be leaving theirs.
        encoders = {"json.encoder", CompactJSON.__module__, "google.protobuf.json_format", proto_json.__name__}
        left = [o for o in gc.garbage if getattr(o, "__module__", None) in encoders or type(o).__module__ in encoders]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert not left, left[:5]
