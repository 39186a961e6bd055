"""Many tenants' towns in one brain (`python -m tools.loadtest --tenants 200 --npcs 25`): each
tenant registers its own copy of the Ville and spawns --npcs residents with its own token, minted as
tools/game_server.py mints a player's (HS256, `sub` the tenant), and then every NPC of every tenant
calls Decide over gRPC on one game clock for --seconds, as Godot drives an agent (askAgainAt, at
least --pause and at most --max-wait wall seconds). Against the fake LLM (npc_lab/fake_openai.py) in
a process of its own. Reports the Decide latencies and errors, the brain's memory (its store's and
embedder's processes included) per tenant and per NPC once the towns are spawned, the LLM calls the
fake received, each tenant's spend as the admin key's GetUsage counts it (with --tenant-calls, the
ceiling per tenant: the tenants past it and the calls refused) and the machine's load average;
prints a table and writes JSON (--out).

With --idle S the brain puts a town to sleep after S seconds without a call (NPC_BRAIN_TENANT_IDLE_S,
api/towns.py): after the load every town goes quiet until /metrics counts them all asleep, then
each tenant's first Decide wakes its own. Reported: the ms per NPC to unload and to restore (the
brain's own count, /metrics), the first Decide's latency with its wake, and the memory per tenant
awake, asleep and woken again. A wake reads nothing: the first Decide reads its NPC's record, so
its latency is the restore as a player sees it.

With --replicas N the tenants are spread over N brain processes, each told its place
(NPC_BRAIN_REPLICA_INDEX / _COUNT), each tenant's calls sent to `replica_of(tenant)` with its
`x-npc-tenant` header, as deploy/nginx.conf routes them (a call routed otherwise is refused, so
an error count of 0 shows the routing held). Each replica keeps its own embedded store: a pinned
tenant is served by one process, and a shared Qdrant (what moving tenants needs) is not measured
here. Memory, GetUsage and /metrics are the replicas' summed."""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from datetime import UTC, datetime
import os
from pathlib import Path
import secrets
import tempfile
import time
from typing import Any

from google.protobuf import json_format
import grpc
import httpx

from brain_server.api.pinning import TENANT_HEADER, replica_of
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.realtime import FakeProcess, GameClock, next_ask, own_turn_s, percentiles
from npc_lab.sim.brain import BrainProcess
from npc_lab.sim.data import load_all, repeated_spawn_requests
from npc_lab.sim.grid import layout
from tools.game_server import mint

MAX_TENANTS = 1000
DEADLINE_S = 15.0  # Godot's lane deadline
SETUP_DEADLINE_S = 120.0  # a town's registration and spawns, on a loaded machine
SETUP_IN_FLIGHT = 32
ASLEEP_POLL_S = 1.0  # how often /metrics is read while the towns fall asleep
ASLEEP_LIMIT_S = 600.0  # towns still thinking (day plans) on a loaded machine sleep one after another, slowly
START = datetime(2026, 2, 13, 8, tzinfo=UTC)  # the game clock's start, as tools/loadtest.py's
Rss = Callable[[int], float]  # a process's resident MiB with its children's (tools/loadtest.py passes its own)


class Tenant:
    """One player's game: its token and the calls it makes with it."""

    def __init__(self, name: str, secret: str, stub: brain_pb2_grpc.BrainServiceStub) -> None:
        self.name, self.stub = name, stub
        self.metadata = (("authorization", f"Bearer {mint(secret, name, 'play inspect', ttl_s=3600)}"),
                         (TENANT_HEADER, name))

    async def call(self, method: str, request: Any, timeout_s: float = DEADLINE_S) -> Any:
        return await getattr(self.stub, method)(request, timeout=timeout_s, metadata=self.metadata)


async def set_up(tenants: list[Tenant], world: pb.RegisterWorldRequest, spawns: list[pb.SpawnNpcRequest]) -> float:
    """Every tenant's town registered and spawned; the wall seconds it took."""
    started, gate = time.perf_counter(), asyncio.Semaphore(SETUP_IN_FLIGHT)

    async def town(tenant: Tenant) -> None:
        async with gate:
            await tenant.call("RegisterWorld", world, SETUP_DEADLINE_S)
        for spawn in spawns:
            async with gate:
                await tenant.call("SpawnNpc", spawn, SETUP_DEADLINE_S)

    await asyncio.gather(*(town(t) for t in tenants))
    return round(time.perf_counter() - started, 1)


async def load(tenants: list[Tenant], ids: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Every tenant's NPCs asking Decide for --seconds: latencies, errors, provisional answers."""
    clock, gate = GameClock(args.time_scale, START), asyncio.Semaphore(args.concurrency)
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    thinking = 0
    began = time.monotonic()
    end = began + args.seconds

    async def npc_loop(tenant: Tenant, npc_id: str) -> None:
        nonlocal thinking
        await asyncio.sleep(own_turn_s(f"{tenant.name}.{npc_id}", args.start_spread))
        while time.monotonic() < end:
            now = clock.now()
            request = pb.DecideRequest(npc_id=npc_id)
            request.game_time.FromDatetime(now)
            sent = time.perf_counter()
            try:
                async with gate:
                    answer = await tenant.call("Decide", request)
            except grpc.aio.AioRpcError as exc:
                errors[exc.code().name] += 1
                await asyncio.sleep(args.pause)
                continue
            latencies.append((time.perf_counter() - sent) * 1000)
            thinking += answer.thinking
            wait = clock.wall_seconds_until(next_ask(answer, now))
            await asyncio.sleep(min(max(wait, args.pause), args.max_wait))

    await asyncio.gather(*(npc_loop(t, i) for t in tenants for i in ids))
    wall = time.monotonic() - began
    return {"wall_s": round(wall, 1), "decides": len(latencies), "decides_per_s": round(len(latencies) / wall, 1),
            "thinking": thinking, "errors": dict(errors), "latency": percentiles(latencies)}


def _rss(brains: list[BrainProcess], rss: Rss) -> float:
    return round(sum(rss(brain.proc.pid) for brain in brains), 1)  # type: ignore[union-attr]


async def drive(brains: list[BrainProcess], secret: str, admin: str, args: argparse.Namespace,
                rss: Rss) -> dict[str, Any]:
    town, residents, _ = load_all("valentines_party")
    world = json_format.ParseDict(layout(town).world_message(town), pb.RegisterWorldRequest())
    bodies = repeated_spawn_requests(residents, town.name, args.npcs)
    spawns = [json_format.ParseDict(b, pb.SpawnNpcRequest()) for b in bodies]
    channels = [grpc.aio.insecure_channel(brain.grpc_target) for brain in brains]
    try:
        stubs = [brain_pb2_grpc.BrainServiceStub(channel) for channel in channels]
        tenants = [Tenant(name, secret, stubs[replica_of(name, len(stubs))])
                   for name in (f"t{n:04d}" for n in range(args.tenants))]
        rss_before = _rss(brains, rss)
        setup_s = await set_up(tenants, world, spawns)
        rss_spawned = _rss(brains, rss)
        phase = await load(tenants, [b["npcId"] for b in bodies], args)
        rss_after = _rss(brains, rss)
        slept = await sleep_and_wake(brains, admin, tenants, bodies[0]["npcId"], args, rss) if args.idle else None
        usages = [await stub.GetUsage(pb.GetUsageRequest(), timeout=60, metadata=(("authorization", f"Bearer {admin}"),))
                  for stub in stubs]
    finally:
        for channel in channels:
            await channel.close()
    spends = [spend for usage in usages for spend in usage.tenants]
    ceiling = usages[0].tenant_ceiling.calls_per_window
    return {"setup_s": setup_s, "load": phase, "tenants_per_replica": [sum(replica_of(t.name, len(brains)) == r
                                                                            for t in tenants) for r in range(len(brains))],
            "memory": {"before_mib": rss_before, "spawned_mib": rss_spawned, "after_mib": rss_after,
                       "per_tenant_mib": round((rss_spawned - rss_before) / args.tenants, 2),
                       "per_tenant_after_load_mib": round((rss_after - rss_before) / args.tenants, 2),
                       "per_npc_kib": round((rss_after - rss_before) * 1024 / (args.tenants * args.npcs), 1)},
            "spend": {"tenants_counted": len(spends), "calls": sum(s.calls for s in spends),
                      "max_calls_per_tenant": max((s.calls for s in spends), default=0),
                      "refused": sum(s.refused for s in spends),
                      "tenants_past_ceiling": sum(s.calls >= ceiling for s in spends) if ceiling else 0,
                      "ceiling_calls": ceiling},
            **({"sleep": slept} if slept else {})}


def _towns(brains: list[BrainProcess], admin: str) -> dict[str, float]:
    """The brains' npc_brain_towns_* series, summed."""
    towns: dict[str, float] = {}
    for brain in brains:
        page = httpx.get(f"{brain.http_url}/metrics", headers={"Authorization": f"Bearer {admin}"}, timeout=60).text
        for name, value, *_ in (line.split() for line in page.splitlines() if line.startswith("npc_brain_towns_")):
            towns[name.removeprefix("npc_brain_towns_")] = towns.get(name.removeprefix("npc_brain_towns_"), 0.0) + float(value)
    return towns


async def sleep_and_wake(brains: list[BrainProcess], admin: str, tenants: list[Tenant], npc_id: str,
                         args: argparse.Namespace, rss: Rss) -> dict[str, Any]:
    """Every town left idle until the brains count it asleep, then woken by one Decide each."""
    began = time.monotonic()
    awake_mib = _rss(brains, rss)
    while (towns := await asyncio.to_thread(_towns, brains, admin))["slept_total"] < len(tenants):
        if time.monotonic() - began > 2 * args.idle + ASLEEP_LIMIT_S:  # a hang guard, not a measure
            raise SystemExit(f"only {towns['slept_total']:.0f} of {len(tenants)} towns fell asleep")
        await asyncio.sleep(ASLEEP_POLL_S)
    asleep_after_s, asleep_mib = round(time.monotonic() - began, 1), _rss(brains, rss)
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    gate = asyncio.Semaphore(SETUP_IN_FLIGHT)
    request = pb.DecideRequest(npc_id=npc_id)
    request.game_time.FromDatetime(GameClock(args.time_scale, START).now())

    async def wake(tenant: Tenant) -> None:
        async with gate:
            sent = time.perf_counter()
            try:
                await tenant.call("Decide", request)
            except grpc.aio.AioRpcError as exc:
                errors[exc.code().name] += 1
                return
            latencies.append((time.perf_counter() - sent) * 1000)

    await asyncio.gather(*(wake(t) for t in tenants))
    woken_mib, towns = _rss(brains, rss), await asyncio.to_thread(_towns, brains, admin)

    return {"idle_s": args.idle, "asleep_after_s": asleep_after_s, "slept": towns["slept_total"],
            "restored": towns["restored_total"],
            "unload_ms_per_npc": round(towns["sleep_seconds_total"] * 1000 / max(1.0, towns["sleep_npcs_total"]), 2),
            "wake_wait_ms_per_town": round(towns["restore_seconds_total"] * 1000 / max(1.0, towns["restored_total"]), 2),
            "first_decide": percentiles(latencies),
            "first_decide_errors": dict(errors),
            "memory": {"awake_mib": awake_mib, "asleep_mib": asleep_mib, "woken_mib": woken_mib,
                       "freed_per_tenant_mib": round((awake_mib - asleep_mib) / len(tenants), 2),
                       "regained_per_tenant_mib": round((woken_mib - asleep_mib) / len(tenants), 2)}}


def run(args: argparse.Namespace, rss: Rss) -> dict[str, Any]:
    if not 1 <= args.tenants <= MAX_TENANTS:
        raise SystemExit(f"--tenants {args.tenants}: use 1-{MAX_TENANTS}")
    secret, admin = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as data, FakeProcess(args.llm_latency, Path(data) / "fake.log") as fake:
        settings = {"llm_base_url": fake.base_url, "llm_model": "fake-model", "host": "127.0.0.1",
                    "log_level": "warning", "rate_limit_per_s": 0, "traces_per_npc": args.traces_per_npc,
                    "background_thinking": "true", "jwt_secret": secret, "auth_token": admin,
                    "tenant_calls_per_window": args.tenant_calls, "tenant_idle_s": args.idle,
                    "replica_count": args.replicas}
        with ExitStack() as stack:
            brains = [stack.enter_context(BrainProcess({**settings, "replica_index": i, "data_dir": Path(data) / f"brain{i}"},
                                                       Path(data) / f"brain{i}.log")) for i in range(args.replicas)]
            report = asyncio.run(drive(brains, secret, admin, args, rss))
        report["llm_calls_received"] = fake.chat_requests()
    return {"tenants": args.tenants, "npcs_per_tenant": args.npcs, "npcs": args.tenants * args.npcs,
            "replicas": args.replicas,
            "seconds": args.seconds, "time_scale": args.time_scale, "pause_s": args.pause, "max_wait_s": args.max_wait,
            "concurrency": args.concurrency, "llm_latency_s": args.llm_latency, "tenant_calls": args.tenant_calls,
            **report, "cpus": os.cpu_count(), "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()]}


def table(report: dict[str, Any]) -> str:
    latency, memory, spend, phase = report["load"]["latency"], report["memory"], report["spend"], report["load"]
    rows = [("tenants x NPCs", f"{report['tenants']} x {report['npcs_per_tenant']} = {report['npcs']}"),
            ("brain processes (tenants on each)", f"{report['replicas']} ({report['tenants_per_replica']})"),
            ("towns spawned in", f"{report['setup_s']} s"),
            ("Decides (gRPC)", f"{phase['decides']} in {phase['wall_s']} s ({phase['decides_per_s']}/s), "
                               f"{phase['thinking']} still thinking"),
            ("errors", str(phase["errors"] or 0)),
            ("Decide p50 / p90 / p99 / max ms", " / ".join(str(latency.get(k, "-"))
                                                          for k in ("p50_ms", "p90_ms", "p99_ms", "max_ms"))),
            ("memory per tenant (spawned / after load)",
             f"{memory['per_tenant_mib']} / {memory['per_tenant_after_load_mib']} MiB "
             f"({memory['per_npc_kib']} KiB per NPC; {memory['before_mib']} -> {memory['after_mib']} MiB)"),
            ("LLM calls received", str(report["llm_calls_received"])),
            ("tenants' spend (GetUsage)", f"{spend['calls']} calls over {spend['tenants_counted']} tenants, at most "
                                         f"{spend['max_calls_per_tenant']} each; {spend['refused']} refused, "
                                         f"{spend['tenants_past_ceiling']} tenants past a ceiling of "
                                         f"{spend['ceiling_calls'] or 'none'}"),
            *_sleep_rows(report.get("sleep")),
            ("load average (1, 5, 15 min) before / after",
             f"{report['load_average_before']} / {report['load_average_after']} on {report['cpus']} CPUs")]
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"| {name.ljust(width)} | {value} |" for name, value in rows)


def _sleep_rows(sleep: dict[str, Any] | None) -> list[tuple[str, str]]:
    if not sleep:
        return []
    first, memory = sleep["first_decide"], sleep["memory"]
    return [("towns asleep (idle / all asleep after)", f"{sleep['idle_s']} s / {sleep['asleep_after_s']} s: "
                                                      f"{sleep['slept']:.0f} slept, {sleep['restored']:.0f} restored"),
            ("unload per NPC / a wake's wait per town", f"{sleep['unload_ms_per_npc']} / "
                                                        f"{sleep['wake_wait_ms_per_town']} ms"),
            ("first Decide after the wake (its NPC's record read) p50 / p99 / max ms",
             f"{first.get('p50_ms', '-')} / {first.get('p99_ms', '-')} / {first.get('max_ms', '-')}; errors "
             f"{sleep['first_decide_errors'] or 0}"),
            ("memory awake / asleep / woken", f"{memory['awake_mib']} / {memory['asleep_mib']} / {memory['woken_mib']} "
                                              f"MiB ({memory['freed_per_tenant_mib']} MiB per tenant freed, "
                                              f"{memory['regained_per_tenant_mib']} regained)")]
