"""Two brain replicas sharing one store (docs/deployment.md): each serves its own NPCs, and an NPC
moved from one replica to the other continues where it was; a game's DecideBatch, split by the
hash that pins NPCs to replicas, is answered by each NPC's own replica.

The store is `tools/qdrant_standin.py`, a loopback stand-in for Qdrant's REST API running
qdrant-client's local engine (no Qdrant server can be installed here): the brains reach it with
the same qdrant-client code and wire format as a real server. Background preparation is off
(`PREPARE_AHEAD_MINUTES=0`) so that each replica writes an NPC's record only inside a Decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from google.protobuf import json_format
import grpc
import pytest

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.fake_openai import FakeOpenAI
from tests.static_table import brain_dim
from tests.test_day import HOMES, NAMES, persona, world
from tests.town import WORLD
from tools.loadtest import replica_of

if TYPE_CHECKING:
    from tools.qdrant_standin import QdrantStandIn

pytestmark = pytest.mark.slow
Call = Callable[[str, dict], dict]
DAY1 = datetime(2026, 2, 13, 8, tzinfo=UTC)
CAFE = f"{WORLD}:Hobbs Cafe:cafe"
def caller(brain: object) -> Call:
    stub = brain_pb2_grpc.BrainServiceStub(grpc.insecure_channel(brain.grpc_target))  # type: ignore[attr-defined]

    def call(method: str, body: dict) -> dict:
        request = json_format.ParseDict(body, getattr(pb, f"{method}Request")())
        return json_format.MessageToDict(getattr(stub, method)(request, timeout=60),
                                         always_print_fields_with_no_presence=True)

    return call


def spawn(call: Call, npc_id: str) -> dict:
    return call("SpawnNpc", {"worldName": WORLD, "npcId": npc_id, "persona": persona(npc_id),
                             "address": f"{WORLD}:{HOMES[npc_id]}:bedroom"})


def decide(call: Call, npc_id: str, when: datetime) -> dict:
    return call("Decide", {"npcId": npc_id, "gameTime": when.isoformat()})["action"]


def memory_ids(call: Call, npc_id: str, **query: object) -> list[str]:
    return [m["id"] for m in call("ListMemories", {"npcId": npc_id, "limit": 1000, **query})["memories"]]


def day_plans(fake: FakeOpenAI, npc_id: str) -> int:
    return sum(NAMES[npc_id] in r["body"]["messages"][0]["content"] for r in fake.chat_requests("daily_plan"))


@pytest.fixture
def standin() -> Iterator[QdrantStandIn]:
    from tools.qdrant_standin import QdrantStandIn  # imports qdrant-client: not at collection, in every worker

    with QdrantStandIn() as server:
        yield server


@pytest.fixture
def replicas(brain_factory, standin: QdrantStandIn) -> tuple[Call, Call]:
    """Replica a registers the world; b finds it in the shared store."""
    a, b = (caller(brain_factory(qdrant_url=standin.url, prepare_ahead_minutes=0)) for _ in range(2))
    a("RegisterWorld", world())
    return a, b


def test_replicas_serve_disjoint_npcs_from_one_store(replicas: tuple[Call, Call], standin: QdrantStandIn) -> None:
    a, b = replicas
    owner = {"isabella": a, "klaus": a, "maria": b}
    for npc_id, call in owner.items():
        assert spawn(call, npc_id)["resumed"] is False
    for minutes in (0, 10, 20):
        for npc_id, call in owner.items():
            assert decide(call, npc_id, DAY1 + timedelta(minutes=minutes))["address"].startswith(WORLD)
    secret = "the spare key to the cafe is under the blue flowerpot"
    whispered = b("Whisper", {"npcId": "maria", "text": secret, "gameTime": DAY1.isoformat()})["memoryId"]

    from brain_server.persistence.storage import QdrantClientMemoryStore

    store = QdrantClientMemoryStore(brain_dim(), url=standin.url)
    try:
        listed = {npc_id: memory_ids(call, npc_id) for npc_id, call in owner.items()}
        for npc_id, ids in listed.items():
            assert ids and ids == [n.id for n in store.latest(npc_id, 1000)]
            assert len(ids) == store.count(npc_id)
        assert len(set().union(*listed.values())) == sum(map(len, listed.values()))
    finally:
        store.close()
    assert whispered in listed["maria"]
    assert whispered in memory_ids(a, "maria")  # one store: replica a reads what b wrote
    nearest = a("ListMemories", {"npcId": "isabella", "query": secret, "limit": 50})["memories"]
    assert nearest and all(secret not in m["description"] for m in nearest)
    # Each replica decided only for its own NPCs: traces are per process.
    assert a("GetTrace", {"npcId": "isabella"})["trace"]["npcId"] == "isabella"
    with pytest.raises(grpc.RpcError) as missing:
        a("GetTrace", {"npcId": "maria"})
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_npc_moved_to_another_replica_continues_where_it_was(replicas: tuple[Call, Call],
                                                             fake_llm: FakeOpenAI) -> None:
    a, b = replicas
    spawn(a, "isabella")
    for minutes in range(0, 40, 10):
        last = decide(a, "isabella", DAY1 + timedelta(minutes=minutes))
    plans = memory_ids(a, "isabella", kind="MEMORY_KIND_PLAN")
    total = a("ListMemories", {"npcId": "isabella", "limit": 1})["total"]
    assert day_plans(fake_llm, "isabella") == 1

    assert spawn(b, "isabella")["resumed"] is True
    again = decide(b, "isabella", DAY1 + timedelta(minutes=30))
    assert again == last | {"source": "ACTION_SOURCE_PLAN"}
    assert memory_ids(b, "isabella", kind="MEMORY_KIND_PLAN") == plans
    assert b("ListMemories", {"npcId": "isabella", "limit": 1})["total"] == total
    later = decide(b, "isabella", DAY1 + timedelta(minutes=40))
    assert later["source"] != "ACTION_SOURCE_NEW_PLAN" and day_plans(fake_llm, "isabella") == 1
    thought = b("Whisper", {"npcId": "isabella", "text": "I moved to another brain",
                            "gameTime": (DAY1 + timedelta(minutes=40)).isoformat()})["memoryId"]
    assert thought in memory_ids(b, "isabella")
    assert b("ListMemories", {"npcId": "isabella", "limit": 1})["total"] > total


def test_npc_moved_back_resumes_from_the_store_not_a_stale_cache(replicas: tuple[Call, Call],
                                                                 fake_llm: FakeOpenAI) -> None:
    a, b = replicas
    spawn(a, "isabella")
    decide(a, "isabella", DAY1)
    spawn(b, "isabella")
    day2 = DAY1 + timedelta(days=1)
    decide(b, "isabella", day2)  # b plans day 2; a still holds day 1 in its cache
    assert day_plans(fake_llm, "isabella") == 2

    back = decide(a, "isabella", day2 + timedelta(minutes=10))  # a's day-1 copy is behind the store's
    assert day_plans(fake_llm, "isabella") == 2 and back["source"] == "ACTION_SOURCE_PLAN"


def test_a_conversation_across_replicas_reaches_the_partners_replica(replicas: tuple[Call, Call],
                                                                      fake_llm: FakeOpenAI) -> None:
    a, b = replicas
    spawn(a, "isabella")
    spawn(b, "klaus")
    nine = DAY1 + timedelta(hours=1)
    for npc_id, call in (("isabella", a), ("klaus", b)):
        call("Decide", {"npcId": npc_id, "gameTime": nine.isoformat(), "address": CAFE})
    fake_llm.queue({"json": {"choice": "talk", "reason": "say hello", "new_activity": ""}}, purpose="react")
    fake_llm.queue({"json": {"utterance": "Morning, Klaus!", "end_conversation": False}},
                   {"json": {"utterance": "Morning, Isabella.", "end_conversation": True}}, purpose="converse_turn")
    seen = [{"subject": NAMES["klaus"], "predicate": "is", "object": "reading", "description": "Klaus is reading",
             "address": CAFE, "distance": 2}]
    started = a("Decide", {"npcId": "isabella", "gameTime": (nine + timedelta(minutes=40)).isoformat(),
                           "address": CAFE, "perceptions": seen})["action"]
    assert started["chattingWith"] == "klaus"
    assert any("Morning, Isabella." in m["description"]
               for m in b("ListMemories", {"npcId": "klaus", "kind": "MEMORY_KIND_CHAT"})["memories"])
    partner = decide(b, "klaus", nine + timedelta(minutes=41))
    assert partner["chattingWith"] == "isabella", f"replica b served Klaus from an old copy: {partner['description']!r}"


def test_a_batch_split_by_npc_id_is_answered_by_each_npcs_replica(replicas: tuple[Call, Call]) -> None:
    served = list(replicas)
    ids = ["isabella", "klaus", "maria"]  # replica_of: 1, 0, 1
    for npc_id in ids:
        spawn(served[replica_of(npc_id, 2)], npc_id)
    batch = [{"npcId": n, "gameTime": DAY1.isoformat()} for n in ids]
    parts = {r: [i for i, item in enumerate(batch) if replica_of(item["npcId"], 2) == r] for r in (0, 1)}
    assert parts == {0: [1], 1: [0, 2]}  # both replicas have a share of the batch
    results: list[dict] = [{}] * len(batch)
    for replica, indexes in parts.items():
        answered = served[replica]("DecideBatch", {"requests": [batch[i] for i in indexes]})["results"]
        for i, result in zip(indexes, answered, strict=True):
            results[i] = result
    assert [r["npcId"] for r in results] == ids and all(r["response"]["action"]["address"] for r in results)
    for npc_id in ids:  # decided where it lives: the trace is there, not on the other replica
        mine, other = served[replica_of(npc_id, 2)], served[1 - replica_of(npc_id, 2)]
        assert mine("GetTrace", {"npcId": npc_id})["trace"]["npcId"] == npc_id
        with pytest.raises(grpc.RpcError) as missing:
            other("GetTrace", {"npcId": npc_id})
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
