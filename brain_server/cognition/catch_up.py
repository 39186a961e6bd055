"""Time skips: the game's clock jumped (the player slept until morning), and the NPCs live the
skipped hours coarsely, as out of view, so that the plans, meetings, news and memories of those
hours exist afterwards (SkipTime).

Hour by hour from the jump's start to its end (the last step is the end itself), for every NPC of
the world:

- a day plan for each day it enters without one (`Workshop.plan`, as out of view), while the calls
  allow: at most CALLS_PER_SKIPPED_HOUR for the whole town per skipped hour, a plan counted as
  PLAN_CALLS; an NPC beyond the cap follows its routine and plans at its first Decide after;
- the action of that hour (`decide.followed_action`: its plan's block, a promise, or its
  routine), remembered as its own observation stamped with that hour, the NPC standing there;
- NPCs awake in the same arena meet two by two, each with the first it may still talk to (the
  chat cooldown; `hearsay.meet`: no call): each remembers the meeting and tells the other its news.

Nothing else thinks during a skip (no reaction, rating, reflection or decomposition): what it
remembers keeps its provisional importance. Afterwards each NPC's clock stands at the end, so
work under way for an earlier time goes stale, and its next Decide answers from the new plan.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
import math

from brain_server.cognition.chats import Chats
from brain_server.cognition.decide import followed_action
from brain_server.cognition.hearsay import meet
from brain_server.cognition.senses import Senses, own_event
from brain_server.cognition.work import Workshop
from brain_server.llm.scheduler import Priority, Work, WorkDropped
from brain_server.model.npc import NpcState, is_sleep
from brain_server.model.trace import Trace, TraceBook
from brain_server.model.world import arena_of

STEP = timedelta(hours=1)
CALLS_PER_SKIPPED_HOUR = 8  # the town's LLM calls per skipped hour, at most
PLAN_CALLS = 2  # a day plan: "currently" revised, then the day
MAX_SKIP = timedelta(days=7)


@dataclass
class Skipped:
    """What a skip did."""

    npcs: int
    hours: int
    cap: int
    calls: int = 0
    meetings: int = 0
    news: int = 0
    memories: int = 0


async def live_through(senses: Senses, workshop: Workshop, traces: TraceBook, world_name: str, start: datetime,
                       end: datetime) -> Skipped:
    """Every NPC of the world lives the hours from `start` to `end` (module docstring): it plans
    with the `workshop`, perceives and acts with the `senses`."""
    records = senses.records
    ids = sorted((await records.people(world_name, fresh=True)).values())
    hours = math.ceil((end - start) / STEP)
    done = Skipped(npcs=len(ids), hours=hours, cap=CALLS_PER_SKIPPED_HOUR * hours)
    objects = records.index(await records.world(world_name)).objects
    trace = Trace(npc_id="", kind="background", game_time=start)
    for step in range(1, hours + 1):
        when = min(start + step * STEP, end)
        await _plan(senses, workshop, traces, ids, when, done)
        npcs = [await _act(senses, npc_id, when, objects, trace, done) for npc_id in ids]
        await _meet(senses, workshop.chats, npcs, when, trace, done)
    for npc_id in ids:
        senses.runtimes.of(npc_id).clock = end
    trace.note(f"skip: {len(ids)} NPCs lived {hours} hours from {start:%Y-%m-%d %H:%M}: {done.calls} calls "
               f"(cap {done.cap}), {done.meetings} meetings, {done.news} pieces of news, {done.memories} memories")
    traces.add(trace)
    return done


async def _plan(senses: Senses, workshop: Workshop, traces: TraceBook, ids: Sequence[str], when: datetime,
                done: Skipped) -> None:
    """Day plans for the NPCs entering a day without one, as many as the cap leaves room for."""
    unplanned = [n for n in ids if (await senses.records.npc(n)).plan_day != when.date()]
    room = max(0, (done.cap - done.calls) // PLAN_CALLS)

    async def one(npc_id: str) -> int:
        trace = Trace(npc_id=npc_id, kind="background", game_time=when)
        try:
            await workshop.plan(Work(Priority.AHEAD, npc_id), when, trace)
        except WorkDropped as exc:  # the ahead queue is full: the NPC plans when it next needs to
            trace.note(f"skip: plan dropped ({exc.reason})")
        traces.add(trace)
        return len(trace.llm_calls)

    done.calls += sum(await asyncio.gather(*(one(n) for n in unplanned[:room])))


async def _act(senses: Senses, npc_id: str, when: datetime, objects: Mapping[str, Sequence[str]], trace: Trace,
               done: Skipped) -> NpcState:
    """The NPC's action at `when`, taken and remembered (stamped `when`); the NPC as it is then."""
    npc = await senses.records.npc(npc_id)
    action = followed_action(npc, when, objects)
    stored, _ = await senses.perceive(npc, own_event(npc.action, action), when, trace)
    done.memories += len(stored)

    def take(live: NpcState) -> None:
        live.action, live.address = action, action.address

    return await senses.records.merge(npc_id, take) or npc


async def _meet(senses: Senses, chats: Chats, npcs: Sequence[NpcState], when: datetime, trace: Trace,
                done: Skipped) -> None:
    """NPCs awake in the same arena meet two by two without a call, each with the first one it
    may still talk to (the chat cooldown), so partners change from hour to hour."""
    places: defaultdict[str, list[NpcState]] = defaultdict(list)
    for npc in npcs:
        if npc.action is not None and not is_sleep(npc.action.description):
            places[arena_of(npc.action.address)].append(npc)
    for free in places.values():
        while free:
            a = free.pop(0)
            b = next((b for b in free if chats.can_talk(a, b, when)), None)
            if b is None:
                continue
            free.remove(b)
            passed = await meet(senses.stream, senses.records, a, b, when, trace)
            done.meetings, done.news, done.memories = done.meetings + 1, done.news + passed, done.memories + 2 + passed
