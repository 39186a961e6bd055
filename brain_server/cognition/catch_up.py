"""Time skips: the game's clock jumped (the player slept until morning), and the NPCs live the
skipped hours coarsely, as out of view, so that the plans, meetings, news and memories of those
hours exist afterwards (SkipTime).

Hour by hour from the jump's start to its end (the last step is the end itself), for every NPC of
the world:

- a day plan for each day it enters without one (`work.plan`, as out of view), while the calls
  allow: at most CALLS_PER_SKIPPED_HOUR for the whole town per skipped hour, a plan counted as
  PLAN_CALLS; an NPC beyond the cap follows its routine and plans at its first Decide after;
- the action of that hour (`decide.followed_action`: its plan's block, a promise, or its
  routine), remembered as its own observation stamped with that hour, the NPC standing there;
- NPCs awake in the same arena meet two by two, each with the first it may still talk to (the
  chat cooldown; `attention.meet`: no call): each remembers the meeting and tells the other its news.

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

from brain_server.cognition.attention import meet
from brain_server.cognition.decide import followed_action
from brain_server.cognition.senses import Senses, own_event
from brain_server.cognition.work import plan
from brain_server.llm.scheduler import Priority, Work, doing
from brain_server.npc import NpcState, is_sleep
from brain_server.trace import Trace, TraceBook
from brain_server.world import arena_of

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


async def live_through(senses: Senses, traces: TraceBook, world_name: str, start: datetime,
                       end: datetime) -> Skipped:
    """Every NPC of the world lives the hours from `start` to `end` (module docstring)."""
    parts = senses.parts
    ids = sorted((await parts.records.people(world_name, fresh=True)).values())
    hours = math.ceil((end - start) / STEP)
    done = Skipped(npcs=len(ids), hours=hours, cap=CALLS_PER_SKIPPED_HOUR * hours)
    objects = parts.records.index(await parts.records.world(world_name)).objects
    trace = Trace(npc_id="", kind="background", game_time=start)
    for step in range(1, hours + 1):
        when = min(start + step * STEP, end)
        await _plan(senses, traces, ids, when, done)
        npcs = [await _act(senses, npc_id, when, objects, trace, done) for npc_id in ids]
        await _meet(senses, npcs, when, trace, done)
    for npc_id in ids:
        parts.runtimes.of(npc_id).clock = end
    trace.note(f"skip: {len(ids)} NPCs lived {hours} hours from {start:%Y-%m-%d %H:%M}: {done.calls} calls "
               f"(cap {done.cap}), {done.meetings} meetings, {done.news} pieces of news, {done.memories} memories")
    traces.add(trace)
    return done


async def _plan(senses: Senses, traces: TraceBook, ids: Sequence[str], when: datetime, done: Skipped) -> None:
    """Day plans for the NPCs entering a day without one, as many as the cap leaves room for."""
    parts = senses.parts
    unplanned = [n for n in ids if (await parts.records.npc(n)).plan_day != when.date()]
    room = max(0, (done.cap - done.calls) // PLAN_CALLS)

    async def one(npc_id: str) -> int:
        trace = Trace(npc_id=npc_id, kind="background", game_time=when)
        with doing(Work(Priority.AHEAD, npc_id)):
            await plan(parts, npc_id, when, trace)
        traces.add(trace)
        return len(trace.llm_calls)

    done.calls += sum(await asyncio.gather(*(one(n) for n in unplanned[:room])))


async def _act(senses: Senses, npc_id: str, when: datetime, objects: Mapping[str, Sequence[str]], trace: Trace,
               done: Skipped) -> NpcState:
    """The NPC's action at `when`, taken and remembered (stamped `when`); the NPC as it is then."""
    parts = senses.parts
    npc = await parts.records.npc(npc_id)
    action = followed_action(npc, when, objects)
    stored, _ = await senses.perceive(npc, own_event(npc.action, action), when, trace)
    done.memories += len(stored)

    def take(live: NpcState) -> None:
        live.action, live.address = action, action.address

    return await parts.records.merge(npc_id, take) or npc


async def _meet(senses: Senses, npcs: Sequence[NpcState], when: datetime, trace: Trace, done: Skipped) -> None:
    """NPCs awake in the same arena meet two by two without a call, each with the first one it
    may still talk to (the chat cooldown), so partners change from hour to hour."""
    parts = senses.parts
    places: defaultdict[str, list[NpcState]] = defaultdict(list)
    for npc in npcs:
        if npc.action is not None and not is_sleep(npc.action.description):
            places[arena_of(npc.action.address)].append(npc)
    for free in places.values():
        while free:
            a = free.pop(0)
            b = next((b for b in free if parts.chats.can_talk(a, b, when)), None)
            if b is None:
                continue
            free.remove(b)
            passed = await meet(parts.stream, parts.records, a, b, when, trace)
            done.meetings, done.news, done.memories = done.meetings + 1, done.news + passed, done.memories + 2 + passed
