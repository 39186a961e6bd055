"""The mind: the paper's loop for every NPC the brain serves (its `persona.move()`), made for a
game that runs in real time.

perceive -> act -> think. A `Decide` answers at once from what the NPC already has: the current
step of its plan, the block itself until its steps land, a conversation in progress, or, with no
plan for now, a provisional action from its routine (`routine.py`); what the NPC saw is stored
right after (embedding it is no LLM call, but takes longer than a Decide may), and who is worth a
reaction is noticed once it is. Everything that needs the model runs
as background work, at most one of each kind per NPC, each completion waiting its turn in the
endpoint's scheduler (`llm/scheduler.py`) by who would notice the delay:

    social      react to someone seen (continue / re-plan / talk), then the conversation
    plan_now    plan the day; decompose the block in progress
    ahead       decompose the blocks of the next hour
    background  rate the perceived events; reflect

Each piece of work reads a copy of the NPC and merges its result into the NPC as it is when it
lands, under the NPC's lock (`records.py`); none holds a lock while the model thinks. A finished
piece starts whatever became needed (a plan lands -> its first block is decomposed).

With `background_thinking` off the same work runs inside the Decide before it answers, in a
fixed order, so a run at concurrency 1 is a pure function of the LLM's answers (record/replay).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
import time
from typing import Any, TypeVar

import structlog

from brain_server.cognition.converse import (
    MAX_LINES,
    PlanChange,
    Speaker,
    answer_interview,
    chat_minutes,
    converse,
    keep_conversation,
    next_line,
    relationship,
    remember_conversation,
    summarize_conversation,
)
from brain_server.cognition.locate import accessible_places, choose_address, learn_places
from brain_server.cognition.memory_stream import MemoryStream, bullet_list, queue_for_rating, rating_due
from brain_server.cognition.perceive import Attention, PerceivedEvent, attend
from brain_server.cognition.plan import plan_day, replan_from
from brain_server.cognition.steps import action_now, decompose_upcoming, due_blocks
from brain_server.cognition.react import decide_reaction, is_thing, worth_considering
from brain_server.cognition.reflect import maybe_reflect, note_importance
from brain_server.cognition.routine import provisional_action, read_places
from brain_server.config import Settings
from brain_server.foreground import AskSpread, Foreground, Handoff, run_on
from brain_server.llm.scheduler import Priority, Work, WorkDropped, doing
from brain_server.logs import bind_decision, unbind_decision
from brain_server.memory import MemoryKind, MemoryNode
from brain_server.npc import Action, DialogueLine, NpcState, PlanItem
from brain_server.records import Records
from brain_server.trace import Trace, TraceBook
from brain_server.world import SEPARATOR, World, arena_of, join

log = structlog.get_logger(__name__)
CHAT_COOLDOWN = timedelta(hours=2)  # the same two NPCs do not chat again sooner
REACTION_COOLDOWN = timedelta(minutes=30)  # reconsider the same person at most this often
THING_REACTION_COOLDOWN = timedelta(days=1)  # and a thing in the same state ("the stove is burning")
LONGEST_WAIT = timedelta(minutes=30)  # waiting for someone to finish is offered when they finish this soon
ASK_AGAIN_WHILE_THINKING = timedelta(minutes=5)  # how soon a thinking NPC should ask again
CHAT_HOLD = timedelta(minutes=5)  # a conversation being written holds both speakers this long at a time
OUT_OF_VIEW_BATCHING = 4  # out of view, perceptions wait this many times longer for their rating
OUT_OF_VIEW_REFLECTING = 2  # and reflection waits for this many times the importance

URGENT = ("plan", "react", "decompose_now")  # work that changes what an NPC does now
OPEN_TALKS_PER_NPC = 8  # players talking to one NPC at once; the least recently continued ends first
OPEN_TALKS = 1000  # open player conversations in all

Step = Callable[[str, datetime, Trace], Awaitable[bool]]
T = TypeVar("T")


@dataclass
class Decision:
    action: Action
    trace: Trace
    ask_again_at: datetime
    thinking: bool


@dataclass
class PendingReaction:
    """Someone the NPC saw and may react to, waiting for its turn with the model."""

    observation: MemoryNode
    partner_id: str
    seen_at: datetime


@dataclass
class PlayerTalk:
    """A conversation with the player in progress: the NPC's view of them and the lines so far."""

    view: tuple[str, str]
    lines: list[DialogueLine] = field(default_factory=list)
    summary: asyncio.Task[tuple[str, str]] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    spoken: float = field(default_factory=time.monotonic)  # when the player last spoke (wall clock)
    at: datetime | None = None  # the game time of that line


class Mind:
    """Every NPC's loop, and the user's ways into it (talk, whisper, interview)."""

    def __init__(self, settings: Settings, stream: MemoryStream, records: Records, traces: TraceBook) -> None:
        self.settings = settings
        self.stream = stream
        self.records = records
        self.traces = traces
        self._clock: dict[str, datetime] = {}  # the game time of each NPC's latest Decide
        self._seen: dict[str, set[str]] = {}  # who each NPC saw at its latest Decide
        self._surroundings: dict[str, set[str]] = {}  # things it saw then in a state the world records
        self._reactions: dict[str, PendingReaction] = {}
        self._talking: set[str] = set()  # NPCs whose conversation is being written
        self._announce: dict[str, str] = {}  # a plan landed: the next action says how it was made
        self._jobs: dict[tuple[str, str], asyncio.Task[bool]] = {}
        self._talks: dict[tuple[str, str], PlayerTalk] = {}
        self._urgent: set[str] = set()  # NPCs with work under way that changes what they do now
        self._perceiving: dict[str, asyncio.Lock] = {}  # each NPC's perceptions stored in the order seen
        self.foreground = Foreground(enabled=settings.background_thinking)  # thinking waits out a burst of Decides
        self.spread = AskSpread(real_time=settings.background_thinking)  # a town's asks spread out
        # The mind's own loop, for Decides answered on another (the transports'); none outside a loop.
        self._inbox = Handoff(asyncio.get_running_loop()) if _in_a_loop() else None

    # --- the loop -------------------------------------------------------------------------

    def spawned(self, npc: NpcState) -> None:
        """A new NPC: what its persona says of its day is read now, before its first Decide."""
        read_places(npc)

    async def decide(self, npc_id: str, now: datetime, events: Sequence[PerceivedEvent], address: str,
                     *, in_view: bool = True) -> Decision:
        """The NPC's action for now. `in_view`: whether the player can see the NPC (cognitive level
        of detail: out of view it follows its hour blocks without steps, its conversations are told
        in one call, and its perceptions are rated in longer batches; back in view, its block is
        broken into steps at once).

        With background thinking it is answered on whichever loop calls (the transports' thread),
        from the NPC as this process has it, never waiting for the mind's loop and the town's
        thinking there; what the Decide changed follows to the mind's loop (`_record`), in the order
        the Decides came. In lockstep the thinking runs first, inside the Decide, on the mind's loop."""
        if not self.settings.background_thinking:
            return await self._at_home(self._decide_in_step(npc_id, now, events, address, in_view))
        trace = Trace(npc_id=npc_id, kind="decide", game_time=now)
        bind_decision(npc_id=npc_id, trace_id=trace.trace_id)
        self.foreground.answering()
        try:
            live = self.records.current(npc_id) or await self._at_home(self.records.npc(npc_id))
            world = (self.records.cached_world(live.world_name)
                     or await self._at_home(self.records.world(live.world_name)))
            if address:
                self.records.index(world).check(address, "address")
            npc = live.model_copy(update={"address": address or live.address, "in_view": in_view})
            action = self._act(npc, world, now)
            thinking = self._thinking_about_now(npc_id) or any(kind in URGENT for kind, _, _ in self._needs(npc, now))
            decision = self._decided(npc_id, now, action, thinking, trace)
        finally:
            unbind_decision()
        record = self._record(npc_id, now, events, address, in_view, action, trace)
        if self._at_home_now():
            await record
        else:
            assert self._inbox is not None
            self._inbox.post(lambda: self._start(record))
        return decision

    async def _record(self, npc_id: str, now: datetime, events: Sequence[PerceivedEvent], address: str,
                      in_view: bool, action: Action, trace: Trace) -> None:
        """What a Decide answered and saw, into the NPC on the mind's loop: where it stands, its
        attention, the places it learns, the action it was given; then what it saw and its own new
        action are stored as perceptions (embedding takes longer than a Decide may), and what the
        NPC now needs is started."""
        self.traces.add(trace)
        async with self.records.lock(npc_id):
            live = await self.records.npc(npc_id)
            # Such a Decide changes only the NPC's address, action and known places: it copies just
            # those (a deep copy of the day's plan was most of its time).
            npc = live.model_copy(update={"known_addresses": list(live.known_addresses)})
            events = [*await self._update(npc, now, address, in_view, events, trace), *_own_event(live.action, action)]
            npc.action = action
            await self.records.save(npc)
        if events:
            await self._meanwhile(self._perceive_later(npc_id, events, now, trace))
        self._think(npc_id)

    async def _decide_in_step(self, npc_id: str, now: datetime, events: Sequence[PerceivedEvent], address: str,
                              in_view: bool) -> Decision:
        """Lockstep: what the Decide saw is stored and the work its action depends on is done
        first (`_think_first`), then it answers; the rest follows before the next Decide."""
        trace = Trace(npc_id=npc_id, kind="decide", game_time=now)
        bind_decision(npc_id=npc_id, trace_id=trace.trace_id)
        try:
            async with self.records.lock(npc_id):
                live = await self.records.npc(npc_id)
                npc = live.model_copy(deep=True)
                seen = await self._update(npc, now, address, in_view, events, trace)
                stored, unrated = await self._perceive(npc, seen, now, trace)
                people = await self.records.people(npc.world_name) if stored else {}
                self._observed(npc, stored, unrated, now, trace, people)
                await self.records.save(npc)
            npc = await self._think_first(npc_id, now, trace)
            assert npc.action is not None
            if own := _own_event(live.action, npc.action):
                stored, unrated = await self._perceive(npc, own, now, trace)
                await self.records.merge(npc_id, lambda live: self._observed(live, stored, unrated, now, trace, {}))
            decision = self._decided(npc_id, now, npc.action, self._thinking_about_now(npc_id), trace)
            self.traces.add(trace)
        finally:
            unbind_decision()
        await self._think_after(npc_id, now)
        return decision

    async def _update(self, npc: NpcState, now: datetime, address: str, in_view: bool,
                      events: Sequence[PerceivedEvent], trace: Trace) -> list[PerceivedEvent]:
        """What every Decide changes in the NPC's copy: where it stands, its attention, and what it
        sees (`_sight`); the events in sight."""
        world = await self.records.world(npc.world_name)
        if address:
            self.records.index(world).check(address, "address")
            npc.address = address
        self._clock[npc.npc_id] = now
        if npc.in_view != in_view:
            npc.in_view = in_view
            trace.note("attention: " + ("in view: full detail" if in_view else
                                        "out of view: hour blocks, conversations in one call"))
        return self._sight(npc, world, events, trace)

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

    def _sight(self, npc: NpcState, world: World, events: Sequence[PerceivedEvent],
               trace: Trace) -> list[PerceivedEvent]:
        """What is in sight (no I/O): who the NPC sees now, and the places it learns: where it stands
        (walked through or arrived at, as Godot reports it) and where the events it sees happen."""
        events = [e for e in events if e.distance <= npc.perception.vision_radius]
        self._seen[npc.npc_id] = {e.subject for e in events}
        self._surroundings[npc.npc_id] = _recorded(world, [e for e in events if is_thing(e.subject)])
        known, home = {arena_of(a) for a in npc.known_addresses}, arena_of(npc.persona.home).rsplit(":", 1)[0]
        unknown = [a for a in (npc.address, *(e.address for e in events)) if a and arena_of(a) not in known
                   and arena_of(a).rsplit(":", 1)[0] != home]  # learn_places walks the world: only if new
        if unknown and (learned := learn_places(npc, world, unknown)):
            trace.note(f"perceive: {learned} new places")
        return events

    async def _perceive(self, npc: NpcState, events: Sequence[PerceivedEvent], now: datetime,
                        trace: Trace) -> tuple[list[MemoryNode], list[MemoryNode]]:
        """Perception (`perceive.py`): what is in sight and new is stored with a provisional
        importance; the stored nodes, and those whose rating waits for a batch (`_rate`)."""
        if not events:
            return [], []
        recent = await asyncio.to_thread(self.stream.store.latest, npc.npc_id, npc.perception.retention,
                                         MemoryKind.OBSERVATION)
        mine = sum(e.subject == npc.persona.name and e.distance == 0 for e in events)  # its own action
        attention = Attention(npc.perception.attention_bandwidth + mine, npc.perception.retention)
        nodes, skipped = attend(npc.npc_id, events, [n.description for n in recent], now, attention)
        stored, unrated = await self.stream.remember_unrated(npc.npc_id, npc.persona, nodes, trace)
        trace.note(f"perceive: {len(stored)} new events stored, {skipped} already seen")
        return stored, unrated

    def _observed(self, npc: NpcState, stored: list[MemoryNode], unrated: list[MemoryNode], now: datetime,
                  trace: Trace, people: dict[str, str]) -> None:
        """Stored perceptions into the NPC: ratings queued, importance counted towards reflection,
        the person most worth a reaction noticed (`people`: the world's names to NPC ids)."""
        queue_for_rating(npc, unrated, now)
        waiting = {n.id for n in unrated}
        note_importance(npc, [n for n in stored if n.id not in waiting])
        if unrated:
            trace.note(f"perceive: {len(npc.unrated_ids)} waiting for their importance rating")
        self._notice(npc, stored, now, people)

    async def _perceive_later(self, npc_id: str, events: Sequence[PerceivedEvent], now: datetime,
                              trace: Trace) -> None:
        """With background thinking, what a Decide saw is stored after it answered (embedding it
        takes longer than a Decide may), each NPC's perceptions in the order seen, then merged into
        the NPC as it is by then; what it noticed starts its thinking."""
        await self.foreground.quiet()
        async with self._perceiving.setdefault(npc_id, asyncio.Lock()):
            npc = await self.records.npc(npc_id)
            stored, unrated = await self._perceive(npc, events, now, trace)
            if not stored:
                return
            people = await self.records.people(npc.world_name)
            await self.records.merge(npc_id, lambda live: self._observed(live, stored, unrated, now, trace, people))
        self._think(npc_id)

    def _notice(self, npc: NpcState, observed: list[MemoryNode], now: datetime, people: dict[str, str]) -> None:
        """The person or thing just seen most worth a reaction (no LLM): the reaction itself is
        thought out in the background (`_react`), each person reconsidered at most every
        REACTION_COOLDOWN, a thing in a given state once a day. Things count in the state the world
        records (set by the game or its user: "the coffee machine is out of order"), not in one an
        action gives them ("the bed is in use": that person's doing, reacted to through them)."""
        if npc.is_asleep() or not observed or npc.is_chatting(now) or npc.npc_id in self._talking:
            return
        never = datetime.min.replace(tzinfo=now.tzinfo)
        surroundings = self._surroundings.get(npc.npc_id, set())
        fresh = {n.subject for n in observed
                 if n.subject in people and now - npc.last_reaction.get(n.subject, never) >= REACTION_COOLDOWN}
        fresh |= {n.subject for n in observed if n.subject in surroundings and n.object.strip().lower() not in ("", "idle")
                  and now - npc.last_reaction.get(n.description, never) >= THING_REACTION_COOLDOWN}
        observation = worth_considering(observed, npc, fresh)
        if observation is None or npc.npc_id in self._reactions:
            return
        thing = is_thing(observation.subject)
        npc.last_reaction[observation.description if thing else observation.subject] = now
        self._reactions[npc.npc_id] = PendingReaction(observation, "" if thing else people[observation.subject], now)

    def _act(self, npc: NpcState, world: World, now: datetime) -> Action:
        """The action for now from what the NPC already has; never waits for the model."""
        if npc.npc_id in self._talking and npc.action is not None and npc.action.chatting_with:
            held = now + CHAT_HOLD - npc.action.start_time
            return npc.action.model_copy(update={"duration_minutes": int(held.total_seconds() // 60)})
        if npc.is_chatting(now):
            assert npc.action is not None
            return npc.action
        if npc.plan_day == now.date() or npc.plan_item_at(now) is not None:
            return action_now(npc, now, self._announce.pop(npc.npc_id, "plan"))
        return provisional_action(npc, now, self.records.index(world).objects)

    def _reflection_threshold(self, npc: NpcState) -> int:
        """Out of view, reflections come less often, each on more (the paper's threshold in view)."""
        return self.settings.reflection_threshold * (1 if npc.in_view else OUT_OF_VIEW_REFLECTING)

    def _thinking_about_now(self, npc_id: str) -> bool:
        """Whether work under way will change what the NPC does now (so it should ask again soon)."""
        return npc_id in self._talking or npc_id in self._urgent

    # --- thinking: what is needed, and running it -----------------------------------------

    def _needs(self, npc: NpcState, now: datetime) -> list[tuple[str, Work, Step]]:
        """The work this NPC needs now, in the order lockstep runs it (the scheduler orders it otherwise)."""
        npc_id, needs = npc.npc_id, []
        clock = self._clock.get
        planned = npc.plan_day == now.date()
        if not planned:
            day = now.date()
            needs.append(("plan", Work(Priority.PLAN_NOW, npc_id, lambda: (clock(npc_id) or now).date() != day),
                          self._plan))
        if planned and npc_id in self._reactions:
            pending = self._reactions[npc_id]

            def gone() -> bool:
                later = (clock(npc_id) or now) > pending.seen_at
                return later and pending.observation.subject not in self._seen.get(npc_id, set())

            needs.append(("react", Work(Priority.SOCIAL, npc_id, gone), self._react))
        coarser = 1 if npc.in_view else OUT_OF_VIEW_BATCHING
        if rating_due(npc, now, batch=self.settings.importance_batch_size,
                      wait=timedelta(minutes=self.settings.importance_batch_minutes * coarser)):
            needs.append(("rate", Work(Priority.BACKGROUND, npc_id), self._rate))
        if npc.importance_since_reflection >= self._reflection_threshold(npc):
            needs.append(("reflect", Work(Priority.BACKGROUND, npc_id), self._reflect))
        due = due_blocks(npc.plan, now, self.settings.prepare_ahead_minutes) if planned and npc.in_view else []
        if due and not npc.is_chatting(now):
            last_end = max(i.end for i in due)
            over = lambda: (clock(npc_id) or now) >= last_end  # noqa: E731
            if any(i.start <= now for i in due):
                needs.append(("decompose_now", Work(Priority.PLAN_NOW, npc_id, over), self._decompose_now))
            else:
                needs.append(("decompose", Work(Priority.AHEAD, npc_id, over), self._prepare))
        return needs

    def _think(self, npc_id: str) -> None:
        """Start the work the NPC needs, each kind at most once at a time."""
        npc, now = self.records.cached(npc_id), self._clock.get(npc_id)
        if npc is None or now is None:
            return
        for kind, work, step in self._needs(npc, now):
            if (npc_id, _family(kind)) in self._jobs:
                continue
            key = (npc_id, _family(kind))
            task = self._jobs[key] = asyncio.create_task(self._run(kind, work, step, now))
            if kind in URGENT:
                self._urgent.add(npc_id)
            task.add_done_callback(lambda done, key=key: self._finished(key, done))

    def _finished(self, key: tuple[str, str], task: asyncio.Task[bool]) -> None:
        self._jobs.pop(key, None)
        if not any((key[0], _family(kind)) in self._jobs for kind in URGENT):
            self._urgent.discard(key[0])
        if not task.cancelled() and task.result():
            self._think(key[0])  # what it changed may need more (a plan lands -> decompose its first block)

    async def _run(self, kind: str, work: Work, step: Step, now: datetime, trace: Trace | None = None) -> bool:
        """One piece of work with its own trace (or the Decide's, inline); dropped when stale."""
        own = trace is None
        trace = trace or Trace(npc_id=work.npc_id, kind="background", game_time=now)
        done = False
        try:
            with doing(work):
                if own:
                    await self.foreground.quiet()
                if work.stale is not None and work.stale():
                    raise WorkDropped("stale before it started")
                done = await step(work.npc_id, now, trace)
        except WorkDropped as exc:
            trace.note(f"{kind}: dropped ({exc.reason})")
        except Exception:
            log.exception("background_failed", npc_id=work.npc_id, work=kind)
        if own and (trace.llm_calls or trace.notes):
            self.traces.add(trace)
        return done

    async def _think_first(self, npc_id: str, now: datetime, trace: Trace) -> NpcState:
        """Lockstep: what the action depends on (plan, reaction, the block in progress), then the action."""
        for _ in range(3):  # a plan, then its reaction and decomposition
            npc = self.records.cached(npc_id)
            assert npc is not None
            needed = [n for n in self._needs(npc, now) if n[0] in ("react", "plan", "decompose_now")]
            if not needed:
                break
            for kind, work, step in needed:
                await self._run(kind, work, step, now, trace)
        async with self.records.lock(npc_id):
            npc = (await self.records.npc(npc_id)).model_copy(deep=True)
            npc.action = self._act(npc, await self.records.world(npc.world_name), now)
            await self.records.save(npc)
        return npc

    async def _think_after(self, npc_id: str, now: datetime) -> None:
        """Lockstep: what no action waits for (ratings, reflection, the next hour's steps)."""
        npc = self.records.cached(npc_id)
        assert npc is not None
        for kind, work, step in self._needs(npc, now):
            if kind in ("rate", "reflect", "decompose"):  # in this order, after the action
                await self._run(kind, work, step, now)

    # --- the pieces of work ---------------------------------------------------------------

    async def _plan(self, npc_id: str, now: datetime, trace: Trace) -> bool:
        """Plan the day (`plan.py`), then adopt it unless another plan for today landed first."""
        draft = (await self.records.npc(npc_id)).model_copy(deep=True)
        world = await self.records.world(draft.world_name)
        plan, node = await plan_day(draft, now, self.stream, trace, places=_plan_places(world, draft),
                                    renew_below=self.settings.new_plan_importance)
        source = "fallback" if trace.llm_calls and trace.llm_calls[-1].fallback_used else "new_plan"

        def adopt(live: NpcState) -> bool:
            if live.plan_day == now.date():
                return False
            live.plan, live.plan_day, live.plan_memory_id = plan, now.date(), node.id
            live.wake_up_hour, live.day_outline = draft.wake_up_hour, draft.day_outline
            live.persona.currently = draft.persona.currently
            if kept := live.keep_commitments(now.date()):
                trace.note("plan: keeps what was promised: " + "; ".join(f"{i.start:%H:%M} {i.activity}" for i in kept))
            return True

        await self.records.merge(npc_id, adopt)
        self._announce[npc_id] = source
        trace.note(f"plan: new day plan with {len(plan)} blocks ({source})")
        return True

    async def _decompose_now(self, npc_id: str, now: datetime, trace: Trace) -> bool:
        """Decompose the block in progress into 5-15 minute steps."""
        return await self._decompose(npc_id, now, trace, horizon_minutes=0)

    async def _prepare(self, npc_id: str, now: datetime, trace: Trace) -> bool:
        """Decompose the blocks of the next hour before they start."""
        return await self._decompose(npc_id, now, trace, horizon_minutes=self.settings.prepare_ahead_minutes)

    async def _decompose(self, npc_id: str, now: datetime, trace: Trace, *, horizon_minutes: int) -> bool:
        draft = (await self.records.npc(npc_id)).model_copy(deep=True)
        if draft.is_chatting(now):
            return False
        objects = self.records.index(await self.records.world(draft.world_name)).objects
        if not await decompose_upcoming(draft, now, self.stream, trace, horizon_minutes=horizon_minutes,
                                        objects=objects):
            return False
        steps = {_block_key(item): item.subtasks for item in draft.plan if item.subtasks}

        def adopt(live: NpcState) -> bool:
            plan = [item.model_copy(update={"subtasks": steps[_block_key(item)]})
                    if not item.subtasks and _block_key(item) in steps else item for item in live.plan]
            changed = any(new is not old for new, old in zip(plan, live.plan, strict=True))
            live.plan = plan
            return changed

        await self.records.merge(npc_id, adopt)
        return True

    async def _react(self, npc_id: str, now: datetime, trace: Trace) -> bool:
        """Reacting (`react.py`): continue, re-plan the next hours, wait for the other to finish, or talk."""
        pending = self._reactions.pop(npc_id, None)
        if pending is None:
            return False
        draft = (await self.records.npc(npc_id)).model_copy(deep=True)
        partner = await self.records.npc_or_none(pending.partner_id) if pending.partner_id else None
        if partner is not None and not (draft.in_view or partner.in_view):
            # Nobody watches: no reaction call; they talk or not, told in one call, or carry on.
            if not self._can_talk(draft, partner, now):
                return False
            with doing(Work(Priority.SOCIAL, npc_id)):
                return await self._conversation(npc_id, partner.npc_id, now, trace, unseen=True)
        doing_now = partner.action if partner is not None else None
        ends = doing_now.end_time if doing_now is not None and not doing_now.chatting_with else None
        reaction = await decide_reaction(
            draft, pending.observation, now, self._can_talk(draft, partner, now), self.stream, trace,
            status=doing_now.description if doing_now is not None else "",
            wait_until=ends if ends is not None and ends - now <= LONGEST_WAIT else None)
        if reaction.choice == "continue" or (reaction.choice == "talk" and partner is None):
            return False
        if reaction.choice == "wait" and ends is not None:
            start = now.replace(second=0, microsecond=0)
            wait = PlanItem(start=start, duration_minutes=max(1, -int((start - ends).total_seconds() // 60)),
                            activity=f"waiting for {pending.observation.subject} to finish", emoji="⏳",
                            address=draft.address or draft.persona.home)
            await self.records.merge(npc_id, lambda live: live.insert_plan_item(wait))
            trace.note(f"react: waits until {wait.end:%H:%M}")
            return True
        with doing(Work(Priority.SOCIAL, npc_id)):  # decided: what follows is no longer stale if they leave
            if reaction.choice == "talk":
                assert partner is not None
                return await self._conversation(npc_id, partner.npc_id, now, trace, reason=reaction.reason)
            world = await self.records.world(draft.world_name)
            await replan_from(draft, now, f"{pending.observation.description}; {reaction.new_activity}",
                              self.stream, trace, places=_plan_places(world, draft))
        await self.records.merge(npc_id, lambda live: _adopt_plan(live, draft))
        return True

    async def _conversation(self, npc_id: str, partner_id: str, now: datetime, trace: Trace, *,
                            reason: str = "", unseen: bool = False) -> bool:
        """Both NPCs stand together talking while the lines are written; the lines, the memories
        and any plan the conversation made land in both when done. `reason`: why `npc_id` started it;
        `unseen`: nobody watches, so it is told in one call (which may find they do not talk)."""
        async with self._both(npc_id, partner_id):
            a, b = await self.records.npc(npc_id), await self.records.npc(partner_id)
            if not self._can_talk(a, b, now):
                trace.note(f"converse: {b.persona.name} is no longer free to talk")
                return False
            for me, other in ((a, b), (b, a)):
                me = me.model_copy(deep=True)
                me.action = _chatting(me, other, now, CHAT_HOLD, [])
                await self.records.save(me)
            self._talking |= {npc_id, partner_id}
        try:
            speakers = [Speaker(me.npc_id, me.persona, me.action.description if me.action else "") for me in (a, b)]
            if unseen:
                told = await summarize_conversation(*speakers, now, a.address, self.stream, trace)
                if told is None:
                    await self._part(npc_id, partner_id)
                    return False
                lines = told[0]
                remembered = await asyncio.gather(*(keep_conversation(me, other.persona.name, lines, memo, now,
                                                                      self.stream, trace)
                                                    for me, other, memo in ((a, b, told[1]), (b, a, told[2]))))
            else:
                lines = await converse(*speakers, now, a.address, self.stream, trace, reason=reason)
                remembered = await asyncio.gather(*(remember_conversation(me, other.persona.name, lines, now,
                                                                          self.stream, trace)
                                                    for me, other in ((a, b), (b, a))))
            world = await self.records.world(a.world_name)
            places = [await self._place_for(change, me, world, trace, host=other) if change else None
                      for me, other, (_, change) in zip((a, b), (b, a), remembered, strict=True)]
        except BaseException:
            await self._part(npc_id, partner_id)
            raise
        finally:
            self._talking -= {npc_id, partner_id}
        landed = max(self._clock.get(npc_id, now), self._clock.get(partner_id, now), now)
        async with self._both(npc_id, partner_id):
            for me, other, (stored, change), place in zip((a, b), (b, a), remembered, places, strict=True):
                live = (await self.records.npc(me.npc_id)).model_copy(deep=True)
                note_importance(live, stored)
                live.last_chat[other.npc_id] = now
                if change is not None and place is not None:
                    learn_places(live, world, [place.address])  # the host's home, if that is where it is
                    live.commit(place)
                    trace.note(f"converse: {me.persona.name} plans {change.activity!r} at {change.start:%Y-%m-%d %H:%M}")
                live.action = _chatting(live, other, landed, timedelta(minutes=chat_minutes(lines)), lines)
                await self.records.save(live)
        return True

    async def _part(self, a_id: str, b_id: str) -> None:
        """A conversation that could not be written: both go back to their plans."""
        async with self._both(a_id, b_id):
            for me, other in ((a_id, b_id), (b_id, a_id)):
                live = (await self.records.npc(me)).model_copy(deep=True)
                if live.action is not None and live.action.chatting_with == other and not live.action.dialogue:
                    live.action = None
                    await self.records.save(live)

    async def _place_for(self, change: PlanChange, npc: NpcState, world: World, trace: Trace, *,
                         host: NpcState | None = None) -> PlanItem:
        """Where a plan item a conversation made happens: a place the NPC may enter, or the home of
        the `host` it talked with (who named it: the NPC learns it, and its privacy is lifted)."""
        invited: frozenset[str] = frozenset()
        if host is not None and host.persona.home.count(SEPARATOR) >= 2:
            npc = npc.model_copy(update={"known_addresses": list(npc.known_addresses)})
            learn_places(npc, world, [host.persona.home])
            invited = frozenset({host.persona.home.split(SEPARATOR)[1]})
        address = await choose_address(change.activity, npc, world, self.stream.llm, trace, invited_sectors=invited)
        return PlanItem(start=change.start, duration_minutes=change.minutes, activity=change.activity, address=address)

    async def _rate(self, npc_id: str, now: datetime, trace: Trace) -> bool:
        """Rate the perceived events that waited for their importance, in one call."""
        npc = await self.records.npc(npc_id)
        ids = list(npc.unrated_ids)
        rated = await self.stream.rate_stored(npc_id, npc.persona, ids, trace)

        def apply(live: NpcState) -> None:
            done = set(ids)
            live.unrated_ids = [i for i in live.unrated_ids if i not in done]
            live.unrated_since = live.unrated_since if live.unrated_ids else None
            note_importance(live, rated)

        await self.records.merge(npc_id, apply)
        trace.note(f"rated {len(rated)} perceived events")
        return True

    async def _reflect(self, npc_id: str, now: datetime, trace: Trace) -> bool:
        """Reflection (`reflect.py`), once the importance of what happened adds up."""
        draft = (await self.records.npc(npc_id)).model_copy(deep=True)
        accumulated = draft.importance_since_reflection
        thoughts = await maybe_reflect(draft, now, self.stream, trace, threshold=self._reflection_threshold(draft))

        def apply(live: NpcState) -> None:
            live.importance_since_reflection = max(0, live.importance_since_reflection - accumulated)
            live.reflection_count += bool(thoughts)

        await self.records.merge(npc_id, apply)
        return True

    # --- the user's ways in ---------------------------------------------------------------

    async def talk(self, npc_id: str, player: str, text: str, now: datetime) -> tuple[str, bool, Trace]:
        """The player speaks; the NPC answers within one completion (it holds no lock meanwhile,
        and its first line does not wait for its view of the player, which is written beside it).
        When the conversation ends it is remembered, in the background."""
        npc = await self.records.npc(npc_id)
        trace = Trace(npc_id=npc_id, kind="talk", game_time=now)
        speaker = Speaker(npc_id, npc.persona, npc.action.description if npc.action else "")
        key = (npc_id, player)
        with doing(Work(Priority.PLAYER, npc_id)):
            talk = self._talks.get(key)
            if talk is None:
                await self._end_talks(npc_id)
                talk = self._talks[key] = await self._start_talk(speaker, player, now, trace)
            talk.spoken, talk.at = time.monotonic(), now
            async with talk.lock:
                if talk.summary is not None and talk.summary.done() and not talk.summary.cancelled():
                    talk.view = talk.summary.result()
                # One line of speech: newlines collapsed, so a player cannot start a fake line in the prompt.
                talk.lines.append(DialogueLine(speaker_npc_id="", speaker_name=player, text=" ".join(text.split())))
                turn = await next_line(speaker, player, talk.view, talk.lines, now, npc.address, self.stream, trace,
                                       opener=player)
                talk.lines.append(DialogueLine(speaker_npc_id=npc_id, speaker_name=npc.persona.name,
                                               text=turn.utterance))
                ended = turn.end_conversation or len(talk.lines) >= MAX_LINES
        if ended:
            self._talks.pop(key, None)
            if talk.summary is not None:
                talk.summary.cancel()
            await self._meanwhile(self._remember_talk(npc_id, player, talk.lines, now, trace))
        self.traces.add(trace)
        return turn.utterance, ended, trace

    async def _end_talks(self, npc_id: str) -> None:
        """Open player conversations are bounded: one the player left (silent for
        NPC_BRAIN_PLAYER_TALK_IDLE_S) ends, and so does the least recently continued beyond
        OPEN_TALKS_PER_NPC for this NPC or OPEN_TALKS in all; each is remembered as if it had ended."""
        clock, idle = time.monotonic(), self.settings.player_talk_idle_s
        open_talks = sorted((t.spoken, k) for k, t in self._talks.items() if not t.lock.locked())
        mine = [k for _, k in open_talks if k[0] == npc_id]
        ending = {k for spoken, k in open_talks if clock - spoken > idle}
        ending |= set(mine[:len(mine) - OPEN_TALKS_PER_NPC + 1] if len(mine) >= OPEN_TALKS_PER_NPC else [])
        ending |= {k for _, k in open_talks[:max(0, len(self._talks) - OPEN_TALKS + 1)]}
        for key in ending:
            talk = self._talks.pop(key, None)
            if talk is None:
                continue
            if talk.summary is not None:
                talk.summary.cancel()
            if talk.lines and talk.at is not None:
                trace = Trace(npc_id=key[0], kind="talk", game_time=talk.at)
                trace.note(f"talk: the conversation with {key[1]} ended unfinished (open conversations are bounded)")
                self.traces.add(trace)
                await self._meanwhile(self._remember_talk(key[0], key[1], talk.lines, talk.at, trace))

    async def _start_talk(self, speaker: Speaker, player: str, now: datetime, trace: Trace) -> PlayerTalk:
        name = speaker.persona.name
        memories = await self.stream.retrieve(speaker.npc_id, f"{name}'s relationship with {player}", now, trace)
        talk = PlayerTalk(view=(f"(see what {name} remembers of {player})", bullet_list(memories)))
        if self.settings.background_thinking:
            with doing(Work(Priority.SOCIAL, speaker.npc_id)):
                talk.summary = asyncio.create_task(relationship(speaker, player, now, self.stream, trace))
        else:
            talk.view = await relationship(speaker, player, now, self.stream, trace)
        return talk

    async def _remember_talk(self, npc_id: str, player: str, lines: list[DialogueLine], now: datetime,
                             trace: Trace) -> None:
        with doing(Work(Priority.SOCIAL, npc_id)):
            npc = await self.records.npc(npc_id)
            stored, change = await remember_conversation(npc, player, lines, now, self.stream, trace)
            world = await self.records.world(npc.world_name)
            item = await self._place_for(change, npc, world, trace) if change is not None else None

        def apply(live: NpcState) -> None:
            note_importance(live, stored)
            if item is not None:
                live.commit(item)

        await self.records.merge(npc_id, apply)

    async def whisper(self, npc_id: str, text: str, now: datetime) -> tuple[str, Trace]:
        """The paper's inner voice: a thought the NPC takes as its own. It is remembered (so it
        comes up in conversations and plans) and, during a planned day, re-plans the next hours."""
        npc = await self.records.npc(npc_id)
        trace = Trace(npc_id=npc_id, kind="whisper", game_time=now)
        with doing(Work(Priority.PLAYER, npc_id)):
            node = MemoryNode(npc_id=npc_id, kind=MemoryKind.THOUGHT, description=text, subject=npc.persona.name,
                              predicate="thinks", object=text[:80], created=now, last_accessed=now)
            [node] = await self.stream.remember(npc_id, npc.persona, [node], trace)
            if npc.plan_day == now.date() and not npc.is_asleep():
                draft = npc.model_copy(deep=True)
                world = await self.records.world(draft.world_name)
                await replan_from(draft, now, f"{draft.persona.name} now thinks: {text}", self.stream, trace,
                                  places=_plan_places(world, draft))
                await self.records.merge(npc_id, lambda live: _adopt_plan(live, draft))
        self.traces.add(trace)
        return node.id, trace

    async def interview(self, npc_id: str, question: str, now: datetime, *, remember: bool) -> tuple[str, Trace]:
        """Answers from retrieved memories; stores the exchange only when asked to."""
        npc = await self.records.npc(npc_id)
        trace = Trace(npc_id=npc_id, kind="interview", game_time=now)
        with doing(Work(Priority.PLAYER, npc_id)):
            answer = await answer_interview(npc_id, npc.persona, question, now, self.stream, trace)
            if remember:
                node = MemoryNode(npc_id=npc_id, kind=MemoryKind.CHAT, subject="an interviewer", predicate="asked",
                                  object=npc.persona.name, created=now, last_accessed=now,
                                  description=f'an interviewer asked "{question}" and {npc.persona.name} '
                                              f'answered "{answer}"')
                await self.stream.remember(npc_id, npc.persona, [node], trace)
        self.traces.add(trace)
        return answer, trace

    async def close(self) -> None:
        """Stop thinking (what was not merged is redone after a restart: the events to rate and
        the reflection counter are in the NPC's record, and a missing plan is noticed again)."""
        tasks = list(self._jobs.values()) + [t.summary for t in self._talks.values() if t.summary is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.records.drain()

    # --- helpers --------------------------------------------------------------------------

    async def _meanwhile(self, work: Awaitable[None]) -> None:
        """Run `work` in the background (awaited in lockstep mode)."""
        if not self.settings.background_thinking:
            await work
            return
        self._start(work)

    def _start(self, work: Awaitable[None]) -> None:
        """`work` as a task of the mind's, cancelled by `close`; a failure is logged."""
        task = asyncio.ensure_future(work)
        key = (f"task-{id(task)}", "remember")
        self._jobs[key] = task  # type: ignore[assignment]
        task.add_done_callback(lambda done: self._ended(key, done))

    def _ended(self, key: tuple[str, str], task: asyncio.Future[None]) -> None:
        self._jobs.pop(key, None)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("background_failed", exc_info=error)

    def _at_home_now(self) -> bool:
        """Whether this runs on the mind's own loop (always, outside the server's two loops)."""
        return self._inbox is None or asyncio.get_running_loop() is self._inbox.loop

    async def _at_home(self, work: Coroutine[Any, Any, T]) -> T:
        """`work` run on the mind's loop, whichever loop awaits it."""
        if self._at_home_now():
            return await work
        assert self._inbox is not None
        return await run_on(self._inbox.loop, work)

    def _both(self, a: str, b: str) -> _BothLocks:
        return _BothLocks(self.records.lock(min(a, b)), self.records.lock(max(a, b)))

    def _can_talk(self, npc: NpcState, partner: NpcState | None, now: datetime) -> bool:
        if partner is None or partner.is_asleep() or partner.is_chatting(now):
            return False
        if {npc.npc_id, partner.npc_id} & self._talking:
            return False
        last = npc.last_chat.get(partner.npc_id)
        return last is None or now - last >= CHAT_COOLDOWN


class _BothLocks:
    """Two NPCs' locks, always taken in id order so two conversations cannot deadlock."""

    def __init__(self, first: asyncio.Lock, second: asyncio.Lock) -> None:
        self._locks = (first, second)

    async def __aenter__(self) -> None:
        await self._locks[0].acquire()
        await self._locks[1].acquire()

    async def __aexit__(self, *_: object) -> None:
        self._locks[1].release()
        self._locks[0].release()


def _chatting(me: NpcState, other: NpcState, start: datetime, length: timedelta,
              lines: list[DialogueLine]) -> Action:
    return Action(description=f"{me.persona.name} is chatting with {other.persona.name}", emoji="💬",
                  address=me.address or me.persona.home, start_time=start,
                  duration_minutes=max(1, int(length.total_seconds() // 60)), dialogue=lines,
                  chatting_with=other.npc_id, event=(me.persona.name, "is chatting with", other.persona.name))


def _adopt_plan(live: NpcState, draft: NpcState) -> bool:
    """A re-planned day replaces the live one, unless the live one is already another day's."""
    if live.plan_day != draft.plan_day:
        return False
    live.plan = draft.plan
    return True


def _recorded(world: World, things: Sequence[PerceivedEvent]) -> set[str]:
    """The things (object events) seen in the state the world records for them."""
    if not things:
        return set()
    states = {join(world.name, s.name, a.name, o.name): o.state.strip().lower()
              for s in world.sectors for a in s.arenas for o in a.objects if o.state}
    return {e.subject for e in things if states.get(e.subject) == e.object.strip().lower()}


def _own_event(before: Action | None, action: Action) -> list[PerceivedEvent]:
    """The NPC's own action as an event it perceives (the original perceives its own each step),
    once per action: [] while the action goes on."""
    if before is not None and before.description == action.description:
        return []
    subject, predicate, obj = action.event
    return [PerceivedEvent(subject=subject, predicate=predicate, object=obj, description=action.description,
                           address=action.address, distance=0.0)]


def _in_a_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _family(kind: str) -> str:
    """Kinds of work of which an NPC runs one at a time (decomposing now or ahead is one family)."""
    return kind.removesuffix("_now")


def _block_key(item: PlanItem) -> tuple[datetime, int, str, str]:
    """A block as a decomposition found it: a re-plan that moved or changed it makes a new one."""
    return item.start, item.duration_minutes, item.activity, item.address


def _plan_places(world: World, npc: NpcState) -> list[str]:
    """The arenas a plan may send the NPC to: known, and not another family's private rooms."""
    return accessible_places(world, npc).arena_addresses()
