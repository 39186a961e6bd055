"""LLM usage per NPC and purpose and per NPC and game hour: what GetUsage and the budgets read."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
import heapq

from brain_server.trace import LlmCallRecord

HOURS_PER_NPC = 168  # game hours of usage kept per NPC (a game week): the earliest go first


@dataclass
class UsageCounter:
    calls: int = 0
    failed_attempts: int = 0
    fallbacks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_latency_ms: float = 0.0

    def add(self, call: LlmCallRecord, *, calls: int = 0) -> None:
        self.calls += calls
        self.fallbacks += call.fallback_used
        self.prompt_tokens += call.prompt_tokens
        self.completion_tokens += call.completion_tokens
        self.total_latency_ms += call.latency_ms


class Usage:
    """LLM usage per (npc_id, purpose) and per (npc_id, game hour): the cost that matters. The game
    hours are the caller's to send, so each NPC keeps its latest HOURS_PER_NPC of them."""

    def __init__(self) -> None:
        self.counters: dict[tuple[str, str], UsageCounter] = {}
        self.hourly: dict[tuple[str, datetime], UsageCounter] = {}
        self._hours: dict[str, list[datetime]] = {}  # each NPC's hours in self.hourly, a heap (earliest first)

    def counter(self, npc_id: str, purpose: str) -> UsageCounter:
        return self.counters.setdefault((npc_id, purpose), UsageCounter())

    def hour(self, npc_id: str, game_time: datetime) -> UsageCounter:
        key = (npc_id, game_time.replace(minute=0, second=0, microsecond=0))
        counter = self.hourly.get(key)
        if counter is None:
            counter = self.hourly[key] = UsageCounter()
            hours = self._hours.setdefault(npc_id, [])
            heapq.heappush(hours, key[1])
            if len(hours) > HOURS_PER_NPC:
                del self.hourly[(npc_id, heapq.heappop(hours))]
        return counter

    def total_calls(self) -> int:
        return sum(c.calls for c in self.counters.values())
