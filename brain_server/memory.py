"""The memory stream's node: what an NPC observed, thought, planned or said (paper section 4.1)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
import uuid

from pydantic import BaseModel, Field


class MemoryKind(StrEnum):
    OBSERVATION = "observation"
    THOUGHT = "thought"
    CHAT = "chat"
    PLAN = "plan"


class MemoryNode(BaseModel):
    """One node of an NPC's memory stream; times are game times (timezone-aware UTC)."""

    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    npc_id: str
    kind: MemoryKind
    description: str
    subject: str = ""
    predicate: str = ""
    object: str = ""
    importance: int = Field(default=1, ge=1, le=10)
    created: datetime
    last_accessed: datetime
    keywords: list[str] = Field(default_factory=list)
    evidence_ids: list[str] = Field(default_factory=list)


class ScoredNode(BaseModel):
    """A node with its cosine similarity to a query vector, as the vector store ranked it."""

    node: MemoryNode
    similarity: float


@dataclass(frozen=True)
class StreamSpan:
    """The range of each retrieval component over an NPC's whole reachable stream (for a query):
    what the paper's min-max normalisation divides by. Times are UTC epoch seconds."""

    count: int
    similarity: tuple[float, float]
    importance: tuple[float, float]
    last_accessed: tuple[float, float]


@dataclass(frozen=True)
class ScoreFormula:
    """The paper's retrieval score, for Qdrant to compute over the whole stream:
    w_recency * norm(decay ** (hours since last access, at least 0)) + w_importance * norm(importance)
    + w_relevance * norm(cosine similarity), each norm(x) = (x - lo) / (hi - lo) over the stream,
    or 0.5 where the stream has one value (`retrieve.min_max`)."""

    now: datetime
    decay_per_hour: float
    recency: tuple[float, float, float]  # (weight, lo, hi) of the raw component
    importance: tuple[float, float, float]
    relevance: tuple[float, float, float]
