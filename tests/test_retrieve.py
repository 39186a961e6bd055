"""Retrieval scoring: the paper's weighted sum of min-max normalised recency, importance, relevance;
and the ablations, which take memory kinds out of reach inside Qdrant."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from brain_server.cognition.retrieve import RetrievalWeights, min_max, score, unreachable_kinds
from brain_server.config import Settings
from brain_server.memory import MemoryKind, MemoryNode, ScoredNode
from brain_server.storage import open_store

NOW = datetime(2026, 2, 13, 12, tzinfo=UTC)


def node(description: str, importance: int, hours_ago: float) -> MemoryNode:
    when = NOW - timedelta(hours=hours_ago)
    return MemoryNode(npc_id="a", kind=MemoryKind.OBSERVATION, description=description, importance=importance,
                      created=when, last_accessed=when)


def test_min_max_scales_to_unit_range_and_flattens_constants() -> None:
    assert min_max([2.0, 4.0, 6.0]) == [0.0, 0.5, 1.0]
    assert min_max([3.0, 3.0]) == [0.5, 0.5]


def test_each_component_decides_when_it_alone_is_weighted() -> None:
    fresh = ScoredNode(node=node("fresh", 1, 0), similarity=0.1)
    poignant = ScoredNode(node=node("poignant", 10, 48), similarity=0.2)
    relevant = ScoredNode(node=node("relevant", 2, 24), similarity=0.9)
    candidates = [fresh, poignant, relevant]
    for weights, winner in (
        (RetrievalWeights(recency=1, importance=0, relevance=0), "fresh"),
        (RetrievalWeights(recency=0, importance=1, relevance=0), "poignant"),
        (RetrievalWeights(recency=0, importance=0, relevance=1), "relevant"),
    ):
        assert score(candidates, NOW, "q", weights)[0].node.description == winner


def test_scores_are_the_weighted_sum_of_normalised_components() -> None:
    weights = RetrievalWeights(recency=0.5, importance=2, relevance=3, decay_per_hour=0.99)
    candidates = [ScoredNode(node=node(f"m{i}", i + 1, i * 5), similarity=0.1 * i) for i in range(5)]
    records = score(candidates, NOW, "q", weights)
    for r in records:
        assert 0 <= r.recency <= 1 and 0 <= r.importance <= 1 and 0 <= r.relevance <= 1
        assert r.score == pytest.approx(0.5 * r.recency + 2 * r.importance + 3 * r.relevance)
    assert [r.score for r in records] == sorted((r.score for r in records), reverse=True)
    newest = next(r for r in records if r.node.description == "m0")
    assert newest.recency == 1.0 and newest.importance == 0.0 and newest.relevance == 0.0


def test_recency_decays_exponentially_per_game_hour() -> None:
    weights = RetrievalWeights(recency=1, importance=0, relevance=0, decay_per_hour=0.5)
    candidates = [ScoredNode(node=node(f"h{h}", 5, h), similarity=0.0) for h in (0, 1, 2)]
    by_name = {r.node.description: r.recency for r in score(candidates, NOW, "q", weights)}
    # raw recency 1, 0.5, 0.25 -> normalised 1, 1/3, 0
    assert by_name == pytest.approx({"h0": 1.0, "h1": 1 / 3, "h2": 0.0})


def test_top_k_limits_and_empty_input() -> None:
    candidates = [ScoredNode(node=node(f"m{i}", 5, i), similarity=0.5) for i in range(10)]
    assert len(score(candidates, NOW, "q", RetrievalWeights(top_k=3))) == 3
    assert score([], NOW, "q", RetrievalWeights()) == []


@pytest.mark.parametrize("backend", ["edge", "qdrant-client local"])
def test_ablated_kinds_are_out_of_reach_inside_qdrant(backend: str, stream, tmp_path, minilm) -> None:
    """The paper's ablations: retrieval (embedded engine and qdrant-client alike) never returns
    the ablated kinds, and the candidate pool is filled with reachable memories only."""
    if backend != "edge":
        stream.store = open_store(Settings(qdrant_path=tmp_path / "local"), minilm.dim)
    about_cafe = "Isabella is at Hobbs Cafe"
    nodes = [MemoryNode(npc_id="a", kind=MemoryKind.OBSERVATION, description=f"{about_cafe} serving coffee {i}",
                        created=NOW, last_accessed=NOW) for i in range(12)]
    nodes += [MemoryNode(npc_id="a", kind=kind, description=f"{text} about Hobbs Cafe", created=NOW,
                         last_accessed=NOW)
              for kind, text in ((MemoryKind.CHAT, "a conversation with Isabella"),
                                 (MemoryKind.THOUGHT, "Isabella seems to love the cafe"),
                                 (MemoryKind.PLAN, "plan to meet Isabella"))]

    def kinds(ablate: set[str]) -> set[MemoryKind]:
        stream.weights = RetrievalWeights(top_k=3, exclude=unreachable_kinds(ablate))
        return {r.node.kind for r in asyncio.run(stream.retrieve("a", about_cafe, NOW, None))}

    try:
        asyncio.run(stream.remember("a", None, nodes, None, rate=False))
        assert kinds(set()) == {MemoryKind.OBSERVATION}  # the twelve nearest crowd out the rest at top 3
        assert kinds({"reflection", "planning"}) == {MemoryKind.OBSERVATION}
        assert kinds({"observation"}) == {MemoryKind.THOUGHT, MemoryKind.PLAN}  # conversations go with it
        assert kinds({"observation", "reflection"}) == {MemoryKind.PLAN}
        assert kinds({"observation", "planning"}) == {MemoryKind.THOUGHT}
        assert kinds({"observation", "reflection", "planning"}) == set()
    finally:
        if backend != "edge":
            stream.store.close()


def test_ablate_reads_a_comma_separated_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NPC_BRAIN_ABLATE", "reflection, planning")
    assert Settings().ablate == {"reflection", "planning"}
    assert unreachable_kinds(Settings().ablate) == {MemoryKind.THOUGHT, MemoryKind.PLAN}
    monkeypatch.setenv("NPC_BRAIN_ABLATE", "")
    assert Settings().ablate == frozenset()
    monkeypatch.setenv("NPC_BRAIN_ABLATE", "memory")
    with pytest.raises(ValueError):
        Settings()
