"""The memory stream's node: what an NPC observed, thought, planned or said (paper section 4.1)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
import re
import uuid

from pydantic import BaseModel, Field, model_validator


class MemoryKind(StrEnum):
    OBSERVATION = "observation"
    THOUGHT = "thought"
    CHAT = "chat"
    PLAN = "plan"


OWN = "thinks"  # the predicate of a thought the NPC holds as its own (a whisper: the paper's seeded intent)
# A conversation's lines, left out where the NPC looks back on what happened (reflection, an interview),
# as in the paper's code, which retrieves events and thoughts and keeps a chat there by its summary: the
# memo, a thought citing the conversation, stands for it.
TRANSCRIPTS = frozenset({MemoryKind.CHAT})

# The stamp every prompt leads a memory with (`memory_stream.memory_line`: "[Wednesday April 15, 07:00]"),
# in whatever date and clock style the prompt set shows it (prompts/style.py: "[Wednesday, 15 April, 7:00
# am]"): brackets around a weekday and a figure, nothing else.
_STAMP = re.compile(r"\[(?=[^\[\]\n]{0,60}\d)(?=[^\[\]\n]{0,60}\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b)"
                    r"[^\[\]\n]{1,60}\]\s*")


def unstamped(text: str) -> str:
    """`text` without the stamps prompts lead memories with, which a model copied into what it wrote
    ("Ilsa knows that [Wednesday April 15, 07:00] Ilsa wants to hold ... on April 16", or a line of
    dialogue led by one): read literally, the first date in a sentence is its event's, and a day
    already gone is no news; and nobody says a stamp aloud."""
    return _STAMP.sub("", text)


def held_as_own(name: str, node: MemoryNode) -> bool:
    """Whether a memory is a thought `name` holds as its own (`OWN`): the seeded intent of an event
    it hosts, not one it heard of."""
    return node.kind is MemoryKind.THOUGHT and node.predicate == OWN and node.subject == name


_MEMORY_NS = uuid.UUID("0b7f5f0e-52a4-4c43-9d4e-8f6d3a7c2e91")


class MemoryNode(BaseModel):
    """One node of an NPC's memory stream; times are game times (timezone-aware UTC).

    Its id, unless given, is derived from what it is (NPC, kind, time, words, evidence): the same
    run makes the same ids, so retrieval ties (broken by id) fall the same way and a lockstep run
    repeats exactly; the same memory stored twice is one memory."""

    id: str = ""
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
    # What its vector is made from when not the whole description (the paper's code calls it the
    # embedding key): a block's steps are embedded by the block's header, since the list of steps
    # after it is most of the embedder's work and adds little a retrieval asks for.
    embedding_key: str = ""

    @property
    def embedded_text(self) -> str:
        return self.embedding_key or self.description

    @model_validator(mode="after")
    def _derive_id(self) -> MemoryNode:
        if not self.id:
            what = "\x1f".join([self.npc_id, self.kind, self.created.isoformat(), self.subject, self.predicate,
                                self.object, self.description, *self.evidence_ids])
            self.id = str(uuid.uuid5(_MEMORY_NS, what))
        return self


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
