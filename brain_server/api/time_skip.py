"""SkipTime: the game's clock jumped; the request is checked here, the hours lived in
`cognition/catch_up.py`."""

from __future__ import annotations

from brain_server.cognition.catch_up import MAX_SKIP, live_through
from brain_server.cognition.mind import Mind
from brain_server.model import validation
from brain_server.model.errors import invalid
from npc_brain.v1 import brain_pb2 as pb


async def skip_time(mind: Mind, request: pb.SkipTimeRequest) -> pb.SkipTimeResponse:
    """Every NPC of the world lives the skipped hours before this answers (`catch_up.live_through`)."""
    validation.name("world_name", request.world_name)
    start, end = validation.game_time(request, "from_time"), validation.game_time(request, "to_time")
    if end <= start:
        raise invalid(f"to_time {end.isoformat()} is not after from_time {start.isoformat()}: "
                      "send the clock before the jump as from_time and the clock after it as to_time")
    if end - start > MAX_SKIP:
        raise invalid(f"the skip from {start.isoformat()} to {end.isoformat()} is longer than {MAX_SKIP.days} days: "
                      "skip at most a week at a time")
    await mind.records.world(request.world_name)
    done = await live_through(mind.senses, mind.workshop, mind.traces, request.world_name, start, end)
    return pb.SkipTimeResponse(npc_count=done.npcs, hours=done.hours, llm_calls=done.calls, calls_cap=done.cap,
                               conversations=done.meetings, news_passed=done.news, memories=done.memories)
