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
) -> tuple[list[MemoryNode], int]:
    """New observation nodes, nearest first, and how many events were skipped as already seen."""
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
            )
        )
    return nodes, skipped


def _keywords(event: PerceivedEvent) -> list[str]:
    return [k for k in dict.fromkeys((event.subject.strip().lower(), event.object.strip().lower())) if k]
