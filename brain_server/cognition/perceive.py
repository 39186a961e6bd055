"""Perception (paper section 4 and its code's `perceive`): of what Godot reports within the
vision radius, attend to the nearest `bandwidth` events and skip the ones already among the
last `retention` observations; the rest become observation nodes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from brain_server.model.memory import MemoryKind, MemoryNode


@dataclass(frozen=True)
class PerceivedEvent:
    subject: str
    predicate: str
    object: str
    description: str
    address: str
    distance: float


@dataclass(frozen=True)
class Attention:
    bandwidth: int
    retention: int


def attend(
    npc_id: str,
    events: Sequence[PerceivedEvent],
    recent_descriptions: Sequence[str],
    now: datetime,
    attention: Attention,
    name: str = "",
) -> tuple[list[MemoryNode], int]:
    """New observation nodes, nearest first, and how many events were skipped as already seen. The
    NPC's own action (`name`'s, where it stands) is embedded by what it does (`own_action_key`)."""
    seen = {d.strip().lower() for d in recent_descriptions[: attention.retention]}
    nodes: list[MemoryNode] = []
    skipped = 0
    for event in sorted(events, key=lambda e: e.distance)[: attention.bandwidth]:
        description = event.description.strip() or " ".join(
            part for part in (event.subject, event.predicate, event.object) if part
        )
        if description.lower() in seen:
            skipped += 1
            continue
        seen.add(description.lower())
        nodes.append(
            MemoryNode(
                npc_id=npc_id, kind=MemoryKind.OBSERVATION, description=description,
                subject=event.subject, predicate=event.predicate, object=event.object,
                created=now, last_accessed=now, keywords=_keywords(event),
                embedding_key=own_action_key(name, description) if event.subject == name and event.distance == 0 else "",
            )
        )
    return nodes, skipped


def own_action_key(name: str, description: str) -> str:
    """What an NPC's own action is embedded by: what it does, without its name ("having breakfast
    (making coffee)" for "Adam Smith is having breakfast (making coffee)"), as the paper's code
    embeds an event by its short description and keeps the vector by it. Every memory of the NPC's
    is its own, so its name tells retrieval nothing, while the rest repeats from day to day and
    between NPCs, and a repeat is a vector the embedder keeps (`vector_cache`): own actions were
    61% of the texts embedded at a thousand NPCs in view, each new. "" (the whole description)
    where the description does not begin with the name."""
    for lead in (f"{name} is ", f"{name} "):
        if name and description.startswith(lead) and description[len(lead):].strip():
            return description[len(lead):].strip()
    return ""


def _keywords(event: PerceivedEvent) -> list[str]:
    return [k for k in dict.fromkeys((event.subject.strip().lower(), event.object.strip().lower())) if k]
