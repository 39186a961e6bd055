"""Who takes part in a conversation, as its prompts see each one: an NPC's persona, what it was
doing, its plan from now on and the places it may name (`Speaker`), and whose memories and news
each one's prompts show (`heads`: its own, unless the lab control swaps them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from brain_server.cognition.gather import own_later
from brain_server.cognition.locate import talk_places
from brain_server.cognition.memory_stream import Head, MemoryStream
from brain_server.cognition.news import Held, known_places
from brain_server.cognition.news_said import held
from brain_server.cognition.schedule import schedule_from
from brain_server.model.npc import NpcState, Persona, PlanItem
from brain_server.model.world import World


@dataclass
class Speaker:
    """A conversation participant: an NPC with a mind, or a voice (the player) without one."""

    npc_id: str
    persona: Persona
    activity: str = ""  # what it was doing when the conversation began ("Isabella Rodriguez is baking")
    schedule: str = "- (nothing planned)"  # its plan from now on, as prompt lines (`schedule_from`)
    places: tuple[str, ...] = ()  # the places it knows, home first, where a plan item may be
    plan: Sequence[PlanItem] = field(default_factory=list)  # today's and promised items, for composed lines

    @classmethod
    def of(cls, npc: NpcState, now: datetime, plans: bool = True, world: World | None = None) -> Speaker:
        """An NPC as a speaker: what it is doing, its plan from now on (unless `plans` is False: the
        planning ablation, `MemoryStream.reaches_plans`) and the places it may name (`may_name`)."""
        return cls._made(npc, now, plans, may_name(npc, world), ())

    @classmethod
    async def read(cls, npc: NpcState, now: datetime, stream: MemoryStream, world: World | None = None) -> Speaker:
        """`of`, its plan holding its own events of later days read from its thoughts
        (`gather.own_later`); none under the lab control that swaps speakers' memories
        (`MemoryStream.heads`): an event is news, and its news sits in the other's head there."""
        places = may_name(npc, world)
        own = own_later(npc.persona.name, await stream.latest_thoughts(npc.npc_id), now, places) \
            if stream.reaches_plans and stream.own_heads else []
        return cls._made(npc, now, stream.reaches_plans, places, own)

    @classmethod
    def _made(cls, npc: NpcState, now: datetime, plans: bool, places: Sequence[str],
              own: Sequence[PlanItem]) -> Speaker:
        return cls(npc.npc_id, npc.persona, npc.action.description if npc.action else "",
                   schedule_from(npc, now, plans, own), tuple(places),
                   [*npc.plan, *npc.commitments, *own] if plans else [])


def may_name(npc: NpcState, world: World | None) -> list[str]:
    """The places an NPC may name in talk and be sent to by it: in `world`, those it may go to
    (`talk_places`); with no world to check (a bench's bare NPC), every place it knows."""
    return talk_places(world, npc) if world else known_places(npc)


def listed(all_names: Sequence[str]) -> str:
    """'Ann Lee', 'Ann Lee and Bo Chen', 'Ann Lee, Bo Chen and Cy Diaz'."""
    return " and ".join(all_names) if len(all_names) < 3 else f"{', '.join(all_names[:-1])} and {all_names[-1]}"


def heads(stream: MemoryStream, speakers: Sequence[Speaker]) -> dict[str, Head]:
    """By speaker, whose memories and news its prompts show (`MemoryStream.heads`: its own, unless
    the lab control swaps them), retrieved about the others and what they were doing."""
    own = [Head(s.npc_id, s.persona.name, listed([o.persona.name for o in speakers if o is not s]),
                "; ".join(o.activity for o in speakers if o is not s and o.activity)) for s in speakers]
    return dict(zip([s.npc_id for s in speakers], stream.heads(own), strict=True))


async def held_by(stream: MemoryStream, head: Head, speaker: Speaker, now: datetime) -> Held:
    """What `speaker` has to tell (`news_said.held`) as its prompts show it, from `head`'s memories and
    news, with the speaker's plan where `head` is its own (its plan may hold the news's day)."""
    plan = speaker.plan if head.npc_id == speaker.npc_id else ()
    return await held(stream, head.npc_id, head.name, now, speaker.places, plan)
