"""Interviewing every resident of a sim run under each condition (the paper's ablations).

Each condition gets its own brain process over its own copy of the run's store, started with
`NPC_BRAIN_ABLATE` set: retrieval there cannot reach the ablated memory kinds, and interviews
retrieve (and refresh recency) only in the copy, so conditions cannot influence each other and
the run folder stays as the sim left it. Questions go through the real gRPC Interview RPC with
remember=false at the run's end game time; each answer's trace (GetTrace) says which memory
kinds were retrieved, which is how a reader checks that an ablation did what it says.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
import json
from pathlib import Path
import shutil
import sys
import time
from typing import Any

import grpc

from brain_server.cognition.retrieve import REFLECTION_PREDICATE
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.evaluate import life
from npc_lab.evaluate.questions import Question, for_resident, load_templates, someone_known
from npc_lab.sim.brain import BrainProcess
from npc_lab.sim.measure import load_run, says_knows

ABLATIONS = ("observation", "reflection", "planning")
# The paper's conditions (section 6.1), by the names the command takes.
PAPER_CONDITIONS = ("full", "no_reflection", "no_reflection_planning", "no_memory")
KINDS = ("observation", "chat", "thought", "plan")


@dataclass(frozen=True)
class Condition:
    name: str
    ablate: frozenset[str]


def condition(name: str) -> Condition:
    """`full`, `no_memory` (all three ablated) or `no_<ablation>[_<ablation>...]`."""
    if name == "full":
        return Condition(name, frozenset())
    if name == "no_memory":
        return Condition(name, frozenset(ABLATIONS))
    parts = name.removeprefix("no_").split("_") if name.startswith("no_") else []
    if not parts or any(p not in ABLATIONS for p in parts):
        raise ValueError(f"unknown condition {name!r}: use full, no_memory or no_ plus any of "
                         f"{', '.join(ABLATIONS)} joined by _ (e.g. no_reflection_planning)")
    return Condition(name, frozenset(parts))


@dataclass
class Run:
    """What the interviews need from a sim run folder."""

    folder: Path
    data_dir: Path
    end: datetime
    names: dict[str, str]
    identities: dict[str, str]
    questions: dict[str, list[Question]]  # per npc_id
    lives: dict[str, str]  # per npc_id: what the judge is told of their days (life.py)


def open_run(folder: Path, npcs: int | None = None, questions_file: Path | None = None, *,
             store: bool = True) -> Run:
    """The run's residents (the first `npcs` by id), its store folder and everyone's questions;
    `store`: whether the store must be there (interviews copy it; judging answers again does not)."""
    if not (folder / "config.json").is_file():
        raise ValueError(f"{folder} is not a run folder of `npc-lab sim` (no config.json)")
    data = load_run(folder)
    cfg = data["config"]
    configured = cfg.get("brain_settings", {}).get("data_dir")
    data_dir = next((d for d in (Path(configured) if configured else None, folder / "brain-data") if d and d.is_dir()),
                    folder / "brain-data")
    if store and not data_dir.is_dir():
        raise ValueError(f"no brain store at {data_dir}: eval copies the store a sim started itself "
                         "(a run against --brain keeps its memories in that brain)")
    names: dict[str, str] = cfg["names"]
    identities: dict[str, str] = cfg.get("identities", {})
    measure = cfg.get("measure", {})
    templates = load_templates(questions_file) if questions_file else load_templates()
    chosen = sorted(names)[:npcs] if npcs else sorted(names)
    said_known: dict[str, set[str]] = {}
    for i in data["interviews"]:
        if i.get("asks") == "knows" and i.get("when") == "end" and says_knows(i["answer"], names.get(i["about"], "")):
            said_known.setdefault(i["npc_id"], set()).add(i["about"])
    questions = {
        npc_id: for_resident(templates, name=names[npc_id], event=measure.get("topic", ""),
                             event_question=measure.get("question", ""),
                             other=someone_known(npc_id, names, identities, data["memories"].get(npc_id, []),
                                                 said_known.get(npc_id)))
        for npc_id in chosen
    }
    lives = {npc_id: life.record(data["memories"].get(npc_id, []), names[npc_id]) for npc_id in chosen}
    return Run(folder, data_dir, datetime.fromisoformat(cfg["end"]), names, identities, questions, lives)


async def interview_condition(run: Run, cond: Condition, work: Path,
                              concurrency: int = 4) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every resident's answers under one condition, and the condition's costs (time, LLM calls);
    the store's copy lives in `work` while the condition runs, the brain's log stays there."""
    copy = work / f"brain-data-{cond.name}"
    shutil.rmtree(copy, ignore_errors=True)
    await asyncio.to_thread(shutil.copytree, run.data_dir, copy)
    settings = {"data_dir": copy, "ablate": ",".join(sorted(cond.ablate))}  # the rest: NPC_BRAIN_* of the caller
    brain = await asyncio.to_thread(BrainProcess(settings, work / f"brain-{cond.name}.log").start)
    started = time.perf_counter()
    total = sum(len(q) for q in run.questions.values())
    rows: list[dict[str, Any]] = []
    try:
        async with grpc.aio.insecure_channel(brain.grpc_target) as channel:
            stub = brain_pb2_grpc.BrainServiceStub(channel)
            slots = asyncio.Semaphore(concurrency)

            async def resident(npc_id: str) -> None:
                # One resident's questions in order: retrieval refreshes recency, so the order is part of the condition.
                async with slots:
                    for q in run.questions[npc_id]:
                        rows.append(await _ask(stub, run, cond, npc_id, q))
                        _progress(cond, len(rows), total, started)

            await asyncio.gather(*(resident(n) for n in run.questions))
            usage = await stub.GetUsage(pb.GetUsageRequest())
    finally:
        await asyncio.to_thread(brain.stop)
        shutil.rmtree(copy, ignore_errors=True)
    calls = [c for c in usage.counters if c.purpose == "interview"]
    cost = {"condition": cond.name, "ablate": sorted(cond.ablate), "answers": len(rows),
            "wall_s": round(time.perf_counter() - started, 2), "llm_calls": sum(c.calls for c in usage.counters),
            "interview_calls": sum(c.calls for c in calls), "fallbacks": sum(c.fallbacks for c in calls),
            "tokens": sum(c.prompt_tokens + c.completion_tokens for c in usage.counters)}
    order = {(n, q.question_id): i for n in run.questions for i, q in enumerate(run.questions[n])}
    rows.sort(key=lambda r: (r["npc_id"], order[r["npc_id"], r["question_id"]]))
    return rows, cost


async def _ask(stub: brain_pb2_grpc.BrainServiceStub, run: Run, cond: Condition, npc_id: str,
               q: Question) -> dict[str, Any]:
    request = pb.InterviewRequest(npc_id=npc_id, question=q.text, remember=False)
    request.game_time.FromDatetime(run.end)
    reply = await stub.Interview(request, timeout=600)
    trace = (await stub.GetTrace(pb.GetTraceRequest(trace_id=reply.trace_id), timeout=60)).trace
    kinds = Counter(pb.MemoryKind.Name(r.memory.kind).removeprefix("MEMORY_KIND_").lower() for r in trace.retrieved)
    reflections = sum(r.memory.kind == pb.MEMORY_KIND_THOUGHT and r.memory.predicate == REFLECTION_PREDICATE
                      for r in trace.retrieved)
    return {"npc_id": npc_id, "name": run.names[npc_id], "category": q.category, "question_id": q.question_id,
            "question": q.text, "condition": cond.name, "ablate": sorted(cond.ablate), "answer": reply.answer,
            "trace_id": reply.trace_id, "retrieved": {k: kinds.get(k, 0) for k in KINDS}, "reflections": reflections,
            "fallback": any(c.fallback_used for c in trace.llm_calls)}


def _progress(cond: Condition, done: int, total: int, started: float) -> None:
    if done == total or done % 10 == 0:
        print(f"eval {cond.name}: {done}/{total} answers, {time.perf_counter() - started:.0f} s",
              file=sys.stderr, flush=True)


def write_answers(rows: list[dict[str, Any]], path: Path) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
