"""The real-time brain through the real transports: Decide never waits for the model. It answers
a provisional action at once, the plan lands in the background and the NPC is told to ask again
soon; conversations go on while their lines are written; the player's Talk overtakes the town's
thinking in the scheduler; GetUsage shows the queues."""

from __future__ import annotations

import threading

import pytest

from tests.clients import Clients
from tests.test_mind import CAFE, klaus
from tests.town import WORLD, spawn_json, world_json
from tests.waits import wait_until

HOME = f"{WORLD}:Isabella Rodriguez's apartment:main room"
SLOW_S = 1.5  # the fake model's latency: every completion takes this long


@pytest.fixture
def clients(brain_factory, fake_llm):
    fake_llm.latency_s = SLOW_S
    c = Clients(brain_factory(background_thinking=True, llm_max_concurrency=1))
    c.grpc("RegisterWorld", world_json())
    c.grpc("SpawnNpc", spawn_json())
    yield c
    c.close()


def decide(clients: Clients, npc_id: str, clock: str, *seen: str) -> dict:
    """A Decide; whether it waited for the model the answer tells (provisional, thinking, no LLM
    call in its trace), not the time it took."""
    from google.protobuf import json_format

    from npc_brain.v1 import brain_pb2 as pb

    perceptions = [{"subject": who, "predicate": "is", "object": "reading", "description": f"{who} is reading",
                    "address": CAFE, "distance": 2} for who in seen]
    body = {"npcId": npc_id, "gameTime": f"2026-02-13T{clock}:00Z", "address": CAFE, "perceptions": perceptions}
    reply = clients.stub.Decide(json_format.ParseDict(body, pb.DecideRequest()), timeout=60)
    return json_format.MessageToDict(reply)


def until(check, what: str = "the background work landed"):
    return wait_until(check, what=what, poll_s=0.2)


def test_decide_answers_at_once_and_the_plan_lands_in_the_background(clients: Clients, fake_llm) -> None:
    first = decide(clients, "isabella", "09:00")
    assert first["action"]["source"] == "ACTION_SOURCE_PROVISIONAL" and first["thinking"]
    # Isabella runs Hobbs Cafe: at 9 on a Friday she is provisionally at work there.
    assert first["action"]["address"] == CAFE and "working" in first["action"]["description"]
    assert first["askAgainAt"] < "2026-02-13T09:06:00Z"  # a few game minutes, not the hour
    trace = clients.grpc("GetTrace", {"traceId": first["traceId"]})["trace"]
    assert "llmCalls" not in trace  # the Decide itself asked the model nothing
    planned = until(lambda: (d := decide(clients, "isabella", "09:01"))["action"]["source"] != (
        "ACTION_SOURCE_PROVISIONAL") and d)
    assert planned["action"]["source"] in ("ACTION_SOURCE_NEW_PLAN", "ACTION_SOURCE_PLAN")
    # The block in progress is decomposed next, and the NPC is told to ask again meanwhile.
    until(lambda: "(" in decide(clients, "isabella", "09:02")["action"]["description"])
    assert fake_llm.chat_requests("daily_plan") and fake_llm.chat_requests("decompose")
    queues = {q["priority"]: q for q in clients.grpc("GetUsage", {})["queues"]}
    assert list(queues) == ["player", "social", "plan_now", "ahead", "background"]
    assert int(queues["plan_now"]["served"]) >= 2


def test_a_conversation_goes_on_while_its_lines_are_written(clients: Clients, fake_llm) -> None:
    clients.grpc("SpawnNpc", klaus())
    for npc in ("isabella", "klaus"):
        decide(clients, npc, "09:00")
    until(lambda: all(decide(clients, n, "09:01")["action"]["source"] != "ACTION_SOURCE_PROVISIONAL"
                      for n in ("isabella", "klaus")))
    fake_llm.queue({"json": {"choice": "talk", "reason": "say hello", "new_activity": ""}}, purpose="react")
    # The first line is held until the Decides below have looked: however loaded the machine, they
    # find it being written (a 10 s delay was not always enough under a full suite beside three sims).
    first_line = threading.Event()
    fake_llm.queue({"json": {"utterance": "Morning, Klaus!", "end_conversation": False}, "until": first_line},
                   {"json": {"utterance": "Morning! Busy day?", "end_conversation": True}}, purpose="converse_turn")
    decide(clients, "isabella", "09:05", "Klaus Mueller")
    # Both stand together talking while the lines are written.
    try:
        talking = until(lambda: (d := decide(clients, "klaus", "09:06"))["action"].get("chattingWith") and d)
        assert talking["action"]["chattingWith"] == "isabella" and talking["thinking"]
        assert "dialogue" not in talking["action"]
        assert decide(clients, "isabella", "09:06")["action"]["chattingWith"] == "klaus"
    finally:
        first_line.set()
    done = until(lambda: (d := decide(clients, "isabella", "09:08"))["action"].get("dialogue") and d,
                 "the conversation's lines written")
    assert [line["text"] for line in done["action"]["dialogue"]] == ["Morning, Klaus!", "Morning! Busy day?"]
    # The lines land in each participant's record in turn (with reads of its memories between), so
    # a Decide of Klaus's just after Isabella's may come before his: he is asked until his land.
    heard = until(lambda: decide(clients, "klaus", "09:08")["action"].get("dialogue"), "the lines in Klaus's record")
    assert heard == done["action"]["dialogue"]


def test_the_players_line_overtakes_the_towns_thinking(clients: Clients, fake_llm) -> None:
    """Ten NPCs need a day plan from a one-slot model; the player's Talk is served next, not last."""
    for n in range(10):
        body = spawn_json(f"resident{n}")
        body["persona"]["name"] = f"Resident {n}"
        clients.grpc("SpawnNpc", body)
        decide(clients, f"resident{n}", "09:00")
    reply = clients.grpc("Talk", {"npcId": "isabella", "speakerName": "Sam", "text": "Hello there!",
                                  "gameTime": "2026-02-13T09:00:00Z"})
    assert reply["reply"]
    queues = {q["priority"]: q for q in clients.grpc("GetUsage", {})["queues"]}
    assert int(queues["plan_now"]["waiting"]) >= 5  # most plans still wait: the player went first
    assert int(queues["player"]["served"]) >= 1


def test_the_benchmarks_fake_endpoint_runs_in_a_process_of_its_own_and_stops() -> None:
    """`bench realtime` starts the fake endpoint as its own process (its threads do not share the
    callers' GIL), counts the chat completions it was asked for, and stops it at the end."""
    import json
    import os
    from urllib.request import Request, urlopen

    from npc_lab.realtime import FakeProcess

    with FakeProcess(latency_s=0.0) as fake:
        assert fake.proc and fake.proc.pid != os.getpid()
        body = {"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}
        request = Request(f"{fake.base_url}/chat/completions", json.dumps(body).encode(),
                          {"Content-Type": "application/json"})
        with urlopen(request, timeout=30) as answer:
            assert json.loads(answer.read())["choices"][0]["message"]["content"]
        assert fake.chat_requests() == 1
    assert fake.proc.poll() is not None


def test_the_benchmarks_client_settles_and_times_its_own_collections() -> None:
    """The bench client's collector is settled as the brain's for the run, and its pauses recorded."""
    import gc

    from brain_server.runtime.collector import GC_THRESHOLDS
    from npc_lab.realtime import Collector

    threshold = gc.get_threshold()
    with Collector() as collector:
        assert gc.get_threshold() == GC_THRESHOLDS and gc.get_freeze_count() > 0
        gc.collect()
    assert gc.get_threshold() == threshold and gc.get_freeze_count() == 0
    report = collector.report()
    assert report["full"]["count"] == 1 and report["full"]["max_ms"] >= 0
