"""The storage interface: one Qdrant collection of memories for all NPCs, plus small records.

Memories carry an embedding and are always filtered by their tenant key `npc_id` inside Qdrant.
Records (the world, each NPC's persona and state) are JSON documents keyed by (kind, key), so
that everything needed to continue after a restart lives in the same store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from brain_server.model.errors import BrainError, Status
from brain_server.model.memory import MemoryKind, MemoryNode, ScoredNode, ScoreFormula, StreamSpan


class StoreLockedError(RuntimeError):
    """The store's files are held by another process (embedded engines allow one owner)."""


class StoreUnavailable(BrainError):
    """A store server that went away: the RPC answers `unavailable`; a later call reconnects."""

    def __init__(self, store: str, reason: str) -> None:
        super().__init__(Status.UNAVAILABLE, f"the memory store ({store}) {reason}; try again when it is back")
        self.reason = reason


# Memories that may be stored between counting a stream and scoring it (perceptions land meanwhile):
# an exhaustive read of a stream asks for this many more than it counted, so it still covers it all.
PREFETCH_SLACK = 256


class MemoryStore(ABC):
    """Narrow interface the cognition modules use; backends: embedded Qdrant Edge, qdrant-client."""

    dim: int
    # Whether retrieval should score the stream in Python from one exhaustive search (a store that is
    # itself brute force in Python, where formula queries and ordered reads each rescan every point).
    scores_in_python: bool = False

    @abstractmethod
    def add(self, nodes: Sequence[MemoryNode], vectors: Sequence[Sequence[float]]) -> None:
        """Store nodes with their embeddings; durable once this returns."""

    @abstractmethod
    def get(self, npc_id: str, ids: Sequence[str]) -> list[MemoryNode]:
        """Nodes of this NPC with these ids (missing ids are skipped)."""

    @abstractmethod
    def nearest(
        self, npc_id: str, vector: Sequence[float], limit: int, kind: MemoryKind | None = None,
        exclude: Collection[MemoryKind] = (), ids: Sequence[str] = (),
    ) -> list[ScoredNode]:
        """This NPC's nodes most similar to vector (cosine), most similar first; `exclude` kinds
        are filtered out inside Qdrant (the ablations), so `limit` counts only reachable nodes;
        `ids`, if given, limits the search to those nodes. Exact (no approximate index)."""

    @abstractmethod
    def span(self, npc_id: str, vector: Sequence[float], kind: MemoryKind | None = None,
             exclude: Collection[MemoryKind] = ()) -> StreamSpan | None:
        """How many nodes are reachable and each retrieval component's range over them (None if none)."""

    @abstractmethod
    def top_scored(self, npc_id: str, vector: Sequence[float], formula: ScoreFormula, limit: int, count: int,
                   kind: MemoryKind | None = None, exclude: Collection[MemoryKind] = ()) -> list[ScoredNode]:
        """The `limit` reachable nodes with the best `formula` score, computed inside Qdrant over
        all `count` of them (every similarity, then the formula), best first; each ScoredNode
        carries the node's cosine similarity to `vector`, not the formula's score."""

    @abstractmethod
    def latest(self, npc_id: str, limit: int, kind: MemoryKind | None = None) -> list[MemoryNode]:
        """This NPC's newest nodes by creation game time, newest first, those made at the same time by id."""

    @abstractmethod
    def touch(self, npc_id: str, ids: Sequence[str], when: datetime) -> None:
        """Set last_accessed of these nodes (retrieval refreshes recency)."""

    @abstractmethod
    def set_importance(self, npc_id: str, ratings: dict[str, int]) -> None:
        """Replace the importance of these nodes (ratings made after the nodes were stored)."""

    @abstractmethod
    def count(self, npc_id: str) -> int:
        """Number of nodes of this NPC."""

    @abstractmethod
    def dump(self, npc_id: str) -> tuple[list[MemoryNode], list[list[float]]]:
        """Every node of this NPC with its embedding, in no set order (a save game)."""

    @abstractmethod
    def forget(self, npc_id: str) -> None:
        """Delete every node of this NPC; durable once this returns."""

    @abstractmethod
    def put_record(self, kind: str, key: str, data: dict[str, Any]) -> None:
        """Store (replace) a JSON record; durable once this returns."""

    @abstractmethod
    def put_records(self, kind: str, records: dict[str, str]) -> None:
        """Store (replace) records by key in one write (a round of records written behind), each
        given as its JSON text (the text the brain already made to tell whether it changed);
        durable once this returns."""

    @abstractmethod
    def get_record(self, kind: str, key: str) -> dict[str, Any] | None:
        """The record, or None."""

    @abstractmethod
    def delete_record(self, kind: str, key: str) -> None:
        """Delete a record (none: nothing happens); durable once this returns."""

    @abstractmethod
    def list_records(self, kind: str) -> list[dict[str, Any]]:
        """All records of a kind."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the store (the embedded engine holds an exclusive lock)."""
