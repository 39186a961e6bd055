"""The mind: the paper's loop for every NPC the brain serves (its `persona.move()`), made for a
game that runs in real time. It owns the loop; small parts do the work:

    perceive   senses.py      where the NPC stands, what it sees, stored as perceptions
    act        decide.py      the action for now from what the NPC already has (steps.py, routine.py)
    record     here           what the Decide saw and the action it gave, into the NPC (`recorded`)
    think      thinking.py    the work of work.py (plan, react, rate, reflect, decompose), one runner
               chats.py       NPCs talking, two or more (groups.py); player_talk.py: the player's and the user's ways in

A `Decide` answers at once from what the NPC already has: a conversation in progress, the current
step of its plan, the block itself until its steps land, or, with no plan for now, a provisional
action from its routine. One orchestration makes it (`Mind.decide`), on either scheduler: the
answer is `decide.answer` over the NPC's `View` (its saved record, world lookups, runtime
snapshot, attention standing, share of the ask spread), which the mind publishes whole on its
loop whenever a part changes; what the Decide changed reaches the mind as a `Decided` message of
its inbox (inbox.py: also `Reset`, `Delete`, `Load`, `Evict`), handled on the mind's loop (`handle`), the
one place that records a Decide and that forgets an NPC. Thinking in the background (production)
the answer is made on the transports' thread and its `Decided` posted; in lockstep
(`background_thinking` off) all of it runs on the mind's loop, what the NPC saw stored and the
urgent work done before the answer, the rest after.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import datetime, timedelta
import functools
from typing import Any
import weakref

from brain_server.cognition.attention import Levels, concerns
from brain_server.cognition.chats import Chats
from brain_server.cognition.decide import Ask, Decided, Decision, Urgent, View, answer
from brain_server.cognition.inbox import Delete, Evict, Load, Message, Reset
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.offline.routine import read_places
from brain_server.cognition.perceive import PerceivedEvent
from brain_server.cognition.player_talk import Player
from brain_server.cognition.runtime import Runtimes
from brain_server.cognition.senses import Senses, own_event
from brain_server.cognition.thinking import Thinking
from brain_server.cognition.work import Workshop, thinking_about_now
from brain_server.config import Settings
from brain_server.model.errors import BrainError, Status
from brain_server.model.npc import Action, NpcState
from brain_server.model.trace import Trace, TraceBook
from brain_server.model.validation import shown
from brain_server.persistence.records import Records
from brain_server.runtime.foreground import AskSpread, Home


def _overtaken(answered: Action, live: NpcState, now: datetime) -> bool:
    """The record's action is newer than the answer and stays: a conversation's action answered
    before the conversation landed, or was left (the player spoke to one in it); or an answer made
    before a conversation took the NPC, still on at `now` (recorded, it put the NPC back on its
    plan while its lines were written)."""
    if not answered.chatting_with:
        return live.is_chatting(now)
    held = live.action
    return held is None or ((held.chatting_with, held.start_time, len(held.dialogue))
                            != (answered.chatting_with, answered.start_time, len(answered.dialogue)))


def _settled(trace: Trace, run: asyncio.Task[Decision]) -> None:
    """A lockstep Decide that failed after its caller was gone: logged, as nobody else sees it."""
    if not run.cancelled() and (error := run.exception()) is not None:
        trace.log.warning("decide_failed_after_caller_left", error=repr(error))


class Mind:
    """Every NPC's loop; `player` holds the user's ways into it (talk, whisper, interview). `home`:
    where the mind's loop is (a Decide answered elsewhere posts its `Decided` there)."""

    def __init__(self, settings: Settings, stream: MemoryStream, records: Records, traces: TraceBook,
                 home: Home | None = None) -> None:
        self.settings = settings
        self.records = records
        self.traces = traces
        self.store = stream.store
        self.home = home or Home(None)
        self._views: dict[str, View] = {}  # what each NPC's Decides read, replaced whole (`_publish`)
        self.runtimes = Runtimes(changed=self._publish)
        self.chats = Chats(stream, records, self.runtimes, rest=timedelta(minutes=settings.chat_rest_minutes))
        self.levels = Levels(stream.llm, settings, pending=self.runtimes.pending,  # in view, out of view, crowd
                             changed=self._publish)
        self.workshop = Workshop(settings, stream, records, self.runtimes, self.chats, self.levels)
        self.thinking = Thinking(self.workshop, records, self.runtimes, settings, traces,
                                 background=settings.background_thinking)
        self.senses = Senses(self.thinking, records, self.runtimes, stream, self.chats.resting)
        self.player = Player(self.thinking, self.workshop, records, stream, self.chats, settings)
        self.spread = AskSpread(real_time=settings.background_thinking)  # a town's asks spread out
        self._storing: set[asyncio.Future[object]] = set()  # Decides' records and perceptions under way
        self._lockstep: dict[asyncio.Task[Decision], str] = {}  # lockstep Decides (callers may be gone): NPC
        self._turns: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        # In lockstep the urgent work runs before the answer: a Decide then says `thinking` only
        # while its conversation is being written.
        self._urgent: Urgent | None = None if not settings.background_thinking else (
            lambda npc, now, reacting: thinking_about_now(npc, now, settings, reacting=reacting))
        records.npc_changed, records.world_changed = self._publish, self._world_changed

    def spawned(self, npc: NpcState) -> None:
        """A new NPC: what its persona says of its day is read now, before its first Decide."""
        read_places(npc)

    # --- the inbox (inbox.py): a Decide recorded, NPCs forgotten -----------------------------------

    async def handle(self, message: Message) -> int:
        """A message of the mind's inbox, on its loop; how many memories it forgot (Reset, Delete)."""
        match message:
            case Decided():
                await self.recorded(message)
                return 0
            case Reset(npc=npc, fresh=fresh):
                forgotten = await self._forgotten(npc, fresh)
                self.spawned(fresh)
                return forgotten
            case Delete(npc=npc):
                async with self.records.world_lock(npc.world_name):  # its name is free once this is done
                    return await self._forgotten(npc, None)
            case Load():
                await self._load(message)
                return 0
            case Evict(npc_ids=npc_ids, worlds=worlds, step=step):
                await self.forget(npc_ids)
                await self.stored()
                step("forget")
                await self.records.evict(list(npc_ids), list(worlds))
                step("evict")
                return 0

    async def _forgotten(self, npc: NpcState, fresh: NpcState | None) -> int:
        """The NPC's work ended, its memories (and record, unless it starts again from `fresh`)
        deleted; how many memories it had."""
        await self.forget([npc.npc_id])
        async with self.records.lock(npc.npc_id):
            forgotten = await asyncio.to_thread(self.store.count, npc.npc_id)
            await self.records.forget(npc, keep_record=fresh is not None)
            if fresh is not None:
                await self.records.save(fresh, wait=True)
        return forgotten

    async def _load(self, load: Load) -> None:
        ids = sorted({npc.npc_id for npc in load.gone})
        await self.forget(ids)
        async with AsyncExitStack() as held:
            for npc_id in ids:
                await held.enter_async_context(self.records.lock(npc_id))
            for npc in load.gone:
                await self.records.forget(npc)
                load.step(f"forgot {npc.npc_id}")
            for npc, nodes, vectors in load.saved:
                await asyncio.to_thread(self.store.add, nodes, vectors)
                load.step(f"memories of {npc.npc_id}")
                await self.records.save(npc, wait=True)
                load.step(f"record of {npc.npc_id}")
                self.spawned(npc)
            await self.records.put_world(load.world)
            load.step("world")

    async def forget(self, npc_ids: Sequence[str]) -> None:
        """Drop what the mind thinks about these NPCs (Reset, Delete, Load; a town asleep): their work
        is cancelled and awaited, with their perceptions still being stored, and their runtimes
        start anew; a result that lands anyway is dropped by `Records.revise` (the NPC's epoch).
        Only their own work is waited for: another NPC's slow model holds up nobody else."""
        # Their conversations end too: with the player (unremembered), and with other NPCs (the
        # partner's job writing it is cancelled), so nothing said before reaches them after.
        partners = {p for npc_id in npc_ids for p in self.chats.partners(npc_id)} - set(npc_ids)
        jobs: list[asyncio.Future[Any]] = [task for npc_id in npc_ids for task in self.runtimes.drop(npc_id)]
        jobs += [task for p in partners for task in self.runtimes.of(p).jobs.values()]
        jobs += [run for run, npc_id in self._lockstep.items() if npc_id in npc_ids]  # their callers: aborted
        for task in jobs:
            task.cancel()
        talks = self.player.end(npc_ids)
        await asyncio.gather(*jobs, *talks, self.thinking.settle(npc_ids), return_exceptions=True)
        for npc_id in npc_ids:
            self.runtimes.drop(npc_id)  # a runtime a cancelled job's end made again
            self.levels.forget(npc_id)

    def _storage(self, work: Coroutine[Any, Any, object]) -> asyncio.Future[object]:
        task = asyncio.ensure_future(work)
        self._storing.add(task)
        task.add_done_callback(self._storing.discard)
        return task

    async def stored(self) -> None:
        """Wait until what every Decide answered so far saw is stored (a save must include it):
        the records under way, then the perceptions they started."""
        for _ in range(2):
            await asyncio.gather(*list(self._storing), return_exceptions=True)

    # --- what a Decide reads: the NPCs' views ----------------------------------------------------

    def _publish(self, npc_id: str) -> None:
        """The NPC's view made again from its parts, on the mind's loop, and swapped in whole (none
        while its record or world is not cached: the next Decide reads them first)."""
        npc = self.records.cached(npc_id)
        world = self.records.cached_world(npc.world_name) if npc is not None else None
        if npc is None or world is None:
            self._views.pop(npc_id, None)
            return
        concerned, hold, demoted = self.levels.standing(npc_id)
        self._views[npc_id] = View(npc=npc, index=self.records.index(world), snapshot=self.runtimes.snapshot(npc_id),
                                   offset=self.spread.offset(npc_id), hold=hold, concerned=concerned,
                                   demoted=demoted, urgent=self._urgent)

    def _world_changed(self, name: str) -> None:
        """A world's new version reaches each view as it is read (`published`): a SetObjectState
        rebuilds none of a thousand views on the mind's loop (34 us each). A world that left the
        cache takes its views with it (their NPCs are read again)."""
        if self.records.cached_world(name) is None:
            for npc_id in [n for n, view in self._views.items() if view.npc.world_name == name]:
                del self._views[npc_id]

    async def view(self, npc_id: str) -> View:
        """The NPC's view as published (any thread), else its record and world read on the mind's
        loop first; that read is shielded: a caller gone (a deadline) leaves the NPC read for its
        next Decide. Replicas sharing a store read the record again each time (`Records.shared`)."""
        published = self.published(npc_id)
        return published if published is not None else await asyncio.shield(self.home.run(self._read(npc_id)))

    def published(self, npc_id: str) -> View | None:
        """The NPC's view as published, if it may be used (any thread: dict reads); one published
        before its world's latest version is given that version's lookups (built once per version),
        and the NPC's next publish keeps them."""
        view = None if self.records.shared else self._views.get(npc_id)
        if view is None:
            return None
        world = self.records.cached_world(view.npc.world_name)
        if world is None:
            return None
        return view if view.index.world is world else replace(view, index=self.records.index(world))

    async def _read(self, npc_id: str) -> View:
        npc = await self.records.npc(npc_id)
        await self.records.world(npc.world_name)
        self._publish(npc_id)
        return self._views[npc_id]

    # --- a Decide: one orchestration, two schedulers ---------------------------------------------

    async def decide(self, npc_id: str, now: datetime, events: Sequence[PerceivedEvent], address: str,
                     *, in_view: bool = True, crowd: bool = False) -> Decision:
        """The NPC's action for now. `in_view`: whether the player can see the NPC (cognitive level
        of detail: out of view it follows its hour blocks without steps, its conversations are told
        in one call, and its perceptions are rated in longer batches; back in view, its block is
        broken into steps at once). `crowd`: far from the player (attention.py).

        Thinking in the background this runs on the caller's loop (the transports'): the answer
        from the NPC's published view (`decide.answer`), its `Decided` posted to the mind's loop.
        In lockstep it runs on the mind's loop: what the NPC saw is stored and the urgent work
        done first (`_observe`, `Thinking.before_acting`), then the same answer, and its `Decided`
        handled before it returns."""
        ask = Ask(npc_id=npc_id, now=now, events=events, address=address, in_view=in_view, crowd=crowd,
                  trace=Trace(npc_id=npc_id, kind="decide", game_time=now))
        if self.thinking.background:
            return await self._decide(ask)
        # In lockstep a Decide runs to its end whatever its caller does: a game whose deadline passed
        # on a loaded machine asks again, and that Decide finds the plan this one made instead of
        # starting it over (else a batch whose plans take longer than the deadline never lands).
        # One at a time per NPC, in the order asked.
        begun: list[bool] = []
        run = asyncio.ensure_future(self._in_turn(ask, begun))
        self._lockstep[run] = npc_id
        run.add_done_callback(lambda done: self._lockstep.pop(done, None))
        try:
            return await asyncio.shield(run)
        except asyncio.CancelledError:
            caller = asyncio.current_task()
            if run.cancelled() and caller is not None and not caller.cancelling():  # `forget` ended it
                raise BrainError(Status.ABORTED, f"NPC {shown(npc_id)} was reset, deleted or loaded while this "
                                 "Decide ran: ask again") from None
            if not begun:  # still waiting its turn: dropped with its caller, so retries never pile up
                run.cancel()
            run.add_done_callback(functools.partial(_settled, ask.trace))
            raise

    async def _in_turn(self, ask: Ask, begun: list[bool]) -> Decision:
        turn = self._turns.get(ask.npc_id)
        if turn is None:
            turn = self._turns[ask.npc_id] = asyncio.Lock()
        async with turn:
            begun.append(True)
            return await self._decide(ask)

    async def _decide(self, ask: Ask) -> Decision:
        npc_id, now = ask.npc_id, ask.now
        before: Action | None = None
        if lockstep := not self.thinking.background:
            before = await self._observe(ask)
            await self.thinking.before_acting(npc_id, now, ask.trace)
        decision = answer(await self.view(npc_id), ask)
        decided = Decided(ask, decision, self.thinking.foreground.now(), observed=lockstep, before=before)
        if self.home.here():
            await self.handle(decided)
        else:
            self.home.post(lambda: self.thinking.start(self._storage(self.handle(decided)), (npc_id,)))
        return decision

    async def _observe(self, ask: Ask) -> Action | None:
        """Lockstep, before acting: what the Decide saw is stored and noticed; the NPC's action before."""
        npc_id, now, trace = ask.npc_id, ask.now, ask.trace
        async with self.records.lock(npc_id):
            live = await self.records.npc(npc_id)
            npc = live.model_copy(deep=True)
            seen = await self.senses.update(npc, now, ask.address, ask.in_view, ask.events, trace)
            await self._attend(npc, now, seen, ask.crowd, trace)
            stored, unrated = await self.senses.perceive(npc, seen, now, trace)
            people = await self.records.people(npc.world_name) if stored else {}
            self.senses.observed(npc, stored, unrated, now, trace, people)
            await self.records.save(npc)
        return live.action

    async def recorded(self, decided: Decided) -> None:
        """A Decide answered, into the mind, on its loop: counted (the town's ask spread, the
        foreground), then where the NPC stands, its attention, the places it learns and the action
        it was given into the NPC (what it saw: unless stored before it acted); then what it saw
        and its own new action are stored as perceptions (in the background: embedding takes
        longer than a Decide may), and what the NPC now needs is started."""
        ask, action, trace = decided.ask, decided.decision.action, decided.ask.trace
        npc_id, now = ask.npc_id, ask.now
        self.spread.asked(npc_id, now)
        self.thinking.foreground.answering(decided.answered_at)
        self.traces.add(trace)
        seen: list[PerceivedEvent] = []
        async with self.records.lock(npc_id):
            live = await self.records.npc(npc_id)
            # Such a Decide changes only the NPC's address, action and known places: it copies just
            # those (a deep copy of the day's plan was most of its time).
            npc = live.model_copy(update={"known_addresses": list(live.known_addresses)})
            if not decided.observed:
                seen = await self.senses.update(npc, now, ask.address, ask.in_view, ask.events, trace, check=False)
                await self._attend(npc, now, seen, ask.crowd, trace)
            overtaken = _overtaken(action, live, now)
            if not overtaken:
                npc.action = action
            await self.records.save(npc)
        self._announced(npc_id, action)
        before = decided.before if decided.observed else live.action
        if events := [*seen, *([] if overtaken else own_event(before, action))]:
            await self.thinking.meanwhile(self._storage(self.senses.perceive_later(npc_id, events, now, trace)),
                                          (npc_id,))
        await self.thinking.after_acting(npc_id, now)

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

    async def close(self) -> None:
        """Stop thinking (what was not merged is redone after a restart: the events to rate and
        the reflection counter are in the NPC's record, and a missing plan is noticed again)."""
        for run in list(self._lockstep):
            run.cancel()
        await asyncio.gather(*list(self._lockstep), return_exceptions=True)
        await self.player.close()
        await self.thinking.close()
        await self.stored()  # perceptions being stored: their memories wait a moment for others' (`Adds`)
        await self.records.drain()
