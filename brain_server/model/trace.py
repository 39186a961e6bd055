"""Decision traces: what each decision retrieved, asked the LLM, got back and stored.

Traces are how users debug NPCs with gRPC tooling (`GetTrace`); the last few per NPC are kept
in memory, bounded, since they are diagnostics rather than state the NPC needs to continue. A
trace goes wherever its work goes, so it also carries that work's logger (`Trace.log`): the ids
travel with the work itself, not in a context a task or a thread hop may lose or mix up.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from datetime import UTC, datetime
import random

from pydantic import BaseModel, Field
import structlog

from brain_server.model.memory import MemoryNode
from brain_server.model.npc import Action


class RetrievedRecord(BaseModel):
    node: MemoryNode
    recency: float
    importance: float
    relevance: float
    score: float
    query: str


class LlmCallRecord(BaseModel):
    purpose: str
    model: str
    messages: list[dict[str, str]]
    raw_completion: str = ""
    parsed_json: str = ""
    attempts: int = 0
    fallback_used: bool = False
    errors: list[str] = Field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0


def trace_id() -> str:
    """A fresh id of 32 hex digits. Not uuid4: its random bytes come from a system call, and the
    thread answering a Decide waits for the interpreter again after each one (server.py)."""
    return f"{random.getrandbits(128):032x}"


class Trace(BaseModel):
    trace_id: str = Field(default_factory=trace_id)
    npc_id: str
    kind: str
    game_time: datetime
    wall_time: datetime = Field(default_factory=lambda: datetime.now(UTC))
    retrieved: list[RetrievedRecord] = Field(default_factory=list)
    llm_calls: list[LlmCallRecord] = Field(default_factory=list)
    stored_memory_ids: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    action: Action | None = None

    def note(self, text: str) -> None:
        self.notes.append(text)

    @property
    def log(self) -> structlog.typing.FilteringBoundLogger:
        """A logger whose every line carries this trace's `npc_id` and `trace_id` (the id GetTrace takes)."""
        logger: structlog.typing.FilteringBoundLogger = structlog.get_logger().bind(npc_id=self.npc_id,
                                                                                    trace_id=self.trace_id)
        return logger


class TraceBook:
    """The last `per_npc` traces of every NPC, by id and by NPC, and at most `total` in all: a
    trace holds whole prompts and completions (tens of KB), so a thousand NPCs' worth of the
    per-NPC bound would be gigabytes. The oldest trace overall goes first."""

    def __init__(self, per_npc: int, total: int | None = None) -> None:
        self._per_npc = per_npc
        self._total = total or per_npc * 1000
        self._by_id: OrderedDict[str, Trace] = OrderedDict()
        self._by_npc: dict[str, deque[str]] = {}

    def add(self, trace: Trace) -> None:
        ids = self._by_npc.setdefault(trace.npc_id, deque())
        ids.append(trace.trace_id)
        self._by_id[trace.trace_id] = trace
        while len(ids) > self._per_npc:
            self._by_id.pop(ids.popleft(), None)
        while len(self._by_id) > self._total:
            _, oldest = self._by_id.popitem(last=False)
            self._by_npc[oldest.npc_id].popleft()  # an NPC's oldest trace is the first of its own

    def get(self, trace_id: str) -> Trace | None:
        return self._by_id.get(trace_id)

    def drop(self, npc_ids: list[str]) -> None:
        """These NPCs' traces let go (their town sleeps: api/towns.py)."""
        for npc_id in npc_ids:
            for trace_id in self._by_npc.pop(npc_id, ()):
                self._by_id.pop(trace_id, None)

    def latest(self, npc_id: str) -> Trace | None:
        ids = self._by_npc.get(npc_id)
        return self._by_id.get(ids[-1]) if ids else None
