"""The mind: the paper's loop for every NPC the brain serves (its `persona.move()`), made for a
game that runs in real time. It owns the loop; small parts do the work:

    perceive   senses.py      where the NPC stands, what it sees, stored as perceptions
    act        here           the action for now from what the NPC already has (steps.py, routine.py)
    record     here           what the Decide saw and the action it gave, into the NPC
    think      thinking.py    the work of work.py (plan, react, rate, reflect, decompose), one runner
               chats.py       NPCs talking, two or more (groups.py); player_talk.py: the player's and the user's ways in

A `Decide` answers at once from what the NPC already has: a conversation in progress, the current
step of its plan, the block itself until its steps land, or, with no plan for now, a provisional
action from its routine. Thinking in the background (production), it is answered on the
transports' thread from what the mind publishes (the NPC's saved record and its runtime's
`Snapshot`), and the rest runs on the mind's loop after it (`record`): the mind's own state is only
touched there. In lockstep (`background_thinking` off) the same parts run inside the Decide, on
the mind's loop: what it saw is stored and the urgent work done before it answers, the rest after.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import structlog

from brain_server.cognition.attention import Levels, concerns, followed_action
from brain_server.cognition.chats import CHAT_HOLD, Chats
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.perceive import PerceivedEvent
from brain_server.cognition.player_talk import Player
from brain_server.cognition.routine import read_places
from brain_server.cognition.runtime import Runtimes, Snapshot
from brain_server.cognition.senses import Senses, own_event
from brain_server.cognition.thinking import Thinking
from brain_server.cognition.work import Workshop, thinking_about_now
from brain_server.config import Settings
from brain_server.foreground import AskSpread
from brain_server.logs import bind_decision, unbind_decision
from brain_server.npc import Action, NpcState
from brain_server.records import Records
from brain_server.trace import Trace, TraceBook
from brain_server.world import World

log = structlog.get_logger(__name__)
ASK_AGAIN_WHILE_THINKING = timedelta(minutes=5)  # how soon a thinking NPC should ask again


@dataclass
class Decision:
    action: Action
    trace: Trace
    ask_again_at: datetime
    thinking: bool


def _overtaken(answered: Action, live: Action | None) -> bool:
    """A conversation's action answered before the conversation landed, or was left (the player
    spoke to one in it): the record's action is newer and stays."""
    return bool(answered.chatting_with) and (live is None or (live.chatting_with, live.start_time, len(live.dialogue))
                                            != (answered.chatting_with, answered.start_time, len(answered.dialogue)))


class Mind:
    """Every NPC's loop; `player` holds the user's ways into it (talk, whisper, interview)."""

    def __init__(self, settings: Settings, stream: MemoryStream, records: Records, traces: TraceBook) -> None:
        self.settings = settings
        self.records = records
        self.traces = traces
        self.runtimes = Runtimes()
        self.chats = Chats(stream, records, self.runtimes)
        self.levels = Levels(stream.llm, settings, pending=self.runtimes.pending)  # in view, out of view, crowd
        self.workshop = Workshop(settings, stream, records, self.runtimes, self.chats, self.levels)
        self.thinking = Thinking(self.workshop, records, self.runtimes, settings, traces,
                                 background=settings.background_thinking)
        self.senses = Senses(self.thinking, records, self.runtimes, stream)
        self.player = Player(self.thinking, self.workshop, records, stream, self.chats, settings)
        self.spread = AskSpread(real_time=settings.background_thinking)  # a town's asks spread out
        self._storing: set[asyncio.Future[None]] = set()  # Decides' records and perceptions under way

    def spawned(self, npc: NpcState) -> None:
        """A new NPC: what its persona says of its day is read now, before its first Decide."""
        read_places(npc)

    async def forget(self, npc_ids: Sequence[str]) -> None:
        """Drop what the mind thinks about these NPCs (ResetNpc, DeleteNpc, LoadWorld): their work
        is cancelled and awaited, with the perceptions still being stored, and their runtimes start
        anew; a result that lands anyway is dropped by `Records.revise` (the NPC's epoch)."""
        # Their conversations end too: with the player (unremembered), and with other NPCs (the
        # partner's job writing it is cancelled), so nothing said before reaches them after.
        partners = {p for npc_id in npc_ids for p in self.chats.partners(npc_id)} - set(npc_ids)
        jobs = [task for npc_id in npc_ids for task in self.runtimes.drop(npc_id)]
        jobs += [task for p in partners for task in self.runtimes.of(p).jobs.values()]
        for task in jobs:
            task.cancel()
        talks = self.player.end(npc_ids)
        await asyncio.gather(*jobs, *talks, self.thinking.settle(), return_exceptions=True)
        for npc_id in npc_ids:
            self.runtimes.drop(npc_id)  # a runtime a cancelled job's end made again
            self.levels.forget(npc_id)

    def recording(self, work: Coroutine[Any, Any, None]) -> None:
        """A Decide answered on the transports' thread: what it saw, into the NPC (`record`), kept
        until stored with what it perceived (`stored`)."""
        self.thinking.start(self._storage(work))

    def _storage(self, work: Coroutine[Any, Any, None]) -> asyncio.Future[None]:
        task = asyncio.ensure_future(work)
        self._storing.add(task)
        task.add_done_callback(self._storing.discard)
        return task

    async def stored(self) -> None:
        """Wait until what every Decide answered so far saw is stored (a save must include it):
        the records under way, then the perceptions they started."""
        for _ in range(2):
            await asyncio.gather(*list(self._storing), return_exceptions=True)

    # --- a Decide answered from what the mind published (any thread) ----------------------------

    def answer(self, npc_id: str, now: datetime, address: str, in_view: bool, *, crowd: bool = False,
               loaded: tuple[NpcState, World] | None = None) -> Decision | None:
        """The NPC's action for now from its published record and snapshot (or the record and world
        `load` read), without I/O, waiting or any change to the mind: any thread may ask. None when
        the NPC or its world must be loaded first. `record` then brings what the Decide changed
        into the NPC."""
        live, world = loaded or (self.records.current(npc_id), None)
        world = world or (self.records.cached_world(live.world_name) if live is not None else None)
        if live is None or world is None:
            return None
        trace = Trace(npc_id=npc_id, kind="decide", game_time=now)
        bind_decision(npc_id=npc_id, trace_id=trace.trace_id)
        self.thinking.foreground.answering()
        try:
            if address:
                self.records.index(world).check(address, "address")
            npc = live.model_copy(update={"address": address or live.address, "in_view": in_view,
                                          "crowd": self.levels.crowd(npc_id, now, in_view=in_view, asked=crowd)})
            snapshot = self.runtimes.snapshot(npc_id)
            action = self._act(npc, world, now, snapshot)
            # A crowd NPC's own work is dropped at its turn (work.py) and its meetings need no call:
            # only a conversation being written changes what it does now.
            thinking = snapshot.talking if npc.crowd else (
                snapshot.thinking or thinking_about_now(npc, now, self.settings, reacting=snapshot.reacting))
            return self._decided(npc_id, now, action, thinking, trace)
        finally:
            unbind_decision()

    async def load(self, npc_id: str) -> tuple[NpcState, World]:
        """The NPC and its world, read from the store where they are not cached (the mind's loop)."""
        live = await self.records.npc(npc_id)
        return live, await self.records.world(live.world_name)

    async def record(self, npc_id: str, now: datetime, events: Sequence[PerceivedEvent], address: str,
                     in_view: bool, decision: Decision, *, crowd: bool = False) -> None:
        """What a Decide answered and saw, into the NPC on the mind's loop: where it stands, its
        attention, the places it learns, the action it was given; then what it saw and its own new
        action are stored as perceptions (embedding takes longer than a Decide may), and what the
        NPC now needs is started."""
        action, trace = decision.action, decision.trace
        self.traces.add(trace)
        async with self.records.lock(npc_id):
            live = await self.records.npc(npc_id)
            # Such a Decide changes only the NPC's address, action and known places: it copies just
            # those (a deep copy of the day's plan was most of its time).
            npc = live.model_copy(update={"known_addresses": list(live.known_addresses)})
            seen = await self.senses.update(npc, now, address, in_view, events, trace, check=False)
            overtaken = _overtaken(action, live.action)
            await self._attend(npc, now, seen, crowd, trace)
            if not overtaken:
                npc.action = action
            await self.records.save(npc)
        self._announced(npc_id, action)
        if events := [*seen, *([] if overtaken else own_event(live.action, action))]:
            await self.thinking.meanwhile(self._storage(self.senses.perceive_later(npc_id, events, now, trace)))
        await self.thinking.after_acting(npc_id, now)

    # --- a Decide on the mind's loop -------------------------------------------------------------

    async def decide(self, npc_id: str, now: datetime, events: Sequence[PerceivedEvent], address: str,
                     *, in_view: bool = True, crowd: bool = False) -> Decision:
        """The NPC's action for now, on the mind's loop. `in_view`: whether the player can see the
        NPC (cognitive level of detail: out of view it follows its hour blocks without steps, its
        conversations are told in one call, and its perceptions are rated in longer batches; back
        in view, its block is broken into steps at once). `crowd`: far from the player (attention.py)."""
        if self.thinking.background:
            decision = self.answer(npc_id, now, address, in_view, crowd=crowd, loaded=await self.load(npc_id))
            assert decision is not None
            await self.record(npc_id, now, events, address, in_view, decision, crowd=crowd)
            return decision
        trace = Trace(npc_id=npc_id, kind="decide", game_time=now)
        bind_decision(npc_id=npc_id, trace_id=trace.trace_id)
        try:
            decision = await self._step(npc_id, now, events, address, in_view, trace, crowd=crowd)
        finally:
            unbind_decision()
        await self.thinking.after_acting(npc_id, now)
        return decision

    async def _step(self, npc_id: str, now: datetime, events: Sequence[PerceivedEvent], address: str,
                    in_view: bool, trace: Trace, *, crowd: bool) -> Decision:
        """Lockstep: what the Decide saw is stored and the work its action depends on is done
        first, then it acts."""
        async with self.records.lock(npc_id):
            live = await self.records.npc(npc_id)
            npc = live.model_copy(deep=True)
            seen = await self.senses.update(npc, now, address, in_view, events, trace)
            await self._attend(npc, now, seen, crowd, trace)
            stored, unrated = await self.senses.perceive(npc, seen, now, trace)
            people = await self.records.people(npc.world_name) if stored else {}
            self.senses.observed(npc, stored, unrated, now, trace, people)
            await self.records.save(npc)
        await self.thinking.before_acting(npc_id, now, trace)
        async with self.records.lock(npc_id):
            npc = (await self.records.npc(npc_id)).model_copy(deep=True)
            action = self._act(npc, await self.records.world(npc.world_name), now, self.runtimes.snapshot(npc_id))
            npc.action = action
            await self.records.save(npc)
        self._announced(npc_id, action)
        if own := own_event(live.action, action):
            stored, unrated = await self.senses.perceive(npc, own, now, trace)
            await self.records.merge(npc_id, lambda live: self.senses.observed(live, stored, unrated, now, trace, {}))
        decision = self._decided(npc_id, now, action, self.runtimes.snapshot(npc_id).thinking, trace)
        self.traces.add(trace)
        return decision

    # --- acting --------------------------------------------------------------------------------

    def _act(self, npc: NpcState, world: World, now: datetime, snapshot: Snapshot) -> Action:
        """The action for now from what the NPC already has; never waits for the model."""
        if snapshot.talking and npc.action is not None and npc.action.chatting_with:
            held = now + CHAT_HOLD - npc.action.start_time
            return npc.action.model_copy(update={"duration_minutes": int(held.total_seconds() // 60)})
        if npc.is_chatting(now):
            assert npc.action is not None
            return npc.action
        return followed_action(npc, now, self.records.index(world).objects, snapshot.announce)

    async def _attend(self, npc: NpcState, now: datetime, seen: Sequence[PerceivedEvent], asked: bool,
                      trace: Trace) -> None:
        """The NPC's level (attention.py): a crowd NPC that what it sees concerns is promoted."""
        self.levels.asked(npc.npc_id, in_view=npc.in_view, crowd=asked)
        crowd = self.levels.crowd(npc.npc_id, now, in_view=npc.in_view, asked=asked)
        if crowd and seen and (why := concerns(npc, seen, await self.records.people(npc.world_name))):
            self.levels.concern(npc.npc_id, now)
            crowd = False
            trace.note(f"attention: promoted from the crowd: {why}")
        self.runtimes.of(npc.npc_id).crowd = crowd
        if crowd != npc.crowd:
            npc.crowd = crowd
            trace.note("attention: " + ("crowd: routine, no LLM call" if crowd else "thinks again"))

    def _announced(self, npc_id: str, action: Action) -> None:
        """A new plan's first action said how the plan was made: the next ones come from the plan."""
        runtime = self.runtimes.of(npc_id)
        if runtime.announce != "plan" and action.source == runtime.announce:
            runtime.set_announce("plan")

    def _decided(self, npc_id: str, now: datetime, action: Action, thinking: bool, trace: Trace) -> Decision:
        """The answer: the action, and when to ask again: sooner while thinking about now, and the
        NPC's own share of a spread later (steps end on the same minutes across a town, and the game
        asking for all of them in one instant would queue each behind the others)."""
        self.spread.asked(npc_id, now)
        ask_again = (min(action.end_time, now + ASK_AGAIN_WHILE_THINKING) if thinking else action.end_time) \
            + self.spread.offset(npc_id)
        trace.action = action
        log.info("decided", action=action.description, address=action.address, source=action.source,
                 thinking=thinking, llm_calls=len(trace.llm_calls),
                 tokens=sum(c.prompt_tokens + c.completion_tokens for c in trace.llm_calls))
        return Decision(action=action, trace=trace, ask_again_at=max(ask_again, now + timedelta(minutes=1)),
                        thinking=thinking)

    async def close(self) -> None:
        """Stop thinking (what was not merged is redone after a restart: the events to rate and
        the reflection counter are in the NPC's record, and a missing plan is noticed again)."""
        await self.player.close()
        await self.thinking.close()
        await self.records.drain()
