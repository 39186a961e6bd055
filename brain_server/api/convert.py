"""Conversions between protocol messages (generated protobuf) and the brain's pydantic models,
in one place so both transports and all modules agree."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from pydantic import BaseModel, ValidationError

from brain_server.cognition.offline.inner_voice import about_them
from brain_server.cognition.perceive import PerceivedEvent
from brain_server.llm.spending import Ceilings, Spend
from brain_server.model.errors import invalid
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import Action, Persona
from brain_server.model.trace import LlmCallRecord, RetrievedRecord, Trace
from brain_server.model.validation import folded
from brain_server.model.verbs import Verb, VerbArgument, VerbCall
from brain_server.model.world import World
from npc_brain.v1 import brain_pb2 as pb

if TYPE_CHECKING:
    from brain_server.persistence.save_files import SaveInfo

M = TypeVar("M", bound=BaseModel)
_KINDS = {
    MemoryKind.OBSERVATION: pb.MEMORY_KIND_OBSERVATION,
    MemoryKind.THOUGHT: pb.MEMORY_KIND_THOUGHT,
    MemoryKind.CHAT: pb.MEMORY_KIND_CHAT,
    MemoryKind.PLAN: pb.MEMORY_KIND_PLAN,
}
_KIND_OF_PB: dict[int, MemoryKind] = {int(v): k for k, v in _KINDS.items()}
_SOURCES = {"plan": pb.ACTION_SOURCE_PLAN, "new_plan": pb.ACTION_SOURCE_NEW_PLAN, "fallback": pb.ACTION_SOURCE_FALLBACK,
            "provisional": pb.ACTION_SOURCE_PROVISIONAL}
_PLACES = {pb.VERB_PLACE_UNSPECIFIED: "anywhere", pb.VERB_PLACE_ANYWHERE: "anywhere", pb.VERB_PLACE_OBJECT: "object",
           pb.VERB_PLACE_ARENA: "arena"}
_ARGUMENT_TYPES = {pb.VERB_ARGUMENT_TYPE_UNSPECIFIED: "choice", pb.VERB_ARGUMENT_TYPE_CHOICE: "choice",
                   pb.VERB_ARGUMENT_TYPE_NUMBER: "number", pb.VERB_ARGUMENT_TYPE_INTEGER: "integer"}


def timestamp(when: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(when.astimezone(UTC))
    return ts


def from_timestamp(ts: Timestamp) -> datetime:
    when: datetime = ts.ToDatetime(tzinfo=UTC)
    return when


def _fields(message: Message) -> dict[str, Any]:
    """All fields by proto name, zeros included (a tile at x=0 is still a tile)."""
    found: dict[str, Any] = MessageToDict(message, preserving_proto_field_name=True,
                                          always_print_fields_with_no_presence=True)
    return found


def _validated(model: type[M], message: Message, what: str) -> M:
    try:
        return model.model_validate(_fields(message))
    except ValidationError as exc:
        error = exc.errors()[0]
        raise invalid(f"{what}.{'.'.join(map(str, error['loc']))}: {error['msg']}") from None


def world_from_pb(message: pb.World) -> World:
    places = pb.World()
    places.CopyFrom(message)
    places.ClearField("verbs")
    return _validated(World, places, "world").model_copy(update={"verbs": verbs_from_pb(message.verbs, "world.verbs")})


def _enum(table: dict[int, str], value: int, field: str) -> str:
    if value not in table:
        raise invalid(f"{field} {value} is not a known value: use one of {', '.join(sorted(set(table.values())))}")
    return table[value]


def verbs_from_pb(messages: Sequence[pb.Verb], field: str) -> list[Verb]:
    """The game's verb declarations (checked by validation.verbs before use)."""
    return [Verb(name=m.name, description=m.description, place=_enum(_PLACES, m.place, f"{field}.place"),  # type: ignore[arg-type]
                 targets=list(m.targets), users=list(m.users),
                 arguments=[VerbArgument(
                     name=a.name, description=a.description, choices=list(a.choices),
                     type=_enum(_ARGUMENT_TYPES, a.type, f"{field}.arguments.type"),  # type: ignore[arg-type]
                     minimum=a.minimum if a.HasField("minimum") else None,
                     maximum=a.maximum if a.HasField("maximum") else None) for a in m.arguments])
            for m in messages]


def verb_call_to_pb(call: VerbCall) -> pb.VerbCall:
    values = [pb.VerbValue(name=k, choice=v) if isinstance(v, str) else pb.VerbValue(name=k, integer=v)
              if isinstance(v, int) else pb.VerbValue(name=k, number=v) for k, v in call.arguments.items()]
    return pb.VerbCall(name=call.name, arguments=values, target=call.target)


def outcome_events(npc_name: str, outcomes: Sequence[pb.VerbOutcome]) -> list[PerceivedEvent]:
    """What the game reported of the NPC's verbs, as events the NPC perceives of itself (memories)."""
    events = []
    for o in outcomes:
        did = "did" if o.done else "failed to do"
        detail = f": {folded(o.detail)}" if o.detail else ""
        where = f" at {o.target}" if o.target else ""
        events.append(PerceivedEvent(npc_name, did, o.name, f"{npc_name} {did} {o.name}{where}{detail}", o.target, 0.0))
    return events


def persona_from_pb(message: pb.Persona) -> Persona:
    """The persona, its prose on one line each (`validation.folded`: each is a line of the prompts), and
    said of the NPC where it opens said to it or in its voice ("You are a retired sailor ...", as a
    character prompt is often written: `about_them`): the prompts show it as who the NPC is, beside
    the others', not as who the model is."""
    persona = _validated(Persona, message, "persona")
    return persona.model_copy(update={f: about_them(folded(getattr(persona, f)), persona.name, opening=True)
                                      for f in ("identity", "lifestyle", "currently")})


def events_from_pb(messages: list[pb.PerceivedEvent]) -> list[PerceivedEvent]:
    return [PerceivedEvent(e.subject, e.predicate, e.object, folded(e.description), e.address, e.distance)
            for e in messages]


def kind_from_pb(kind: int) -> MemoryKind | None:
    return _KIND_OF_PB.get(kind)


def memory_to_pb(node: MemoryNode) -> pb.Memory:
    return pb.Memory(
        id=node.id, kind=_KINDS[node.kind], description=node.description, subject=node.subject,
        predicate=node.predicate, object=node.object, importance=node.importance,
        created=timestamp(node.created), last_accessed=timestamp(node.last_accessed),
        keywords=node.keywords, evidence_ids=node.evidence_ids,
    )


def action_to_pb(action: Action) -> pb.Action:
    subject, predicate, obj = action.event
    return pb.Action(
        description=action.description, emoji=action.emoji, address=action.address,
        start_time=timestamp(action.start_time), duration_minutes=action.duration_minutes,
        object_states=[pb.ObjectStateChange(address=s.address, state=s.state) for s in action.object_states],
        dialogue=[pb.DialogueLine(speaker_npc_id=d.speaker_npc_id, speaker_name=d.speaker_name, text=d.text)
                  for d in action.dialogue],
        source=_SOURCES.get(action.source, pb.ACTION_SOURCE_UNSPECIFIED), chatting_with=action.chatting_with,
        event_subject=subject, event_predicate=predicate, event_object=obj,
        verb=verb_call_to_pb(action.verb) if action.verb else None,
    )


def _retrieved_to_pb(r: RetrievedRecord) -> pb.RetrievedMemory:
    return pb.RetrievedMemory(memory=memory_to_pb(r.node), recency=r.recency, importance=r.importance,
                              relevance=r.relevance, score=r.score, query=r.query)


def _llm_call_to_pb(c: LlmCallRecord) -> pb.LlmCall:
    return pb.LlmCall(
        purpose=c.purpose, model=c.model, messages=[pb.ChatMessage(**m) for m in c.messages],
        raw_completion=c.raw_completion, parsed_json=c.parsed_json, attempts=c.attempts,
        fallback_used=c.fallback_used, errors=c.errors, prompt_tokens=c.prompt_tokens,
        completion_tokens=c.completion_tokens, latency_ms=c.latency_ms,
    )


def trace_to_pb(trace: Trace) -> pb.Trace:
    return pb.Trace(
        trace_id=trace.trace_id, npc_id=trace.npc_id, kind=trace.kind, game_time=timestamp(trace.game_time),
        wall_time=timestamp(trace.wall_time), retrieved=[_retrieved_to_pb(r) for r in trace.retrieved],
        llm_calls=[_llm_call_to_pb(c) for c in trace.llm_calls],
        action=action_to_pb(trace.action) if trace.action else None,
        stored_memory_ids=trace.stored_memory_ids, notes=trace.notes,
    )


def save_info_to_pb(info: SaveInfo) -> pb.SaveInfo:
    return pb.SaveInfo(world_name=info.world_name, slot=info.slot,
                       game_time=timestamp(info.game_time) if info.game_time else None,
                       saved_at=timestamp(info.saved_at), npc_count=info.npc_count, memory_count=info.memory_count,
                       size_bytes=info.size_bytes)


def tenants_to_pb(ceilings: Ceilings) -> list[pb.TenantSpend]:
    """Each tenant's spend in its window and on its current game day, and the ceiling it is over now
    (GetUsage's `tenants`)."""
    answer = []
    for tenant, spend, today in ceilings.standings():
        day, on_day = today or (None, Spend())
        answer.append(pb.TenantSpend(
            tenant=tenant, calls=spend.calls, prompt_tokens=spend.prompt_tokens,
            completion_tokens=spend.completion_tokens, cost=spend.cost, refused=spend.refused,
            window_left_s=ceilings.left_s(spend), game_day=day.isoformat() if day else "",
            game_day_calls=on_day.calls, game_day_prompt_tokens=on_day.prompt_tokens,
            game_day_completion_tokens=on_day.completion_tokens, game_day_cost=on_day.cost,
            game_day_refused=on_day.refused, over=ceilings.why(tenant, spend, today) or ""))
    return answer


def tenant_ceiling_to_pb(ceilings: Ceilings) -> pb.TenantCeiling:
    day = ceilings.per_game_day
    return pb.TenantCeiling(calls_per_window=ceilings.calls, tokens_per_window=ceilings.tokens,
                            money_per_window=ceilings.money, window_s=ceilings.window_s,
                            price_input_per_m=ceilings.prices.input_per_m,
                            price_output_per_m=ceilings.prices.output_per_m,
                            calls_per_game_day=day.calls, tokens_per_game_day=day.tokens, money_per_game_day=day.money)
