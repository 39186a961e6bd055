"""Load test on loopback: N NPCs (the Ville's 25 residents repeated) call Decide concurrently for a
fixed time per transport, against a brain started here with the fake LLM (`npc_lab/fake_openai.py`).
Reports errors by status, latency percentiles, throughput and the brain's RSS sampled over the run
with a "memory flat" verdict; prints a table and writes JSON.

    .venv/bin/python -m tools.loadtest --npcs 1000 --seconds 60 --transports grpc,connect --out runs/loadtest.json

Each NPC's day is planned first: its first Decide at 08:00 (answered at once, provisionally)
starts its plan in the background, and the load waits until the brain's plan_now queue is empty.
Then a game clock starts at 08:00, running --time-scale game seconds per wall second across the
transports, and per transport every NPC runs its own loop as Godot drives it: its first call
after its own share of --start-spread wall seconds (NpcBrainAgent.start_spread_s), then Decide at
the clock's time, wait until the time it was told to ask again (askAgainAt; at least --pause and
at most --max-wait wall seconds), again. The fake endpoint runs in a process of its own
(`FakeProcess`), as a real one does. At most --concurrency calls
are in flight, each with Godot's 15 s deadline. Decides carry no perceptions: this measures the
decision path (plan steps, each hour's block decomposed in the background) and the transports,
not embedding throughput; answers that are provisional (the NPC still thinking) are counted.
This client is Python too: during each phase its collector is settled as the brain's
(`npc_lab.realtime.Collector`), since its own pauses, which a game's engine does not have, read
as the brain's latency (at Python's defaults, a full collection of up to 200 ms stalled every call
in flight); its loop lag and longest pause are reported beside the brain's.
The brain keeps --traces-per-npc traces per NPC, so that this bounded cache fills early in the run
and "memory flat" speaks of everything else.
With --batch N the NPCs' Decides go as the addon sends them (`NpcBrainClient.decide`): those due
within one frame (--frame, 1/60 s) gathered into DecideBatch calls of at most N, at most
--batch-lanes of them in flight; each Decide's latency runs from when it was due (the wait for its
frame included) to its answer. Reported beside the latencies: the brain's CPU per Decide, and the
LLM calls per game hour against the endpoint's capacity (NPC_BRAIN_LLM_MAX_CONCURRENCY completions
in flight, each taking --llm-latency).

    .venv/bin/python -m tools.loadtest --npcs 10000 --batch 250 --seconds 60 --llm-latency 2 --transports grpc,connect

With --replicas N (2-4) the brains are N processes sharing one store (tools/qdrant_standin.py, in
a process of its own: a test double of Qdrant's server, so its speed is not Qdrant's), each NPC
served by replica `replica_of(npc_id)` (crc32 of the id mod N, docs/deployment.md), each
replica's Decides batched on their own (as a game or proxy splits a DecideBatch by that hash).
CPU and memory are the replicas' together; the brain's own view (queues, "inside the brain") is
replica 0's.

With --in-view N the NPCs ask at attention levels (DecideRequest.attention) as a game does: the
first N in view, of the rest --crowd-share a crowd, the others out of view (without --in-view
none is sent: all in view, as a game that never says). `--max-wait 0` waits for askAgainAt
however far, as the addon does. Beside the latencies the report gives figures the machine's load
does not change: Decides asked per NPC per wall second (the ask-again rate, by level, as the
answers tell each NPC to wait), the brain's CPU per Decide (its store's and embedder's child
processes included, and its own process's alone), their product (the CPU a second the town
needs) and the Decides a second two free cores serve at that cost; CPU per Decide by process
(the brain, its store, its embedder), and the texts a Decide asks of the embedder, embedded or
reused (its /metrics). Every NPC's first Decide stores its action, and a large
town's take the embedder minutes: --settle S waits (at most S) before each phase for the store
and embedder to be idle, so the phase's CPU is its own Decides'.

    .venv/bin/python -m tools.loadtest --npcs 10000 --batch 250 --in-view 25 --crowd-share 0.95 --max-wait 0 ...

With --tenants N, N tenants' towns of --npcs NPCs each, each tenant with its own token, over gRPC
(tools/loadtest_tenants.py; --tenant-calls sets each tenant's ceiling on LLM calls; with --replicas,
each tenant pinned to one process by its id, as deploy/nginx.conf routes it):

    nice -n 10 .venv/bin/python -m tools.loadtest --tenants 200 --npcs 25 --seconds 60 --out runs/tenants.json

--idle S also puts the towns to sleep after the load and wakes them (unload and restore measured).

Bounded: --npcs <= 10,000, --seconds <= 300 per transport, loopback only; rate limit off.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
import contextlib
from contextlib import ExitStack
from dataclasses import asdict
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import re
import statistics
import sys
import tempfile
import threading
import time
from typing import Any
import urllib.request
import zlib

from google.protobuf import json_format
import grpc
from prometheus_client.parser import text_string_to_metric_families

from brain_server.model.validation import MAX_BATCH
from brain_server.runtime.vitals import Vitals
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.realtime import (
    START_BURST_S,
    Caller,
    Calls,
    Collector,
    FakeProcess,
    GameClock,
    Reply,
    cpu_seconds,
    next_ask,
    own_turn_s,
    vitals,
)
from npc_lab.sim.brain import BrainProcess, ChildProcess
from npc_lab.sim.data import load_all, repeated_spawn_requests
from npc_lab.sim.grid import layout

MAX_NPCS = 10_000
MAX_REPLICAS = 4
LLM_CONCURRENCY = 8  # the brain's NPC_BRAIN_LLM_MAX_CONCURRENCY default, which the run keeps
MAX_SECONDS = 300
SETUP_DEADLINE_S = 120.0  # each setup call's deadline (the day plans, the counts): not a measured figure
# Anonymous memory a stored memory may take: the embedded engine alone took 2.5 KiB each (12,000
# points: +29 MiB); in the 1,000-NPC run, with retrieval's touches and payload indexes, ~6.5 KiB.
STORE_KIB_PER_MEMORY = 8
START = datetime(2026, 2, 13, 8, tzinfo=UTC)
DECIDE_PATH = "/npc_brain.v1.BrainService/Decide"


def memory_verdict(samples_mib: list[float], bound_mib: float, stored: int = 0) -> dict[str, Any]:
    """Flat = the median of the last third of the samples is at most bound_mib above the first
    third's, beyond what the memories stored meanwhile take in the embedded engine (each NPC
    perceives its own actions, as the paper's do, so a running town stores memories: that is data,
    not a leak)."""
    allowed = bound_mib + stored * STORE_KIB_PER_MEMORY / 1024
    if not samples_mib:
        return {"flat": False, "bound_mib": round(allowed, 1)}
    third = max(1, len(samples_mib) // 3)
    first, last = statistics.median(samples_mib[:third]), statistics.median(samples_mib[-third:])
    return {"first_third_mib": round(first, 1), "last_third_mib": round(last, 1), "growth_mib": round(last - first, 1),
            "memories_stored": stored, "bound_mib": round(allowed, 1), "flat": last - first <= allowed}


async def memories_stored(caller: Caller, ids: list[str], replicas: int = 1) -> int:
    """All memories of these NPCs now (ListMemories' total); 0 over replicas, whose shared store
    (the stand-in, a test double) counts a town's memories too slowly to ask."""
    if replicas > 1:
        return 0
    # One at a time: after a town's first Decides the store is busy storing what they saw, and 32
    # at once waited past a minute behind that.
    totals = [await caller.stub.ListMemories(pb.ListMemoriesRequest(npc_id=i, limit=1), timeout=60) for i in ids]
    return sum(t.total for t in totals)


def memory_mib(pid: int) -> dict[str, float]:
    """VmRSS split into anonymous memory (heap: where a leak shows) and file-backed pages (the
    store's memory-mapped segments, which the kernel can drop), from /proc (Linux)."""
    fields = {"VmRSS": "rss_mib", "RssAnon": "anon_mib", "RssFile": "file_mib"}
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in fields:
            out[fields[name]] = round(int(value.split()[0]) / 1024, 1)
    return out


def brain_counts(brains: list[BrainProcess]) -> Counter[str]:
    """Texts the brains' embedders were asked for ("embedded" by the model, "reused") and the batches
    they sent to it, and the brains' collections and their CPU, from /metrics: load-insensitive
    figures of what the embedder's CPU buys and of what the collector costs ("gc_cpu_max_ms": the
    longest recent collection, not a count)."""
    total: Counter[str] = Counter()
    for brain in brains:
        with urllib.request.urlopen(f"{brain.http_url}/metrics", timeout=30) as response:
            text = response.read().decode()
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "npc_brain_embedding_texts_total":
                    total[sample.labels["outcome"]] += int(sample.value)
                elif sample.name == "npc_brain_embedding_batches_total":
                    total["batches"] += int(sample.value)
                elif sample.name == "npc_brain_embedding_model_batches_total":
                    total["model_batches"] += int(sample.value)
                elif sample.name == "npc_brain_embedding_model_texts_total":
                    total["model_texts"] += int(sample.value)
                elif sample.name == "npc_brain_embedding_cpu_seconds_total":  # the static embedder, in the brain
                    total["embed_cpu_s"] += sample.value
                elif sample.name == "npc_brain_gc_cpu_seconds_count":
                    total["gc_collections"] += int(sample.value)
                elif sample.name == "npc_brain_gc_cpu_seconds_sum":
                    total["gc_cpu_s"] += sample.value
                elif sample.name == "npc_brain_gc_cpu_recent_seconds" and sample.labels["quantile"] == "1":
                    total["gc_cpu_max_ms"] = max(total["gc_cpu_max_ms"], sample.value * 1000)
                elif sample.name == "npc_brain_gc_collections_total":
                    total[f"gc{sample.labels['generation']}_collections"] += int(sample.value)
                elif sample.name == "npc_brain_gc_generation_cpu_seconds_total":
                    total[f"gc{sample.labels['generation']}_cpu_s"] += sample.value
                elif sample.name == "npc_brain_gc_generation_cpu_longest_seconds":
                    key = f"gc{sample.labels['generation']}_max_ms"
                    total[key] = max(total[key], sample.value * 1000)
    return total


def embedding_per_decide(counts: Counter[str], decides: int) -> dict[str, float]:
    """Embedder work per Decide, the share of texts reused, and the texts per batch the local model
    computed (calls gathered within NPC_BRAIN_EMBEDDINGS_WINDOW_MS; both counted when computed, so a
    niced process that lags behind a loaded machine's other work skews nothing, it only computes fewer)."""
    texts = counts["embedded"] + counts["reused"]
    return {"batches_per_decide": round(counts["batches"] / max(1, decides), 3),
            "model_batches": counts["model_batches"],
            "texts_per_model_batch": round(counts["model_texts"] / counts["model_batches"], 2)
            if counts["model_batches"] else 0.0,
            "texts_per_decide": round(texts / max(1, decides), 3),
            "embedded_per_decide": round(counts["embedded"] / max(1, decides), 3),
            "reused_share": round(counts["reused"] / texts, 3) if texts else 0.0,
            "cpu_ms_in_brain_per_decide": round(counts["embed_cpu_s"] * 1000 / max(1, decides), 4)}


GENERATIONS = ("young", "middle", "full")


def collector_per_decide(counts: Counter[str], decides: int, longest: Counter[str]) -> dict[str, Any]:
    """A phase's collections per Decide and their CPU: per Decide, per collection, the longest
    recent (`longest`: the brain's counts at the phase's end); the same by generation."""
    def of(prefix: str, max_key: str) -> dict[str, float]:
        n, cpu_s = counts[f"{prefix}_collections"], counts[f"{prefix}_cpu_s"]
        return {"collections_per_decide": round(n / max(1, decides), 3),
                "cpu_ms_per_decide": round(cpu_s * 1000 / max(1, decides), 3),
                "cpu_ms_per_collection": round(cpu_s * 1000 / max(1, n), 3),
                "longest_cpu_ms": round(longest[max_key], 1)}
    return {**of("gc", "gc_cpu_max_ms"),
            "by_generation": {name: of(f"gc{g}", f"gc{g}_max_ms") for g, name in enumerate(GENERATIONS)}}


def replica_of(npc_id: str, replicas: int) -> int:
    """The replica that serves an NPC: stable across processes and runs (crc32, not Python's hash)."""
    return zlib.crc32(npc_id.encode()) % replicas


class StandInProcess(ChildProcess):
    """tools/qdrant_standin.py in a process of its own on a free port: the replicas' shared store."""

    READY = re.compile(r"on (http://\S+)")
    WHAT = "the Qdrant stand-in"

    def __init__(self, log_path: Path) -> None:
        super().__init__([sys.executable, "-m", "tools.qdrant_standin", "--port", "0"],
                         {**os.environ, "PYTHONUNBUFFERED": "1"}, log_path)
        self.url = ""

    def on_ready(self, match: re.Match[str]) -> None:
        self.url = match.group(1)


def _rss_or_0(pid: int) -> float:
    try:
        return memory_mib(pid)["rss_mib"]
    except OSError:  # it ended meanwhile
        return 0.0


class RssSampler:
    """Samples the brains' memory (together) every `every_s` seconds in a thread, tagged with the running phase."""

    def __init__(self, brains: list[BrainProcess], every_s: float) -> None:
        self.brains, self.every_s = brains, every_s
        self.phase = "setup"
        self.samples: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._began = time.monotonic()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            each = [memory_mib(b.proc.pid) for b in self.brains]  # type: ignore[union-attr]
            tree = [pid for b in self.brains for pid in process_tree(b.proc.pid)[1:]]  # type: ignore[union-attr]
            children = sum(_rss_or_0(pid) for pid in tree)
            self.samples.append({"t_s": round(time.monotonic() - self._began, 1), "phase": self.phase,
                                 **{k: round(sum(m[k] for m in each), 1) for k in each[0]},
                                 "children_rss_mib": round(children, 1)})

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


LEVELS = {pb.ATTENTION_UNSPECIFIED: "in view", pb.ATTENTION_IN_VIEW: "in view",
          pb.ATTENTION_OUT_OF_VIEW: "out of view", pb.ATTENTION_CROWD: "crowd"}
FREE_CORES = 2  # the machine these runs are made on, had it to itself


def attention_of(ids: Sequence[str], in_view: int | None, crowd_share: float) -> dict[str, int]:
    """Each NPC's level: none sent without `in_view` (all in view); else the first `in_view` in
    view, then the rest's `crowd_share` (rounded) a crowd, spread evenly, the others out of view."""
    if in_view is None:
        return dict.fromkeys(ids, pb.ATTENTION_UNSPECIFIED)
    levels = dict.fromkeys(ids[:in_view], pb.ATTENTION_IN_VIEW)
    rest = ids[in_view:]
    for i, npc_id in enumerate(rest):  # crowd when the running share passes the next whole NPC
        crowd = int((i + 1) * crowd_share + 1e-9) > int(i * crowd_share + 1e-9)
        levels[npc_id] = pb.ATTENTION_CROWD if crowd else pb.ATTENTION_OUT_OF_VIEW
    return levels


def decide_request(npc_id: str, when: datetime, attention: int = pb.ATTENTION_UNSPECIFIED) -> pb.DecideRequest:
    request = pb.DecideRequest(npc_id=npc_id, attention=attention)  # type: ignore[arg-type]
    request.game_time.FromDatetime(when)
    return request


def capacity(asks_per_npc_s: float, npcs: int, cpu_ms_per_decide: float) -> dict[str, float]:
    """Load-insensitive figures from the ask-again rate (Decides per NPC per wall second, as the
    answers tell the NPCs to ask again) and the brain's CPU per Decide: the CPU a second the town
    needs, and how many Decides a second (and NPCs asking at this rate) two free cores would serve."""
    served = FREE_CORES * 1000 / cpu_ms_per_decide if cpu_ms_per_decide else 0.0
    return {"cpu_s_per_s_needed": round(asks_per_npc_s * npcs * cpu_ms_per_decide / 1000, 2),
            "free_cores_serve_per_s": round(served),
            "free_cores_serve_npcs": round(served / asks_per_npc_s) if asks_per_npc_s else 0}


class Batcher:
    """Decides gathered as the addon gathers them: those due within one frame (`frame_s`) go in
    DecideBatch calls of at most `size`, at most `lanes` in flight (the rest wait for a free one).
    Each Decide's Reply is its own result, timed from when it was due."""

    def __init__(self, caller: Caller, size: int, frame_s: float, lanes: int) -> None:
        self.caller, self.size, self.frame_s = caller, size, frame_s
        self.lanes = asyncio.Semaphore(lanes)
        self.due: list[tuple[pb.DecideRequest, asyncio.Future[Reply], float]] = []
        self.batches = 0
        self._flusher: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[None]] = set()

    async def decide(self, request: pb.DecideRequest) -> Reply:
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self.due.append((request, future, time.perf_counter()))
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        await asyncio.sleep(self.frame_s)
        while self.due:
            await self.lanes.acquire()
            items, self.due = self.due[:self.size], self.due[self.size:]
            task = asyncio.create_task(self._send(items))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
        self._flusher = None

    async def _send(self, items: list[tuple[pb.DecideRequest, asyncio.Future[Reply], float]]) -> None:
        try:
            reply = await self.caller.call("DecideBatch", pb.DecideBatchRequest(requests=[r for r, _, _ in items]))
        finally:
            self.lanes.release()
        self.batches += 1
        answered = time.perf_counter()
        for i, (_, future, due) in enumerate(items):
            ms = (answered - due) * 1000
            if reply.status:
                future.set_result(Reply(reply.status, None, ms, reply.timed_out))
            else:
                result = reply.message.results[i]
                future.set_result(Reply(f"{self.caller.transport} {result.code}" if result.code else "",
                                        None if result.code else result.response, ms))


Decide = Callable[[pb.DecideRequest], Awaitable[Reply]]


def routed(callers: list[Caller], args: argparse.Namespace) -> Decide:
    """Each Decide sent to its NPC's replica (`replica_of`), batched per replica."""
    deciders = [decider(c, args) for c in callers]
    return lambda request: deciders[replica_of(request.npc_id, len(deciders))](request)


def decider(caller: Caller, args: argparse.Namespace) -> Decide:
    """How the run sends a Decide: alone (at most --concurrency in flight), or batched (--batch)."""
    if args.batch:
        return Batcher(caller, args.batch, args.frame, args.batch_lanes).decide
    gate = asyncio.Semaphore(args.concurrency)

    async def alone(request: pb.DecideRequest) -> Reply:
        async with gate:
            return await caller.call("Decide", request)

    return alone


async def queues(caller: Caller) -> dict[str, dict[str, Any]]:
    """The brain's LLM queues by class (GetUsage for no NPC in particular: few counters)."""
    usage = await caller.stub.GetUsage(pb.GetUsageRequest(npc_id="-"), timeout=60)
    return {q.priority: {"waiting": q.waiting, "running": q.running, "served": q.served,
                         "wait_p50_ms": round(q.wait_p50_ms, 1), "wait_p99_ms": round(q.wait_p99_ms, 1),
                         "dropped_stale": q.dropped_stale, "dropped_full": q.dropped_full} for q in usage.queues}


async def inside_brain(caller: Caller) -> dict[str, dict[str, float]]:
    """The brain's own view (GetUsage, recent samples): Decide's time inside it, its loop's lateness, GC pauses."""
    usage = await caller.stub.GetUsage(pb.GetUsageRequest(npc_id="-"), timeout=60)
    return vitals(json_format.MessageToDict(usage, preserving_proto_field_name=True))


async def plan_days(decide: Decide, ids: list[str], wait_s: float, levels: dict[str, int]) -> dict[str, Any]:
    """Every NPC's first Decide at START, answered at once while its day is planned in the background
    (LLM calls to the fake); then the NPCs still on a provisional action ask again every second until
    none is (at most wait_s). A crowd plans no day (it follows its routine): it is not waited for."""
    errors: Counter[str] = Counter()

    async def provisional(npc_id: str) -> bool:
        reply = await decide(decide_request(npc_id, START, levels[npc_id]))
        if reply.status:
            errors[reply.status] += 1
            return True
        return reply.message.action.source == pb.ACTION_SOURCE_PROVISIONAL

    async def still_provisional(among: list[str]) -> list[str]:
        return [n for n, p in zip(among, await asyncio.gather(*(provisional(n) for n in among)), strict=True) if p]

    began = time.perf_counter()
    waiting = await still_provisional(ids)
    first = {"first_decides_s": round(time.perf_counter() - began, 1), "provisional": len(waiting)}
    waiting = [n for n in waiting if levels[n] != pb.ATTENTION_CROWD]
    while waiting and time.perf_counter() - began < wait_s:
        await asyncio.sleep(1.0)
        waiting = await still_provisional(waiting)
    return {"npcs": len(ids), **first, "wall_s": round(time.perf_counter() - began, 1), "unplanned": len(waiting),
            "errors": dict(errors)}


async def load_phase(callers: list[Caller], ids: list[str], clock: GameClock, args: argparse.Namespace,
                     levels: dict[str, int]) -> dict[str, Any]:
    """One loop per NPC for args.seconds: Decide now, wait until it is told to ask again, again.
    Every NPC asks at least once, however late a loaded machine brings its turn: the phase then
    lasts past args.seconds (its wall_s says by how much) rather than leave an NPC out."""
    decide = routed(callers, args)
    calls = Calls()
    provisional = thinking = again_after_end = 0
    by_level: dict[str, Counter[str]] = {}  # per attention level: NPCs, Decides, provisional, thinking
    for level in levels.values():
        by_level.setdefault(LEVELS[level], Counter())["npcs"] += 1
    told: dict[str, list[float]] = {}  # per NPC: its Decides answered, the wall seconds they told it to wait in all
    sent: Counter[int] = Counter()  # Decides sent per tenth of a wall second: how bursty the town asks
    began = time.monotonic()
    game_began = clock.now()

    own = Vitals()  # the load generator's own loop: a tail it adds is not the brain's
    own.start()
    collector = Collector()  # and its collector, settled as the brain's is: a game's engine has no such pauses

    async def npc_loop(npc_id: str) -> None:
        nonlocal provisional, thinking, again_after_end
        level = by_level[LEVELS[levels[npc_id]]]
        await asyncio.sleep(own_turn_s(npc_id, args.start_spread))
        while True:
            now = clock.now()
            sent[int((time.monotonic() - began) * 10)] += 1
            if npc_id in told and time.monotonic() - began >= args.seconds:
                again_after_end += 1
            reply = await decide(decide_request(npc_id, now, levels[npc_id]))
            calls.add(reply)
            level["decides"] += 1
            wait = args.pause
            if not reply.status:
                was_provisional = reply.message.action.source == pb.ACTION_SOURCE_PROVISIONAL
                provisional += was_provisional
                thinking += reply.message.thinking
                level.update(provisional=was_provisional, thinking=reply.message.thinking)
                wait = max(clock.wall_seconds_until(next_ask(reply.message, now)), args.pause)
            wait = min(wait, args.max_wait or wait)
            mine = told.setdefault(npc_id, [0, 0.0])
            mine[0] += 1
            mine[1] += wait
            if wait >= args.seconds - (time.monotonic() - began):
                break  # its next ask falls after the phase: waking every NPC at the end would ask all at once
            await asyncio.sleep(wait)

    with collector:
        await asyncio.gather(*(npc_loop(npc_id) for npc_id in ids))
    await own.stop()
    wall = time.monotonic() - began
    report = calls.report()
    # The ask-again rate: each NPC asks as often as its answers tell it to, whatever the phase's length
    # (an hour-long routine step asks again after a minute, more than most phases hold of it).
    rates = {name: 0.0 for name in by_level}
    for npc_id, (answered, waited) in told.items():
        rates[LEVELS[levels[npc_id]]] += answered / waited if waited else 0.0
    return {"transport": callers[0].transport, "wall_s": round(wall, 1), "decides": len(calls.ms), "npcs_asked": len(told),
            "asked_again_after_end": again_after_end,
            "decides_per_s": round(len(calls.ms) / wall, 1), **report, "errors": report["errors"] + calls.timeouts,
            "provisional": provisional, "thinking": thinking, "most_sent_in_100_ms": max(sent.values(), default=0),
            "by_level": {name: {**c, "asks_per_npc_s": round(c["decides"] / wall / c["npcs"], 4),
                                "asks_again_per_npc_s": round(rates[name] / c["npcs"], 4)}
                         for name, c in by_level.items()},
            "asks_again_per_npc_s": round(sum(rates.values()) / max(1, len(ids)), 4),
            "most_sent_in_100_ms_after_start": max((n for t, n in sent.items() if t >= START_BURST_S * 10), default=0),
            "game_time": [f"{game_began:%H:%M}", f"{clock.now():%H:%M}"],
            "client_loop_late": asdict(own.loop_late.spread()), "client_gc": collector.report()}


def process_tree(pid: int) -> list[int]:
    """The process and its descendants (Linux): a brain's store and embedder are child processes."""
    try:
        kids = [int(k) for task in Path(f"/proc/{pid}/task").iterdir()
                for k in (task / "children").read_text().split()]
    except OSError:  # it ended meanwhile
        return []
    return [pid, *(d for k in kids for d in process_tree(k))]


def role_of(pid: int) -> str:
    """Which of a brain's processes this is, by its command line: its store, its embedder, or itself."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "brain"
    return "store" if b"brain_server.persistence.storage" in command else "embedder" if b"minilm" in command else "brain"


def cpu_by_role(brains: list[BrainProcess]) -> Counter[str]:
    """The brains' CPU seconds by process: the brain's own, its store's, its embedder's."""
    total: Counter[str] = Counter()
    for brain in brains:
        for pid in process_tree(brain.proc.pid):  # type: ignore[union-attr]
            with contextlib.suppress(OSError):
                total[role_of(pid)] += cpu_seconds(pid)
    return total


CATCH_UP_S = 120.0  # at most this long for the embedder to compute what the run asked before the run's figures


async def settle(brains: list[BrainProcess], limit_s: float, quiet_s: int = 3) -> float:
    """Waits until the brains' store and embedder processes are idle (a tenth of a core or less for
    `quiet_s` seconds running: what earlier Decides stored is stored; a Decide's perceptions wait
    for a quiet moment before they start), at most `limit_s`; the seconds waited."""
    began, quiet = time.monotonic(), 0
    busy = cpu_by_role(brains)
    while quiet < quiet_s and time.monotonic() - began < limit_s:
        await asyncio.sleep(1.0)
        now = cpu_by_role(brains)
        quiet = quiet + 1 if (now["store"] + now["embedder"]) - (busy["store"] + busy["embedder"]) <= 0.1 else 0
        busy = now
    return round(time.monotonic() - began, 1)


def cpu_of(brains: list[BrainProcess], *, children: bool = True) -> float:
    """The brains' CPU seconds, their store's and embedder's processes included unless `children` is off."""
    total = 0.0
    for brain in brains:
        for pid in process_tree(brain.proc.pid) if children else [brain.proc.pid]:  # type: ignore[union-attr]
            with contextlib.suppress(OSError):
                total += cpu_seconds(pid)
    return total


async def drive(brains: list[BrainProcess], args: argparse.Namespace, ids: list[str], sampler: RssSampler,
                llm_calls: Callable[[], int]) -> dict[str, Any]:
    # The setup is not measured: a loaded machine may answer its first Decides past Godot's deadline.
    setup_callers = [Caller("grpc", b, connections=args.concurrency, deadline_s=SETUP_DEADLINE_S) for b in brains]
    setup_caller = setup_callers[0]
    at_start = await asyncio.to_thread(brain_counts, brains)
    try:
        plan_args = argparse.Namespace(**{**vars(args), "concurrency": args.plan_concurrency})
        levels = attention_of(ids, args.in_view, args.crowd_share)
        planning = await plan_days(routed(setup_callers, plan_args), ids, args.plan_wait, levels)
        # The loop while the day plans landed (the brain reads its lateness over the last minute: the
        # phases' own figures do not hold this burst), reported beside them.
        planning["loop_late"] = (await inside_brain(setup_caller))["loop late"]
        clock = GameClock(args.time_scale, START)
        phases = []
        before = await memories_stored(setup_caller, ids, len(brains))
        for transport in args.transports:
            settled_s = await settle(brains, args.settle) if args.settle else None
            sampler.phase = transport
            print(f"loadtest: phase {transport} starts", file=sys.stderr, flush=True)  # a profiler's cue
            callers = [Caller(transport, b, connections=args.concurrency) for b in brains]
            cpu, own_cpu, roles = cpu_of(brains), cpu_of(brains, children=False), cpu_by_role(brains)
            mine, asked = cpu_seconds(os.getpid()), await asyncio.to_thread(llm_calls)
            embedded = await asyncio.to_thread(brain_counts, brains)
            try:
                phases.append(await load_phase(callers, ids, clock, args, levels))
            finally:
                for caller in callers:
                    await caller.close()
            phase = phases[-1]
            phase["settled_s"] = settled_s
            used = cpu_of(brains) - cpu
            phase["brain_cpu_share"] = round(used / phase["wall_s"], 2)
            # All the brain's CPU (thinking included) over the Decides answered: what one costs the process
            # (from the seconds used, not the rounded share: that is a whole millisecond per Decide at 100 NPCs).
            phase["brain_cpu_ms_per_decide"] = round(used * 1000 / max(1, phase["decides"]), 3)
            phase["brain_cpu_ms_per_decide_without_children"] = round(
                (cpu_of(brains, children=False) - own_cpu) * 1000 / max(1, phase["decides"]), 3)
            after = cpu_by_role(brains)  # each process named, one that did nothing as 0
            phase["cpu_ms_per_decide_by_process"] = {
                role: round((after[role] - roles[role]) * 1000 / max(1, phase["decides"]), 3) for role in after}
            phase.update(capacity(phase["asks_again_per_npc_s"], len(ids), phase["brain_cpu_ms_per_decide"]))
            counts = await asyncio.to_thread(brain_counts, brains)
            phase["embedding"] = embedding_per_decide(counts - embedded, phase["decides"])
            phase["collector"] = collector_per_decide(counts - embedded, phase["decides"], counts)
            game_hours = phase["wall_s"] * args.time_scale / 3600
            phase["llm_calls_per_game_hour"] = round((await asyncio.to_thread(llm_calls) - asked) / game_hours)
            phase["llm_capacity_per_game_hour"] = round(LLM_CONCURRENCY / max(args.llm_latency, 0.001) * 3600
                                                        / args.time_scale) if args.llm_latency else None
            # The load generator shares the machine: its own CPU says how much of the tail is the client's.
            phases[-1]["client_cpu_share"] = round((cpu_seconds(os.getpid()) - mine) / phases[-1]["wall_s"], 2)
            phases[-1]["inside_brain"] = await inside_brain(setup_caller)
        # The whole run's embedder work once it has caught up (a niced process can lag a loaded machine
        # by a phase or more): what the phases asked, all computed.
        caught_up_s = await settle(brains, CATCH_UP_S)
        run_embedding = embedding_per_decide(await asyncio.to_thread(brain_counts, brains) - at_start,
                                             sum(p["decides"] for p in phases))
        return {"planning": planning, "phases": phases, "queues": await queues(setup_caller),
                "embedding": {**run_embedding, "caught_up_s": caught_up_s},
                "memories_stored": await memories_stored(setup_caller, ids, len(brains)) - before}
    finally:
        for caller in setup_callers:
            await caller.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Starts the fake LLM and a brain, spawns and plans the NPCs, loads each transport; the report."""
    npcs, seconds = min(args.npcs, MAX_NPCS), min(args.seconds, MAX_SECONDS)
    args.seconds = seconds
    town, residents, _ = load_all("valentines_party")
    bodies = repeated_spawn_requests(residents, town.name, npcs)
    with tempfile.TemporaryDirectory() as data, FakeProcess(args.llm_latency, Path(data) / "fake.log") as fake, \
            ExitStack() as stack:
        settings = {"llm_base_url": fake.base_url, "llm_model": "fake-model", "host": "127.0.0.1",
                    "log_level": "warning", "rate_limit_per_s": 0, "traces_per_npc": args.traces_per_npc,
                    "traces_total": args.traces_total,
                    "background_thinking": "true"}
        if args.replicas > 1:
            settings["qdrant_url"] = stack.enter_context(StandInProcess(Path(data) / "standin.log")).url
        brains = [stack.enter_context(BrainProcess({**settings, "data_dir": Path(data) / f"brain{i}"},
                                                   Path(data) / f"brain{i}.log")) for i in range(args.replicas)]
        stubs = [brain_pb2_grpc.BrainServiceStub(stack.enter_context(grpc.insecure_channel(b.grpc_target)))
                 for b in brains]
        for stub in stubs:  # through every replica: a replica's cached world is not re-read from the store
            stub.RegisterWorld(json_format.ParseDict(layout(town).world_message(town), pb.RegisterWorldRequest()),
                               timeout=60)
        for start in range(0, len(bodies), 32):  # 32 in flight: a large town spawns in seconds
            spawning = [stubs[replica_of(b["npcId"], len(stubs))].SpawnNpc.future(
                json_format.ParseDict(b, pb.SpawnNpcRequest()), timeout=60) for b in bodies[start:start + 32]]
            for future in spawning:
                future.result()
        with RssSampler(brains, args.rss_every) as sampler:
            results = asyncio.run(drive(brains, args, [b["npcId"] for b in bodies], sampler, fake.chat_requests))
        loaded = [s for s in sampler.samples if s["phase"] != "setup"]
        llm_calls = fake.chat_requests()
    errors = sum(p["errors"] for p in results["phases"]) + sum(results["planning"]["errors"].values())
    return {"npcs": npcs, "replicas": args.replicas, "batch": args.batch, "batch_lanes": args.batch_lanes, "frame_s": args.frame,
            "seconds_per_transport": seconds, "concurrency": args.concurrency, "pause_s": args.pause, "start_spread_s": args.start_spread,
            "max_wait_s": args.max_wait, "in_view": args.in_view, "crowd_share": args.crowd_share, "time_scale": args.time_scale, "traces_per_npc": args.traces_per_npc,
            "llm_latency_s": args.llm_latency, "max_rss_growth_mib": args.max_rss_growth_mib, "llm_calls": llm_calls, **results, "errors": errors,
            "memory": memory_verdict([s["rss_mib"] for s in loaded], args.max_rss_growth_mib, results["memories_stored"]),
            "memory_per_npc_kib": round(max((s["rss_mib"] for s in loaded), default=0) * 1024 / npcs, 1),
            # with the store's and the embedder's processes
            "memory_per_npc_kib_all": round(max((s["rss_mib"] + s["children_rss_mib"] for s in loaded), default=0)
                                            * 1024 / npcs, 1),
            "memory_all": memory_verdict([s["rss_mib"] + s["children_rss_mib"] for s in loaded], args.max_rss_growth_mib,
                                         results["memories_stored"]),
            "memory_anonymous": memory_verdict([s["anon_mib"] for s in loaded], args.max_rss_growth_mib,
                                               results["memories_stored"]),
            "rss_samples": sampler.samples}


def embedder_line(e: dict[str, Any]) -> str:
    return (f"{e['texts_per_decide']} texts asked, {e['embedded_per_decide']} embedded in {e['batches_per_decide']} "
            f"calls, {e['model_batches']} model batches of {e['texts_per_model_batch']} texts, "
            f"{e['reused_share']:.1%} reused, {e['cpu_ms_in_brain_per_decide']} ms of the brain's CPU")


def table(report: dict[str, Any]) -> str:
    headers = ["transport", "decides", "per s", "most in 100 ms", "errors", "provisional", "p50 ms", "p90 ms",
               "p99 ms", "max ms", f"p99 after {START_BURST_S:g} s", "brain CPU",
               "CPU ms per Decide (the brain's process alone)", "client CPU",
               "LLM calls per game hour (capacity)", "game time", "asks again per NPC per s", "CPU s per s needed",
               f"{FREE_CORES} free cores serve (NPCs at this rate)"]
    rows = [[p["transport"], p["decides"], p["decides_per_s"],
             f"{p['most_sent_in_100_ms']} ({p['most_sent_in_100_ms_after_start']} after)", p["errors"], p["provisional"],
             p.get("p50_ms"), p.get("p90_ms"), p.get("p99_ms"), p.get("max_ms"), p["after_start"].get("p99_ms"),
             f"{p['brain_cpu_share']:.0%}", f"{p['brain_cpu_ms_per_decide']} ({p['brain_cpu_ms_per_decide_without_children']})",
             f"{p['client_cpu_share']:.0%}",
             f"{p['llm_calls_per_game_hour']} ({p['llm_capacity_per_game_hour']})", "-".join(p["game_time"]),
             p["asks_again_per_npc_s"], p["cpu_s_per_s_needed"], f"{p['free_cores_serve_per_s']} ({p['free_cores_serve_npcs']})"]
            for p in report["phases"]]
    lines = [" | ".join(headers), " | ".join("---" for _ in headers), *(" | ".join(map(str, r)) for r in rows)]
    for p in report["phases"]:
        inside = p["inside_brain"]
        decide, late, gc = inside.get("rpc Decide", {}), inside["loop late"], inside["gc pauses"]
        lines.append(f"{p['transport']}, inside the brain (recent): Decide p50 {decide.get('p50_ms')} / p99 "
                     f"{decide.get('p99_ms')} / max {decide.get('max_ms')} ms; event loop late p99 {late['p99_ms']} / "
                     f"max {late['max_ms']} ms; GC pauses of 1 ms or more {gc['count']}, longest {gc['max_ms']} ms; the load "
                     f"generator's loop late p99 {p['client_loop_late']['p99_ms']:.1f} / max "
                     f"{p['client_loop_late']['max_ms']:.1f} ms, its longest GC pause "
                     f"{max(p['client_gc'][g].get('max_ms') or 0 for g in ('young', 'full')):.1f} ms")
        lines.append(f"{p['transport']}, CPU ms per Decide by process: " + ", ".join(
            f"{role} {ms}" for role, ms in sorted(p["cpu_ms_per_decide_by_process"].items()))
            + (f" (after {p['settled_s']} s for the store and embedder to settle)" if p.get("settled_s") is not None else ""))
        lines.append(f"{p['transport']}, the embedder per Decide: {embedder_line(p['embedding'])}")
        c = p["collector"]
        lines.append(f"{p['transport']}, the brain's collector: {c['collections_per_decide']} collections per Decide, "
                     f"{c['cpu_ms_per_decide']} ms of CPU per Decide, {c['cpu_ms_per_collection']} ms per collection, "
                     f"the longest recent {c['longest_cpu_ms']} ms of CPU; by generation: " + "; ".join(
                         f"{name} {g['collections_per_decide']} per Decide, {g['cpu_ms_per_collection']} ms each, "
                         f"longest {g['longest_cpu_ms']} ms" for name, g in c.get("by_generation", {}).items()))
        lines.append(f"{p['transport']}, by attention level: " + "; ".join(
            f"{name} {c['npcs']} NPCs, {c.get('decides', 0)} Decides ({c['asks_per_npc_s']} per NPC per s, "
            f"{c['asks_again_per_npc_s']} as told to ask again), "
            f"{c.get('provisional', 0)} provisional, {c.get('thinking', 0)} thinking" for name, c in p["by_level"].items()))
    plan, memory = report["planning"], report["memory"]
    rss = ", ".join(f"{s['rss_mib']:.0f}/{s['anon_mib']:.0f}" for s in report["rss_samples"] if s["phase"] != "setup")
    waits = ", ".join(f"{c} {q['wait_p99_ms']:.0f}" for c, q in report["queues"].items())
    lines += [f"{report['npcs']} NPCs on {report['replicas']} brain process(es), " + (f"DecideBatch of at most {report['batch']} ({report['batch_lanes']} in "
                                             f"flight, gathered over {report['frame_s'] * 1000:.1f} ms)"
                                             if report["batch"] else "single Decides") + f"; day plans: first Decides {plan['first_decides_s']} s ({plan['provisional']} "
              f"provisional), all planned after {plan['wall_s']} s, errors {plan['errors'] or 0}, the brain's loop late "
              f"p99 {plan['loop_late']['p99_ms']} / max {plan['loop_late']['max_ms']} ms meanwhile; "
              f"LLM calls {report['llm_calls']}; LLM queue wait p99 ms: {waits}",
              f"the whole run's embedder per Decide (after {report['embedding']['caught_up_s']} s for it to catch up): "
              f"{embedder_line(report['embedding'])}",
              f"brain RSS/anonymous MiB under load: {rss} (at most {report['memory_per_npc_kib']} KiB per NPC; "
              f"{report['memory_per_npc_kib_all']} with the store's and embedder's processes)",
              f"memory {'flat' if memory.get('flat') else 'NOT flat'}: RSS median of the last third "
              f"{memory.get('last_third_mib')} vs first third {memory.get('first_third_mib')} MiB "
              f"(growth {memory.get('growth_mib')}, bound {memory.get('bound_mib')}: {report['max_rss_growth_mib']} + "
              f"{report['memories_stored']} memories stored x {STORE_KIB_PER_MEMORY} KiB; anonymous memory "
              f"{report['memory_anonymous'].get('growth_mib')}; with the store's and embedder's processes "
              f"{'flat' if report['memory_all'].get('flat') else 'NOT flat'}, growth {report['memory_all'].get('growth_mib')})"]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--npcs", type=int, default=100, help=f"NPCs (at most {MAX_NPCS})")
    parser.add_argument("--seconds", type=float, default=20, help=f"wall seconds per transport (at most {MAX_SECONDS})")
    parser.add_argument("--transports", type=lambda s: [t for t in s.split(",") if t], default=["grpc", "connect"],
                        help="comma-separated phases, run in this order on one game clock: grpc, connect (a "
                             "transport may come again: grpc,connect,connect,grpc compares them like for like)")
    parser.add_argument("--concurrency", type=int, default=1000, help="Decide calls in flight at most")
    parser.add_argument("--plan-concurrency", type=int, default=16, help="first Decides (day plans) in flight at most")
    parser.add_argument("--plan-wait", type=float, default=300, help="wall seconds to wait at most for the day plans")
    parser.add_argument("--start-spread", type=float, default=10.0,
                        help="wall seconds over which each transport's NPCs make their first call (10 s: a "
                             "thousand NPCs at the pace they keep after, as NpcBrainAgent spreads a thousand agents)")
    parser.add_argument("--settle", type=float, default=0.0,
                        help="before each phase, wait at most this many seconds for the store and embedder to finish "
                             "what earlier Decides stored (every NPC's first Decide stores its action: at 10,000 NPCs, "
                             "a minute of embedding), so CPU per Decide is the town's steady state (0: no wait)")
    parser.add_argument("--pause", type=float, default=1.0, help="wall seconds an NPC waits at least between Decides")
    parser.add_argument("--max-wait", type=float, default=10.0,
                        help="wall seconds an NPC waits at most between Decides (0: until askAgainAt, as the addon)")
    parser.add_argument("--in-view", type=int, default=None,
                        help="NPCs asking in view (DecideRequest.attention); the rest out of view or a crowd "
                             "(--crowd-share); unset: no attention sent (all in view)")
    parser.add_argument("--crowd-share", type=float, default=0.0,
                        help="with --in-view, the share of the other NPCs asking as a crowd (the rest out of view)")
    parser.add_argument("--time-scale", type=float, default=60, help="game seconds per wall second")
    parser.add_argument("--llm-latency", type=float, default=0.0, help="seconds the fake LLM takes per answer")
    parser.add_argument("--traces-per-npc", type=int, default=5, help="the brain's NPC_BRAIN_TRACES_PER_NPC")
    parser.add_argument("--traces-total", type=int, default=20_000,
                        help="the brain's NPC_BRAIN_TRACES_TOTAL (the default; 10,000 NPCs fill it from their first Decides "
                             "when it is at most the town's size)")
    parser.add_argument("--rss-every", type=float, default=3.0, help="seconds between RSS samples")
    parser.add_argument("--max-rss-growth-mib", type=float, default=50.0,
                        help="memory is flat if the last third of samples is at most this above the first third")
    parser.add_argument("--batch", type=int, default=0,
                        help="Decides per DecideBatch at most (0: single Decides, at most --concurrency in flight)")
    parser.add_argument("--batch-lanes", type=int, default=2, help="DecideBatch calls in flight at most (the addon's 2)")
    parser.add_argument("--frame", type=float, default=1 / 60, help="wall seconds over which due Decides are gathered")
    parser.add_argument("--replicas", type=int, default=1,
                        help="brain processes sharing one store (the Qdrant stand-in), NPCs pinned by replica_of; "
                             "with --tenants, each tenant pinned to one by its id (each process its own store)")
    parser.add_argument("--tenants", type=int, default=0,
                        help="tenants, each with its own token and --npcs NPCs of its own, over gRPC "
                             "(tools/loadtest_tenants.py; 0: one town, no tenants)")
    parser.add_argument("--tenant-calls", type=int, default=0,
                        help="with --tenants, the brain's NPC_BRAIN_TENANT_CALLS_PER_WINDOW (0: no ceiling)")
    parser.add_argument("--idle", type=float, default=0,
                        help="with --tenants, the brain's NPC_BRAIN_TENANT_IDLE_S: after the load the towns sleep, "
                             "then one Decide each wakes them (unload and restore measured; 0: no sleep)")
    parser.add_argument("--out", type=Path, default=Path("runs") / "loadtest.json")
    args = parser.parse_args(argv)
    if args.idle and (not args.tenants or args.idle <= args.max_wait):
        parser.error(f"--idle {args.idle}: with --tenants, and above --max-wait ({args.max_wait} s), so that no town "
                     "sleeps during the load")
    if not 0 <= args.batch <= MAX_BATCH:
        parser.error(f"--batch {args.batch}: use 1-{MAX_BATCH} (the brain's cap), or 0 for single Decides")
    if not 1 <= args.replicas <= MAX_REPLICAS:
        parser.error(f"--replicas {args.replicas}: use 1-{MAX_REPLICAS}")
    if not 0 <= args.crowd_share <= 1 or (args.in_view is None and args.crowd_share):
        parser.error(f"--crowd-share {args.crowd_share}: use 0-1, with --in-view")
    if args.in_view is not None and args.in_view < 0:
        parser.error(f"--in-view {args.in_view}: use 0 or more")
    if unknown := set(args.transports) - {"grpc", "connect"}:
        parser.error(f"unknown transports {sorted(unknown)}: use grpc, connect")
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.tenants:
        from tools import loadtest_tenants

        report = loadtest_tenants.run(args, lambda pid: round(sum(_rss_or_0(p) for p in process_tree(pid)), 1))
        shown = loadtest_tenants.table
    else:
        report, shown = run(args), table
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(shown(report))
    return report


if __name__ == "__main__":
    main()
