"""Ceilings on LLM calls per game hour, per NPC and for the whole town: what a studio budgets.

A call over a ceiling is not made: its caller gets the purpose's fallback, the coarser answer
(a routine day, a block as one step, carrying on instead of reacting, a default rating), so an
NPC thinks less but never stops. Work a person waits for (the player class: Talk, Interview,
Whisper) is never refused, and counts toward nothing: what the player sees is not cut.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from typing import TypeVar

from brain_server.llm.scheduler import Priority

NPC_HOURS_KEPT = 50_000  # (NPC, game hour) counts kept, the oldest forgotten first: ids and hours are callers'
TOWN_HOURS_KEPT = 48
K = TypeVar("K")


class Allowance:
    """Counts calls per (NPC, game hour) and per game hour as they start; 0 means no ceiling."""

    def __init__(self, per_npc_hour: int = 0, per_hour: int = 0) -> None:
        self.per_npc_hour = per_npc_hour
        self.per_hour = per_hour
        self.refused = 0
        self._npc: OrderedDict[tuple[str, datetime], int] = OrderedDict()
        self._town: OrderedDict[datetime, int] = OrderedDict()

    def take(self, npc_id: str, game_time: datetime, priority: Priority) -> str | None:
        """Count one call, or say why it is over a ceiling (then it is not counted)."""
        if priority is Priority.PLAYER or not (self.per_npc_hour or self.per_hour):
            return None
        hour = game_time.replace(minute=0, second=0, microsecond=0)
        npc_calls, town_calls = self._npc.get((npc_id, hour), 0), self._town.get(hour, 0)
        if self.per_npc_hour and npc_calls >= self.per_npc_hour:
            self.refused += 1
            return (f"over NPC_BRAIN_LLM_CALLS_PER_NPC_HOUR: {npc_id} made {npc_calls} calls in the game hour "
                    f"from {hour:%H:%M}")
        if self.per_hour and town_calls >= self.per_hour:
            self.refused += 1
            return f"over NPC_BRAIN_LLM_CALLS_PER_HOUR: the town made {town_calls} calls in the game hour from {hour:%H:%M}"
        _bump(self._npc, (npc_id, hour), NPC_HOURS_KEPT)
        _bump(self._town, hour, TOWN_HOURS_KEPT)
        return None


def _bump(counts: OrderedDict[K, int], key: K, kept: int) -> None:
    counts[key] = counts.get(key, 0) + 1
    counts.move_to_end(key)
    while len(counts) > kept:
        counts.popitem(last=False)
