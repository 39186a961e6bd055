"""`npc-lab bench kills [--points 20]`: the brain SIGKILLed during SaveWorld and LoadWorld, at
--points places each, on the embedded store and on a Qdrant server (the REST stand-in
`tools/qdrant_standin.py`, in a process of its own that outlives the brain, or --qdrant-url).

A town of a few of the Ville's residents (each with a Decide answered, so with a plan and
memories) is saved to a slot. Each kill point is a step of the operation, counted by the brain
(`brain_server.persistence.save_files.Steps`: each NPC read, each file written aside, renamed and its folder
fsynced, each NPC forgotten and written back, the world, the journal gone), drawn at random from
the steps one save or load takes; half the points kill a few milliseconds after their step (the
work going on meanwhile, so inside the next write), half right at it. Before each kill every NPC
is whispered to, so the world differs from the slot. After it the brain is started again (a load
it was killed in is finished then) and the bench checks:

- LoadWorld: every NPC has exactly the memories it had before the load ("old") or exactly those of
  the slot ("new"), never a mix;
- SaveWorld: the world is as it was (nothing acknowledged lost), and the slot's file is byte for
  byte its previous version ("old") or a whole new one holding every NPC's memories as they were
  at the save ("new"), never a torn one;
- both: every NPC answers a Decide. Temporary files a kill left beside the slots (or the load's
  journal) are counted: nothing reads them, but they take the disk a save takes.

Reported per store and RPC: points, kills that landed before the answer, old, new, bad (mixed,
torn or lost), Decides answered, temporary files left.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

from google.protobuf import json_format
import grpc

from brain_server.persistence.save_files import KILL_ENV, SaveFiles, read_slot
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.fake_openai import FakeOpenAI
from npc_lab.sim.brain import BrainProcess, ChildProcess
from npc_lab.sim.data import load_all
from npc_lab.sim.grid import layout
from npc_lab.sim.runner import Town
from npc_lab.tables import markdown_table

NPCS = 4
SLOT = "kills"
RPCS = ("LoadWorld", "SaveWorld")  # loads first: the slot they load is the first save's
DELAY_MS = 8.0  # a delayed kill comes this long after its step at most
MORNING = "2026-02-13T07:00:00Z"
CUT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)  # how a client sees the brain die


def event(brain: BrainProcess, name: str, wait_s: float = 60.0) -> dict[str, Any]:
    """The brain's last log event of that name, waiting up to `wait_s` for it: its output is read
    by a thread of its own, so a line the brain wrote before answering may not be read yet."""
    deadline = time.monotonic() + wait_s
    while True:
        for line in reversed(brain.output):
            if f'"{name}"' in line:
                entry = json.loads(line[line.index("{"):])
                if entry.get("event") == name:
                    return entry
        if time.monotonic() > deadline:
            raise LookupError(f"the brain logged no {name}:\n" + "\n".join(brain.output[-30:]))
        time.sleep(0.05)


class StandIn(ChildProcess):
    """The Qdrant REST stand-in of the checkout's tools/, in a process of its own."""

    READY = re.compile(r"stand-in \(tests only\) on (http://\S+)")
    WHAT = "the Qdrant stand-in"

    def __init__(self) -> None:
        super().__init__([sys.executable, "-m", "tools.qdrant_standin", "--port", "0"],
                         {**os.environ, "PYTHONUNBUFFERED": "1"})
        self.url = ""

    def on_ready(self, match: re.Match[str]) -> None:
        self.url = match.group(1)


class Game:
    """What the bench asks the brain, over gRPC, as a game would."""

    def __init__(self, brain: BrainProcess, world_name: str, npc_ids: list[str]) -> None:
        self.brain, self.world_name, self.npc_ids = brain, world_name, npc_ids
        self.channel = grpc.insecure_channel(brain.grpc_target)
        self.stub = brain_pb2_grpc.BrainServiceStub(self.channel)

    def call(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        request = json_format.ParseDict(body, getattr(pb, f"{method}Request")())
        return json_format.MessageToDict(getattr(self.stub, method)(request, timeout=60))

    def reconnect(self) -> None:
        self.channel.close()
        self.channel = grpc.insecure_channel(self.brain.grpc_target)
        self.stub = brain_pb2_grpc.BrainServiceStub(self.channel)

    def minds(self) -> dict[str, list[str]]:
        """Every NPC's memories, by their text."""
        return {n: sorted(m["description"] for m in self.call("ListMemories", {"npcId": n, "limit": 1000})
                          .get("memories", [])) for n in self.npc_ids}

    def decides(self, when: str) -> int:
        """NPCs that answered a Decide with an action."""
        return sum(bool(self.call("Decide", {"npcId": n, "gameTime": when})["action"].get("description"))
                   for n in self.npc_ids)

    def slot(self) -> dict[str, Any]:
        return {"worldName": self.world_name, "slot": SLOT}


def _killed_at(brain: BrainProcess) -> str | None:
    """The step the brain said it was killed at (its last lines may still be on their way)."""
    try:
        return str(event(brain, "killed_at_step", wait_s=5.0)["what"])
    except LookupError:
        return None


def _slot_minds(path: Path) -> dict[str, list[str]] | None:
    """The memories a slot's file holds, per NPC; None when it cannot be read whole."""
    try:
        _, body = read_slot(path, path.stat().st_size)
        return {e["record"]["npc_id"]: sorted(m["description"] for m in e["memories"]) for e in body["npcs"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _kill_point(game: Game, rpc: str, point: dict[str, Any], saved: dict[str, list[str]],
                slot_file: Path) -> dict[str, Any]:
    """One kill: the world made to differ from the slot, the RPC killed at the point's step (the
    brain was started armed for it), the brain started again (armed for the next point, if any),
    and what it holds checked."""
    brain = game.brain
    for n in game.npc_ids:
        game.call("Whisper", {"npcId": n, "gameTime": "2026-02-13T08:00:00Z", "text": f"before kill {point['n']}"})
    before, old_bytes = game.minds(), slot_file.read_bytes()
    try:
        game.call(rpc, game.slot())
        point["answered"] = True
    except grpc.RpcError as exc:
        if exc.code() not in CUT:
            raise
        point["answered"] = False
    assert brain.proc is not None
    try:
        brain.proc.wait(60)  # it kills itself at the step, or that many ms after it
    except subprocess.TimeoutExpired:  # it never reached the step: a point the bench failed to place
        pass
    point["killed"] = brain.proc.returncode == -signal.SIGKILL
    point["killed_at"] = _killed_at(brain)
    brain.env.pop(KILL_ENV, None)
    if point.get("next"):
        brain.env[KILL_ENV] = point.pop("next")
    brain.restart(same_ports=False)  # (another process may have taken its ports meanwhile)
    game.reconnect()
    now = game.minds()
    if rpc == "LoadWorld":
        point["outcome"] = "old" if now == before else "new" if now == saved else "mixed"
    elif now != before:
        point["outcome"] = "lost"
    elif slot_file.read_bytes() == old_bytes:
        point["outcome"] = "old"
    else:
        point["outcome"] = "new" if _slot_minds(slot_file) == before else "torn"
    point["memories"] = {n: len(m) for n, m in now.items()}
    point["decided"] = game.decides("2026-02-13T09:00:00Z")
    point["temporary_files"] = len(list(slot_file.parent.parent.rglob(".*.tmp")))  # the saves' and the journal's
    return point


def bench_store(store: str, args: argparse.Namespace, fake_url: str, rng: random.Random) -> list[dict[str, Any]]:
    town_layout, residents, _ = load_all("valentines_party")
    residents = residents[:NPCS]
    town = Town(layout(town_layout))
    # (its files cleaned up as far as they can be: a stopped store's process may still be closing them)
    with tempfile.TemporaryDirectory(prefix="kills-bench-", ignore_cleanup_errors=True) as data:
        standin = StandIn().start() if store == "server" and not args.qdrant_url else None
        settings: dict[str, object] = {"llm_base_url": fake_url, "llm_model": "fake-model", "data_dir": data,
                                       "background_thinking": False, "log_level": "info"}
        if store == "server":
            settings["qdrant_url"] = args.qdrant_url or standin.url  # type: ignore[union-attr]
        brain = BrainProcess(settings, inherit_env=False, keep_output=True).start()
        try:
            game = Game(brain, town_layout.name, [r.npc_id for r in residents])
            game.call("RegisterWorld", town.grid.world_message(town_layout))
            for r in residents:
                game.call("SpawnNpc", town.settle(r, town_layout.name))
            game.decides(MORNING)
            game.call("SaveWorld", game.slot())
            steps = {"SaveWorld": int(event(brain, "world_saved")["steps"])}
            saved = game.minds()
            game.call("LoadWorld", game.slot())
            steps["LoadWorld"] = int(event(brain, "world_loaded")["steps"])
            slot_file = SaveFiles(Path(data) / "saves").path(game.world_name, SLOT)
            points = [{"n": i + 1, "rpc": rpc, "step": rng.randint(1, steps[rpc]),
                       "delay_ms": round(rng.uniform(0, DELAY_MS), 1) if i % 2 else 0.0}
                      for rpc in RPCS if rpc in args.rpcs for i in range(args.points)]
            for point, following in zip(points, [*points[1:], None], strict=True):
                point["next"] = f"{following['step']}+{following['delay_ms']}" if following else None
            brain.env[KILL_ENV] = f"{points[0]['step']}+{points[0]['delay_ms']}"
            brain.restart(same_ports=False)
            game.reconnect()
            done = []
            for point in points:
                done.append({"store": store, "steps": steps[point["rpc"]],
                             **_kill_point(game, point["rpc"], point, saved, slot_file)})
                print(f"kills ({store}): {point['rpc']} step {point['step']}/{steps[point['rpc']]} "
                      f"+{point['delay_ms']} ms ({point['killed_at']}): {point['outcome']}", file=sys.stderr, flush=True)
            game.channel.close()
            return done
        finally:
            brain.stop()
            if standin:
                standin.stop()


def summary(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per store and RPC."""
    rows = []
    for key in dict.fromkeys((p["store"], p["rpc"]) for p in points):
        mine = [p for p in points if (p["store"], p["rpc"]) == key]
        rows.append({"store": key[0], "rpc": key[1], "points": len(mine), "steps": mine[0]["steps"],
                     "distinct_steps": len({p["step"] for p in mine}),
                     "killed": sum(p["killed"] for p in mine),
                     "before_answer": sum(not p["answered"] for p in mine),
                     "old": sum(p["outcome"] == "old" for p in mine), "new": sum(p["outcome"] == "new" for p in mine),
                     "bad": sum(p["outcome"] not in ("old", "new") for p in mine),
                     "decided": f"{sum(p['decided'] for p in mine)}/{NPCS * len(mine)}",
                     "temporary_files": max(p["temporary_files"] for p in mine)})
    return rows


def bench_kills(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    points: list[dict[str, Any]] = []
    with FakeOpenAI() as fake:
        for store in args.stores:
            points += bench_store(store, args, fake.base_url, rng)
    rows = summary(points)
    print(markdown_table(["store", "RPC", "points", "steps in one", "distinct steps", "killed", "before the answer",
                          "old", "new", "bad", "Decides answered", "temporary files left"],
                         [list(r.values()) for r in rows]))
    return {"rows": rows, "points": points, "npcs": NPCS, "seed": args.seed}

