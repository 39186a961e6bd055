"""Retrieval scoring: the paper's weighted sum of min-max normalised recency, importance, relevance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from brain_server.cognition.retrieve import RetrievalWeights, min_max, score
from brain_server.memory import MemoryKind, MemoryNode, ScoredNode

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
