"""A batch answers in time even when some of its NPCs cannot be (brain_server/api/batch.py), and a
Decide whose caller is gone still leaves its NPC read for the next one (service.decide). Seen in
the real engine: a brain restarted under load read 25 NPCs slower than the game's 15 s deadline,
the whole batch timed out, the reads were cancelled with it, and the next try started over."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from brain_server.api import batch
from brain_server.api.service import BrainCore
from brain_server.config import Settings
from npc_brain.v1 import brain_pb2 as pb
from tests.test_untrusted_races import request
from tests.town import spawn_json, world_json
from tests.waits import wait_until_async

NINE = "2026-02-13T09:00:00Z"


def test_what_is_not_answered_in_time_fails_alone_and_stops() -> None:
    stopped: list[str] = []

    async def decide(item: pb.DecideRequest) -> pb.DecideResponse:
        if item.npc_id.startswith("slow"):
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                stopped.append(item.npc_id)
                raise
        return pb.DecideResponse(trace_id=item.npc_id)

    requests = pb.DecideBatchRequest(requests=[pb.DecideRequest(npc_id=n) for n in ("a", "slow1", "b", "slow2")])
    answered = asyncio.run(batch.decide_all(decide, requests, within_s=0.2)).results
    assert [r.response.trace_id for r in answered] == ["a", "", "b", ""]
    assert [r.code for r in answered] == ["", "deadline_exceeded", "", "deadline_exceeded"]
    assert answered[1].message == ("requests[1]: NPC 'slow1' was not answered within 0.2 s (the brain is "
                                   "still loading it or is short of CPU); ask again")
    assert sorted(stopped) == ["slow1", "slow2"]  # nothing left running for an answer no one reads

    async def caller_gone() -> None:
        call = asyncio.ensure_future(batch.decide_all(decide, requests, within_s=10))
        await asyncio.sleep(0.1)
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        await asyncio.sleep(0)

    stopped.clear()
    asyncio.run(caller_gone())
    assert sorted(stopped) == ["slow1", "slow2"]


def test_a_decide_whose_caller_is_gone_still_reads_its_npc(run, tmp_path) -> None:
    """A brain just started has no NPC in memory; its first Decide reads it on the mind's loop. The
    caller giving up (the game's deadline) must not throw that read away."""

    async def scenario(stream) -> None:
        settings = Settings(data_dir=tmp_path, prepare_ahead_minutes=0)
        first = BrainCore(settings, stream)
        await first.register_world(request(pb.RegisterWorldRequest, world_json()))
        await first.spawn_npc(request(pb.SpawnNpcRequest, spawn_json()))
        await first.records.drain()
        await first.mind.close()
        started = BrainCore(settings, stream)  # a restart: the same store, nothing read yet
        assert started.records.cached("isabella") is None

        gave_up = threading.Event()

        def transport() -> None:  # the transports' own thread and loop, as a server runs Decide
            async def gone_at_once() -> None:
                decide = request(pb.DecideRequest, {"npcId": "isabella", "gameTime": NINE})
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(started.decide(decide), timeout=0.01)
                gave_up.set()
                with contextlib.suppress(AssertionError):  # the server's loop lives on, as a transport's does
                    await wait_until_async(lambda: started.records.cached("isabella") is not None,
                                           what="the NPC read after its caller gave up", limit_s=120)
            asyncio.run(gone_at_once())

        caller = threading.Thread(target=transport)
        caller.start()
        gave_up.wait(10)  # the mind's loop is busy (blocked here) until the caller has given up
        while caller.is_alive():
            await asyncio.sleep(0.01)
        assert started.records.cached("isabella") is not None
        await started.mind.close()

    run(scenario)
