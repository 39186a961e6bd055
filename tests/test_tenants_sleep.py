"""Towns that sleep (api/towns.py): an idle tenant's town saved and let go, restored by its next
call. The brain runs in this process, so its towns' clock is the test's; its servers are the real
ones (gRPC and Connect on loopback), called by real clients."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
import socket
from typing import Any

from google.protobuf import json_format
import grpc
import httpx
import pytest
import uvicorn

from brain_server.api.service import BrainCore
from brain_server.api.towns import SLEEP_SLOT
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.config import Settings
from brain_server.persistence.records import NPC_RECORD
from brain_server.transport import connect_http, grpc_server
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.test_tenants import ADMIN_TOKEN, SECRET, T0, mint
from tests.town import WORLD, spawn_json, world_json

IDLE_S = 600.0
ALICE, BOB = "alice.isabella", "bob.isabella"


class Clock:
    """The towns' clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Player:
    """One token over both transports (async clients: the brain answers on this loop)."""

    def __init__(self, stub: Any, http: httpx.AsyncClient, token: str) -> None:
        self.stub, self.http, self.token = stub, http, token

    async def grpc(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        request = json_format.ParseDict(body, getattr(pb, f"{method}Request")())
        reply = await getattr(self.stub, method)(request, timeout=60,
                                                 metadata=(("authorization", f"Bearer {self.token}"),))
        return json_format.MessageToDict(reply)

    async def connect(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = await self.http.post(f"/npc_brain.v1.BrainService/{method}", json=body,
                                      headers={"Authorization": f"Bearer {self.token}"})
        assert answer.status_code == 200, answer.text
        return answer.json()

    async def both(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        """The answer over gRPC, checked to be Connect's too."""
        over_grpc = await self.grpc(method, body)
        assert await self.connect(method, body) == over_grpc
        return over_grpc


@asynccontextmanager
async def serving(stream: MemoryStream, tmp_path, clock: Clock, **settings: object
                  ) -> AsyncIterator[tuple[BrainCore, Player, Player, Player]]:
    """A brain core behind both servers on loopback, its towns on `clock`; alice, bob and the admin."""
    settings = {"tenant_idle_s": IDLE_S, "background_thinking": False, **settings}
    core = BrainCore(Settings(data_dir=tmp_path, jwt_secret=SECRET, auth_token=ADMIN_TOKEN, prepare_ahead_minutes=0,
                              **settings), stream)
    core.towns.clock = clock
    server, port = await grpc_server.start(core, "127.0.0.1", 0)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    http = uvicorn.Server(uvicorn.Config(connect_http.http_app(core), lifespan="off", log_level="warning",
                                         access_log=False, log_config=None))
    serving_http = asyncio.create_task(http.serve(sockets=[sock]))
    while not http.started:
        assert not serving_http.done(), "the HTTP server did not start"
        await asyncio.sleep(0.01)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    client = httpx.AsyncClient(base_url=f"http://127.0.0.1:{sock.getsockname()[1]}", timeout=60)
    stub = brain_pb2_grpc.BrainServiceStub(channel)
    players = [Player(stub, client, token) for token in (mint("alice"), mint("bob"), ADMIN_TOKEN)]
    try:
        for player in players[:2]:
            await player.grpc("RegisterWorld", world_json())
            await player.grpc("SpawnNpc", spawn_json())
        yield core, *players
    finally:
        await client.aclose()
        await channel.close()
        http.should_exit = True
        await serving_http
        await server.stop(0)
        await core.close()


def _stored(core: BrainCore, npc_id: str) -> dict[str, Any]:
    """The NPC's record as the store holds it, its revision aside (what a sleep may raise)."""
    record = core.store.get_record(NPC_RECORD, npc_id)
    assert record is not None
    return {k: v for k, v in record.items() if k != "revision"}


async def _metrics(admin: Player) -> dict[str, float]:
    page = (await admin.http.get("/metrics", headers={"Authorization": f"Bearer {admin.token}"})).text
    return {line.split()[0]: float(line.split()[1]) for line in page.splitlines()
            if line.startswith(("npc_brain_towns_slept_total", "npc_brain_towns_restored_total",
                                "npc_brain_towns_asleep", "npc_brain_towns_sleep_npcs_total"))}


def test_a_sleeping_town_wakes_with_the_same_npcs_memories_and_plans(run, tmp_path) -> None:
    async def scenario(stream: MemoryStream) -> None:
        clock = Clock()
        async with serving(stream, tmp_path, clock) as (core, alice, bob, admin):
            seen = {"npcId": "isabella", "gameTime": T0,
                    "perceptions": [{"subject": "the bell", "predicate": "is", "object": "cracked",
                                     "description": "the church bell is cracked"}]}
            first = await alice.grpc("Decide", seen)
            await alice.connect("Whisper", {"npcId": "isabella", "text": "Alice's secret: the cellar key is under "
                                            "the mat", "gameTime": T0})
            memories = await alice.both("ListMemories", {"npcId": "isabella", "limit": 100})
            assert any("cracked" in m["description"] for m in memories["memories"])
            before = _stored(core, ALICE)
            assert before["plan"], "a plan to keep"

            clock.now += IDLE_S - 1
            assert await core.towns.sweep() == []  # not idle long enough
            await bob.grpc("GetUsage", {})
            clock.now += 1
            assert await core.towns.sweep() == ["alice"]  # bob called a second ago: awake
            assert core.records.cached(ALICE) is None and core.records.cached_world(f"alice.{WORLD}") is None
            assert core.traces.get(first["traceId"]) is None
            assert core.records.cached(BOB) is not None
            assert core.saves.files.path(f"alice.{WORLD}", SLEEP_SLOT).is_file()
            assert await _metrics(admin) == {"npc_brain_towns_slept_total": 1, "npc_brain_towns_restored_total": 0,
                                             "npc_brain_towns_asleep": 1, "npc_brain_towns_sleep_npcs_total": 1}

            # Its next call, over either transport, finds it as it was.
            assert await alice.both("ListMemories", {"npcId": "isabella", "limit": 100}) == memories
            assert _stored(core, ALICE) == before
            assert core.records.cached(ALICE) is not None
            later = {"npcId": "isabella", "gameTime": "2026-02-13T09:05:00Z"}
            assert (await alice.grpc("Decide", later))["action"]["address"].startswith(f"{WORLD}:")
            assert (await alice.connect("Decide", later))["action"]
            assert await _metrics(admin) == {"npc_brain_towns_slept_total": 1, "npc_brain_towns_restored_total": 1,
                                             "npc_brain_towns_asleep": 0, "npc_brain_towns_sleep_npcs_total": 1}
            # The sleep slot is the brain's: not among the game's saves, and no slot name it may send.
            assert await alice.both("ListSaves", {"worldName": WORLD}) == {}
            assert [s["slot"] for s in (await admin.grpc("ListSaves", {"worldName": f"alice.{WORLD}"}))["saves"]] \
                == [SLEEP_SLOT]
            with pytest.raises(grpc.RpcError) as refused:
                await alice.grpc("LoadWorld", {"worldName": WORLD, "slot": SLEEP_SLOT})
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT

    run(scenario)


def test_calls_during_a_sleep_wait_for_it_and_never_see_a_town_half_unloaded(run, tmp_path) -> None:
    async def scenario(stream: MemoryStream) -> None:
        clock = Clock()
        async with serving(stream, tmp_path, clock) as (core, alice, _, _):
            await alice.grpc("Decide", {"npcId": "isabella", "gameTime": T0})
            memories = await alice.grpc("ListMemories", {"npcId": "isabella", "limit": 100})
            clock.now += IDLE_S
            async with core.records.world_lock(f"alice.{WORLD}"):  # the sleep's save stops at the world
                sweep = asyncio.ensure_future(core.towns.sweep())
                while core.towns.asleep() < 1:  # alice's town going to sleep: her calls from now on wait
                    await asyncio.sleep(0.01)
                calls = [asyncio.ensure_future(alice.grpc("Decide", {"npcId": "isabella", "gameTime": T0})),
                         asyncio.ensure_future(alice.connect("ListMemories", {"npcId": "isabella", "limit": 100})),
                         asyncio.ensure_future(alice.grpc("ListMemories", {"npcId": "isabella", "limit": 100}))]
                while core.towns.in_flight("alice") < len(calls) and not any(call.done() for call in calls):
                    await asyncio.sleep(0.01)
                assert not any(call.done() for call in calls) and core.towns.slept == 0
            assert sorted(await sweep) == ["alice", "bob"]
            decided, *listed = await asyncio.gather(*calls)
            assert decided["action"] and listed == [memories, memories]
            assert core.towns.restored == 1  # one wake for the three, after the sleep
            assert core.records.cached(ALICE) is not None

    run(scenario)


def test_a_town_with_a_call_in_flight_or_no_room_for_its_slot_stays_awake(run, tmp_path) -> None:
    async def scenario(stream: MemoryStream) -> None:
        clock = Clock()
        async with serving(stream, tmp_path, clock) as (core, alice, _, _):
            await alice.grpc("SaveWorld", {"worldName": WORLD, "slot": "slot_1"})
            async with core.towns.visit("alice"):
                clock.now += IDLE_S
                assert await core.towns.sweep() == ["bob"]  # alice is being answered
            clock.now += IDLE_S
            core.saves.files.max_slots = 1  # the game's own slot fills the world's
            assert await core.towns.sweep() == []
            assert core.records.cached(ALICE) is not None and core.towns.asleep() == 1
            core.saves.files.max_slots = 2
            assert await core.towns.sweep() == []  # its failed sleep counts as a call: idle from then
            clock.now += IDLE_S
            assert await core.towns.sweep() == ["alice"]

    run(scenario)


def test_towns_never_sleep_unless_told_to(run, tmp_path) -> None:
    async def scenario(stream: MemoryStream) -> None:
        clock = Clock()
        async with serving(stream, tmp_path, clock, tenant_idle_s=0) as (core, alice, _, _):
            clock.now += 10 * IDLE_S
            assert await core.towns.sweep() == [] and core.records.cached(ALICE) is not None
            assert (await alice.grpc("Decide", {"npcId": "isabella", "gameTime": T0}))["action"]

    run(scenario)
