"""The one service core behind both transports: the RPCs of npc_brain.v1.BrainService. Each
checks its request, loads what it needs, calls the mind, and answers; the paper's loop lives in
`cognition/mind.py`, records and their locks in `records.py`. Transports only adapt errors and framing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
import functools

import structlog

from brain_server.api import batch, convert, personas, talk_stream, time_skip
from brain_server.api.save_rpcs import SaveRpcs
from brain_server.api.saves import Saves
from brain_server.api.towns import Towns
from brain_server.cognition.inbox import Delete, Reset
from brain_server.cognition.memory_adds import ADD_GATHER_S
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.mind import Mind
from brain_server.cognition.object_state import set_object_state
from brain_server.cognition.perceive import PerceivedEvent
from brain_server.config import Settings
from brain_server.model import validation
from brain_server.model.errors import BrainError, Status, invalid, not_found
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, Perception, Persona
from brain_server.model.trace import Trace, TraceBook
from brain_server.model.validation import MAX_KNOWN_AREAS, MAX_PERCEPTIONS, MAX_TRAITS, shown
from brain_server.model.verbs import Verb, declared_for, own_verbs
from brain_server.model.world import World, arena_of
from brain_server.persistence.records import Records
from brain_server.persistence.save_files import SaveFiles
from brain_server.runtime.foreground import Home
from brain_server.runtime.vitals import Spread, Vitals
from npc_brain.v1 import brain_pb2 as pb

log = structlog.get_logger(__name__)
MAX_LIST = 1000
MAX_AGE = 200


class BrainCore(SaveRpcs):
    """Every RPC of npc_brain.v1.BrainService (the save slots' in `SaveRpcs`), as an async method
    taking and returning pb messages. Each runs on the mind's event loop (`home`), except a Decide
    while the mind thinks in the background: that is answered on the caller's loop (the
    transports') from what the mind published, and hands the mind what it changed (`decide`)."""

    def __init__(self, settings: Settings, stream: MemoryStream) -> None:
        self.settings = settings
        self.stream = stream
        stream.adds.gather_s = ADD_GATHER_S if settings.background_thinking else 0.0
        self.store = stream.store
        self.llm = stream.llm
        self.traces = TraceBook(settings.traces_per_npc, settings.traces_total)
        self.records = Records(self.store, shared_store=settings.qdrant_url is not None,
                               npcs_cached=settings.npc_cache, write_behind=settings.background_thinking)
        # The mind's loop is the one building the core (none outside a loop: tools that run one).
        self.home = Home(_running_loop(), anywhere=frozenset({"Decide", "DecideBatch"}) if settings.background_thinking
                         else frozenset())
        self.mind = Mind(settings, stream, self.records, self.traces, self.home)
        self.vitals = Vitals()
        self._decide_timed = self.vitals.timed("Decide", functools.partial(self._decide, logged=False))
        self.saves = Saves(SaveFiles(settings.data_dir / "saves"), self.records, self.mind, stream.embedder)
        self.towns = Towns(settings.tenant_idle_s, self.records, self.mind, self.saves, self.traces, self.home.run)
        loop = _running_loop()  # idle towns put to sleep while the brain serves (none in tools without a loop)
        self._sweeping = loop.create_task(self.towns.run(), name="towns") if loop and self.towns.enabled else None

    # --- world and NPCs -------------------------------------------------------------------

    async def register_world(self, request: pb.RegisterWorldRequest) -> pb.RegisterWorldResponse:
        world = convert.world_from_pb(request.world)
        validation.world(world)
        async with self.records.world_lock(world.name):  # no NPC spawns meanwhile
            await personas.verbs_to_world(self.records, world)
            await self.records.put_world(world)
        sectors, arenas, objects = world.counts()
        log.info("world_registered", world=world.name, sectors=sectors, arenas=arenas, objects=objects)
        return pb.RegisterWorldResponse(world_name=world.name, sector_count=sectors, arena_count=arenas,
                                        object_count=objects)

    async def spawn_npc(self, request: pb.SpawnNpcRequest) -> pb.SpawnNpcResponse:
        validation.npc_id(request.npc_id)
        world = await self.records.world(request.world_name)
        persona = convert.persona_from_pb(request.persona)
        validation.name("persona.name", persona.name)
        validation.names("persona.traits", persona.traits, limit=MAX_TRAITS)
        for name in ("identity", "lifestyle", "currently"):
            validation.text(f"persona.{name}", getattr(persona, name))
        if not 0 <= persona.age <= MAX_AGE:
            raise invalid(f"persona.age {persona.age} is out of range: use 0-{MAX_AGE} (0 = not given)")
        validation.count("persona.known_areas", persona.known_areas, MAX_KNOWN_AREAS)
        perception = _perception(request.perception)
        verbs = convert.verbs_from_pb(request.verbs, "verbs")
        validation.verbs("verbs", verbs)
        verbs, clashes = own_verbs(world.verbs, verbs)
        validation.no_clash(clashes)
        personas.check_places(self.records.index(world), persona, request.address)
        async with self.records.world_lock(world.name), self.records.lock(request.npc_id):
            # One persona name per world: observations, reactions, chats and private homes go by name.
            holder = (await self.records.people(world.name, fresh=True)).get(persona.name, request.npc_id)
            if holder != request.npc_id:
                raise BrainError(Status.ALREADY_EXISTS, f"persona.name {shown(persona.name)} is taken in world "
                                 f"{shown(world.name)} by NPC {holder!r}: give each NPC of a world its own name")
            existing = await self.records.npc_or_none(request.npc_id)
            if existing is not None:
                if existing.world_name != world.name:
                    raise BrainError(Status.ALREADY_EXISTS, f"NPC {request.npc_id!r} lives in world "
                                     f"{shown(existing.world_name)}: delete it there first (DeleteNpc) or pick "
                                     "another npc_id")
                return await self._edit(existing, persona, perception, world, verbs)
            npc = personas.fresh(request.npc_id, world, persona, perception, request.address or persona.home, verbs)
            await self.records.save(npc, wait=True)  # acknowledged: on disk before the answer
        self.mind.spawned(npc)
        log.info("npc_spawned", npc_id=npc.npc_id, name=persona.name, world=world.name)
        return pb.SpawnNpcResponse(npc_id=npc.npc_id, resumed=False)

    async def _edit(self, existing: NpcState, persona: Persona, perception: Perception, world: World,
                    verbs: list[Verb]) -> pb.SpawnNpcResponse:
        """The NPC spawned again: the same persona resumes it; a changed one replaces its persona
        and keeps its memories and plans ("currently" as `personas.currently` says). What changed
        is noted in a trace, and what the NPC would notice is remembered as a thought, at the game
        time it last lived (none yet: no memory to contradict)."""
        sent = {"verbs": verbs, "sent_currently": persona.currently}  # kept as the game sent them
        persona = persona.model_copy(update={"currently": personas.currently(existing, persona.currently)})
        changed = [f for f in personas.FIELDS if getattr(existing.persona, f) != getattr(persona, f)]
        if existing.perception != perception:
            changed.append("perception")
        if not changed:
            if any(getattr(existing, k) != v for k, v in sent.items()):  # a game may change its verbs between runs
                await self.records.save(existing.model_copy(update=sent), wait=True)
            return pb.SpawnNpcResponse(npc_id=existing.npc_id, resumed=True)
        npc = existing.model_copy(deep=True, update=sent)
        npc.persona, npc.perception = persona, perception
        if {"known_areas", "home", "workplace"} & set(changed):
            npc.known_addresses = sorted({*npc.known_addresses, *persona.own_places(),
                                          *(arena_of(a) for a in persona.known_areas)})
        when = self.mind.runtimes.last(npc.npc_id) or (existing.action.start_time if existing.action else None)
        trace = Trace(npc_id=npc.npc_id, kind="edit", game_time=when or datetime.now(UTC))
        trace.note(f"persona edited: {', '.join(changed)} changed; memories and plans kept")
        thoughts = personas.noticed(existing.persona, persona, world) if when else []
        if thoughts:
            nodes = [MemoryNode(npc_id=npc.npc_id, kind=MemoryKind.THOUGHT, description=text, subject=persona.name,
                                predicate="is now", object=text[:80], importance=personas.EDIT_IMPORTANCE, created=when,
                                last_accessed=when) for text in thoughts]
            await self.stream.remember(npc.npc_id, persona, nodes, trace, rate=False)
        await self.records.save(npc, wait=True)
        if persona.name != existing.persona.name:
            self.records.renamed(world.name, existing.persona.name)
        self.traces.add(trace)
        self.mind.spawned(npc)
        log.info("npc_edited", npc_id=npc.npc_id, changed=changed, trace_id=trace.trace_id)
        return pb.SpawnNpcResponse(npc_id=npc.npc_id, updated=True, changed=changed)

    async def reset_npc(self, request: pb.ResetNpcRequest) -> pb.ResetNpcResponse:
        """Its memories, plans and thinking forgotten; its persona, perception and place kept."""
        npc = await self.records.npc(request.npc_id)
        world = await self.records.world(npc.world_name)
        fresh = personas.fresh(npc.npc_id, world, npc.persona, npc.perception, npc.address or npc.persona.home, npc.verbs)
        fresh.revision, fresh.sent_currently = npc.revision, npc.sent_currently
        forgotten = await self.mind.handle(Reset(npc, fresh))
        log.info("npc_reset", npc_id=npc.npc_id, forgotten=forgotten)
        return pb.ResetNpcResponse(npc_id=npc.npc_id, forgotten=forgotten)

    async def delete_npc(self, request: pb.DeleteNpcRequest) -> pb.DeleteNpcResponse:
        """Gone, memories and record: its id and its name are free for a later SpawnNpc."""
        npc = await self.records.npc(request.npc_id)
        forgotten = await self.mind.handle(Delete(npc))
        log.info("npc_deleted", npc_id=npc.npc_id, forgotten=forgotten)
        return pb.DeleteNpcResponse(npc_id=npc.npc_id, forgotten=forgotten)

    # --- time -----------------------------------------------------------------------------

    async def skip_time(self, request: pb.SkipTimeRequest) -> pb.SkipTimeResponse:
        return await time_skip.skip_time(self.mind, request)

    # --- the decision loop ----------------------------------------------------------------

    async def decide(self, request: pb.DecideRequest) -> pb.DecideResponse:
        """The NPC's action for now, never waiting for the model: checked and converted here, made
        by the mind's one orchestration (`Mind.decide`) on whichever loop `home` runs it."""
        return await self._decide(request, logged=True)

    async def _decide(self, request: pb.DecideRequest, *, logged: bool) -> pb.DecideResponse:
        """A Decide; `logged`: its `decided` line (a batch logs one line for all its Decides)."""
        now = _game_time(request)
        validation.count("perceptions", request.perceptions, MAX_PERCEPTIONS)
        for event in request.perceptions:
            for part in ("subject", "predicate", "object", "address"):
                validation.line(f"perceptions.{part}", getattr(event, part))
            validation.text("perceptions.description", event.description)
        npc_id, events, address = request.npc_id, convert.events_from_pb(list(request.perceptions)), request.address
        if request.verb_outcomes:
            events += await self._outcomes(npc_id, request.verb_outcomes)
        if request.attention not in pb.Attention.values():
            raise invalid(f"attention {request.attention} is not an Attention: use ATTENTION_IN_VIEW, "
                          "ATTENTION_OUT_OF_VIEW or ATTENTION_CROWD, or leave it unset (in view)")
        crowd = request.attention == pb.ATTENTION_CROWD
        in_view = request.attention not in (pb.ATTENTION_OUT_OF_VIEW, pb.ATTENTION_CROWD)
        decision = await self.mind.decide(npc_id, now, events, address, in_view=in_view, crowd=crowd)
        if logged:
            action, calls = decision.action, decision.trace.llm_calls
            decision.trace.log.info("decided", action=action.description, address=action.address, source=action.source,
                                    thinking=decision.thinking, llm_calls=len(calls),
                                    tokens=sum(c.prompt_tokens + c.completion_tokens for c in calls))
        return pb.DecideResponse(action=convert.action_to_pb(decision.action), trace_id=decision.trace.trace_id,
                                 ask_again_at=convert.timestamp(decision.ask_again_at), thinking=decision.thinking)

    async def decide_batch(self, request: pb.DecideBatchRequest) -> pb.DecideBatchResponse:
        """Many NPCs' Decides, each answered or failed on its own (`batch.py`), each timed as a Decide."""
        return await batch.decide_all(self._decide_timed, request,
                                      within_s=None if self.home.here() else batch.ANSWER_WITHIN_S)

    async def _outcomes(self, npc_id: str, outcomes: Sequence[pb.VerbOutcome]) -> list[PerceivedEvent]:
        """The game's answers to the NPC's verbs, as what it perceives of itself (it remembers them)."""
        validation.count("verb_outcomes", outcomes, MAX_PERCEPTIONS)
        for outcome in outcomes:
            validation.line("verb_outcomes.name", outcome.name, required=True)
            validation.line("verb_outcomes.target", outcome.target)
            validation.text("verb_outcomes.detail", outcome.detail)
        view = await self.mind.view(npc_id)
        npc, world = view.npc, view.index.world
        asked = npc.action.verb if npc.action is not None else None
        validation.outcomes_declared((o.name for o in outcomes), declared_for([*world.verbs, *npc.verbs], npc_id, asked),
                                     npc_id)
        return convert.outcome_events(npc.persona.name, outcomes)

    # --- the user's tools -----------------------------------------------------------------

    async def whisper(self, request: pb.WhisperRequest) -> pb.WhisperResponse:
        now = _game_time(request)
        validation.text("text", request.text, required=True)
        await self.records.npc(request.npc_id)  # an NPC that exists, before anything is kept for it
        self.mind.levels.concern(request.npc_id, now)
        memory_id, trace = await self.mind.player.whisper(request.npc_id, validation.folded(request.text), now)
        return pb.WhisperResponse(memory_id=memory_id, trace_id=trace.trace_id)

    async def interview(self, request: pb.InterviewRequest) -> pb.InterviewResponse:
        now = _game_time(request)
        validation.text("question", request.question, required=True)
        answer, trace = await self.mind.player.interview(request.npc_id, request.question, now, remember=request.remember)
        return pb.InterviewResponse(answer=answer, trace_id=trace.trace_id)

    async def talk(self, request: pb.TalkRequest) -> pb.TalkResponse:
        now = _game_time(request)
        answered = await talk_stream.answer(self.mind.player, request, now)
        self.mind.levels.concern(request.npc_id, now)  # after: only an NPC that exists is concerned
        return answered

    async def talk_stream(self, request: pb.TalkStreamRequest,
                          send: Callable[[pb.TalkStreamResponse], None]) -> pb.TalkStreamResponse:
        """Talk with the line streamed (talk_stream.py): the last message is returned, the others sent."""
        now = _game_time(request)
        answered = await talk_stream.streamed(self.mind.player, request, now, send)
        self.mind.levels.concern(request.npc_id, now)
        return answered

    async def take_back(self, request: pb.TakeBackRequest) -> pb.TakeBackResponse:
        """The speaker's last line of their open Talk withdrawn, with the NPC's answer (player_talk.py)."""
        validation.npc_id(request.npc_id)
        text, answers = await self.mind.player.take_back(request.npc_id, talk_stream.speaker(request))
        return pb.TakeBackResponse(text=text, answers=answers)

    async def set_object_state(self, request: pb.SetObjectStateRequest) -> pb.SetObjectStateResponse:
        """The user changes an object in natural language; NPCs perceive it through Godot's events."""
        validation.line("state", request.state)
        validation.line("address", request.address, limit=4 * validation.MAX_NAME + 3)
        async with self.records.world_lock(request.world_name):  # read-modify-write: two at once lose one
            world = await self.records.world(request.world_name)
            try:
                updated = set_object_state(world, request.address, request.state.strip())
            except ValueError as exc:
                raise invalid(str(exc)) from None
            await self.records.put_world(updated)
        return pb.SetObjectStateResponse(address=request.address, state=request.state.strip())

    async def list_memories(self, request: pb.ListMemoriesRequest) -> pb.ListMemoriesResponse:
        npc = await self.records.npc(request.npc_id)
        if request.limit < 0 or request.limit > MAX_LIST:
            raise invalid(f"limit {request.limit} is out of range: use 1-{MAX_LIST}, or 0 for the default 50")
        limit = request.limit or 50
        kind = convert.kind_from_pb(request.kind)
        if kind is None and request.kind:
            raise invalid(f"kind {request.kind} is not a MemoryKind: use MEMORY_KIND_OBSERVATION, _THOUGHT, _CHAT, "
                          "_PLAN, or leave it unset for all")
        validation.text("query", request.query)
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
                raise self.missing_trace(request.trace_id)
        elif request.npc_id:
            await self.records.npc(request.npc_id)
            trace = self.traces.latest(request.npc_id)
            if trace is None:
                raise not_found(f"NPC {request.npc_id!r} has made no decision since the server started")
        else:
            raise invalid("set trace_id (from a Decide or Interview answer) or npc_id (for its latest trace)")
        return pb.GetTraceResponse(trace=convert.trace_to_pb(trace))

    def missing_trace(self, trace_id: str) -> BrainError:
        """GetTrace's answer for a trace it does not have (or, to a tenant, another tenant's)."""
        return not_found(f"no trace {shown(trace_id)}: traces are kept for the last {self.settings.traces_per_npc} "
                         f"decisions of each NPC (and {self.settings.traces_total} in all) since the server started")

    async def get_usage(self, request: pb.GetUsageRequest) -> pb.GetUsageResponse:
        counters = [
            pb.UsageCounter(npc_id=npc_id, purpose=purpose, **vars(c))  # llm/usage.py: the proto's fields
            for (npc_id, purpose), c in sorted(self.llm.usage.counters.items())
            if not request.npc_id or npc_id == request.npc_id
        ]
        hourly = [
            pb.HourlyUsage(npc_id=npc_id, hour=convert.timestamp(hour), calls=c.calls, prompt_tokens=c.prompt_tokens,
                           completion_tokens=c.completion_tokens)
            for (npc_id, hour), c in sorted(self.llm.usage.hourly.items())
            if not request.npc_id or npc_id == request.npc_id
        ]
        queues = [pb.QueueStats(priority=q.priority.name.lower(), waiting=q.waiting, running=q.running,
                                served=q.served, wait_p50_ms=q.wait_p50_ms, wait_p99_ms=q.wait_p99_ms,
                                dropped_stale=q.dropped_stale, dropped_full=q.dropped_full)
                  for q in self.llm.scheduler.report()]
        vitals, allowance, ceilings = self.vitals, self.llm.allowance, self.llm.ceilings
        return pb.GetUsageResponse(counters=counters, hourly=hourly, queues=queues,
                                   rpcs=[_latency(s.spread(), name) for name, s in sorted(vitals.rpcs.items()) if s.count],
                                   loop_late=_latency(vitals.loop_late.spread()),
                                   gc_pauses=_latency(vitals.gc_pauses.spread()),
                                   allowance=pb.CallAllowance(calls_per_npc_hour=allowance.per_npc_hour,
                                                              calls_per_hour=allowance.per_hour,
                                                              refused=allowance.refused),
                                   tenants=convert.tenants_to_pb(ceilings),
                                   tenant_ceiling=convert.tenant_ceiling_to_pb(ceilings))

    async def close(self) -> None:
        if self._sweeping is not None:
            self._sweeping.cancel()
        await self.mind.close()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _latency(spread: Spread, name: str = "") -> pb.Latency:
    return pb.Latency(name=name, count=spread.count, p50_ms=spread.p50_ms, p99_ms=spread.p99_ms, max_ms=spread.max_ms)


def _perception(message: pb.PerceptionSettings) -> Perception:
    defaults = Perception()
    if message.vision_radius < 0 or message.attention_bandwidth < 0 or message.retention < 0:
        raise invalid("perception settings must not be negative (0 means the default)")
    return Perception(vision_radius=message.vision_radius or defaults.vision_radius,
                      attention_bandwidth=message.attention_bandwidth or defaults.attention_bandwidth,
                      retention=message.retention or defaults.retention)


def _game_time(request: pb.DecideRequest | pb.WhisperRequest | pb.InterviewRequest | pb.TalkRequest
               | pb.TalkStreamRequest) -> datetime:
    validation.npc_id(request.npc_id)
    return validation.game_time(request, "game_time")
