"""Perception's retention answered beside the store process (`storage/recent.py`): every answer
the same as the engine's, over writes with shared times (a minute's perceptions), their last
access and importance changed, NPCs forgotten; and most asked without a call (issue 44: that
call was a third of the store process's CPU at 1,000 NPCs in view)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
import pickle
import random
from typing import Any

import pytest

from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.persistence.storage import EdgeMemoryStore, ProcessMemoryStore
import brain_server.persistence.storage._payload as pl
import brain_server.persistence.storage.recent as recent

T0 = datetime(2024, 2, 13, 8, tzinfo=UTC)
DIM = 4


class InProcess:
    """The store process's side of the pipe, run here: each call pickled as the brain sends it."""

    def __init__(self, engine: EdgeMemoryStore) -> None:
        self.engine, self.asked = engine, []

    def ask(self, data: bytes) -> bytes:
        method, args = pickle.loads(data)
        self.asked.append(method)
        return b"V" + pickle.dumps(getattr(self.engine, method)(*args))


def _stores(tmp_path: Path) -> tuple[ProcessMemoryStore, EdgeMemoryStore, InProcess]:
    cached, plain = EdgeMemoryStore(tmp_path / "cached", DIM), EdgeMemoryStore(tmp_path / "plain", DIM)
    store = object.__new__(ProcessMemoryStore)
    store._child = pipe = InProcess(cached)  # type: ignore[assignment]
    store.recent = recent.RecentObservations()
    return store, plain, pipe


def _node(rng: random.Random, npc: str, minute: int, n: int) -> MemoryNode:
    kind = rng.choice([MemoryKind.OBSERVATION] * 4 + [MemoryKind.THOUGHT])
    return MemoryNode(npc_id=npc, kind=kind, description=f"{npc} saw event {n}", subject=npc, predicate="saw",
                      object=f"event {n}", importance=rng.randint(1, 9), created=T0 + timedelta(minutes=minute),
                      last_accessed=T0 + timedelta(minutes=minute))


def _unambiguous(everything: list[MemoryNode], limit: int) -> bool:
    """Whether the engine has no choice to make: it reads `limit + TIE_SLACK` by time, and a
    time shared across that cut is read in whatever order its segments hold it (two engines
    given the same writes answered differently there)."""
    if len(everything) <= limit:
        return True
    oldest = everything[limit - 1].created
    return sum(1 for n in everything if n.created >= oldest) <= limit + pl.TIE_SLACK


@pytest.mark.slow  # ~1 CPU-s each (two engines): the tiers rule
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_newest_observations_are_the_engines_and_mostly_asked_without_a_call(
        tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recent, "KEPT_PER_NPC", 12)  # the cut moves within the run
    rng = random.Random(seed)
    store, plain, pipe = _stores(tmp_path)
    npcs, written, minute, asked = ["ada", "bob", "cy"], 0, 0, 0

    def both(method: str, *args: Any) -> Any:
        ours, theirs = getattr(store, method)(*args), getattr(plain, method)(*args)
        assert ours == theirs, (method, args)
        return ours

    try:
        for step in range(400):
            npc, roll = rng.choice(npcs), rng.random()
            if roll < 0.45:  # a perception: several at one minute, now and then one from before
                minute += rng.choice([0, 0, 1, 2])
                at = minute if rng.random() > 0.1 else max(0, minute - rng.randint(1, 30))
                nodes = [_node(rng, npc, at, written + i) for i in range(rng.choice([1, 1, 2, 6, 14]))]
                written += len(nodes)
                vectors = [[rng.random() for _ in range(DIM)] for _ in nodes]
                both("add", nodes, vectors)
            elif roll < 0.9:
                limit = rng.choice([1, 3, 5, 5, 5, 10])
                ours, theirs = (s.latest(npc, limit, MemoryKind.OBSERVATION) for s in (store, plain))
                everything = plain.latest(npc, 10_000, MemoryKind.OBSERVATION)  # newest first, ties by id
                assert [n.created for n in ours] == [n.created for n in theirs]
                if _unambiguous(everything, limit):
                    assert ours == theirs == everything[:limit]
                asked += 1
            elif roll < 0.94:
                found = plain.latest(npc, 3, MemoryKind.OBSERVATION)
                both("touch", npc, [n.id for n in found], T0 + timedelta(minutes=minute, seconds=step))
            elif roll < 0.98:
                found = plain.latest(npc, 3, MemoryKind.OBSERVATION)
                both("set_importance", npc, {n.id: rng.randint(1, 9) for n in found})
            else:
                both("forget", npc)
        both("latest", "ada", 400, None)
    finally:
        pipe.engine.close()
        plain.close()
    by_engine = pipe.asked.count("latest") - 1  # the last one: of every kind, asked of the engine
    assert asked > 150 and store.recent.answered == asked - by_engine > asked / 4


def test_perception_asks_the_engine_once_then_keeps_what_it_stores(tmp_path: Path) -> None:
    """A Decide's perceptions: the retention asked, what is new stored, again a minute later..."""
    rng = random.Random(7)
    store, plain, pipe = _stores(tmp_path)
    try:
        for minute in range(30):
            assert store.latest("ada", 5, MemoryKind.OBSERVATION) == plain.latest("ada", 5, MemoryKind.OBSERVATION)
            node = _node(rng, "ada", minute, minute).model_copy(update={"kind": MemoryKind.OBSERVATION})
            for s in (store, plain):
                s.add([node], [[1.0, 0.0, 0.0, 0.0]])
    finally:
        pipe.engine.close()
        plain.close()
    assert pipe.asked.count("latest") == 1 and store.recent.answered == 29
