"""`npc-lab bench <name>`: the numbers in docs/benchmarks.md, printed as a table and written as
JSON (bench-<name>.json in --out). Benchmarks, not tests: run them on a quiet machine.

- calls:     LLM calls and tokens per NPC per awake game hour, by purpose, and per conversation,
             from sim runs against the stand-in model in lockstep, several seeds, with all
             residents in view and with a player seeing only some (--in-view), the farthest of
             them a crowd ("5+5": 5 in view, 5 more out of view, the rest crowd), with how far the
             news travelled; or a run folder (--run)
- speed:     game seconds per wall second, 25 NPCs, the fake answering after 0.5 s, at concurrency
             8 and 1, beside the ideal (game seconds / (calls x latency / concurrency))
- decide:    Decide latency when the answer is a step of the plan (no LLM call), p50/p99 over
             gRPC and Connect on loopback, for 25, 250 and 1000 NPCs; the brain's RSS
- retrieval: nearest-memory search for one NPC among 25 with 4,000 memories each (100k),
             embedded Qdrant Edge vs qdrant-client local mode
- embed:     the local embedders' throughput (texts per second, CPU per text), MiniLM and the static
             table, and their retrieval quality on our own set (recall@10, MRR; npc_lab/retrieval_bench.py)
- realtime:  25 NPCs living in real time at 60x against the fake LLM at 2 s (npc_lab/realtime.py):
             Decide and Talk latency, provisional time, the LLM queues
- embedded:  the embedded SmolLM2's valid answers, latency and tokens per prompt purpose
             (npc_lab/embedded_bench.py)
- kills:     SIGKILL at --points random steps of SaveWorld and of LoadWorld, on the embedded store
             and a Qdrant server (the stand-in): afterwards the old world or the new one, the
             slot's old file or a whole new one (npc_lab/kills_bench.py; docs/reliability.md)
- timers:    the brain's own waits against what each is meant to be: a busy loop counted as
             strained, deferrable work spaced out, a Retry-After, the store's sync window
             (npc_lab/timers_bench.py; the tests check them on clocks they move)
"""

from __future__ import annotations

import argparse
import asyncio
from collections import defaultdict
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import platform
import random
import shutil
import socket
import sys
import tempfile
import time
from typing import Any

from brain_server.config import EMBEDDINGS_THREADS
from brain_server.model.npc import is_sleep
from brain_server.runtime.vitals import percentile
from npc_lab.tables import markdown_table

ORIGINAL = {"calls_per_npc_hour": 54, "tokens_per_npc_hour": 26000, "game_s_per_wall_s": 0.8}
NAMES = ("calls", "speed", "decide", "retrieval", "embed", "embedded", "realtime", "spread", "timers", "kills", "memos")


def machine() -> str:
    import os

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} CPUs{mem}, {platform.system()} {platform.release()}, Python {platform.python_version()}"




# --- (1) calls per NPC per awake game hour --------------------------------------------------------


def awake_hours(run: Path) -> dict[str, float]:
    """Per NPC: game hours whose actions were not sleep, from actions.jsonl (each action lasts
    until the NPC's next decision, or the run's end)."""
    cfg = json.loads((run / "config.json").read_text())
    end = datetime.fromisoformat(cfg["end"])
    by_npc: dict[str, list[tuple[datetime, bool]]] = defaultdict(list)
    for line in (run / "actions.jsonl").read_text().splitlines():
        a = json.loads(line)
        by_npc[a["npc_id"]].append((datetime.fromisoformat(a["game_time"]), is_sleep(a["description"])))
    out = {}
    for npc_id, seq in by_npc.items():
        seq.sort()
        total = 0.0
        for (t, asleep), (t2, _) in zip(seq, [*seq[1:], (end, False)], strict=True):
            if not asleep:
                total += (t2 - t).total_seconds() / 3600
        out[npc_id] = total
    return out


def conversations(run: Path) -> int:
    """Conversations in a run, from actions.jsonl: an action chatting with someone starts one
    between the pair unless one of them was already chatting with the other (counted once, not
    per speaker or per Decide); it lasts while either one's latest action chats with the other."""
    partner: dict[str, str] = {}
    talking: set[frozenset[str]] = set()
    count = 0
    for line in (run / "actions.jsonl").read_text().splitlines():
        a = json.loads(line)
        me, other = a["npc_id"], a.get("chatting_with", "")
        partner[me] = other
        talking = {pair for pair in talking if me not in pair or any(partner.get(x) in pair - {x} for x in pair)}
        if other and other != me and frozenset((me, other)) not in talking:
            talking.add(frozenset((me, other)))
            count += 1
    return count


def news_reach(run: Path) -> dict[str, int]:
    """How far the scenario's news travelled (the residents with a memory of it, `sim/measure.py`),
    and among the residents that were a crowd for most of their Decides; {} for a run folder
    without the residents' memories."""
    from npc_lab.sim.measure import measure

    if not (run / "memories").is_dir():
        return {}
    diffusion = measure(run)["diffusion"]
    crowd: defaultdict[str, list[bool]] = defaultdict(list)
    for line in (run / "actions.jsonl").read_text().splitlines():
        action = json.loads(line)
        crowd[action["npc_id"]].append(bool(action.get("crowd")))
    mostly = {npc_id for npc_id, flags in crowd.items() if sum(flags) > len(flags) / 2}
    return {"start": diffusion["start"], "end": diffusion["end"], "crowd": len(mostly),
            "crowd_knows": len(mostly & set(diffusion["knows"]))}


MEASUREMENT = {"interview"}  # purposes a run folder spends on being measured


def calls_from_run(run: Path) -> dict[str, Any]:
    """A run folder's LLM calls and tokens by purpose (GetUsage), per NPC per awake hour, its
    conversations, and how far its news travelled. Interviews are left out and counted apart
    (`measurement_calls`): in a run folder they are the sim's own questions at the end (the news
    question, "Do you know ...?" of every pair), its measurement, not what the NPCs cost to live;
    the bench's own runs ask none."""
    usage = json.loads((run / "usage.json").read_text())
    hours = sum(awake_hours(run).values())
    by_purpose: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    measured = 0
    for c in usage.get("counters", []):
        if c["purpose"] in MEASUREMENT:
            measured += int(c.get("calls", 0))
            continue
        by_purpose[c["purpose"]][0] += int(c.get("calls", 0))
        by_purpose[c["purpose"]][1] += int(c.get("prompt_tokens", 0)) + int(c.get("completion_tokens", 0))
    calls = sum(v[0] for v in by_purpose.values())
    tokens = sum(v[1] for v in by_purpose.values())
    cfg = json.loads((run / "config.json").read_text())

    def per_hour(n: int) -> float:
        return n / hours if hours else 0.0

    return {"run": str(run), "npcs": len(cfg["residents"]), "start": cfg["start"], "end": cfg["end"],
            "in_view": cfg.get("sim", {}).get("in_view"), "awake_npc_hours": hours, "calls": calls, "tokens": tokens,
            "measurement_calls": measured,
            "calls_per_npc_hour": per_hour(calls), "tokens_per_npc_hour": per_hour(tokens),
            "conversations": conversations(run), "news": news_reach(run),
            "by_purpose": {p: {"calls": v[0], "tokens": v[1], "calls_per_npc_hour": per_hour(v[0]),
                               "tokens_per_npc_hour": per_hour(v[1])}
                           for p, v in sorted(by_purpose.items(), key=lambda kv: -kv[1][0])}}


def _sim(out: Path, *, latency: float, concurrency: int, hours: float, npcs: int | None = None,
         tick: int = 10, interview: bool = False, stand_in_seed: int | None = None,
         in_view: str | None = None) -> dict[str, Any]:
    """A sim run of the party scenario into `out` (its brain's data started afresh): against the
    fake endpoint, or with `stand_in_seed` against the stand-in model in lockstep (no background
    thinking: each Decide thinks before it answers, so the run does not depend on thread timing).
    `in_view`: how many residents the player sees, 'all' or a number, or "N+M": N in view and M more
    that think out of view, the rest a crowd (None: attention not sent)."""
    from npc_lab.sim.data import ROOT, load_all
    from npc_lab.sim.runner import Sim, SimConfig

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from npc_lab.fake_openai import FakeOpenAI
    from npc_lab.standin_openai import StandInProcess

    town, residents, scenario = load_all("valentines_party")
    residents = residents[:npcs] if npcs else residents
    shutil.rmtree(out / "brain-data", ignore_errors=True)
    settings: dict[str, Any] = {"llm_max_concurrency": max(concurrency, 1), "data_dir": out / "brain-data"}
    if stand_in_seed is None:
        model: FakeOpenAI | StandInProcess = FakeOpenAI(latency_s=latency)
        settings.update(llm_model="fake-model")
    else:
        model = StandInProcess(latency_s=latency, seed=stand_in_seed)
        settings.update(llm_model="stand-in", background_thinking=False)
    with model:
        config = SimConfig(out=out, brain_settings={"llm_base_url": model.base_url, **settings},
                           concurrency=concurrency, tick_s=tick, duration=timedelta(hours=hours),
                           interview=interview, ask_density=False, progress_s=30,
                           in_view=None if in_view is None else len(residents) if in_view == "all"
                           else int(in_view.split("+")[0]),
                           thinking=sum(map(int, in_view.split("+"))) if in_view and "+" in in_view else None)
        return asyncio.run(Sim(town, residents, scenario, config).run())


# The targets, calls per NPC per awake hour, by how many of the 25 residents the player sees.
CALL_TARGETS = {"all": 5.0, "5": 2.5}
CONVERSATION_PURPOSES = ("converse_turn", "conversation_memo", "relationship", "conversation_summary")


def _spread(values: list[float]) -> dict[str, float]:
    mean = sum(values) / len(values) if values else 0.0
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    return {"mean": mean, "min": low, "max": high, "spread_pct": (high - low) / mean * 100 if mean else 0.0}


def summarize_calls(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Runs of one mode (one per seed): calls per NPC per awake hour by purpose, the mean over the
    runs with min..max and the relative spread; tokens' mean; conversation calls per conversation
    (all runs' calls over all their conversations)."""
    purposes = sorted({p for r in runs for p in r["by_purpose"]},
                      key=lambda p: -sum(r["by_purpose"].get(p, {}).get("calls", 0) for r in runs))

    def of(p: str, key: str) -> list[float]:
        return [r["by_purpose"].get(p, {}).get(key, 0.0) for r in runs]

    talks = sum(r["conversations"] for r in runs)
    per_conversation = {p: sum(of(p, "calls")) / talks if talks else 0.0 for p in CONVERSATION_PURPOSES}
    per_conversation["total"] = sum(per_conversation.values())
    return {"runs": runs, "npcs": runs[0]["npcs"], "awake_npc_hours": _spread([r["awake_npc_hours"] for r in runs]),
            "calls_per_npc_hour": _spread([r["calls_per_npc_hour"] for r in runs]),
            "tokens_per_npc_hour": _spread([r["tokens_per_npc_hour"] for r in runs])["mean"],
            "by_purpose": {p: {"calls_per_npc_hour": _spread(of(p, "calls_per_npc_hour")),
                               "tokens_per_npc_hour": _spread(of(p, "tokens_per_npc_hour"))["mean"]}
                           for p in purposes},
            "conversations": [r["conversations"] for r in runs], "per_conversation": per_conversation,
            "news": [r["news"] for r in runs]}


def bench_calls(args: argparse.Namespace) -> dict[str, Any]:
    if args.run is not None:
        modes = {args.run.name: summarize_calls([calls_from_run(args.run)])}
        seeds: list[int] = []
    else:
        seeds = args.seeds
        modes = {}
        for mode in args.in_view:
            runs = []
            for seed in seeds:
                run = args.out / f"calls-{mode}-seed{seed}"
                print(f"calls: in view {mode}, seed {seed} -> {run}", file=sys.stderr, flush=True)
                _sim(run, latency=0.0, concurrency=1, hours=args.hours or 24, npcs=args.npcs, tick=60,
                     stand_in_seed=seed, in_view=mode)
                runs.append(calls_from_run(run))
            modes[mode] = summarize_calls(runs)
    _print_calls(modes)
    return {"seeds": seeds, "hours": args.hours or 24, "targets": CALL_TARGETS, "modes": modes}


def _print_calls(modes: dict[str, dict[str, Any]]) -> None:
    def figure(s: dict[str, float]) -> str:
        return f"{s['mean']:.2f} ({s['min']:.2f}..{s['max']:.2f}, {s['spread_pct']:.0f}%)"

    labels = [f"in view {m}" for m in modes]
    purposes = list(dict.fromkeys(p for m in modes.values() for p in m["by_purpose"]))
    rows = [[p, *[x for m in modes.values() for x in (
        figure(m["by_purpose"][p]["calls_per_npc_hour"]) if p in m["by_purpose"] else "-",
        f"{m['by_purpose'][p]['tokens_per_npc_hour']:,.0f}" if p in m["by_purpose"] else "-")]] for p in purposes]
    rows.append(["total", *[x for m in modes.values()
                            for x in (figure(m["calls_per_npc_hour"]), f"{m['tokens_per_npc_hour']:,.0f}")]])
    rows.append(["target", *[x for mode in modes for x in (
        f"<= {CALL_TARGETS[mode]:g}" if mode in CALL_TARGETS else "-", "")]])
    print(markdown_table(["purpose", *[x for label in labels for x in (f"{label}: calls / NPC / awake hour "
                                                              "(min..max, spread)", "tokens")]], rows))
    rows = [[p, *[f"{m['per_conversation'][p]:.2f}" for m in modes.values()]]
            for p in [*CONVERSATION_PURPOSES, "total"]]
    rows.append(["conversations", *[" ".join(map(str, m["conversations"])) for m in modes.values()]])
    rows.append(["news: knew at start -> at end (crowd residents who knew / crowd residents)", *[
        " ".join(f"{n['start']}->{n['end']} ({n['crowd_knows']}/{n['crowd']})" if n else "-" for n in m["news"])
        for m in modes.values()]])
    print(markdown_table(["calls per conversation", *labels], rows))
    print("; ".join(f"{label}: {m['npcs']} NPCs, {m['awake_npc_hours']['mean']:.0f} awake NPC-hours, "
                    f"{len(m['runs'])} run(s)" for label, m in zip(labels, modes.values(), strict=True)))
    print(f"original ~{ORIGINAL['calls_per_npc_hour']} calls, ~26k tokens per NPC per awake hour")


# --- (2) simulation speed ------------------------------------------------------------------------


def bench_speed(args: argparse.Namespace) -> dict[str, Any]:
    latency, hours = 0.5, args.hours or 1.0
    results = {}
    for concurrency in (8, 1):
        stats = _sim(args.out / f"speed-c{concurrency}", latency=latency, concurrency=concurrency, hours=hours,
                     npcs=args.npcs)
        ideal_wall = stats["llm_calls"] * latency / concurrency
        stats["ideal_game_s_per_wall_s"] = stats["game_seconds"] / ideal_wall if ideal_wall else float("inf")
        results[f"concurrency_{concurrency}"] = stats
    rows = [[c, s["npcs"], f"{s['game_seconds'] / 3600:g}", s["llm_calls"], f"{s['wall_seconds']:.0f}",
             f"{s['game_seconds_per_wall_second']:.1f}", f"{s['ideal_game_s_per_wall_s']:.1f}"]
            for c, s in results.items()]
    print(markdown_table(["", "NPCs", "game hours", "LLM calls", "wall s", "game-s / wall-s", "ideal"], rows))
    print(f"fake LLM latency {latency} s; target >= 60 game-s/wall-s at concurrency 8; original ~0.8")
    return {"latency_s": latency, **results}


# --- (3) Decide latency from the plan ------------------------------------------------------------


def bench_decide(args: argparse.Namespace) -> dict[str, Any]:
    from google.protobuf import json_format
    import grpc
    import httpx

    from npc_brain.v1 import brain_pb2 as pb
    from npc_brain.v1 import brain_pb2_grpc
    from npc_lab.sim.brain import BrainProcess
    from npc_lab.sim.data import ROOT, load_all, repeated_spawn_requests
    from npc_lab.sim.grid import layout

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from npc_lab.fake_openai import FakeOpenAI

    town, residents, _ = load_all("valentines_party")
    world = layout(town).world_message(town)
    sizes = args.sizes or [25, 250, 1000]
    samples = args.samples
    results: dict[str, Any] = {}
    now = datetime(2026, 2, 13, 10, tzinfo=UTC)
    with FakeOpenAI() as fake:
        for n in sizes:
            with tempfile.TemporaryDirectory() as data_dir:
                brain = BrainProcess({"llm_base_url": fake.base_url, "llm_model": "fake-model", "data_dir": data_dir,
                                      "prepare_ahead_minutes": 0, "log_level": "warning",
                                      "rate_limit_per_s": 0},  # one client, as fast as it can: no limit
                                     args.out / f"decide-{n}.log").start()
                try:
                    channel = grpc.insecure_channel(brain.grpc_target)
                    stub = brain_pb2_grpc.BrainServiceStub(channel)
                    stub.RegisterWorld(json_format.ParseDict(world, pb.RegisterWorldRequest()), timeout=60)
                    ids = []
                    t0 = time.perf_counter()
                    for body in repeated_spawn_requests(residents, town.name, n):
                        stub.SpawnNpc(json_format.ParseDict(body, pb.SpawnNpcRequest()), timeout=60)
                        ids.append(body["npcId"])
                    first = pb.DecideRequest()
                    first.game_time.FromDatetime(now)
                    for npc_id in ids:  # the day plan and the block's steps: LLM calls, not measured
                        first.npc_id = npc_id
                        stub.Decide(first, timeout=120)
                    setup_s = time.perf_counter() - t0
                    rng = random.Random(n)
                    grpc_ms, connect_ms, unplanned = [], [], 0
                    request = pb.DecideRequest()
                    request.game_time.FromDatetime(now + timedelta(minutes=1))
                    # Nagle's algorithm would hold the body back until the headers are ACKed
                    # (a delayed ACK: ~40 ms); game engines' HTTP clients disable it too.
                    nodelay = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
                    http = httpx.Client(base_url=brain.http_url, timeout=30, transport=nodelay)
                    for _ in range(samples):
                        request.npc_id = rng.choice(ids)
                        t = time.perf_counter()
                        reply = stub.Decide(request, timeout=30)
                        grpc_ms.append((time.perf_counter() - t) * 1000)
                        unplanned += reply.action.source != pb.ACTION_SOURCE_PLAN
                        body = json.dumps({"npcId": rng.choice(ids), "gameTime": "2026-02-13T10:01:00Z"})
                        t = time.perf_counter()
                        response = http.post("/npc_brain.v1.BrainService/Decide", content=body,
                                             headers={"Content-Type": "application/json"})
                        connect_ms.append((time.perf_counter() - t) * 1000)
                        response.raise_for_status()
                    http.close()
                    channel.close()
                    results[str(n)] = {
                        "npcs": n, "samples": samples, "setup_s": setup_s, "not_from_plan": unplanned,
                        "grpc_p50_ms": percentile(grpc_ms, 0.50), "grpc_p99_ms": percentile(grpc_ms, 0.99),
                        "connect_p50_ms": percentile(connect_ms, 0.50), "connect_p99_ms": percentile(connect_ms, 0.99),
                        "rss_mib": brain.rss_bytes() / 2**20}
                finally:
                    brain.stop()
    rows = [[r["npcs"], f"{r['grpc_p50_ms']:.2f}", f"{r['grpc_p99_ms']:.2f}", f"{r['connect_p50_ms']:.2f}",
             f"{r['connect_p99_ms']:.2f}", f"{r['rss_mib']:.0f}", r["not_from_plan"]] for r in results.values()]
    print(markdown_table(["NPCs", "gRPC p50 ms", "gRPC p99 ms", "Connect p50 ms", "Connect p99 ms", "brain RSS MiB",
                  "not from plan"], rows))
    print("targets: p99 <= 2 ms at 25 NPCs, <= 5 ms at 1000")
    return results


# --- (4) retrieval and (5) embeddings ------------------------------------------------------------


def bench_retrieval(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    from brain_server.cognition.memory_stream import MemoryStream
    from brain_server.cognition.retrieve import RetrievalWeights
    from brain_server.config import Settings
    from brain_server.model.memory import MemoryKind, MemoryNode
    from brain_server.persistence.storage import open_store

    npcs, per_npc, dim = 25, args.memories, 384
    rng = np.random.default_rng(0)
    now = datetime(2026, 2, 13, tzinfo=UTC)
    results = {}
    for backend in args.backends or ("edge", "local"):
        with tempfile.TemporaryDirectory() as d:
            settings = Settings(data_dir=Path(d) / "edge", qdrant_path=Path(d) / "local" if backend == "local" else None)
            store = open_store(settings, dim)
            t0 = time.perf_counter()
            for i in range(npcs):
                for start in range(0, per_npc, 1000):
                    count = min(1000, per_npc - start)
                    vectors = rng.standard_normal((count, dim)).astype("float32")
                    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
                    nodes = [MemoryNode(npc_id=f"npc{i}", kind=MemoryKind.OBSERVATION, description=f"event {start + j}",
                                        created=now, last_accessed=now) for j in range(count)]
                    store.add(nodes, vectors.tolist())
            load_s = time.perf_counter() - t0
            stream = MemoryStream(store, embedder=None, llm=None, weights=RetrievalWeights())  # type: ignore[arg-type]
            times, nearest = [], []
            for q in range(args.samples):
                vector = rng.standard_normal(dim)
                vector /= np.linalg.norm(vector)
                t = time.perf_counter()
                found = stream.top(f"npc{q % npcs}", vector.tolist(), "a query", now, None)
                times.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                store.nearest(f"npc{q % npcs}", vector.tolist(), 30)
                nearest.append((time.perf_counter() - t) * 1000)
                assert len(found) == 30
            store.close()
            results[backend] = {"points": npcs * per_npc, "load_s": load_s, "p50_ms": percentile(times, 0.50),
                                "p99_ms": percentile(times, 0.99), "nearest_p50_ms": percentile(nearest, 0.50),
                                "nearest_p99_ms": percentile(nearest, 0.99)}
            print(f"{backend}: {results[backend]}", flush=True)
    rows = [[b, r["points"], f"{r['load_s']:.0f}", f"{r['p50_ms']:.2f}", f"{r['p99_ms']:.2f}",
             f"{r['nearest_p50_ms']:.2f}", f"{r['nearest_p99_ms']:.2f}"] for b, r in results.items()]
    print(markdown_table(["store", "points", "load s", "retrieval p50 ms", "p99 ms", "nearest-30 p50 ms", "p99 ms"], rows))
    print("retrieval: the whole stream scored as the paper (recency, importance, relevance), top 30; "
          "nearest-30: the vector search alone. Target: p50 <= 2 ms embedded (edge), set for the search alone")
    return results


def _mixed_texts(n: int) -> list[str]:
    """What a running town embeds, in its proportions: mostly short observations, now and then a
    day plan or a conversation's gist ten times as long (a batch of equal texts hides padding)."""
    rng = random.Random(7)
    places, doings = ["the mill", "the quay", "the chapel", "the bakery", "the square"], [
        "sweeping the floor", "mending a net", "reading the notices", "buying bread", "talking to a neighbour"]
    texts = []
    for i in range(n):
        if rng.random() < 0.8:
            texts.append(f"Resident {i} is {rng.choice(doings)} at {rng.choice(places)}")
        else:
            texts.append(f"Resident {i}'s plan for today: " + "; ".join(
                f"{rng.choice(doings)} at {rng.choice(places)} from {h}:00" for h in range(6, 6 + rng.randint(4, 12))))
    return texts


def bench_embed(args: argparse.Namespace) -> dict[str, Any]:
    """Per --embedders: texts per second and CPU per text (which load hardly changes: MiniLM's
    process's, the static table's in this process), one at a time and in batches (MiniLM's under
    batch_N as before, the static table's under static_batch_N), and texts of mixed lengths in
    batches of 64 (<name>_mixed_batch_64); then each one's retrieval quality
    on our own set (npc_lab/retrieval_bench.py) beside a bag of words."""
    from brain_server.llm.embeddings import MiniLMEmbedder, StaticEmbedder
    from npc_lab.realtime import cpu_seconds
    from npc_lab.retrieval_bench import retrieval_quality

    texts = [f"Resident {i} is having breakfast at the cafe with a friend, talking about the weather {i}"
             for i in range(args.samples)]
    mixed = _mixed_texts(args.samples)
    out: dict[str, Any] = {"threads": args.embed_threads}
    embedders: dict[str, MiniLMEmbedder | StaticEmbedder] = {}
    for name in args.embedders:
        cache = args.cache_dir or Path("data") / "cache"
        embedder: MiniLMEmbedder | StaticEmbedder = (
            StaticEmbedder(cache) if name == "static" else
            MiniLMEmbedder(threads=args.embed_threads, kernels_dir=cache if name == "minilm" else None))
        if isinstance(embedder, StaticEmbedder) and embedder.model.built_s is not None:
            out["static_build_s"] = embedder.model.built_s
        embedder.embed_sync(texts[:8])
        pid = embedder.process_id() if isinstance(embedder, MiniLMEmbedder) else None
        for batch in (1, 8, 32):
            t, cpu = time.perf_counter(), cpu_seconds(pid) if pid else time.process_time()
            for i in range(0, len(texts), batch):
                embedder.embed_sync(texts[i:i + batch])
            used = (cpu_seconds(pid) if pid else time.process_time()) - cpu
            out[f"{'' if name == 'minilm' else name + '_'}batch_{batch}"] = {"texts_per_s": len(texts) / (time.perf_counter() - t),
                                            "cpu_ms_per_text": used * 1000 / len(texts)}
        t, cpu = time.perf_counter(), cpu_seconds(pid) if pid else time.process_time()
        for i in range(0, len(mixed), 64):
            embedder.embed_sync(mixed[i:i + 64])
        used = (cpu_seconds(pid) if pid else time.process_time()) - cpu
        out[f"{name}_mixed_batch_64"] = {"texts_per_s": len(mixed) / (time.perf_counter() - t),
                                         "cpu_ms_per_text": used * 1000 / len(mixed)}
        embedders[name] = embedder
    out["quality"] = retrieval_quality({name: e.embed_sync for name, e in embedders.items()})
    for embedder in embedders.values():
        embedder.close()
    print(markdown_table(["embedder, batch", "texts / s", "CPU ms / text"],
                         [[("minilm_" + k if k.startswith("batch_") else k).replace("_batch_", ", "),
                           f"{v['texts_per_s']:.0f}", f"{v['cpu_ms_per_text']:.3f}"] for k, v in out.items() if "batch_" in k]))
    print(markdown_table(["retrieval (our set)", "recall@10", "MRR"],
                         [[k, f"{v['recall_at_10']:.3f}", f"{v['mrr']:.3f}"] for k, v in out["quality"].items()]))
    return out


def bench_embedded(args: argparse.Namespace) -> dict[str, Any]:
    from npc_lab import embedded_bench

    return embedded_bench.bench_embedded(args)


def bench_realtime(args: argparse.Namespace) -> dict[str, Any]:
    from npc_lab import realtime

    return realtime.bench_realtime(args)


def bench_timers(args: argparse.Namespace) -> dict[str, Any]:
    from npc_lab import timers_bench

    return timers_bench.bench_timers(args)


def bench_kills(args: argparse.Namespace) -> dict[str, Any]:
    from npc_lab import kills_bench

    return kills_bench.bench_kills(args)


def bench_memos(args: argparse.Namespace) -> dict[str, Any]:
    from npc_lab import memo_bench

    return memo_bench.bench_memos(args)


def bench_spread(args: argparse.Namespace) -> dict[str, Any]:
    from npc_lab import spread

    return spread.bench_spread(args)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="npc-lab bench")
    add_arguments(parser)
    run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=NAMES)
    parser.add_argument("--out", type=Path, default=Path("runs") / "bench")
    parser.add_argument("--run", type=Path, help="calls: measure this sim run folder instead of a fresh run")
    parser.add_argument("--hours", type=float, help="calls / speed: game hours to simulate (default 24 / 1)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="calls: the stand-in model's seeds")
    parser.add_argument("--in-view", nargs="+", default=["all", "5"], type=_view_mode,
                        help="calls: how many residents the player sees, one run per value and seed: 'all' "
                        "(every Decide says in view), a number, or N+M: N in view, the M next nearest out of "
                        "view, the rest a crowd (default: all 5)")
    parser.add_argument("--npcs", type=int, help="calls / speed / realtime: only the first N residents")
    parser.add_argument("--minutes", type=float, help="realtime: wall minutes (default 10)")
    parser.add_argument("--latency", type=float, help="realtime: fake LLM seconds per completion (default 2), "
                        "or to its first token with --tokens-per-s")
    parser.add_argument("--tokens-per-s", type=float, help="realtime: the fake LLM's tokens a second after the first")
    parser.add_argument("--streaming", choices=("sse", "ignore", "refuse"),
                        help="realtime: the fake LLM streams (sse, default), answers whole, or refuses to stream")
    parser.add_argument("--talk", choices=("stream", "unary"), help="realtime: the player's RPC, TalkStream "
                        "(default) or Talk")
    parser.add_argument("--sizes", type=int, nargs="*", help="decide: NPC counts (default 25 250 1000)")
    parser.add_argument("--embed-threads", type=int, default=EMBEDDINGS_THREADS,
                        help=f"embed: onnxruntime's threads (default {EMBEDDINGS_THREADS}, the brain's)")
    parser.add_argument("--embedders", nargs="+", choices=("minilm", "minilm-float", "static"), default=["minilm"],
                        help="embed: the local embedders measured (default minilm, with the integer kernels the "
                        "brain runs by default; minilm-float: the kernels the model ships with; static builds its "
                        "table, minutes, the first time in --cache-dir)")
    parser.add_argument("--cache-dir", type=Path, help="embed: where the static table and MiniLM's integer kernels "
                        "are cached (default data/cache, the brain's)")
    parser.add_argument("--samples", type=int, help="decide / retrieval / embed: measurements (default 1000); "
                        "embedded: calls per purpose (default 5)")
    parser.add_argument("--purposes", nargs="*", help="embedded: only these prompt purposes (default all)")
    parser.add_argument("--corpus", nargs="*", help="memos: corpora of conversations and memos (default "
                        "npc_lab/corpora/memos_a.jsonl, memos_b.jsonl and memos_c.jsonl)")
    parser.add_argument("--memories", type=int, default=4000, help="retrieval: memories per NPC")
    parser.add_argument("--backends", nargs="*", choices=("edge", "local"), help="retrieval: stores (default both)")
    parser.add_argument("--points", type=int, default=20, help="kills: kill points per store and RPC")
    parser.add_argument("--stores", nargs="+", choices=("embedded", "server"), default=["embedded", "server"],
                        help="kills: the embedded engine, a Qdrant server (default both)")
    parser.add_argument("--seed", type=int, default=43, help="kills: the draw of the kill points")
    parser.add_argument("--rpcs", nargs="+", choices=("LoadWorld", "SaveWorld"), default=["LoadWorld", "SaveWorld"],
                        help="kills: the RPCs killed (default both)")
    parser.add_argument("--qdrant-url", help="kills: a real Qdrant server instead of the REST stand-in")
    parser.add_argument("--before", type=Path, nargs="+", default=[],
                        help="spread: runs of `bench realtime` (their --out folders) before a change")
    parser.add_argument("--after", type=Path, nargs="+", default=[], help="spread: runs of it after the change")


def _view_mode(value: str) -> str:
    if value != "all" and not all(part.isdigit() for part in value.split("+", 1)):
        raise argparse.ArgumentTypeError(f"expected 'all', a number of residents in view, or N+M (N in view, M "
                                         f"more out of view, the rest a crowd), not {value!r}")
    return value


def run(args: argparse.Namespace) -> None:
    args.out.mkdir(parents=True, exist_ok=True)
    if args.samples is None:
        args.samples = 5 if args.name == "embedded" else 1000
    bench = {"calls": bench_calls, "speed": bench_speed, "decide": bench_decide, "retrieval": bench_retrieval,
             "embed": bench_embed, "realtime": bench_realtime, "spread": bench_spread, "embedded": bench_embedded,
             "timers": bench_timers, "kills": bench_kills, "memos": bench_memos}[args.name]
    result = {"bench": args.name, "machine": machine(), "when": datetime.now(UTC).isoformat(), "result": bench(args)}
    path = args.out / f"bench-{args.name}.json"
    path.write_text(json.dumps(result, indent=1, default=str))
    print(f"machine: {result['machine']}\nwritten: {path}")


if __name__ == "__main__":
    main()
