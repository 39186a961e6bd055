"""What a batched Decide costs besides its answer (issue 41: CPU per Decide in a DecideBatch), cut
without changing what a batch answers: one log line per batch, not per Decide; no task for a
Decide that waits for nothing."""

from __future__ import annotations

import asyncio

from brain_server.api import batch
from brain_server.api.service import BrainCore
from brain_server.config import Settings
from npc_brain.v1 import brain_pb2 as pb
from tests.test_logs import Lines, json_lines  # noqa: F401 - the fixture, logging as --log-json does
from tests.test_mind import klaus
from tests.test_untrusted_races import request
from tests.town import spawn_json, world_json

NINE = "2026-02-13T09:00:00Z"


def test_a_batch_logs_one_line_naming_each_decide(run, tmp_path, json_lines: Lines) -> None:  # noqa: F811
    """A DecideBatch writes one `decided_batch` line holding each answered NPC's id beside its trace
    id (the one GetTrace takes), and no `decided` line per Decide; a failed request is counted.
    A Decide on its own still logs its `decided` line."""

    async def scenario(stream) -> tuple[pb.DecideBatchResponse, pb.DecideResponse]:
        core = BrainCore(Settings(data_dir=tmp_path, prepare_ahead_minutes=0), stream)
        try:
            await core.register_world(request(pb.RegisterWorldRequest, world_json()))
            for body in (spawn_json(), klaus()):
                await core.spawn_npc(request(pb.SpawnNpcRequest, body))
            json_lines()
            asked = [{"npcId": npc, "gameTime": NINE, "attention": "ATTENTION_CROWD"}
                     for npc in ("isabella", "nobody", "klaus")]
            answered = await core.decide_batch(request(pb.DecideBatchRequest, {"requests": asked}))
            alone = await core.decide(request(pb.DecideRequest, {"npcId": "isabella", "gameTime": NINE}))
            return answered, alone
        finally:
            await core.close()

    answered, alone = run(scenario)
    lines = json_lines()
    assert [r.code for r in answered.results] == ["", "not_found", ""]
    batch = [line for line in lines if line["event"] == "decided_batch"]
    assert len(batch) == 1, batch
    isabella, _, klaus_ = answered.results
    assert batch[0]["npc_ids"] == ["isabella", "klaus"]
    assert batch[0]["trace_ids"] == [isabella.response.trace_id, klaus_.response.trace_id]
    assert (batch[0]["decides"], batch[0]["failed"]) == (3, 1)
    assert sum(batch[0]["sources"].values()) == 2 and batch[0]["thinking"] == 0
    decided = [line for line in lines if line["event"] == "decided"]
    assert [(line["npc_id"], line["trace_id"]) for line in decided] == [("isabella", alone.trace_id)]


def test_decides_that_wait_for_nothing_need_no_task_and_those_that_wait_go_on() -> None:
    """A Decide answered from its NPC's published view waits for nothing: the batch answers it
    with no task of its own. One that waits (a bare yield, a future) goes on as a task from
    where it stopped, and its result, or its failure, is its request's."""
    made: list[str] = []

    async def decide(item: pb.DecideRequest) -> pb.DecideResponse:
        if item.npc_id != "ready":
            await asyncio.sleep(0)
            later = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(later.set_result, item.npc_id.upper())
            if await later == "BROKEN":
                raise RuntimeError("the NPC's record is broken")
            return pb.DecideResponse(trace_id=await later)
        return pb.DecideResponse(trace_id=item.npc_id)

    async def main() -> pb.DecideBatchResponse:
        def counted(loop: asyncio.AbstractEventLoop, coro, **kwargs) -> asyncio.Task:
            made.append(coro.__qualname__)
            return asyncio.Task(coro, loop=loop, **kwargs)

        asyncio.get_running_loop().set_task_factory(counted)
        asked = pb.DecideBatchRequest(requests=[pb.DecideRequest(npc_id=n) for n in ("ready", "reads", "broken")])
        answered = await batch.decide_all(decide, asked, within_s=10)
        asyncio.get_running_loop().set_task_factory(None)
        return answered

    answered = asyncio.run(main()).results
    assert [(r.response.trace_id, r.code) for r in answered] == [("ready", ""), ("READS", ""), ("", "internal")]
    assert len(made) == 2, made  # the two that waited
