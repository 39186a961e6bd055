"""The memory stream (paper section 4.1): writing nodes with importance and embeddings, and
retrieving them by recency, importance and relevance, always within one NPC's own tenant."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from brain_server.cognition.retrieve import RetrievalWeights, score
from brain_server.llm.client import LLM
from brain_server.llm.embeddings import Embedder
from brain_server.memory import MemoryKind, MemoryNode
from brain_server.npc import Persona
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from brain_server.storage.base import MemoryStore
from brain_server.trace import RetrievedRecord, Trace

# Events this mundane are scored 1 without asking the LLM, as the paper's code does for "idle".
TRIVIAL_PREDICATES = {"idle", "is idle"}
CANDIDATE_POOL = 4  # nearest neighbours fetched per query, as a multiple of top_k


@dataclass
class MemoryStream:
    store: MemoryStore
    embedder: Embedder
    llm: LLM
    weights: RetrievalWeights

    async def remember(
        self,
        npc_id: str,
        persona: Persona,
        nodes: Sequence[MemoryNode],
        trace: Trace | None,
        *,
        rate: bool = True,
    ) -> list[MemoryNode]:
        """Rate (unless told not to), embed and store new nodes; durable once this returns."""
        if not nodes:
            return []
        if rate:
            ratings = await asyncio.gather(*(self._importance(npc_id, persona, n, trace) for n in nodes))
            nodes = [n.model_copy(update={"importance": r}) for n, r in zip(nodes, ratings, strict=True)]
        vectors = await self.embedder.embed([n.description for n in nodes])
        await asyncio.to_thread(self.store.add, nodes, vectors)
        if trace is not None:
            trace.stored_memory_ids.extend(n.id for n in nodes)
        return list(nodes)

    async def _importance(self, npc_id: str, persona: Persona, node: MemoryNode, trace: Trace | None) -> int:
        if node.object.strip().lower() in TRIVIAL_PREDICATES or node.description.strip().lower().endswith(" is idle"):
            return 1
        answer = await self.llm.complete(
            IMPORTANCE,
            {"npc_name": persona.name, "persona": persona.summary(), "memory": node.description},
            npc_id=npc_id,
            fallback=lambda: Importance(importance=3),
            trace=trace,
        )
        return answer.importance

    async def retrieve(
        self, npc_id: str, query: str, now: datetime, trace: Trace | None, *, kind: MemoryKind | None = None
    ) -> list[RetrievedRecord]:
        """The top memories for a query, scored as in the paper; retrieving refreshes their recency."""
        [vector] = await self.embedder.embed([query])
        candidates = await asyncio.to_thread(
            self.store.nearest, npc_id, vector, self.weights.top_k * CANDIDATE_POOL, kind
        )
        records = score(candidates, now, query, self.weights)
        if records:
            await asyncio.to_thread(self.store.touch, npc_id, [r.node.id for r in records], now)
        if trace is not None:
            trace.retrieved.extend(records)
        return records


def bullet_list(records: Sequence[RetrievedRecord], limit: int = 15) -> str:
    """Retrieved memories as prompt lines, oldest first so the story reads forward."""
    chosen = sorted(records[:limit], key=lambda r: r.node.created)
    return "\n".join(f"- {r.node.description}" for r in chosen) or "- (nothing comes to mind)"
