"""Load test on loopback: N NPCs (the Ville's 25 residents repeated) call Decide concurrently for a
fixed time per transport, against a brain started here with the fake LLM (`npc_lab/fake_openai.py`).
Reports errors by status, latency percentiles, throughput and the brain's RSS sampled over the run
with a "memory flat" verdict; prints a table and writes JSON.

    .venv/bin/python -m tools.loadtest --npcs 1000 --seconds 60 --transports grpc,connect --out runs/loadtest.json

Each NPC's day is planned first (its first Decide at 08:00, timed but not in the percentiles).
Then a game clock starts at 08:00, running --time-scale game seconds per wall second across the
transports, and per transport every NPC runs its own loop as Godot drives it: Decide at the
clock's time, then wait until the answered action ends on that clock (at least --pause and at
most --max-wait wall seconds), again. At most --concurrency calls are in flight. Decides carry no
perceptions: this measures the decision path (plan steps, decomposing each hour's block) and the
transports, not embedding throughput. The brain keeps --traces-per-npc traces per NPC, so that
this bounded cache fills early in the run and "memory flat" speaks of everything else.
Bounded: --npcs <= 2000, --seconds <= 300 per transport, loopback only; rate limit off.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import statistics
import tempfile
import threading
import time
from typing import Any

from google.protobuf import json_format
import grpc
import httpx

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.fake_openai import FakeOpenAI
from npc_lab.sim.brain import BrainProcess
from npc_lab.sim.data import load_all, repeated_spawn_requests
from npc_lab.sim.grid import layout

MAX_NPCS = 2000
MAX_SECONDS = 300
START = datetime(2026, 2, 13, 8, tzinfo=UTC)
DECIDE_PATH = "/npc_brain.v1.BrainService/Decide"


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)

    def at(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 1)

    return {"count": len(values), "p50_ms": at(50), "p90_ms": at(90), "p99_ms": at(99), "max_ms": round(ordered[-1], 1),
            "mean_ms": round(statistics.fmean(values), 1)}


def memory_verdict(samples_mib: list[float], bound_mib: float) -> dict[str, Any]:
    """Flat = the median of the last third of the samples is at most bound_mib above the first third's."""
    if not samples_mib:
        return {"flat": False, "bound_mib": bound_mib}
    third = max(1, len(samples_mib) // 3)
    first, last = statistics.median(samples_mib[:third]), statistics.median(samples_mib[-third:])
    return {"first_third_mib": round(first, 1), "last_third_mib": round(last, 1),
            "growth_mib": round(last - first, 1), "bound_mib": bound_mib, "flat": last - first <= bound_mib}


class GameClock:
    """Game time that runs `scale` game seconds per wall second from START, shared by all NPCs."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.began = time.monotonic()

    def now(self) -> datetime:
        return START + timedelta(seconds=(time.monotonic() - self.began) * self.scale)

    def wall_seconds_until(self, when: datetime) -> float:
        return (when - self.now()).total_seconds() / self.scale


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


class RssSampler:
    """Samples the brain's memory every `every_s` seconds in a thread, tagged with the running phase."""

    def __init__(self, brain: BrainProcess, every_s: float) -> None:
        self.brain, self.every_s = brain, every_s
        self.phase = "setup"
        self.samples: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._began = time.monotonic()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.samples.append({"t_s": round(time.monotonic() - self._began, 1), "phase": self.phase,
                                 **memory_mib(self.brain.proc.pid)})  # type: ignore[union-attr]

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class Caller:
    """Decide over one transport: (status of a failed call or '', when the answered action ends)."""

    def __init__(self, transport: str, brain: BrainProcess, concurrency: int) -> None:
        self.transport = transport
        self.channel = grpc.aio.insecure_channel(brain.grpc_target)
        self.stub = brain_pb2_grpc.BrainServiceStub(self.channel)
        # A connection per request, as Godot's HTTPRequest does. Reused keep-alive connections race
        # the server's idle close when this client lags under load: a request written as the server
        # closes is reset (ReadError), and httpx does not retry a POST.
        self.http = httpx.AsyncClient(base_url=brain.http_url, timeout=120,
                                      limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=0))

    async def decide(self, npc_id: str, when: datetime) -> tuple[str, datetime | None]:
        try:
            if self.transport == "grpc":
                request = pb.DecideRequest(npc_id=npc_id)
                request.game_time.FromDatetime(when)
                action = (await self.stub.Decide(request, timeout=120)).action
                return "", action.start_time.ToDatetime(UTC) + timedelta(minutes=action.duration_minutes)
            response = await self.http.post(DECIDE_PATH, json={"npcId": npc_id, "gameTime": when.isoformat()})
        except grpc.aio.AioRpcError as exc:
            return f"grpc {exc.code().name}", None
        except httpx.HTTPError as exc:
            return f"connect {type(exc).__name__} {exc}"[:120], None
        if response.status_code != 200:
            code = response.json().get("code", "") if response.content else ""
            return f"connect HTTP {response.status_code} {code}", None
        action = response.json()["action"]
        return "", datetime.fromisoformat(action["startTime"]) + timedelta(minutes=action.get("durationMinutes", 0))

    async def close(self) -> None:
        await self.channel.close()
        await self.http.aclose()


async def plan_days(caller: Caller, ids: list[str], concurrency: int) -> dict[str, Any]:
    """Every NPC's first Decide at START: its day plan and the first block's steps (LLM calls to the fake)."""
    gate = asyncio.Semaphore(concurrency)
    errors: Counter[str] = Counter()

    async def first(npc_id: str) -> None:
        async with gate:
            status, _ = await caller.decide(npc_id, START)
            if status:
                errors[status] += 1

    began = time.perf_counter()
    await asyncio.gather(*(first(npc_id) for npc_id in ids))
    return {"npcs": len(ids), "wall_s": round(time.perf_counter() - began, 1), "errors": dict(errors)}


async def load_phase(caller: Caller, ids: list[str], clock: GameClock, args: argparse.Namespace) -> dict[str, Any]:
    """One loop per NPC for args.seconds: Decide now, wait for the action's end, again."""
    gate = asyncio.Semaphore(args.concurrency)
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    began = time.monotonic()
    game_began = clock.now()

    async def npc_loop(npc_id: str) -> None:
        while time.monotonic() - began < args.seconds:
            async with gate:
                sent = time.perf_counter()
                status, ends = await caller.decide(npc_id, clock.now())
                elapsed = (time.perf_counter() - sent) * 1000
            if status:
                errors[status] += 1
            else:
                latencies.append(elapsed)
            wait = max(clock.wall_seconds_until(ends) if ends else 0.0, args.pause)
            await asyncio.sleep(min(wait, args.max_wait, max(0.0, args.seconds - (time.monotonic() - began))))

    await asyncio.gather(*(npc_loop(npc_id) for npc_id in ids))
    wall = time.monotonic() - began
    return {"transport": caller.transport, "wall_s": round(wall, 1), "decides": len(latencies),
            "decides_per_s": round(len(latencies) / wall, 1), "errors": sum(errors.values()),
            "errors_by_status": dict(errors), "game_time": [f"{game_began:%H:%M}", f"{clock.now():%H:%M}"],
            **percentiles(latencies)}


async def drive(brain: BrainProcess, args: argparse.Namespace, ids: list[str], sampler: RssSampler) -> dict[str, Any]:
    setup_caller = Caller("grpc", brain, args.concurrency)
    try:
        planning = await plan_days(setup_caller, ids, args.plan_concurrency)
    finally:
        await setup_caller.close()
    clock = GameClock(args.time_scale)
    phases = []
    for transport in args.transports:
        sampler.phase = transport
        caller = Caller(transport, brain, args.concurrency)
        try:
            phases.append(await load_phase(caller, ids, clock, args))
        finally:
            await caller.close()
    return {"planning": planning, "phases": phases}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Starts the fake LLM and a brain, spawns and plans the NPCs, loads each transport; the report."""
    npcs, seconds = min(args.npcs, MAX_NPCS), min(args.seconds, MAX_SECONDS)
    args.seconds = seconds
    town, residents, _ = load_all("valentines_party")
    bodies = repeated_spawn_requests(residents, town.name, npcs)
    with FakeOpenAI(latency_s=args.llm_latency) as fake, tempfile.TemporaryDirectory() as data:
        settings = {"llm_base_url": fake.base_url, "llm_model": "fake-model", "data_dir": data, "host": "127.0.0.1",
                    "log_level": "warning", "rate_limit_per_s": 0, "traces_per_npc": args.traces_per_npc}
        with BrainProcess(settings, Path(data) / "brain.log") as brain:
            channel = grpc.insecure_channel(brain.grpc_target)
            stub = brain_pb2_grpc.BrainServiceStub(channel)
            stub.RegisterWorld(json_format.ParseDict(layout(town).world_message(town), pb.RegisterWorldRequest()),
                               timeout=60)
            for body in bodies:
                stub.SpawnNpc(json_format.ParseDict(body, pb.SpawnNpcRequest()), timeout=60)
            channel.close()
            with RssSampler(brain, args.rss_every) as sampler:
                results = asyncio.run(drive(brain, args, [b["npcId"] for b in bodies], sampler))
            loaded = [s for s in sampler.samples if s["phase"] != "setup"]
    errors = sum(p["errors"] for p in results["phases"]) + sum(results["planning"]["errors"].values())
    return {"npcs": npcs, "seconds_per_transport": seconds, "concurrency": args.concurrency, "pause_s": args.pause,
            "max_wait_s": args.max_wait, "time_scale": args.time_scale, "traces_per_npc": args.traces_per_npc,
            "llm_latency_s": args.llm_latency, "llm_calls": len(fake.chat_requests()), **results, "errors": errors,
            "memory": memory_verdict([s["rss_mib"] for s in loaded], args.max_rss_growth_mib),
            "memory_anonymous": memory_verdict([s["anon_mib"] for s in loaded], args.max_rss_growth_mib),
            "rss_samples": sampler.samples}


def table(report: dict[str, Any]) -> str:
    headers = ["transport", "decides", "per s", "errors", "p50 ms", "p90 ms", "p99 ms", "max ms", "game time"]
    rows = [[p["transport"], p["decides"], p["decides_per_s"], p["errors"], p.get("p50_ms"), p.get("p90_ms"),
             p.get("p99_ms"), p.get("max_ms"), "-".join(p["game_time"])] for p in report["phases"]]
    lines = [" | ".join(headers), " | ".join("---" for _ in headers), *(" | ".join(map(str, r)) for r in rows)]
    plan, memory = report["planning"], report["memory"]
    rss = ", ".join(f"{s['rss_mib']:.0f}/{s['anon_mib']:.0f}" for s in report["rss_samples"] if s["phase"] != "setup")
    lines += [f"{report['npcs']} NPCs; day plans: {plan['wall_s']} s, errors {plan['errors'] or 0}; "
              f"LLM calls {report['llm_calls']}",
              f"brain RSS/anonymous MiB under load: {rss}",
              f"memory {'flat' if memory.get('flat') else 'NOT flat'}: RSS median of the last third "
              f"{memory.get('last_third_mib')} vs first third {memory.get('first_third_mib')} MiB "
              f"(growth {memory.get('growth_mib')}, bound {memory.get('bound_mib')}; anonymous memory "
              f"{report['memory_anonymous'].get('growth_mib')})"]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--npcs", type=int, default=100, help=f"NPCs (at most {MAX_NPCS})")
    parser.add_argument("--seconds", type=float, default=20, help=f"wall seconds per transport (at most {MAX_SECONDS})")
    parser.add_argument("--transports", type=lambda s: [t for t in s.split(",") if t], default=["grpc", "connect"],
                        help="comma-separated: grpc, connect")
    parser.add_argument("--concurrency", type=int, default=1000, help="Decide calls in flight at most")
    parser.add_argument("--plan-concurrency", type=int, default=16, help="first Decides (day plans) in flight at most")
    parser.add_argument("--pause", type=float, default=1.0, help="wall seconds an NPC waits at least between Decides")
    parser.add_argument("--max-wait", type=float, default=10.0, help="wall seconds an NPC waits at most between Decides")
    parser.add_argument("--time-scale", type=float, default=60, help="game seconds per wall second")
    parser.add_argument("--llm-latency", type=float, default=0.0, help="seconds the fake LLM takes per answer")
    parser.add_argument("--traces-per-npc", type=int, default=5, help="the brain's NPC_BRAIN_TRACES_PER_NPC")
    parser.add_argument("--rss-every", type=float, default=3.0, help="seconds between RSS samples")
    parser.add_argument("--max-rss-growth-mib", type=float, default=50.0,
                        help="memory is flat if the last third of samples is at most this above the first third")
    parser.add_argument("--out", type=Path, default=Path("runs") / "loadtest.json")
    args = parser.parse_args(argv)
    if unknown := set(args.transports) - {"grpc", "connect"}:
        parser.error(f"unknown transports {sorted(unknown)}: use grpc, connect")
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    report = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(table(report))
    return report


if __name__ == "__main__":
    main()
