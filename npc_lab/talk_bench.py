"""`npc-lab bench embedded --purposes talk`: the player's Talk and interviews on the embedded
default (composed lines, brain_server/cognition/offline/offline_lines.py), in a harbour town of our own
(not the Ville): their latency and whether each line is grounded.

The brain is built as `serve` builds it with no endpoint (`server.build_core`: the embedded
SmolLM2 on llama.cpp, embedded Qdrant in a temporary folder, the local MiniLM, thinking in the
background, so a conversation that ends is remembered after its last line). Each resident plans
its day (Decide at 09:00), the keeper and the fisherman meet on the quay and talk (the real conversation and memory
functions the mind runs), then a player asks each resident the QUESTIONS, ROUNDS times, half of
them while the model is kept busy rating another resident's thoughts (as a town thinking in the
background keeps it). A line is grounded when it names the resident's job (JOB_WORDS), an item of
its plan, or the person it met, as the question asks; every line is checked for echoing the
question and for repeating itself or an earlier line; "model picked" counts the lines the model
chose in time (the others are the first line composed).
"""

from __future__ import annotations

import argparse
import asyncio
from contextlib import AsyncExitStack, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
import statistics
import tempfile
import time
from typing import Any

WORLD = "Brookhaven"
DAY = datetime(2026, 3, 3, tzinfo=UTC)  # a Tuesday
QUAY, LAMP_ROOM, BAKERY = f"{WORLD}:Harbour:quay", f"{WORLD}:Lighthouse:lamp room", f"{WORLD}:Bakery:shop"


def _arena(name: str, x: int, objects: list[str]) -> dict[str, Any]:
    return {"name": name, "tiles": [{"x": x + dx, "y": y} for dx in range(4) for y in range(3)],
            "objects": [{"name": o, "tiles": [{"x": x + i, "y": 1}]} for i, o in enumerate(objects)]}


def world_json() -> dict[str, Any]:
    """The harbour town as Godot would send it (proto3 JSON)."""
    sectors = [("Lighthouse", [("lamp room", ["great lens", "logbook"])]),
               ("Keeper's Cottage", [("kitchen", ["stove", "bed"])]),
               ("Harbour", [("quay", ["net rack", "lobster pots"])]),
               ("Tuck House", [("main room", ["bed", "table"])]),
               ("Hollis Flat", [("main room", ["bed", "desk"])]),
               ("Bakery", [("shop", ["oven", "counter"])])]
    return {"world": {"name": WORLD, "width": 24, "height": 4, "sectors": [
        {"name": sector, "arenas": [_arena(arena, 4 * (i + j), objects) for j, (arena, objects) in enumerate(arenas)]}
        for i, (sector, arenas) in enumerate(sectors)]}}


PEOPLE: dict[str, dict[str, Any]] = {
    "odile": {"name": "Odile Marsh", "age": 58, "traits": ["patient", "watchful", "dry-humoured"],
              "identity": "Odile Marsh is the lighthouse keeper and works at the Lighthouse. She polishes the great "
                          "lens every morning and writes every passing ship in her logbook.",
              "lifestyle": "Odile wakes up at 5 am, works from 6 am to 2 pm and goes to bed at 9 pm.",
              "home": f"{WORLD}:Keeper's Cottage:kitchen", "knownAreas": [LAMP_ROOM, QUAY, BAKERY]},
    "bram": {"name": "Bram Tuck", "age": 41, "traits": ["cheerful", "stubborn"],
             "identity": "Bram Tuck is a lobster fisherman who works at the Harbour. He mends his own nets and sells "
                         "his catch to the Bakery's neighbours.",
             "lifestyle": "Bram wakes up at 4 am, works from 5 am to 1 pm and goes to bed at 8 pm.",
             "home": f"{WORLD}:Tuck House:main room", "knownAreas": [QUAY, BAKERY]},
    "wren": {"name": "Wren Hollis", "age": 29, "traits": ["warm", "chatty"],
             "identity": "Wren Hollis is the baker who runs the Bakery. She bakes rye bread and cinnamon buns before "
                         "dawn.",
             "lifestyle": "Wren wakes up at 4 am, works at the Bakery from 5 am to 1 pm and goes to bed at 9 pm.",
             "home": f"{WORLD}:Hollis Flat:main room", "knownAreas": [BAKERY, QUAY]},
}
JOB_WORDS = {"odile": "lighthouse keeper", "bram": "lobster fisherman", "wren": "baker"}
MET = {"odile": "Bram", "bram": "Odile"}  # whom each met on the quay
QUESTIONS = [("greeting", "Hello there!"), ("job", "What is your job?"), ("plans", "What are you doing tomorrow?"),
             ("person", "Have you seen {met} lately?"), ("place", "Where are you now?"),
             ("other", "What's the news in town?"), ("bye", "Goodbye!")]
ROUNDS = 3


def request(kind: type, body: dict[str, Any]) -> Any:
    from google.protobuf import json_format

    return json_format.ParseDict(body, kind())


def at(clock: str) -> datetime:
    hours, minutes = clock.split(":")
    return DAY + timedelta(hours=int(hours), minutes=int(minutes))


def stamp(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


async def harbour(core: Any) -> list[Any]:
    """The town, each resident's day planned, and the keeper and the fisherman met on the quay
    (the lines they said)."""
    from brain_server.cognition.converse import converse, remember_conversation
    from brain_server.cognition.speaker import Speaker
    from brain_server.llm.scheduler import Priority, Work
    from brain_server.model.trace import Trace
    from npc_brain.v1 import brain_pb2 as pb

    await core.register_world(request(pb.RegisterWorldRequest, world_json()))
    for npc_id, persona in PEOPLE.items():
        await core.spawn_npc(request(pb.SpawnNpcRequest, {"worldName": WORLD, "npcId": npc_id,
                                                          "address": persona["home"], "persona": persona}))
        await core.decide(request(pb.DecideRequest, {"npcId": npc_id, "gameTime": stamp(at("09:00"))}))
    await planned(core)
    odile, bram = await core.records.npc("odile"), await core.records.npc("bram")
    now, trace = at("09:30"), Trace(npc_id="odile", kind="bench", game_time=at("09:30"))
    work = Work(Priority.PLAN_NOW, "odile")
    lines = await converse(Speaker.of(odile, now), Speaker.of(bram, now), now, QUAY, core.stream, trace, work=work)
    for npc, partner in ((odile, bram), (bram, odile)):
        await remember_conversation(npc, partner.persona.name, lines, now, core.stream, trace, work=work)
    return lines


async def planned(core: Any, timeout_s: float = 300) -> None:
    """Wait for every resident's plan of the day (made in the background when the mind thinks there)."""
    deadline = time.monotonic() + timeout_s
    while not all([(await core.records.npc(npc_id)).plan_day == DAY.date() for npc_id in PEOPLE]):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the residents had no plan for {DAY.date()} after {timeout_s:.0f} s")
        await asyncio.sleep(0.2)


def grounded(kind: str, npc_id: str, line: str, plan: list[str]) -> bool | None:
    """Whether a line answers what its kind asks for from what the resident knows (None: nothing to check)."""
    if kind == "job":
        return JOB_WORDS[npc_id] in line
    if kind == "plans":
        return any(activity in line for activity in plan)
    if kind == "person":
        return MET[npc_id] in line
    return None


async def ask_all(core: Any, rounds: int, *, busy: bool) -> list[dict[str, Any]]:
    """Every question of every round to each resident who met someone (and the baker, minus the
    person question), over Talk; the job question also as an interview."""
    from brain_server.cognition.offline.heard import acceptable
    from npc_brain.v1 import brain_pb2 as pb

    out: list[dict[str, Any]] = []
    for r in range(rounds):
        for npc_id in PEOPLE:
            npc = await core.records.npc(npc_id)
            plan = [i.activity for i in npc.plan]
            said: list[str] = []
            for kind, text in QUESTIONS:
                if kind == "person" and npc_id not in MET:
                    continue
                question = text.format(met=MET.get(npc_id, ""))
                when = stamp(at("10:00") + timedelta(minutes=10 * r))
                started = time.perf_counter()
                if kind == "job" and r % 2:
                    answer = await core.interview(request(pb.InterviewRequest, {
                        "npcId": npc_id, "question": question, "gameTime": when}))
                    line = answer.answer
                else:
                    answer = await core.talk(request(pb.TalkRequest, {
                        "npcId": npc_id, "speakerName": "Ada", "text": question, "gameTime": when}))
                    line = answer.reply
                seconds = time.perf_counter() - started
                trace = core.traces.get(answer.trace_id)
                picked = trace is not None and any(c.purpose == "choose_line" and not c.fallback_used
                                                   for c in trace.llm_calls)
                out.append({"npc_id": npc_id, "kind": kind, "question": question, "line": line, "seconds": seconds,
                            "busy": busy, "picked": picked, "grounded": grounded(kind, npc_id, line, plan),
                            "clean": acceptable(line, question, said)})
                said.append(line)
    return out


async def keep_busy(core: Any, stop: asyncio.Event) -> None:
    """Keep the model at work as a town thinking in the background does: the baker's thoughts rated."""
    from npc_brain.v1 import brain_pb2 as pb

    n = 0
    while not stop.is_set():
        n += 1
        await core.whisper(request(pb.WhisperRequest, {"npcId": "wren", "text": f"I should try recipe number {n}.",
                                                      "gameTime": stamp(at("10:00"))}))


async def measure(rounds: int, data_dir: Path) -> list[dict[str, Any]]:
    from brain_server.config import Settings
    from brain_server.server import build_core

    async with AsyncExitStack() as stack:
        core = await build_core(Settings(data_dir=data_dir), stack)
        await harbour(core)
        quiet = await ask_all(core, rounds, busy=False)
        stop = asyncio.Event()
        busy_task = asyncio.create_task(keep_busy(core, stop))
        try:
            busy = await ask_all(core, rounds, busy=True)
        finally:
            stop.set()
            with suppress(Exception):
                await busy_task
    return quiet + busy


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def summary(lines: list[dict[str, Any]]) -> list[list[Any]]:
    rows = []
    for kind in [*dict.fromkeys(k for k, _ in QUESTIONS), "all"]:
        these = [x for x in lines if kind in ("all", x["kind"])]
        seconds = [x["seconds"] for x in these]
        checked = [x["grounded"] for x in these if x["grounded"] is not None]
        rows.append([kind, len(these), f"{statistics.median(seconds):.2f}", f"{percentile(seconds, 0.99):.2f}",
                     f"{max(seconds):.2f}", f"{sum(checked)}/{len(checked)}" if checked else "-",
                     f"{sum(x['picked'] for x in these)}", f"{sum(not x['clean'] for x in these)}"])
    return rows


HEADERS = ["question", "lines", "median s", "p99 s", "max s", "grounded", "model picked", "echo or repeat"]


def bench_talk(args: argparse.Namespace) -> dict[str, Any]:
    from npc_lab.tables import markdown_table

    rounds = max(1, args.samples or ROUNDS)
    with tempfile.TemporaryDirectory() as data_dir:
        lines = asyncio.run(measure(rounds, Path(data_dir)))
    print(markdown_table(HEADERS, summary(lines)))
    for x in lines[:len(QUESTIONS) * len(PEOPLE)]:
        print(f"{x['npc_id']}: {x['question']!r} -> {x['line']!r} ({x['seconds']:.2f} s)")
    return {"rounds": rounds, "summary": [dict(zip(HEADERS, row, strict=True)) for row in summary(lines)],
            "lines": lines}
