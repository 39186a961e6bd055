"""DecideBatch: a crowd's Decides in one call. A game with a thousand NPCs would otherwise send a
thousand HTTP requests, each paying its own framing, JSON and transport overhead (and, in a
browser, queueing behind ~6 connections per host); gathered per frame, it sends a few.

Each request of a batch goes through the single Decide itself (`BrainCore.decide`: the same
validation, the same mind, the same traces, budgets and threading), so a batch can never answer
differently from the Decides it holds. Each is answered or failed on its own: an error becomes
that request's code and message, and the others are answered as if it had not been there.

On the real-time path a batch also answers in time on its own: what is not answered within
`ANSWER_WITHIN_S` (an NPC still being read from the store by a brain just started, or short of
CPU) fails alone as `deadline_exceeded` (the brain is slow, not gone), so the game asks that NPC again while the rest act. Waiting for
the slowest would let a crowd's batch run past the game's deadline and fail whole, again and
again, each try's work thrown away."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

import structlog

from brain_server.model import validation
from brain_server.model.errors import BrainError
from npc_brain.v1 import brain_pb2 as pb

log = structlog.get_logger(__name__)
Decide = Callable[[pb.DecideRequest], Awaitable[pb.DecideResponse]]
INTERNAL = "internal"
LATE = "deadline_exceeded"
ANSWER_WITHIN_S = 5.0  # a third of the addon's 15 s call deadline: answers reach the game well before it


async def decide_all(decide: Decide, request: pb.DecideBatchRequest, *,
                     within_s: float | None = None) -> pb.DecideBatchResponse:
    """Every request's outcome, in order; the call fails only when it is over MAX_BATCH. With
    `within_s`, the Decides not answered by then are cancelled and answered `deadline_exceeded`."""
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

    started = [_started(one(i, r)) for i, r in enumerate(requests)]  # most are answered by now
    tasks = [task for task in started if isinstance(task, asyncio.Future)]
    try:
        _, late = await asyncio.wait(tasks, timeout=within_s) if tasks else (set(), set())
    except asyncio.CancelledError:  # the caller is gone: so is every answer
        for task in tasks:
            task.cancel()
        raise
    for task in late:
        task.cancel()
    if late:
        await asyncio.gather(*late, return_exceptions=True)
        log.warning("decide_batch_late", late=len(late), of=len(started), within_s=within_s)
    results = [
        task if not isinstance(task, asyncio.Future) else task.result() if not task.cancelled() else pb.DecideResult(
            npc_id=item.npc_id, code=LATE, message=(
                f"requests[{index}]: NPC {validation.shown(item.npc_id)} was not answered within "
                f"{within_s:g} s (the brain is still loading it or is short of CPU); ask again"))
        for index, (task, item) in enumerate(zip(started, requests, strict=True))]
    logged(results)
    return pb.DecideBatchResponse(results=results)


def logged(results: list[pb.DecideResult]) -> None:
    """One `decided_batch` line for the batch: a line per Decide (`BrainCore.decide`) was a sixth
    of a batched Decide's CPU. Each answered NPC's id beside its trace id (GetTrace has the rest);
    how many came from where, were thinking, failed."""
    answered = [r for r in results if not r.code]
    sources = Counter(r.response.action.source for r in answered)
    log.info("decided_batch", decides=len(results), failed=len(results) - len(answered),
             npc_ids=[r.npc_id for r in answered], trace_ids=[r.response.trace_id for r in answered],
             sources={pb.ActionSource.Name(s).removeprefix("ACTION_SOURCE_").lower(): n for s, n in sources.items()},
             thinking=sum(r.response.thinking for r in answered))


def _started(work: Coroutine[Any, Any, pb.DecideResult]) -> pb.DecideResult | asyncio.Task[pb.DecideResult]:
    """`work` run at once up to its first wait, as Python 3.12's eager tasks run: a Decide answered
    from its NPC's published view waits for nothing, and is answered with no task, no wake-up of
    the loop and no `asyncio.wait` (a tenth of a batched Decide's CPU); one that waits (its NPC
    read from the store) goes on as a task from where it stopped."""
    try:
        waited = work.send(None)
    except StopIteration as done:
        answered: pb.DecideResult = done.value
        return answered
    return asyncio.ensure_future(_GoingOn(work, waited).run())


class _GoingOn:
    """A coroutine stopped at a wait, resumed by the task that awaits this: what it waits for is
    handed to the task as if the coroutine had yielded it there, and what the task sends or
    throws back (a result, a cancellation) goes on into the coroutine."""

    def __init__(self, work: Coroutine[Any, Any, pb.DecideResult], waited: Any) -> None:
        self._work, self._waited = work, waited

    async def run(self) -> pb.DecideResult:
        return await self

    def __await__(self) -> Generator[Any, Any, pb.DecideResult]:
        work, waited = self._work, self._waited
        while True:
            try:
                sent = yield waited
            except GeneratorExit:
                work.close()
                raise
            except BaseException as exc:  # noqa: BLE001 - a cancellation: the coroutine's to handle
                try:
                    waited = work.throw(exc)
                except StopIteration as done:
                    answered: pb.DecideResult = done.value
                    return answered
                continue
            try:
                waited = work.send(sent)
            except StopIteration as done:
                answered = done.value
                return answered
