"""Load test on loopback: N NPCs call Decide concurrently, half over gRPC and half over Connect
JSON, against a brain started here with the fake LLM. Prints latency percentiles, writes JSON.

    .venv/bin/python -m tools.loadtest --npcs 12 --decides 20 --out loadtest.json [--llm-latency 0.05]

Bounded: at most --npcs x --decides calls and --max-seconds of wall time; loopback only.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
import json
import os
from pathlib import Path
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from google.protobuf import json_format
import grpc
import httpx

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tools.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parent.parent
WORLD = "Loadville"


def world(npcs: int) -> dict:
    sectors = [{"name": "square", "arenas": [{"name": "plaza", "tiles": [{"x": 0, "y": 0}],
                                              "objects": [{"name": "bench", "tiles": [{"x": 0, "y": 0}]}]}]}]
    sectors += [{"name": f"house {i}", "residents": [f"Resident {i}"], "arenas": [
        {"name": "room", "tiles": [{"x": i + 1, "y": 1}], "objects": [{"name": "bed", "tiles": [{"x": i + 1, "y": 1}]}]}]}
        for i in range(npcs)]
    return {"world": {"name": WORLD, "width": npcs + 2, "height": 2, "sectors": sectors}}


def persona(i: int) -> dict:
    return {"name": f"Resident {i}", "age": 30, "traits": ["calm"], "identity": f"Resident {i} lives in Loadville.",
            "lifestyle": "wakes at 7, sleeps at 23", "home": f"{WORLD}:house {i}:room",
            "knownAreas": [f"{WORLD}:square:plaza"]}


def percentiles(values: list[float]) -> dict:
    if not values:
        return {}
    ordered = sorted(values)

    def at(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 1)

    return {"count": len(values), "p50_ms": at(50), "p90_ms": at(90), "p99_ms": at(99), "max_ms": round(ordered[-1], 1),
            "mean_ms": round(statistics.fmean(values), 1)}


def start_brain(fake: FakeOpenAI, data: str) -> tuple[subprocess.Popen, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
    env.update({"NPC_BRAIN_LLM_BASE_URL": fake.base_url, "NPC_BRAIN_LLM_MODEL": "fake-model", "NPC_BRAIN_HOST": "127.0.0.1",
                "NPC_BRAIN_GRPC_PORT": "0", "NPC_BRAIN_HTTP_PORT": "0", "NPC_BRAIN_DATA_DIR": data,
                "NPC_BRAIN_LOG_LEVEL": "warning", "NPC_BRAIN_RATE_LIMIT_PER_S": "0"})
    proc = subprocess.Popen([sys.executable, "-m", "brain_server.cli", "serve"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout:  # type: ignore[union-attr]
        if match := re.search(r"npc-brain ready grpc=(\S+) http=(\S+)", line):
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
            return proc, match.group(1), match.group(2)
    raise RuntimeError("the brain did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--npcs", type=int, default=12)
    parser.add_argument("--decides", type=int, default=20, help="Decide calls per NPC (10 game minutes apart)")
    parser.add_argument("--max-seconds", type=float, default=120)
    parser.add_argument("--llm-latency", type=float, default=0.0, help="seconds the fake LLM takes per answer")
    parser.add_argument("--out", type=Path, default=Path("loadtest.json"))
    args = parser.parse_args()
    npcs, decides = min(args.npcs, 200), min(args.decides, 500)

    with FakeOpenAI(latency_s=args.llm_latency) as fake, tempfile.TemporaryDirectory() as data:
        proc, grpc_target, http_url = start_brain(fake, data)
        try:
            channel = grpc.insecure_channel(grpc_target)
            stub = brain_pb2_grpc.BrainServiceStub(channel)
            http = httpx.Client(base_url=http_url, timeout=60, limits=httpx.Limits(max_connections=npcs))
            stub.RegisterWorld(json_format.ParseDict(world(npcs), pb.RegisterWorldRequest()), timeout=60)
            for i in range(npcs):
                stub.SpawnNpc(json_format.ParseDict({"worldName": WORLD, "npcId": f"npc{i}", "persona": persona(i)},
                                                    pb.SpawnNpcRequest()), timeout=60)
            latencies: dict[str, list[float]] = {"grpc": [], "connect": []}
            errors: list[str] = []
            deadline = time.monotonic() + args.max_seconds
            start_time = datetime(2026, 2, 13, 8, tzinfo=UTC)

            def npc_loop(i: int) -> None:
                transport = "grpc" if i % 2 == 0 else "connect"
                for k in range(decides):
                    if time.monotonic() > deadline:
                        return
                    body = {"npcId": f"npc{i}", "gameTime": (start_time + timedelta(minutes=10 * k)).isoformat()}
                    began = time.perf_counter()
                    try:
                        if transport == "grpc":
                            stub.Decide(json_format.ParseDict(body, pb.DecideRequest()), timeout=60)
                        else:
                            response = http.post("/npc_brain.v1.BrainService/Decide", json=body)
                            response.raise_for_status()
                    except Exception as exc:  # noqa: BLE001 - counted and reported
                        errors.append(f"{transport} npc{i}: {exc}"[:200])
                        continue
                    latencies[transport].append((time.perf_counter() - began) * 1000)

            began = time.perf_counter()
            with ThreadPoolExecutor(npcs) as pool:
                list(pool.map(npc_loop, range(npcs)))
            wall = time.perf_counter() - began
            total = len(latencies["grpc"]) + len(latencies["connect"])
            report = {"npcs": npcs, "decides_per_npc": decides, "llm_latency_s": args.llm_latency,
                      "wall_s": round(wall, 2), "decides_per_s": round(total / wall, 1), "errors": len(errors),
                      "llm_calls": len(fake.chat_requests()), "grpc": percentiles(latencies["grpc"]),
                      "connect": percentiles(latencies["connect"]),
                      "all": percentiles(latencies["grpc"] + latencies["connect"]), "error_samples": errors[:5]}
            channel.close()
            http.close()
        finally:
            proc.terminate()
            proc.wait(20)
    args.out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
