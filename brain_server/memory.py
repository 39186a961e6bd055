"""The memory stream's node: what an NPC observed, thought, planned or said (paper section 4.1)."""

from __future__ import annotations

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
