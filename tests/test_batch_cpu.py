"""What a batched Decide costs besides its answer (issue 41: CPU per Decide in a DecideBatch), cut
without changing what a batch answers: one log line per batch, not per Decide."""

from __future__ import annotations

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
