"""DecideBatch: a crowd's Decides in one call. A game with a thousand NPCs would otherwise send a
thousand HTTP requests, each paying its own framing, JSON and transport overhead (and, in a
browser, queueing behind ~6 connections per host); gathered per frame, it sends a few.

Each request of a batch goes through the single Decide itself (`BrainCore.decide`: the same
validation, the same mind, the same traces, budgets and threading), so a batch can never answer
differently from the Decides it holds. Each is answered or failed on its own: an error becomes
that request's code and message, and the others are answered as if it had not been there."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

from brain_server import validation
from brain_server.errors import BrainError
from npc_brain.v1 import brain_pb2 as pb

log = structlog.get_logger(__name__)
Decide = Callable[[pb.DecideRequest], Awaitable[pb.DecideResponse]]
INTERNAL = "internal"


async def decide_all(decide: Decide, request: pb.DecideBatchRequest) -> pb.DecideBatchResponse:
    """Every request's outcome, in order; the call fails only when it is over MAX_BATCH."""
    requests = request.requests
    validation.count("requests", requests, validation.MAX_BATCH)
    first: dict[str, int] = {}
    for index, item in enumerate(requests):
        first.setdefault(item.npc_id, index)

    async def one(index: int, item: pb.DecideRequest) -> pb.DecideResult:
        if first[item.npc_id] != index:  # two actions for one NPC at once: which would it do?
            return pb.DecideResult(npc_id=item.npc_id, code="invalid_argument", message=(
                f"requests[{index}]: NPC {validation.shown(item.npc_id)} is already in this batch at "
                f"requests[{first[item.npc_id]}]: send each NPC once per batch"))
        try:
            return pb.DecideResult(npc_id=item.npc_id, response=await decide(item))
        except BrainError as exc:
            return pb.DecideResult(npc_id=item.npc_id, code=exc.status.value, message=exc.message)
        except Exception:
            log.exception("rpc_failed", rpc="DecideBatch", npc_id=item.npc_id[:validation.MAX_ECHO], index=index)
            return pb.DecideResult(npc_id=item.npc_id, code=INTERNAL,
                                   message="Decide failed inside the brain; the server log has details")

    return pb.DecideBatchResponse(results=await asyncio.gather(*(one(i, r) for i, r in enumerate(requests))))
