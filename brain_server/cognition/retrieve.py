"""Retrieval (paper section 4.1): score = w_recency * recency + w_importance * importance
+ w_relevance * relevance, each component min-max normalised over the candidates.

Recency decays exponentially with game hours since the memory was last accessed. Relevance is
the cosine similarity Qdrant computed inside the NPC's own tenant. Candidates are the query's
nearest neighbours (a pool several times top_k), so the scan stays inside Qdrant's index.

Ablations (the paper's section 6 conditions, `NPC_BRAIN_ABLATE`) take whole memory kinds out of
reach: Qdrant never returns them, so every retrieval — planning, reacting, talking, interviews —
answers as an agent without those memories would.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from brain_server.memory import MemoryKind, ScoredNode
from brain_server.trace import RetrievedRecord


@dataclass(frozen=True)
class RetrievalWeights:
    recency: float = 1.0
    importance: float = 1.0
    relevance: float = 1.0
    decay_per_hour: float = 0.995
    top_k: int = 30
    exclude: frozenset[MemoryKind] = frozenset()  # kinds an ablation makes unreachable


# What each ablation takes away: observation also takes conversations (what was heard), reflection
# the thoughts (reflections and conversation memos), planning the plan memories.
ABLATED_KINDS: dict[str, tuple[MemoryKind, ...]] = {
    "observation": (MemoryKind.OBSERVATION, MemoryKind.CHAT),
    "reflection": (MemoryKind.THOUGHT,),
    "planning": (MemoryKind.PLAN,),
}


def unreachable_kinds(ablate: Iterable[str]) -> frozenset[MemoryKind]:
    """The memory kinds retrieval must not return under these ablations."""
    return frozenset(kind for name in ablate for kind in ABLATED_KINDS[name])


def min_max(values: Sequence[float]) -> list[float]:
    """Scale to [0, 1]; a constant column becomes 0.5 so it neither helps nor hurts."""
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return [0.5] * len(values)
    return [(v - lo) / (hi - lo) for v in values]


def score(candidates: Sequence[ScoredNode], now: datetime, query: str, w: RetrievalWeights) -> list[RetrievedRecord]:
    """The top_k candidates by the paper's weighted score, best first."""
    if not candidates:
        return []
    hours = [max(0.0, (now - c.node.last_accessed).total_seconds() / 3600) for c in candidates]
    recency = min_max([w.decay_per_hour**h for h in hours])
    importance = min_max([float(c.node.importance) for c in candidates])
    relevance = min_max([c.similarity for c in candidates])
    records = [
        RetrievedRecord(
            node=c.node, recency=rec, importance=imp, relevance=rel, query=query,
            score=w.recency * rec + w.importance * imp + w.relevance * rel,
        )
        for c, rec, imp, rel in zip(candidates, recency, importance, relevance, strict=True)
    ]
    records.sort(key=lambda r: r.score, reverse=True)
    return records[: w.top_k]
