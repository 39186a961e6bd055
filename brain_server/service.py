"""The one service core behind both transports: validates requests, runs the NPC's cognition
and answers protocol messages. Transports only adapt errors and framing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
import re

import structlog

from brain_server import convert
from brain_server.cognition.converse import (
    MAX_LINES,
    Speaker,
    answer_interview,
    chat_minutes,
    converse,
    next_line,
    relationship,
    remember_conversation,
)
from brain_server.cognition.locate import accessible_places, choose_address, learn_places
from brain_server.cognition.memory_stream import MemoryStream, queue_for_rating, rating_due
from brain_server.cognition.object_state import set_object_state
from brain_server.cognition.perceive import Attention, attend
from brain_server.cognition.plan import action_now, decompose_upcoming, plan_day, replan_from
from brain_server.cognition.react import decide_reaction, worth_considering
from brain_server.cognition.reflect import maybe_reflect, note_importance
from brain_server.config import Settings
from brain_server.errors import BrainError, Status, invalid, not_found
from brain_server.logs import bind_decision, unbind_decision
from brain_server.memory import MemoryKind, MemoryNode
from brain_server.npc import Action, DialogueLine, NpcState, Perception, PlanItem
from brain_server.trace import Trace, TraceBook
from brain_server.world import World, arena_of, join
from npc_brain.v1 import brain_pb2 as pb

log = structlog.get_logger(__name__)
NPC_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
MAX_TEXT = 4000
MAX_PERCEPTIONS = 64
MAX_LIST = 1000
WORLD_RECORD, NPC_RECORD = "world", "npc"
CHAT_COOLDOWN = timedelta(hours=2)  # the same two NPCs do not chat again sooner
REACTION_COOLDOWN = timedelta(minutes=30)  # reconsider the same person at most this often


class BrainCore:
    """Every RPC of npc_brain.v1.BrainService, as an async method taking and returning pb messages."""

    def __init__(self, settings: Settings, stream: MemoryStream) -> None:
        self.settings = settings
        self.stream = stream
        self.store = stream.store
        self.llm = stream.llm
        self.traces = TraceBook(settings.traces_per_npc, settings.traces_total)
        self._worlds: dict[str, World] = {}
        self._npcs: dict[str, NpcState] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._people_by_world: dict[str, dict[str, str]] = {}
        self._talks: dict[tuple[str, str], PlayerTalk] = {}
        self._thinking: dict[str, asyncio.Task[None]] = {}
        self._indexes: dict[str, WorldIndex] = {}
        self._saved: dict[str, int] = {}  # npc_id -> hash of the record last written

    # --- world and NPCs -------------------------------------------------------------------

    async def register_world(self, request: pb.RegisterWorldRequest) -> pb.RegisterWorldResponse:
        world = convert.world_from_pb(request.world)
        _check_text("world.name", world.name, required=True)
        if not world.sectors:
            raise invalid("world.sectors is empty: send at least one sector with an arena")
        for sector in world.sectors:
            if not sector.arenas:
                raise invalid(f"sector {sector.name!r} has no arenas: every sector needs at least one")
            if len({a.name for a in sector.arenas}) != len(sector.arenas):
                raise invalid(f"sector {sector.name!r} has two arenas with the same name")
        if len({s.name for s in world.sectors}) != len(world.sectors):
            raise invalid("two sectors have the same name: sector names must be unique in a world")
        await asyncio.to_thread(self.store.put_record, WORLD_RECORD, world.name, world.model_dump(mode="json"))
        self._worlds[world.name] = world
        sectors, arenas, objects = world.counts()
        log.info("world_registered", world=world.name, sectors=sectors, arenas=arenas, objects=objects)
        return pb.RegisterWorldResponse(world_name=world.name, sector_count=sectors, arena_count=arenas,
                                        object_count=objects)

    async def spawn_npc(self, request: pb.SpawnNpcRequest) -> pb.SpawnNpcResponse:
        _check_npc_id(request.npc_id)
        world = await self._world(request.world_name)
        persona = convert.persona_from_pb(request.persona)
        _check_text("persona.name", persona.name, required=True)
        for name in ("identity", "lifestyle", "currently"):
            _check_text(f"persona.{name}", getattr(persona, name))
        index = self._index(world)
        for address in (persona.home, *persona.known_areas, *([request.address] if request.address else [])):
            _check_address(index, address, "address")
        async with self._lock(request.npc_id):
            existing = await self._npc_or_none(request.npc_id)
            if existing is not None:
                # "currently" is the brain's to revise from day 2 on; the rest must match to resume.
                spawned_as = existing.persona.model_copy(update={"currently": persona.currently})
                if spawned_as == persona and existing.world_name == world.name:
                    return pb.SpawnNpcResponse(npc_id=request.npc_id, resumed=True)
                raise BrainError(Status.ALREADY_EXISTS, f"NPC {request.npc_id!r} already exists with another persona "
                                 "or world; pick another npc_id")
            known = sorted({arena_of(a) for a in persona.known_areas} | {arena_of(persona.home)}
                           if persona.known_areas else set(world.arena_addresses()))
            npc = NpcState(npc_id=request.npc_id, world_name=world.name, persona=persona,
                           perception=_perception(request.perception),
                           address=request.address or persona.home,
                           known_addresses=known)
            await self._save(npc)
        log.info("npc_spawned", npc_id=npc.npc_id, name=persona.name, world=world.name)
        return pb.SpawnNpcResponse(npc_id=npc.npc_id, resumed=False)

    # --- the decision loop ----------------------------------------------------------------

    async def decide(self, request: pb.DecideRequest) -> pb.DecideResponse:
        """perceive -> (plan a new day) -> react or converse -> decompose -> act; then, without the
        game waiting: rate what was perceived, reflect, decompose the next hour (`_think`)."""
        now = _game_time(request)
        if len(request.perceptions) > MAX_PERCEPTIONS:
            raise BrainError(Status.RESOURCE_EXHAUSTED, f"{len(request.perceptions)} perceptions in one request; "
                             f"send at most {MAX_PERCEPTIONS} (the nearest ones)")
        for event in request.perceptions:
            _check_text("perceptions.description", event.description)
        async with self._lock(request.npc_id):
            npc = await self._npc(request.npc_id)
            trace = Trace(npc_id=npc.npc_id, kind="decide", game_time=now)
            bind_decision(npc_id=npc.npc_id, trace_id=trace.trace_id)
            try:
                world = await self._world(npc.world_name)
                if request.address:
                    _check_address(self._index(world), request.address, "address")
                    npc.address = request.address
                observed = await self._perceive(npc, world, request, now, trace)
                source = "plan"
                if npc.plan_day != now.date():
                    npc.plan, plan_node = await plan_day(npc, now, self.stream, trace,
                                                         places=_plan_places(world, npc))
                    npc.plan_day, npc.plan_memory_id = now.date(), plan_node.id
                    source = "fallback" if trace.llm_calls[-1].fallback_used else "new_plan"
                    trace.note(f"plan: new day plan with {len(npc.plan)} blocks ({source})")
                if not npc.is_chatting(now):
                    await self._react(npc, world, observed, now, trace)
                if not npc.is_chatting(now):
                    # Only the block in progress is decomposed while the game waits; later ones
                    # are prepared in the background so their steps are ready when they start.
                    await decompose_upcoming(npc, now, self.stream, trace, horizon_minutes=0,
                                             objects=self._index(world).objects)
                    npc.action = action_now(npc, now, source)
                trace.action = npc.action
                await self._save(npc)
                self.traces.add(trace)
                log.info("decided", action=npc.action.description, address=npc.action.address, source=source,
                         llm_calls=len(trace.llm_calls),
                         tokens=sum(c.prompt_tokens + c.completion_tokens for c in trace.llm_calls))
            finally:
                unbind_decision()
        response = pb.DecideResponse(action=convert.action_to_pb(npc.action), trace_id=trace.trace_id)
        if self.settings.background_thinking:
            self._think_ahead(npc.npc_id, now)
        else:
            await self._think(npc.npc_id, now)
        return response

    async def _perceive(self, npc: NpcState, world: World, request: pb.DecideRequest, now: datetime,
                        trace: Trace) -> list[MemoryNode]:
        events = [e for e in convert.events_from_pb(list(request.perceptions))
                  if e.distance <= npc.perception.vision_radius]
        learned = learn_places(npc, world, [e.address for e in events])
        if not events:
            return []
        recent = await asyncio.to_thread(self.store.latest, npc.npc_id, npc.perception.retention,
                                         MemoryKind.OBSERVATION)
        attention = Attention(npc.perception.attention_bandwidth, npc.perception.retention)
        nodes, skipped = attend(npc.npc_id, events, [n.description for n in recent], now, attention)
        stored, unrated = await self.stream.remember_unrated(npc.npc_id, npc.persona, nodes, trace)
        queue_for_rating(npc, unrated, now)
        waiting = {n.id for n in unrated}
        note_importance(npc, [n for n in stored if n.id not in waiting])
        trace.note(f"perceive: {len(stored)} new events stored, {skipped} already seen, {learned} new places; "
                   f"{len(npc.unrated_ids)} waiting for their importance rating")
        return stored

    async def _react(self, npc: NpcState, world: World, observed: list[MemoryNode], now: datetime,
                     trace: Trace) -> None:
        if npc.is_asleep() or not observed:
            return
        people = await self._people(npc.world_name)
        never = datetime.min.replace(tzinfo=now.tzinfo)
        fresh = {n.subject for n in observed
                 if n.subject in people and now - npc.last_reaction.get(n.subject, never) >= REACTION_COOLDOWN}
        observation = worth_considering(observed, npc, fresh)
        if observation is None:
            return
        npc.last_reaction[observation.subject] = now
        partner = await self._npc_or_none(people[observation.subject])
        reaction = await decide_reaction(npc, observation, now, self._can_talk(npc, partner, now),
                                         self.stream, trace)
        if reaction.choice == "talk" and partner is not None:
            await self._conversation(npc, partner, world, now, trace)
        elif reaction.choice == "react":
            await replan_from(npc, now, f"{observation.description}; {reaction.new_activity}", self.stream, trace,
                              places=_plan_places(world, npc))

    def _think_ahead(self, npc_id: str, now: datetime) -> None:
        """Start the NPC's background thinking unless it is already at it (one task per NPC)."""
        if npc_id in self._thinking:
            return
        task = asyncio.create_task(self._think(npc_id, now))
        self._thinking[npc_id] = task
        task.add_done_callback(lambda _: self._thinking.pop(npc_id, None))

    async def _think(self, npc_id: str, now: datetime) -> None:
        """What no Decide waits for: rating the perceived events once enough have waited, reflecting
        once their importance adds up, and decomposing the next hour's blocks. Each step works on a
        copy of the NPC and merges its result into the current one under the NPC's lock."""
        trace = Trace(npc_id=npc_id, kind="background", game_time=now)
        try:
            await self._rate(npc_id, now, trace)
            await self._reflect(npc_id, now, trace)
            if self.settings.prepare_ahead_minutes:
                await self._prepare(npc_id, now, trace)
        except Exception:
            log.exception("background_failed", npc_id=npc_id)
        if trace.llm_calls or trace.notes:
            self.traces.add(trace)

    async def _rate(self, npc_id: str, now: datetime, trace: Trace) -> None:
        npc = self._npcs[npc_id]
        wait = timedelta(minutes=self.settings.importance_batch_minutes)
        if not rating_due(npc, now, batch=self.settings.importance_batch_size, wait=wait):
            return
        ids = list(npc.unrated_ids)
        rated = await self.stream.rate_stored(npc_id, npc.persona, ids, trace)

        def apply(live: NpcState) -> None:
            done = set(ids)
            live.unrated_ids = [i for i in live.unrated_ids if i not in done]
            live.unrated_since = live.unrated_since if live.unrated_ids else None
            note_importance(live, rated)

        await self._merge(npc_id, apply)
        trace.note(f"rated {len(rated)} perceived events")

    async def _reflect(self, npc_id: str, now: datetime, trace: Trace) -> None:
        draft = self._npcs[npc_id].model_copy(deep=True)
        accumulated = draft.importance_since_reflection
        if accumulated < self.settings.reflection_threshold:
            return
        thoughts = await maybe_reflect(draft, now, self.stream, trace, threshold=self.settings.reflection_threshold)

        def apply(live: NpcState) -> None:
            live.importance_since_reflection = max(0, live.importance_since_reflection - accumulated)
            live.reflection_count += bool(thoughts)

        await self._merge(npc_id, apply)

    async def _prepare(self, npc_id: str, now: datetime, trace: Trace) -> None:
        draft = self._npcs[npc_id].model_copy(deep=True)
        if draft.is_chatting(now):
            return
        objects = self._index(await self._world(draft.world_name)).objects
        if not await decompose_upcoming(draft, now, self.stream, trace, horizon_minutes=self.settings.prepare_ahead_minutes,
                                        objects=objects):
            return
        steps = {(item.start, item.activity): item.subtasks for item in draft.plan if item.subtasks}

        def apply(live: NpcState) -> None:
            for item in live.plan:
                if not item.subtasks and (item.start, item.activity) in steps:
                    item.subtasks = steps[(item.start, item.activity)]

        await self._merge(npc_id, apply)

    async def _merge(self, npc_id: str, apply: Callable[[NpcState], None]) -> None:
        """Apply a background step's result to the NPC as it is now (a Decide may have changed it
        meanwhile), under its lock, and save it."""
        async with self._lock(npc_id):
            live = await self._npc_or_none(npc_id)
            if live is not None:
                apply(live)
                await self._save(live)

    async def close(self) -> None:
        """Stop background thinking (what it has not merged is redone after a restart: the queue of
        events to rate and the reflection counter are in the NPC's record)."""
        for task in list(self._thinking.values()):
            task.cancel()
        await asyncio.gather(*self._thinking.values(), return_exceptions=True)

    def _can_talk(self, npc: NpcState, partner: NpcState | None, now: datetime) -> bool:
        if partner is None or partner.is_asleep() or partner.is_chatting(now) or self._lock(partner.npc_id).locked():
            return False
        last = npc.last_chat.get(partner.npc_id)
        return last is None or now - last >= CHAT_COOLDOWN

    async def _conversation(self, npc: NpcState, partner: NpcState, world: World, now: datetime,
                            trace: Trace) -> None:
        """Both NPCs stop to talk; the conversation lands in both memories and both actions."""
        async with self._lock(partner.npc_id):
            speakers = Speaker(npc.npc_id, npc.persona), Speaker(partner.npc_id, partner.persona)
            lines = await converse(*speakers, now, npc.address, self.stream, trace)
            minutes = chat_minutes(lines)
            for me, other in ((npc, partner), (partner, npc)):
                stored, change = await remember_conversation(me, other.persona.name, lines, now, self.stream, trace)
                note_importance(me, stored)
                if change is not None:
                    address = await choose_address(change.activity, me, world, self.llm, trace)
                    me.insert_plan_item(PlanItem(start=change.start, duration_minutes=change.minutes,
                                                 activity=change.activity, address=address))
                    trace.note(f"converse: {me.persona.name} plans {change.activity!r} at {change.start:%H:%M}")
                me.last_chat[other.npc_id] = now
                me.action = Action(
                    description=f"{me.persona.name} is chatting with {other.persona.name}", emoji="💬",
                    address=me.address or me.persona.home, start_time=now, duration_minutes=minutes,
                    dialogue=lines, chatting_with=other.npc_id,
                    event=(me.persona.name, "is chatting with", other.persona.name), source="plan")
            await self._save(partner)

    # --- the user's tools -----------------------------------------------------------------

    async def whisper(self, request: pb.WhisperRequest) -> pb.WhisperResponse:
        """The paper's inner voice: a thought the NPC takes as its own. It is remembered (so it
        comes up in conversations and plans) and, during a planned day, re-plans the next hours."""
        now = _game_time(request)
        _check_text("text", request.text, required=True)
        text = request.text.strip()
        async with self._lock(request.npc_id):
            npc = await self._npc(request.npc_id)
            trace = Trace(npc_id=npc.npc_id, kind="whisper", game_time=now)
            node = MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.THOUGHT, description=text,
                              subject=npc.persona.name, predicate="thinks", object=text[:80],
                              created=now, last_accessed=now)
            [node] = await self.stream.remember(npc.npc_id, npc.persona, [node], trace)
            if npc.plan_day == now.date() and not npc.is_asleep():
                world = await self._world(npc.world_name)
                await replan_from(npc, now, f"{npc.persona.name} now thinks: {text}", self.stream, trace,
                                  places=_plan_places(world, npc))
                await self._save(npc)
            self.traces.add(trace)
        return pb.WhisperResponse(memory_id=node.id, trace_id=trace.trace_id)

    async def interview(self, request: pb.InterviewRequest) -> pb.InterviewResponse:
        """Answers from retrieved memories; stores the exchange only when asked to."""
        now = _game_time(request)
        _check_text("question", request.question, required=True)
        npc = await self._npc(request.npc_id)
        trace = Trace(npc_id=npc.npc_id, kind="interview", game_time=now)
        answer = await answer_interview(npc.npc_id, npc.persona, request.question, now, self.stream, trace)
        if request.remember:
            node = MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.CHAT, subject="an interviewer",
                              predicate="asked", object=npc.persona.name, created=now, last_accessed=now,
                              description=f'an interviewer asked "{request.question}" and {npc.persona.name} '
                                          f'answered "{answer}"')
            await self.stream.remember(npc.npc_id, npc.persona, [node], trace)
        self.traces.add(trace)
        return pb.InterviewResponse(answer=answer, trace_id=trace.trace_id)

    async def talk(self, request: pb.TalkRequest) -> pb.TalkResponse:
        """The player speaks; the NPC answers with the same turn machinery NPCs use with each other.
        The conversation is kept until it ends, then stored with its summary and plan change."""
        now = _game_time(request)
        _check_text("text", request.text, required=True)
        player = request.speaker_name.strip() or "the player"
        _check_text("speaker_name", player)
        async with self._lock(request.npc_id):
            npc = await self._npc(request.npc_id)
            trace = Trace(npc_id=npc.npc_id, kind="talk", game_time=now)
            world = await self._world(npc.world_name)
            talk = self._talks.get((npc.npc_id, player))
            speaker = Speaker(npc.npc_id, npc.persona)
            if talk is None:
                talk = PlayerTalk(view=await relationship(speaker, player, now, self.stream, trace))
                self._talks[(npc.npc_id, player)] = talk
            # One line of speech: newlines collapsed, so a player cannot start a fake line in the prompt.
            said = " ".join(request.text.split())
            talk.lines.append(DialogueLine(speaker_npc_id="", speaker_name=player, text=said))
            turn = await next_line(speaker, player, talk.view, talk.lines, now, npc.address, self.stream, trace)
            talk.lines.append(DialogueLine(speaker_npc_id=npc.npc_id, speaker_name=npc.persona.name,
                                           text=turn.utterance))
            ended = turn.end_conversation or len(talk.lines) >= 2 * MAX_LINES
            if ended:
                del self._talks[(npc.npc_id, player)]
                stored, change = await remember_conversation(npc, player, talk.lines, now, self.stream, trace)
                note_importance(npc, stored)
                if change is not None:
                    address = await choose_address(change.activity, npc, world, self.llm, trace)
                    npc.insert_plan_item(PlanItem(start=change.start, duration_minutes=change.minutes,
                                                  activity=change.activity, address=address))
                    await self._save(npc)
            self.traces.add(trace)
        return pb.TalkResponse(reply=turn.utterance, end_conversation=ended, trace_id=trace.trace_id)

    async def set_object_state(self, request: pb.SetObjectStateRequest) -> pb.SetObjectStateResponse:
        """The user changes an object in natural language; NPCs perceive it through Godot's events."""
        world = await self._world(request.world_name)
        _check_text("state", request.state)
        try:
            updated = set_object_state(world, request.address, request.state.strip())
        except ValueError as exc:
            raise invalid(str(exc)) from None
        await asyncio.to_thread(self.store.put_record, WORLD_RECORD, updated.name, updated.model_dump(mode="json"))
        self._worlds[updated.name] = updated
        return pb.SetObjectStateResponse(address=request.address, state=request.state.strip())

    async def list_memories(self, request: pb.ListMemoriesRequest) -> pb.ListMemoriesResponse:
        npc = await self._npc(request.npc_id)
        if request.limit < 0 or request.limit > MAX_LIST:
            raise invalid(f"limit {request.limit} is out of range: use 1-{MAX_LIST}, or 0 for the default 50")
        limit = request.limit or 50
        kind = convert.kind_from_pb(request.kind)
        if kind is None and request.kind:
            raise invalid(f"kind {request.kind} is not a MemoryKind: use MEMORY_KIND_OBSERVATION, _THOUGHT, _CHAT, "
                          "_PLAN, or leave it unset for all")
        _check_text("query", request.query)
        if request.query:
            [vector] = await self.stream.embedder.embed([request.query])
            nodes = [s.node for s in await asyncio.to_thread(self.store.nearest, npc.npc_id, vector, limit, kind)]
        else:
            nodes = await asyncio.to_thread(self.store.latest, npc.npc_id, limit, kind)
        total = await asyncio.to_thread(self.store.count, npc.npc_id)
        return pb.ListMemoriesResponse(memories=[convert.memory_to_pb(n) for n in nodes], total=total)

    async def get_trace(self, request: pb.GetTraceRequest) -> pb.GetTraceResponse:
        if request.trace_id:
            trace = self.traces.get(request.trace_id)
            if trace is None:
                raise not_found(f"no trace {request.trace_id!r}: traces are kept for the last "
                                f"{self.settings.traces_per_npc} decisions of each NPC (and "
                                f"{self.settings.traces_total} in all) since the server started")
        elif request.npc_id:
            await self._npc(request.npc_id)
            trace = self.traces.latest(request.npc_id)
            if trace is None:
                raise not_found(f"NPC {request.npc_id!r} has made no decision since the server started")
        else:
            raise invalid("set trace_id (from a Decide or Interview answer) or npc_id (for its latest trace)")
        return pb.GetTraceResponse(trace=convert.trace_to_pb(trace))

    async def get_usage(self, request: pb.GetUsageRequest) -> pb.GetUsageResponse:
        counters = [
            pb.UsageCounter(npc_id=npc_id, purpose=purpose, calls=c.calls, failed_attempts=c.failed_attempts,
                            fallbacks=c.fallbacks, prompt_tokens=c.prompt_tokens,
                            completion_tokens=c.completion_tokens, total_latency_ms=c.total_latency_ms)
            for (npc_id, purpose), c in sorted(self.llm.usage.counters.items())
            if not request.npc_id or npc_id == request.npc_id
        ]
        hourly = [
            pb.HourlyUsage(npc_id=npc_id, hour=convert.timestamp(hour), calls=c.calls, prompt_tokens=c.prompt_tokens,
                           completion_tokens=c.completion_tokens)
            for (npc_id, hour), c in sorted(self.llm.usage.hourly.items())
            if not request.npc_id or npc_id == request.npc_id
        ]
        return pb.GetUsageResponse(counters=counters, hourly=hourly)

    # --- state ----------------------------------------------------------------------------

    async def _people(self, world_name: str) -> dict[str, str]:
        """Names of the NPCs in a world, to their ids: who an observation is about."""
        if world_name not in self._people_by_world:
            records = await asyncio.to_thread(self.store.list_records, NPC_RECORD)
            self._people_by_world[world_name] = {r["persona"]["name"]: r["npc_id"] for r in records
                                                 if r["world_name"] == world_name}
        return self._people_by_world[world_name]

    def _index(self, world: World) -> WorldIndex:
        """The world's lookups, built once per world version (RegisterWorld and SetObjectState make a new one)."""
        cached = self._indexes.get(world.name)
        if cached is None or cached.world is not world:
            cached = self._indexes[world.name] = WorldIndex(world)
        return cached

    def _lock(self, npc_id: str) -> asyncio.Lock:
        return self._locks.setdefault(npc_id, asyncio.Lock())

    async def _world(self, name: str) -> World:
        if not name:
            raise invalid("world_name is empty: name the world sent with RegisterWorld")
        if name not in self._worlds:
            record = await asyncio.to_thread(self.store.get_record, WORLD_RECORD, name)
            if record is None:
                raise BrainError(Status.FAILED_PRECONDITION, f"world {name!r} is not registered: call RegisterWorld first")
            self._worlds[name] = World.model_validate(record)
        return self._worlds[name]

    async def _npc_or_none(self, npc_id: str) -> NpcState | None:
        """The NPC from the cache; with a shared store (replicas on one Qdrant) the cache is checked
        against the stored revision first, so an NPC moved back, or changed by a partner's replica
        in a conversation, is never served from an old copy."""
        cached = self._npcs.get(npc_id)
        if cached is not None and self.settings.qdrant_url is None:
            return cached
        record = await asyncio.to_thread(self.store.get_record, NPC_RECORD, npc_id)
        if record is None:
            return cached
        if cached is None or record.get("revision", 0) != cached.revision:
            cached = self._npcs[npc_id] = NpcState.model_validate(record)
            self._saved[npc_id] = _content_digest(cached)
        return cached

    async def _npc(self, npc_id: str) -> NpcState:
        _check_npc_id(npc_id)
        npc = await self._npc_or_none(npc_id)
        if npc is None:
            raise not_found(f"no NPC {npc_id!r}: spawn it with SpawnNpc first")
        return npc

    async def _save(self, npc: NpcState) -> None:
        """Write the NPC's record, unless it is what was last written (a Decide that only reads
        the plan's current step changes nothing, and should cost no write)."""
        digest = _content_digest(npc)
        if self._saved.get(npc.npc_id) != digest:
            npc.revision += 1
            await asyncio.to_thread(self.store.put_record, NPC_RECORD, npc.npc_id, npc.model_dump(mode="json"))
            self._saved[npc.npc_id] = digest
        self._npcs[npc.npc_id] = npc
        self._people_by_world.get(npc.world_name, {})[npc.persona.name] = npc.npc_id


@dataclass
class PlayerTalk:
    """A conversation with the player in progress: the NPC's view of them and the lines so far."""

    view: tuple[str, str]
    lines: list[DialogueLine] = field(default_factory=list)


class WorldIndex:
    """What every Decide looks up in a world (valid addresses, object names by arena), built once
    instead of walking the tree per call."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.addresses = frozenset(world.addresses())
        self.objects = {join(world.name, s.name, a.name): [o.name for o in a.objects]
                        for s in world.sectors for a in s.arenas}


def _content_digest(npc: NpcState) -> int:
    """What a record says, apart from its revision: equal digests need no write."""
    return hash(npc.model_dump_json(exclude={"revision"}))


def _plan_places(world: World, npc: NpcState) -> list[str]:
    """The arenas a plan may send the NPC to: known, and not another family's private rooms."""
    return accessible_places(world, npc).arena_addresses()


def _perception(message: pb.PerceptionSettings) -> Perception:
    defaults = Perception()
    if message.vision_radius < 0 or message.attention_bandwidth < 0 or message.retention < 0:
        raise invalid("perception settings must not be negative (0 means the default)")
    return Perception(vision_radius=message.vision_radius or defaults.vision_radius,
                      attention_bandwidth=message.attention_bandwidth or defaults.attention_bandwidth,
                      retention=message.retention or defaults.retention)


def _check_npc_id(npc_id: str) -> None:
    if not NPC_ID.match(npc_id):
        raise invalid(f"npc_id {npc_id[:80]!r} is invalid: use 1-64 letters, digits, '_', '-' or '.'")


def _check_address(index: WorldIndex, address: str, name: str) -> None:
    if address not in index.addresses:
        raise invalid(f"{name} {address[:200]!r} is not in world {index.world.name!r}; use world:sector:arena[:object] "
                      f"as registered, e.g. {min(index.addresses)!r}")


def _check_text(name: str, value: str, *, required: bool = False) -> None:
    if required and not value.strip():
        raise invalid(f"{name} is empty")
    if len(value) > MAX_TEXT:
        raise BrainError(Status.RESOURCE_EXHAUSTED, f"{name} has {len(value)} characters; the limit is {MAX_TEXT}")


def _game_time(request: pb.DecideRequest | pb.WhisperRequest | pb.InterviewRequest | pb.TalkRequest) -> datetime:
    _check_npc_id(request.npc_id)
    if not request.HasField("game_time"):
        raise invalid("game_time is missing: send the game clock's time, e.g. \"2026-02-13T07:00:00Z\"")
    try:
        when = convert.from_timestamp(request.game_time)
    except (ValueError, OverflowError) as exc:
        raise invalid(f"game_time is not a valid time: {exc}") from exc
    if not 1900 <= when.year <= 9000:
        raise invalid(f"game_time {when.isoformat()} is {'before 1900' if when.year < 1900 else 'after 9000'}: "
                      "send the game's calendar time")
    return when

