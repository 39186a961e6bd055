"""Checks a built bundle (`npc-brain bundle`) as a player's machine would run it: started in an
empty environment (`env -i`: no virtualenv, no Python on PATH, no NPC_BRAIN_* settings) on its
embedded defaults, it must answer /healthz and serve the Ville's 25 residents over gRPC and over
Connect JSON. Prints the cold start, the first Decide and each transport's Decides, as JSON.

    .venv/bin/python -m tools.bundle_check dist/npc-brain-linux-x86_64

Too slow for the suite (the bundle takes minutes to build); docs/shipping.md and CI run it.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import re
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any
import urllib.request

from google.protobuf import json_format
import grpc

from brain_server.bundle import executable
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.sim.data import load_all, repeated_spawn_requests
from npc_lab.sim.grid import layout

RESIDENTS = 25
DECIDE = "/npc_brain.v1.BrainService/Decide"
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def empty_environment(command: list[str]) -> tuple[list[str], dict[str, str]]:
    """`env -i` where there is one; on Windows an environment with only what its sockets need."""
    if sys.platform == "win32":
        return command, {"SYSTEMROOT": os.environ["SYSTEMROOT"]}
    return ["/usr/bin/env", "-i", *command], {}


def connect_decide(http_url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(http_url + DECIDE, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with _DIRECT.open(request, timeout=120) as response:
        return json.loads(response.read())


def check(folder: Path) -> dict[str, Any]:
    """Starts the bundle in `folder`, drives the Ville's residents through it, stops it; the figures."""
    town, residents, _ = load_all("valentines_party")
    bodies = repeated_spawn_requests(residents, town.name, RESIDENTS)
    when = datetime(2023, 2, 13, 8, 0, tzinfo=UTC)
    with tempfile.TemporaryDirectory(prefix="npc-brain-bundle-check-") as data:
        # Absolute: the bundle runs in its data folder (cwd), where a relative path names nothing.
        command, env = empty_environment([str(executable(folder).resolve()), "serve", "--grpc-port", "0", "--http-port", "0",
                                          "--data-dir", data])
        started = time.monotonic()
        brain = subprocess.Popen(command, cwd=data, env=env, stdout=subprocess.PIPE, text=True)
        try:
            assert brain.stdout is not None
            ready = next((m for line in brain.stdout if (m := re.search(r"grpc=(\S+) http=(\S+)", line))), None)
            if ready is None:
                raise SystemExit(f"bundle_check: the bundle exited with status {brain.wait()} before it was ready")
            grpc_target, http_url = ready.groups()
            with _DIRECT.open(f"{http_url}/healthz", timeout=30) as response:
                health = json.loads(response.read())
            cold_start_s = time.monotonic() - started
            with grpc.insecure_channel(grpc_target) as channel:
                stub = brain_pb2_grpc.BrainServiceStub(channel)
                stub.RegisterWorld(json_format.ParseDict(layout(town).world_message(town), pb.RegisterWorldRequest()),
                                   timeout=120)
                for body in bodies:
                    stub.SpawnNpc(json_format.ParseDict(body, pb.SpawnNpcRequest()), timeout=120)
                grpc_s, grpc_actions = [], 0
                for body in bodies:
                    request = pb.DecideRequest(npc_id=body["npcId"], address=body["address"])
                    request.game_time.FromDatetime(when)
                    asked = time.monotonic()
                    answer = stub.Decide(request, timeout=120)
                    grpc_s.append(time.monotonic() - asked)
                    grpc_actions += bool(answer.action.address)
            connect_s, connect_actions = [], 0
            for body in bodies:
                asked = time.monotonic()
                answer = connect_decide(http_url, {"npcId": body["npcId"], "address": body["address"],
                                                   "gameTime": "2023-02-13T08:05:00Z"})
                connect_s.append(time.monotonic() - asked)
                connect_actions += bool(answer.get("action", {}).get("address"))
        finally:
            brain.terminate()
            brain.wait(60)
    return {"bundle": str(folder), "health": health, "cold_start_s": round(cold_start_s, 1),
            "first_decide_s": round(grpc_s[0], 2),
            "grpc": {"residents": len(bodies), "with_an_action": grpc_actions,
                     "median_s": round(statistics.median(grpc_s), 3), "max_s": round(max(grpc_s), 2)},
            "connect": {"residents": len(bodies), "with_an_action": connect_actions,
                        "median_s": round(statistics.median(connect_s), 3), "max_s": round(max(connect_s), 2)},
            "stopped_with_status": brain.returncode}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the bundle's folder (npc-brain bundle prints it)")
    args = parser.parse_args(argv)
    report = check(args.folder)
    print(json.dumps(report, indent=2))
    served = all(report[t]["with_an_action"] == RESIDENTS for t in ("grpc", "connect"))
    return 0 if served and report["health"].get("status") == "serving" else 1


if __name__ == "__main__":
    sys.exit(main())
