"""Prometheus metrics, served at /metrics on the HTTP port (transport/connect_http.py).

Counters and histograms that are updated where things happen (RPCs per transport, LLM calls and
tokens, store calls) live in one registry for the process; what the core already keeps (the LLM
queues per class, allowance refusals, NPCs cached, event-loop lateness, collector pauses) is read
when scraped, from `CoreCollector`. Updating a series costs a few microseconds, so the Decide
path stays cheap: each meter binds its labels once, not per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
import time
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.registry import Collector

from brain_server.runtime.vitals import Series

if TYPE_CHECKING:
    from brain_server.api.service import BrainCore
    from brain_server.llm.spending import Ceilings, Spend
    from brain_server.persistence.storage.base import MemoryStore

__all__ = ["CONTENT_TYPE_LATEST", "CoreCollector", "RpcMeter", "exposition", "instrument_store", "llm_attempts",
           "llm_call"]

METRIC_TENANTS = 20  # tenants labelled by name in /metrics; the rest are summed as one
OTHER_TENANTS = "~other"  # that one's label: no tenant id has a "~"
PROCESS = CollectorRegistry()
for _collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):  # memory, CPU, file descriptors, GC
    PROCESS.register(_collector)

_FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_SLOW = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
RPCS = Counter("npc_brain_rpcs", "RPCs answered, by transport, method and status code.",
               ["transport", "method", "code"], registry=PROCESS)
RPC_SECONDS = Histogram("npc_brain_rpc_duration_seconds", "Time from a decoded request to its answer, by transport "
                        "and method.", ["transport", "method"], buckets=_FAST, registry=PROCESS)
LLM_CALLS = Counter("npc_brain_llm_calls", "LLM completions by purpose and outcome: answered (by the model), "
                    "fallback (attempts spent, the safe default used), not_asked (fallback purpose or over the "
                    "allowance).", ["purpose", "outcome"], registry=PROCESS)
LLM_FAILED_ATTEMPTS = Counter("npc_brain_llm_failed_attempts", "LLM attempts that failed (retried or fallen back).",
                              ["purpose"], registry=PROCESS)
LLM_ATTEMPTS = Counter("npc_brain_llm_attempts", "LLM requests made (a completion's first attempt and its "
                       "retries), by purpose.", ["purpose"], registry=PROCESS)
LLM_RETRIES = Counter("npc_brain_llm_retries", "LLM requests that asked again after a failed attempt, by purpose.",
                      ["purpose"], registry=PROCESS)
LLM_INVALID = Counter("npc_brain_llm_invalid_answers", "LLM answers the brain could not use (not JSON, the wrong "
                      "schema, a refusal, or valid but unusable: a choice not offered), by purpose.", ["purpose"],
                      registry=PROCESS)
LLM_FALLBACKS = Counter("npc_brain_llm_fallbacks", "Safe defaults used in place of an LLM answer (attempts spent, "
                        "an unusable answer, or not asked), by purpose.", ["purpose"], registry=PROCESS)
LLM_TOKENS = Counter("npc_brain_llm_tokens", "Tokens the LLM endpoint reported, by kind (prompt, completion).",
                     ["kind"], registry=PROCESS)
LLM_SECONDS = Histogram("npc_brain_llm_call_duration_seconds", "Time of an LLM call with its retries and queue "
                        "wait, by purpose.", ["purpose"], buckets=_SLOW, registry=PROCESS)
STORE_SECONDS = Histogram("npc_brain_store_duration_seconds", "Time of a memory store call, by operation.",
                          ["operation"], buckets=_FAST, registry=PROCESS)
CONVERSATION_REPAIRS = Counter("npc_brain_conversation_repairs", "What the brain set right in conversations a model "
                               "wrote, by kind: repeated_line_asked_again, repeated_line_dropped (a line repeating its "
                               "speaker's), gist_line_dropped (a one-call line naming what only another knew), "
                               "memo_kept_to_gist (a memo naming what was not said), memo_place_unsaid (a memo placing an event where "
                               "nobody said it was), greetings (a one-call "
                               "conversation the model could not tell).", ["kind"], registry=PROCESS)
STORE_ERRORS = Counter("npc_brain_store_errors", "Memory store calls that raised, by operation.", ["operation"],
                       registry=PROCESS)


class RpcMeter:
    """One method's series on one transport, labels bound once."""

    def __init__(self, transport: str, method: str) -> None:
        self._labels = (transport, method)
        self._seconds = RPC_SECONDS.labels(transport, method)
        self._codes: dict[str, Any] = {}

    def done(self, started: float, code: str = "ok") -> None:
        """One RPC answered with `code`, `started` at time.perf_counter()."""
        self._seconds.observe(time.perf_counter() - started)
        self._count(code)

    def _count(self, code: str) -> None:
        counter = self._codes.get(code)
        if counter is None:
            counter = self._codes[code] = RPCS.labels(*self._labels, code)
        counter.inc()


def llm_call(purpose: str, outcome: str, seconds: float | None, prompt_tokens: int, completion_tokens: int) -> None:
    LLM_CALLS.labels(purpose, outcome).inc()
    if seconds is not None:
        LLM_SECONDS.labels(purpose).observe(seconds)
    if prompt_tokens:
        LLM_TOKENS.labels("prompt").inc(prompt_tokens)
    if completion_tokens:
        LLM_TOKENS.labels("completion").inc(completion_tokens)


def llm_attempts(purpose: str, attempts: int) -> None:
    """One completion's requests: the first and its retries."""
    LLM_ATTEMPTS.labels(purpose).inc(attempts)
    if attempts > 1:
        LLM_RETRIES.labels(purpose).inc(attempts - 1)


def instrument_store(store: MemoryStore) -> MemoryStore:
    """`store` with each call of the storage interface timed (the same object, its methods wrapped)."""
    from brain_server.persistence.storage.base import MemoryStore

    for name in sorted(MemoryStore.__abstractmethods__ - {"close"}):
        setattr(store, name, _timed(name, getattr(store, name)))
    return store


def _timed(operation: str, call: Callable[..., Any]) -> Callable[..., Any]:
    seconds, errors = STORE_SECONDS.labels(operation), STORE_ERRORS.labels(operation)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return call(*args, **kwargs)
        except Exception:
            errors.inc()
            raise
        finally:
            seconds.observe(time.perf_counter() - started)

    return timed


class CoreCollector(Collector):
    """What one core keeps itself, read at scrape time (on the mind's loop: its state is not shared)."""

    def __init__(self, core: BrainCore) -> None:
        self.core = core

    def collect(self) -> Iterator[Metric]:
        core, scheduler = self.core, self.core.llm.scheduler
        waiting = GaugeMetricFamily("npc_brain_llm_queue_waiting", "LLM completions waiting for a slot, by class.",
                                    labels=["priority"])
        running = GaugeMetricFamily("npc_brain_llm_queue_running", "LLM completions running, by class.",
                                    labels=["priority"])
        dropped = CounterMetricFamily("npc_brain_llm_queue_dropped", "Work dropped before its completion ran, "
                                      "by class and reason (stale when its turn came, or its queue full).",
                                      labels=["priority", "reason"])
        waits = SummaryMetricFamily("npc_brain_llm_queue_wait_seconds", "Time a completion waited for its slot, "
                                    "by class.", labels=["priority"])
        recent = GaugeMetricFamily("npc_brain_llm_queue_wait_recent_seconds", "Recent queue waits' percentiles, "
                                   "by class.", labels=["priority", "quantile"])
        for report in scheduler.report():
            priority = report.priority.name.lower()
            waiting.add_metric([priority], report.waiting)
            running.add_metric([priority], report.running)
            dropped.add_metric([priority, "stale"], report.dropped_stale)
            dropped.add_metric([priority, "full"], report.dropped_full)
            series = scheduler.stats[report.priority].waits
            waits.add_metric([priority], series.count, series.total_ms / 1000)
            recent.add_metric([priority, "0.5"], report.wait_p50_ms / 1000)
            recent.add_metric([priority, "0.99"], report.wait_p99_ms / 1000)
        yield from (waiting, running, dropped, waits, recent)
        yield CounterMetricFamily("npc_brain_llm_refused", "LLM calls refused by the per-hour allowance (answered "
                                  "by their fallback).", value=core.llm.allowance.refused)
        yield from tenant_families(core.llm.ceilings)
        towns = core.towns
        yield CounterMetricFamily("npc_brain_towns_slept", "Tenants' towns put to sleep after NPC_BRAIN_TENANT_IDLE_S "
                                  "without a call (saved and let go from memory).", value=towns.slept)
        yield CounterMetricFamily("npc_brain_towns_restored", "Sleeping towns restored by their tenant's next call.",
                                  value=towns.restored)
        yield GaugeMetricFamily("npc_brain_towns_asleep", "Tenants' towns asleep now.", value=towns.asleep())
        yield CounterMetricFamily("npc_brain_towns_sleep_seconds", "Time the towns' sleeps took, in all.",
                                  value=towns.unload_s)
        yield CounterMetricFamily("npc_brain_towns_sleep_npcs", "NPCs of the towns' sleeps, in all (ms per NPC to "
                                  "unload: the seconds over these).", value=towns.unloaded_npcs)
        yield CounterMetricFamily("npc_brain_towns_restore_seconds", "Time the calls that woke a town waited for "
                                  "it (a sleep under way), in all; its NPCs are read by their first calls.",
                                  value=towns.restore_s)
        yield GaugeMetricFamily("npc_brain_npcs_cached", "NPCs held in memory (NPC_CACHE bounds them).",
                                value=core.records.cached_npcs())
        yield _summary("npc_brain_event_loop_late_seconds", "How late the mind's event loop woke for its ticks.",
                       core.vitals.loop_late)
        yield _summary("npc_brain_gc_pause_seconds", "Garbage collector pauses of 1 ms or more.", core.vitals.gc_pauses)
        yield _summary("npc_brain_gc_cpu_seconds", "CPU time of every garbage collection (the collecting thread's: "
                       "what it walked, whatever the machine's load).", core.vitals.gc_cpu)
        gc_cpu = core.vitals.gc_cpu.spread()
        recent = GaugeMetricFamily("npc_brain_gc_cpu_recent_seconds", "Recent collections' CPU time: p99 and the "
                                   "longest.", labels=["quantile"])
        recent.add_metric(["0.99"], gc_cpu.p99_ms / 1000)
        recent.add_metric(["1"], gc_cpu.max_ms / 1000)
        yield recent
        yield from _by_generation(core.vitals.gc_cpu_by_generation)


def _by_generation(series: Sequence[Series]) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
    """Collections and their CPU by generation (0 young, 1 middle, 2 full), counted since the brain
    settled its collector (start-up's own full collections are not the town's)."""
    count = CounterMetricFamily("npc_brain_gc_collections", "Garbage collections by generation.",
                                labels=["generation"])
    cpu = CounterMetricFamily("npc_brain_gc_generation_cpu_seconds", "CPU time of garbage collections by generation.",
                              labels=["generation"])
    longest = GaugeMetricFamily("npc_brain_gc_generation_cpu_longest_seconds", "The longest recent collection's CPU "
                                "time by generation.", labels=["generation"])
    for generation, kept in enumerate(series):
        count.add_metric([str(generation)], kept.count)
        cpu.add_metric([str(generation)], kept.total_ms / 1000)
        longest.add_metric([str(generation)], kept.spread().max_ms / 1000)
    yield from (count, cpu, longest)


def tenant_families(ceilings: Ceilings) -> Iterator[GaugeMetricFamily]:
    """Each tenant's spend in its current window and on its current game day: the METRIC_TENANTS that
    spent most by name (ranked apart for each), the rest summed as one label (a label per tenant would
    be a series per player)."""
    yield from _spends("npc_brain_tenant", "the tenant's current window (NPC_BRAIN_TENANT_WINDOW_S)",
                       ceilings.top(METRIC_TENANTS))
    if ceilings.per_game_day.any:
        days = {tenant: today[1] for tenant, _, today in ceilings.standings() if today is not None}
        yield from _spends("npc_brain_tenant_game_day", "the tenant's current game day (the latest it sent; "
                           "NPC_BRAIN_TENANT_*_PER_GAME_DAY)", ceilings.top(METRIC_TENANTS, days))


def _spends(prefix: str, span: str, ranked: tuple[list[tuple[str, Spend]], Spend | None]) -> Iterator[GaugeMetricFamily]:
    families = {what: GaugeMetricFamily(f"{prefix}_{what}", f"{doc} in {span}: the {METRIC_TENANTS} top tenants, "
                                        f"the rest as tenant=\"{OTHER_TENANTS}\".", labels=["tenant"])
                for what, doc in (("llm_calls", "LLM calls made"), ("llm_tokens", "LLM tokens (prompt and completion)"),
                                  ("llm_cost", "What its LLM tokens cost at NPC_BRAIN_LLM_PRICE_*_PER_M"),
                                  ("llm_refused", "LLM calls refused for being over a ceiling"))}
    top, rest = ranked
    for tenant, spend in top + ([(OTHER_TENANTS, rest)] if rest is not None else []):
        families["llm_calls"].add_metric([tenant], spend.calls)
        families["llm_tokens"].add_metric([tenant], spend.prompt_tokens + spend.completion_tokens)
        families["llm_cost"].add_metric([tenant], spend.cost)
        families["llm_refused"].add_metric([tenant], spend.refused)
    yield from families.values()


def _summary(name: str, documentation: str, series: Series) -> SummaryMetricFamily:
    return SummaryMetricFamily(name, documentation, count_value=series.count, sum_value=series.total_ms / 1000)


def exposition(core: BrainCore) -> Callable[[], bytes]:
    """The /metrics body for `core`: the process's series and the core's."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(CoreCollector(core))

    def text() -> bytes:
        return generate_latest(PROCESS) + generate_latest(registry)

    return text
