"""LLM usage per NPC and purpose and per NPC and game hour: what GetUsage and the budgets read;
and per purpose, how often the model's answers end in a fallback (`FallbackWatch`)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime
import heapq

from brain_server.model.trace import LlmCallRecord

HOURS_PER_NPC = 168  # game hours of usage kept per NPC (a game week): the earliest go first
# The fallback warning: a purpose whose latest FALLBACK_WINDOW answers fell back more than
# FALLBACK_WARN_SHARE of the time is logged once, then again only after as many answers more.
FALLBACK_WINDOW = 50
FALLBACK_WARN_SHARE = 0.10


@dataclass
class UsageCounter:
    """`calls`: completions asked of the model; `attempts` their requests (`retries` of them after
    the first); `failed_attempts` those that failed, `invalid_answers` of them because the answer
    was unusable (not JSON, the wrong schema, a refusal; or valid but unusable to the brain,
    `LLM.unusable`); `fallbacks`: answers replaced by the safe default, `not_asked` of them without
    asking (a fallback purpose, the allowance)."""

    calls: int = 0
    failed_attempts: int = 0
    fallbacks: int = 0
    attempts: int = 0
    retries: int = 0
    invalid_answers: int = 0
    not_asked: int = 0
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


class FallbackWatch:
    """Per purpose, whether each of the latest FALLBACK_WINDOW answers the model was asked for fell
    back; `answered` says when that share first exceeds FALLBACK_WARN_SHARE over a full window,
    and again only once the window has turned over since the last time."""

    def __init__(self, window: int = FALLBACK_WINDOW, share: float = FALLBACK_WARN_SHARE) -> None:
        self.window, self.share = window, share
        self._latest: dict[str, deque[bool]] = {}
        self._quiet: dict[str, int] = {}  # answers to wait before warning again, per purpose

    def answered(self, purpose: str, fell_back: bool) -> tuple[int, int] | None:
        """Counts one answer; (fallbacks, answers) of the window when it is time to warn, else None."""
        latest = self._latest.setdefault(purpose, deque(maxlen=self.window))
        latest.append(fell_back)
        return self._due(purpose, latest)

    def unusable(self, purpose: str) -> tuple[int, int] | None:
        """An answer counted as usable turned out not to be (`LLM.unusable`): the latest such, a fallback."""
        latest = self._latest.get(purpose)
        if latest is None or all(latest):
            return self.answered(purpose, True)
        latest[max(i for i, fell in enumerate(latest) if not fell)] = True
        return self._due(purpose, latest, counted=False)

    def _due(self, purpose: str, latest: deque[bool], *, counted: bool = True) -> tuple[int, int] | None:
        quiet = self._quiet.get(purpose, 0) - counted
        self._quiet[purpose] = max(quiet, 0)
        fallbacks = sum(latest)
        if quiet > 0 or len(latest) < self.window or fallbacks <= self.share * self.window:
            return None
        self._quiet[purpose] = self.window
        return fallbacks, len(latest)
