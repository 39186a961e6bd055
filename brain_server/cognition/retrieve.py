"""Retrieval (paper section 4.1): score = w_recency * recency + w_importance * importance
+ w_relevance * relevance, each component min-max normalised over the NPC's whole stream.

Recency decays exponentially with game hours since the memory was last accessed. Relevance is
the cosine similarity to the query. Every memory of the NPC is scored, as in the paper, but
inside Qdrant (`MemoryStore.top_scored`): the range of each component over the stream is read
first (`MemoryStore.span`: two nearest-neighbour lookups and four ordered reads of one point
each), then one query computes every similarity in the NPC's tenant and ranks all of them by
the formula, so only the top_k nodes come back to Python. `score` is the same computation in
Python: over a given set of candidates, or with the stream's ranges (`span`) when given.

Ablations (the paper's section 6 conditions, `NPC_BRAIN_ABLATE`) take memories out of reach, so
every retrieval — planning, reacting, talking, interviews — answers as an agent without them
would: whole kinds inside Qdrant (observations with conversations, plans). Thoughts are split:
"reflection" takes only the reflections, "observation" the other thoughts (conversation memos and
whispers: what was heard or told); with only one of the two, the unreachable thoughts are left out
before scoring, which then scores the rest of the stream in Python (`MemoryStream.top`).
The lab control "swap_speakers" takes nothing out of reach: it shows each speaker of a conversation
the memories retrieved for the other (`MemoryStream.heads`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from brain_server.model import paper
from brain_server.model.memory import MemoryKind, MemoryNode, ScoredNode, ScoreFormula, StreamSpan
from brain_server.model.trace import RetrievedRecord


@dataclass(frozen=True)
class RetrievalWeights:
    recency: float = paper.WEIGHT_RECENCY
    importance: float = paper.WEIGHT_IMPORTANCE
    relevance: float = paper.WEIGHT_RELEVANCE
    decay_per_hour: float = paper.DECAY_PER_HOUR
    top_k: int = paper.RETRIEVE_TOP_K
    exclude: frozenset[MemoryKind] = frozenset()  # kinds an ablation makes unreachable
    ablate: frozenset[str] = frozenset()  # the ablations, for the thoughts `exclude` cannot tell apart


SWAP_SPEAKERS = "swap_speakers"
# What each ablation takes away as whole kinds: observation also takes conversations (what was heard),
# planning the plan memories. Thoughts go by `unreachable_thought`, or whole when both of its ablations are on.
ABLATED_KINDS: dict[str, tuple[MemoryKind, ...]] = {
    "observation": (MemoryKind.OBSERVATION, MemoryKind.CHAT),
    "reflection": (),
    "planning": (MemoryKind.PLAN,),
    SWAP_SPEAKERS: (),  # a lab control, not an ablation: every memory stays reachable, in the wrong head
}
REFLECTION_PREDICATE = "reflects on"  # an insight of reflect.py, unlike a whisper or a memo


def unreachable_kinds(ablate: Iterable[str]) -> frozenset[MemoryKind]:
    """The memory kinds retrieval must not return under these ablations."""
    names = set(ablate)
    both = {"observation", "reflection"} <= names
    return frozenset(kind for name in names for kind in ABLATED_KINDS[name]) | ({MemoryKind.THOUGHT} if both else set())


def thoughts_split(ablate: frozenset[str]) -> bool:
    """Whether some thoughts are reachable and others not (one of observation, reflection ablated)."""
    return len(ablate & {"observation", "reflection"}) == 1


def unreachable_thought(node: MemoryNode, ablate: frozenset[str]) -> bool:
    """A reflection under "reflection", a memo or whisper under "observation"."""
    if node.kind is not MemoryKind.THOUGHT:
        return False
    return "reflection" in ablate if node.predicate == REFLECTION_PREDICATE else "observation" in ablate


def min_max(values: Sequence[float]) -> list[float]:
    """Scale to [0, 1]; a constant column becomes 0.5 so it neither helps nor hurts."""
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return [0.5] * len(values)
    return [(v - lo) / (hi - lo) for v in values]


def recency(now: datetime, last_accessed: datetime | float, decay_per_hour: float) -> float:
    """decay ** game hours since last access (an access in the future counts as now)."""
    seconds = (now.timestamp() - last_accessed if isinstance(last_accessed, float)
               else (now - last_accessed).total_seconds())
    return float(decay_per_hour ** (max(0.0, seconds) / 3600))


def formula(span: StreamSpan, now: datetime, w: RetrievalWeights) -> ScoreFormula:
    """The score with the stream's ranges, for Qdrant to compute (`MemoryStore.top_scored`)."""
    newest, oldest = (recency(now, t, w.decay_per_hour) for t in reversed(span.last_accessed))
    return ScoreFormula(now=now, decay_per_hour=w.decay_per_hour, recency=(w.recency, oldest, newest),
                        importance=(w.importance, *span.importance), relevance=(w.relevance, *span.similarity))


def _scaled(values: Sequence[float], bounds: tuple[float, float] | None) -> list[float]:
    """min_max over the values themselves, or over the given (lo, hi) of the whole stream."""
    if bounds is None:
        return min_max(values)
    lo, hi = bounds
    return [0.5] * len(values) if hi - lo < 1e-12 else [(v - lo) / (hi - lo) for v in values]


def score(candidates: Sequence[ScoredNode], now: datetime, query: str, w: RetrievalWeights,
          span: StreamSpan | None = None) -> list[RetrievedRecord]:
    """The top_k candidates by the paper's weighted score, best first: each component min-max
    normalised over the candidates, or over the whole stream when its `span` is given."""
    if not candidates:
        return []
    f = formula(span, now, w) if span is not None else None
    recent = _scaled([recency(now, c.node.last_accessed, w.decay_per_hour) for c in candidates],
                     f.recency[1:] if f is not None else None)
    importance = _scaled([float(c.node.importance) for c in candidates], f.importance[1:] if f is not None else None)
    relevance = _scaled([c.similarity for c in candidates], f.relevance[1:] if f is not None else None)
    records = [
        RetrievedRecord(
            node=c.node, recency=rec, importance=imp, relevance=rel, query=query,
            score=w.recency * rec + w.importance * imp + w.relevance * rel,
        )
        for c, rec, imp, rel in zip(candidates, recent, importance, relevance, strict=True)
    ]
    records.sort(key=lambda r: (-r.score, r.node.id))  # equal scores by id, as the stores rank them
    return records[: w.top_k]
