"""The server as our users meet it: grpcurl over gRPC reflection, buf curl over Connect, buf lint
on the protocol. Clients nobody on this project wrote."""

from __future__ import annotations

import json
from pathlib import Path
import shutil
import subprocess
import sys

import pytest

from tests.town import spawn_json, world_json

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: run tools/setup.sh")
    return path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_buf_lint_accepts_the_protocol() -> None:
    result = run(tool("buf"), "lint")
    assert result.returncode == 0, result.stdout + result.stderr


def test_grpcurl_lists_describes_and_calls(brain_factory) -> None:
    brain = brain_factory()
    grpcurl = tool("grpcurl")
    listed = run(grpcurl, "-plaintext", brain.grpc_target, "list")
    assert listed.returncode == 0, listed.stderr
    assert "npc_brain.v1.BrainService" in listed.stdout.split()
    assert "grpc.health.v1.Health" in listed.stdout.split()
    described = run(grpcurl, "-plaintext", brain.grpc_target, "describe", "npc_brain.v1.BrainService")
    assert "rpc Decide ( .npc_brain.v1.DecideRequest ) returns ( .npc_brain.v1.DecideResponse );" in described.stdout
    health = run(grpcurl, "-plaintext", brain.grpc_target, "grpc.health.v1.Health/Check")
    assert json.loads(health.stdout) == {"status": "SERVING"}
    registered = run(grpcurl, "-plaintext", "-d", json.dumps(world_json()), brain.grpc_target,
                     "npc_brain.v1.BrainService/RegisterWorld")
    assert json.loads(registered.stdout)["sector_count"] == 2, registered.stderr  # grpcurl keeps proto names
    missing = run(grpcurl, "-plaintext", "-d", '{"npc_id": "nobody", "game_time": "2026-02-13T07:00:00Z"}',
                  brain.grpc_target, "npc_brain.v1.BrainService/Decide")
    assert missing.returncode != 0 and "NotFound" in missing.stderr and "spawn it with SpawnNpc" in missing.stderr


def test_buf_curl_speaks_connect_json(brain_factory) -> None:
    brain = brain_factory()
    buf = tool("buf")

    def call(method: str, body: dict) -> subprocess.CompletedProcess[str]:
        return run(buf, "curl", "--schema", "proto", "--protocol", "connect", "-d", json.dumps(body),
                   f"{brain.http_url}/npc_brain.v1.BrainService/{method}")

    assert json.loads(call("RegisterWorld", world_json()).stdout)["arenaCount"] == 2
    assert json.loads(call("SpawnNpc", spawn_json()).stdout) == {"npcId": "isabella"}
    decided = call("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T12:00:00Z"})
    assert json.loads(decided.stdout)["action"]["description"].startswith("Isabella Rodriguez is "), decided.stderr
