"""The memory stream (paper section 4.1): writing nodes with importance and embeddings, and
retrieving them by recency, importance and relevance, always within one NPC's own tenant."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from brain_server.cognition.retrieve import RetrievalWeights, score
from brain_server.llm.client import LLM
from brain_server.llm.embeddings import Embedder
from brain_server.memory import MemoryKind, MemoryNode
from brain_server.npc import Persona
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from brain_server.prompts.importance_batch import PROMPT as IMPORTANCE_BATCH
from brain_server.prompts.importance_batch import Ratings
from brain_server.storage.base import MemoryStore
from brain_server.trace import RetrievedRecord, Trace

# Events this mundane are scored 1 without asking the LLM, as the paper's code does for "idle".
TRIVIAL_PREDICATES = {"idle", "is idle"}
CANDIDATE_POOL = 4  # nearest neighbours fetched per query, as a multiple of top_k
DEFAULT_IMPORTANCE = 3  # when the LLM cannot rate: a little above mundane
RATED_CACHE = 50_000  # remembered observation ratings, all NPCs together


@dataclass
class MemoryStream:
    store: MemoryStore
    embedder: Embedder
    llm: LLM
    weights: RetrievalWeights
    # Ratings of observations already rated for this NPC: "Klaus Mueller is sleeping" seen again
    # tomorrow matters as much as today, and need not cost another call.
    _rated: OrderedDict[tuple[str, str], int] = field(default_factory=OrderedDict)

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
            ratings = await self._importance(npc_id, persona, nodes, trace)
            nodes = [n.model_copy(update={"importance": r}) for n, r in zip(nodes, ratings, strict=True)]
        vectors = await self.embedder.embed([n.description for n in nodes])
        await asyncio.to_thread(self.store.add, nodes, vectors)
        if trace is not None:
            trace.stored_memory_ids.extend(n.id for n in nodes)
        return list(nodes)

    async def _importance(self, npc_id: str, persona: Persona, nodes: Sequence[MemoryNode],
                          trace: Trace | None) -> list[int]:
        """Ratings for the nodes: 1 for trivial ones and the remembered rating of an observation seen
        before, without a call; the rest in one call."""
        keys = [(npc_id, n.description.strip().lower()) if n.kind is MemoryKind.OBSERVATION else None for n in nodes]
        ratings = [1 if _trivial(n) else self._rated.get(key, 0) if key else 0 for n, key in zip(nodes, keys,
                                                                                                 strict=True)]
        todo = [i for i, r in enumerate(ratings) if r == 0]
        common = {"npc_name": persona.name, "persona": persona.summary()}
        if len(todo) == 1:
            answer = await self.llm.complete(
                IMPORTANCE, {**common, "memory": nodes[todo[0]].description}, npc_id=npc_id, trace=trace,
                fallback=lambda: Importance(importance=DEFAULT_IMPORTANCE))
            ratings[todo[0]] = answer.importance
        elif todo:
            batch = await self.llm.complete(
                IMPORTANCE_BATCH,
                {**common, "count": len(todo),
                 "memories": "\n".join(f'{k}. "{nodes[i].description}"' for k, i in enumerate(todo, 1))},
                npc_id=npc_id, trace=trace, fallback=lambda: Ratings(ratings=[DEFAULT_IMPORTANCE] * len(todo)))
            given = [min(10, max(1, r)) for r in batch.ratings]
            given += [DEFAULT_IMPORTANCE] * (len(todo) - len(given))
            for i, rating in zip(todo, given, strict=False):
                ratings[i] = rating
        for i in todo:
            if keys[i]:
                self._rated[keys[i]] = ratings[i]
        while len(self._rated) > RATED_CACHE:
            self._rated.popitem(last=False)
        return ratings

    async def retrieve(
        self, npc_id: str, query: str, now: datetime, trace: Trace | None, *, kind: MemoryKind | None = None
    ) -> list[RetrievedRecord]:
        """The top memories for a query, scored as in the paper; retrieving refreshes their recency."""
        [vector] = await self.embedder.embed([query])
        candidates = await asyncio.to_thread(
            self.store.nearest, npc_id, vector, self.weights.top_k * CANDIDATE_POOL, kind, self.weights.exclude
        )
        records = score(candidates, now, query, self.weights)
        if records:
            await asyncio.to_thread(self.store.touch, npc_id, [r.node.id for r in records], now)
        if trace is not None:
            trace.retrieved.extend(records)
        return records


def _trivial(node: MemoryNode) -> bool:
    return node.object.strip().lower() in TRIVIAL_PREDICATES or node.description.strip().lower().endswith(" is idle")


def bullet_list(records: Sequence[RetrievedRecord], limit: int = 15) -> str:
    """Retrieved memories as prompt lines, oldest first so the story reads forward."""
    chosen = sorted(records[:limit], key=lambda r: r.node.created)
    return "\n".join(f"- {r.node.description}" for r in chosen) or "- (nothing comes to mind)"
