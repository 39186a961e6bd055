"""How long SaveWorld and LoadWorld take for a town, and how big a save is:
`python -m npc_lab.saves_bench [--npcs 25] [--memories 500] [--qdrant-url URL]`.

The brain's own core (`BrainCore`) in-process, on the store `serve` opens (the embedded engine in
a process of its own, or a Qdrant server), in a temporary DATA_DIR. The town is written straight
into the store, as a day of play leaves it: each NPC with `--memories` memories (observations,
chats, thoughts, plans; times over the day, importance 1-10, some accessed since) and a day plan
of hour blocks broken into steps. Embeddings are unit vectors of the embedder's dimension drawn
at random: what they encode costs nothing to save or load, their size is what counts (MiniLM's
384 float32 each). No LLM is called. Each save and load is timed `--repeat` times; the median is
reported, with the save's size. Then the slot is loaded once more with its embeddings made 768
numbers long, as if saved under another embedder: every memory is embedded again by MiniLM, and
the time per 1,000 memories is reported (`reembed_s_per_1000`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import random
import statistics
import tempfile
import time
from typing import Any

from brain_server.api.service import BrainCore
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.retrieve import RetrievalWeights
from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.embeddings import MiniLMEmbedder
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, Persona, PlanItem
from brain_server.model.world import World
from brain_server.persistence.storage import open_store
from brain_server.prompts import PromptLibrary
from npc_brain.v1 import brain_pb2 as pb

WORLD = "Bench Town"
DAY = datetime(2026, 2, 13, tzinfo=UTC)
KINDS = [MemoryKind.OBSERVATION] * 7 + [MemoryKind.CHAT, MemoryKind.THOUGHT, MemoryKind.PLAN]


def town(npcs: int) -> World:
    sectors = [{"name": f"house {i}", "arenas": [{"name": "main room", "objects": [{"name": "bed"}, {"name": "desk"}]}]}
               for i in range(npcs)]
    sectors.append({"name": "cafe", "arenas": [{"name": "hall", "objects": [{"name": "counter"}]}]})
    return World.model_validate({"name": WORLD, "width": 64, "height": 64, "sectors": sectors})


def resident(i: int, rng: random.Random) -> NpcState:
    home = f"{WORLD}:house {i}:main room"
    plan = [PlanItem(start=DAY + timedelta(hours=h), duration_minutes=60, activity=f"doing the work of hour {h}",
                     address=home if h < 8 or h > 20 else f"{WORLD}:cafe:hall",
                     subtasks=[PlanItem(start=DAY + timedelta(hours=h, minutes=m), duration_minutes=10,
                                        activity=f"step {m // 10} of hour {h}", address=home)
                               for m in range(0, 60, 10)])
            for h in range(24)]
    return NpcState(npc_id=f"npc{i:03d}", world_name=WORLD, address=home,
                    persona=Persona(name=f"Resident {i}", age=20 + i, traits=["kind", "curious"], home=home,
                                    identity=f"Resident {i} lives in house {i} and works at the cafe.",
                                    lifestyle="wakes at 7, sleeps at 23"),
                    plan_day=DAY.date(), plan=plan, day_outline=["work", "lunch", "talk"],
                    reflection_count=rng.randint(0, 3))


def memories(npc: NpcState, count: int, dim: int, rng: random.Random) -> tuple[list[MemoryNode], list[list[float]]]:
    nodes, vectors = [], []
    for k in range(count):
        created = DAY + timedelta(seconds=rng.uniform(7 * 3600, 23 * 3600))
        text = f"{npc.persona.name} saw neighbour {rng.randint(0, 99)} {rng.choice(['reading', 'talking', 'eating'])}"
        nodes.append(MemoryNode(id="", npc_id=npc.npc_id, kind=KINDS[k % len(KINDS)], description=f"{text} ({k})",
                                subject=npc.persona.name, predicate="saw", object=text[:40],
                                importance=rng.randint(1, 10), created=created,
                                last_accessed=created + timedelta(minutes=rng.choice([0, 0, 5, 90]))))
        v = [rng.gauss(0, 1) for _ in range(dim)]
        norm = sum(x * x for x in v) ** 0.5
        vectors.append([x / norm for x in v])
    return nodes, vectors


async def bench(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    settings = Settings(data_dir=data_dir, qdrant_url=args.qdrant_url, llm_base_url="http://127.0.0.1:9/v1")
    embedder = MiniLMEmbedder()
    store = open_store(settings, embedder.dim)
    llm = LLM(base_url=settings.llm_base_url, model="none", api_key="none", prompts=PromptLibrary())
    core = BrainCore(settings, MemoryStream(store, embedder, llm, RetrievalWeights()))
    rng = random.Random(7)
    try:
        world = town(args.npcs)
        await core.records.put_world(world)
        for i in range(args.npcs):
            npc = resident(i, rng)
            await asyncio.to_thread(store.add, *memories(npc, args.memories, embedder.dim, rng))
            await core.records.save(npc, wait=True)
        saves, loads, size = [], [], 0
        for _ in range(args.repeat):
            began = time.perf_counter()
            saved = await core.save_world(pb.SaveWorldRequest(world_name=WORLD, slot="bench"))
            saves.append(time.perf_counter() - began)
            began = time.perf_counter()
            await core.load_world(pb.LoadWorldRequest(world_name=WORLD, slot="bench"))
            loads.append(time.perf_counter() - began)
            size = saved.save.size_bytes
        assert sum(store.count(f"npc{i:03d}") for i in range(args.npcs)) == args.npcs * args.memories
        other_embedder(core.saves.files.path(WORLD, "bench"), 768)
        began = time.perf_counter()
        reloaded = await core.load_world(pb.LoadWorldRequest(world_name=WORLD, slot="bench"))
        reembed_s = time.perf_counter() - began
        assert reloaded.reembedded_memories == args.npcs * args.memories
        return {"reembed_s_per_1000": round(reembed_s * 1000 / reloaded.reembedded_memories, 2),
                "npcs": args.npcs, "memories": args.npcs * args.memories,
                "store": "qdrant server" if args.qdrant_url else "embedded", "save_s": round(statistics.median(saves), 2),
                "load_s": round(statistics.median(loads), 2), "size_mib": round(size / 2**20, 1),
                "runs": args.repeat}
    finally:
        await core.close()
        await llm.close()
        store.close()
        embedder.close()


def other_embedder(slot: Path, dim: int) -> None:
    """The slot as if saved under an embedder of `dim` numbers per memory (zeros: only the size counts)."""
    header, body = slot.read_bytes().splitlines()
    saved = json.loads(body)
    for npc in saved["npcs"]:
        npc["vectors"] = base64.b64encode(bytes(4 * dim * len(npc["memories"]))).decode()
    slot.write_bytes(header + b"\n" + json.dumps(saved).encode() + b"\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--npcs", type=int, default=25)
    parser.add_argument("--memories", type=int, default=500, help="memories per NPC (a day of play)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--qdrant-url", default=None, help="a Qdrant server instead of the embedded engine")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="saves-bench-") as folder:
        print(json.dumps(asyncio.run(bench(args, Path(folder)))))


if __name__ == "__main__":
    main()
