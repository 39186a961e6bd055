"""Memories stored for many NPCs in one store call (`memory_adds.Adds`): those that come within
a while share it, each caller's are stored when its `add` returns, a caller cancelled before its
call was made stores nothing, and a failed call fails each of its callers."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from brain_server.cognition.memory_adds import Adds
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.persistence.storage.edge import EdgeMemoryStore

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)


class Counted:
    """The embedded engine, its `add` calls counted (the NPCs each was for); one can be made to fail."""

    def __init__(self, path: Path) -> None:
        self.engine = EdgeMemoryStore(path, 4)
        self.calls: list[list[str]] = []
        self.fail = False

    def add(self, nodes: list[MemoryNode], vectors: list[list[float]]) -> None:
        self.calls.append([n.npc_id for n in nodes])
        if self.fail:
            raise OSError("disk full")
        self.engine.add(nodes, vectors)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def _node(npc_id: str, text: str) -> MemoryNode:
    return MemoryNode(npc_id=npc_id, kind=MemoryKind.OBSERVATION, description=text, created=T0, last_accessed=T0)


def test_memories_of_many_npcs_share_a_store_call_and_each_is_stored_when_its_add_returns(tmp_path: Path) -> None:
    """Issue 44: a thousand NPCs in view stored ~80 times a second, one store call each."""
    store = Counted(tmp_path / "store")

    async def scenario() -> None:
        adds = Adds(gather_s=60)
        first = asyncio.create_task(adds.add(store, [_node("ada", "a kettle boils")], [[1, 0, 0, 0]]))
        second = asyncio.create_task(adds.add(store, [_node("bo", "a dog barks"), _node("bo", "rain")], [[0, 1, 0, 0]] * 2))
        cancelled = asyncio.create_task(adds.add(store, [_node("cy", "a bell rings")], [[0, 0, 1, 0]]))
        await asyncio.sleep(0.01)
        assert store.calls == []  # gathering
        cancelled.cancel()  # its NPC reset: nothing of it is stored after
        await asyncio.sleep(0.01)
        adds.gather_s = 0.01
        writer = adds._writer  # the minute's wait cut short: a writer is started again by the next add
        assert writer is not None
        writer.cancel()
        await asyncio.gather(writer, return_exceptions=True)
        await adds.add(store, [_node("dee", "a cart passes")], [[0, 0, 0, 1]])
        await asyncio.gather(first, second)
        assert store.calls == [["ada", "bo", "bo", "dee"]]
        assert sorted(n.description for n in store.engine.latest("bo", 5)) == ["a dog barks", "rain"]
        assert store.engine.latest("cy", 5) == []

        store.fail = True
        failing = [asyncio.create_task(adds.add(store, [_node(i, "x")], [[1, 0, 0, 0]])) for i in ("ed", "flo")]
        for task in failing:
            with pytest.raises(OSError, match="disk full"):
                await task

    try:
        asyncio.run(scenario())
    finally:
        store.engine.close()


def test_without_gathering_each_add_is_its_own_call(tmp_path: Path) -> None:
    """In lockstep nothing else comes meanwhile: no wait."""
    store = Counted(tmp_path / "store")

    async def scenario() -> None:
        adds = Adds()
        await adds.add(store, [_node("ada", "a kettle boils")], [[1, 0, 0, 0]])
        await adds.add(store, [_node("bo", "a dog barks")], [[0, 1, 0, 0]])
        assert store.calls == [["ada"], ["bo"]]

    try:
        asyncio.run(scenario())
    finally:
        store.engine.close()
