"""Writing to the memory stream: importance ratings, batched and remembered."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from brain_server.memory import MemoryKind, MemoryNode
from brain_server.npc import Persona

PERSONA = Persona(name="Isabella Rodriguez")
NOW = datetime(2026, 2, 13, 9, tzinfo=UTC)


def seen(description: str, at: datetime, kind: MemoryKind = MemoryKind.OBSERVATION) -> MemoryNode:
    subject, _, rest = description.partition(" is ")
    return MemoryNode(npc_id="isabella", kind=kind, description=description, subject=subject, predicate="is",
                      object=rest, created=at, last_accessed=at)


def test_ratings_are_batched_and_an_observation_seen_again_costs_no_call(stream, fake_llm) -> None:
    fake_llm.queue({"json": {"ratings": [4, 7]}}, purpose="importance_batch")

    async def two_days() -> tuple[list[MemoryNode], list[MemoryNode]]:
        first = await stream.remember("isabella", PERSONA, [seen("Klaus Mueller is sleeping", NOW),
                                                            seen("Maria Lopez is painting", NOW)], None)
        tomorrow = NOW + timedelta(days=1)
        second = await stream.remember("isabella", PERSONA, [seen("Klaus Mueller is sleeping", tomorrow),
                                                             seen("Sam Moore is idle", tomorrow)], None)
        return first, second

    first, second = asyncio.run(two_days())
    assert [n.importance for n in first] == [4, 7]
    assert [n.importance for n in second] == [4, 1]  # remembered rating; "idle" is trivial
    assert len(fake_llm.chat_requests()) == 1 and stream.store.count("isabella") == 4


def test_remembered_ratings_are_per_npc_and_only_for_observations(stream, fake_llm) -> None:
    fake_llm.queue({"json": {"importance": 6}}, {"json": {"importance": 2}}, {"json": {"importance": 9}},
                   purpose="importance")

    async def rate_three() -> list[int]:
        a = await stream.remember("isabella", PERSONA, [seen("Klaus Mueller is reading", NOW)], None)
        b = await stream.remember("klaus", Persona(name="Klaus Mueller"),
                                  [seen("Klaus Mueller is reading", NOW).model_copy(update={"npc_id": "klaus"})],
                                  None)
        c = await stream.remember("isabella", PERSONA, [seen("Klaus Mueller is reading", NOW, MemoryKind.THOUGHT)],
                                  None)
        return [a[0].importance, b[0].importance, c[0].importance]

    assert asyncio.run(rate_three()) == [6, 2, 9]
    assert len(fake_llm.chat_requests("importance")) == 3
