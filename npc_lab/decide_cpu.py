"""CPU per Decide in a DecideBatch (issue 41): `python -m npc_lab.decide_cpu [--npcs 250] [--batches 20]`.

An in-process core thinking in the background (the production path), N NPCs of one world, each
batch asked from a thread and loop of its own as the transports do, every NPC a crowd (no LLM
call: only the Decide's own work is counted). After two warm-up batches, each batch is one game
minute later; reported: the answering thread's CPU per Decide (the Decide itself), and the whole
process's CPU per Decide until every Decide is recorded on the mind's loop (with recording)."""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import tempfile
import threading
import time

from google.protobuf import json_format

from brain_server.api.service import BrainCore
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.retrieve import RetrievalWeights
from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.embeddings import MiniLMEmbedder
from brain_server.persistence.storage import open_store
from brain_server.prompts import PromptLibrary
from brain_server.runtime import logs
from npc_brain.v1 import brain_pb2 as pb
from npc_lab.fake_openai import FakeOpenAI

WORLD = "the Ville"
HOME = f"{WORLD}:home:main room"


def _world(npcs: int) -> dict:
    room = {"name": "main room", "tiles": [{"x": 1, "y": 1}], "objects": [{"name": "bed", "tiles": [{"x": 1, "y": 1}]}]}
    return {"world": {"name": WORLD, "width": 4, "height": 4, "sectors": [{"name": "home", "arenas": [room]}]}}


def _spawn(i: int) -> dict:
    return {"worldName": WORLD, "npcId": f"npc{i}", "address": HOME,
            "persona": {"name": f"Resident {i}", "age": 30, "traits": ["calm"], "identity": "lives here.",
                        "lifestyle": "goes to bed around 11pm, wakes up around 6am", "home": HOME}}


def _batch(npcs: int, when: datetime) -> pb.DecideBatchRequest:
    stamp = when.isoformat().replace("+00:00", "Z")
    return json_format.ParseDict({"requests": [{"npcId": f"npc{i}", "gameTime": stamp, "address": HOME,
                                                "attention": "ATTENTION_CROWD"} for i in range(npcs)]},
                                 pb.DecideBatchRequest())


async def measure(npcs: int, batches: int, data: Path, fake: FakeOpenAI) -> dict[str, float]:
    settings = Settings(data_dir=data, background_thinking=True, llm_base_url=fake.base_url, llm_model="fake-model")
    embedder = MiniLMEmbedder()
    llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary())
    store = open_store(settings, embedder.dim)
    core = BrainCore(settings, MemoryStream(store, embedder, llm, RetrievalWeights()))
    await core.register_world(json_format.ParseDict(_world(npcs), pb.RegisterWorldRequest()))
    for i in range(npcs):
        await core.spawn_npc(json_format.ParseDict(_spawn(i), pb.SpawnNpcRequest()))
    start = datetime(2026, 2, 13, 14, tzinfo=UTC)
    thread_cpu: list[float] = []

    def transport(request: pb.DecideBatchRequest) -> pb.DecideBatchResponse:
        async def ask() -> pb.DecideBatchResponse:
            before = time.thread_time()
            answered = await core.decide_batch(request)
            thread_cpu.append(time.thread_time() - before)
            return answered
        return asyncio.run(ask())

    for minute in range(2):  # warm: every NPC read, its view published, its first action perceived
        await asyncio.to_thread(transport, _batch(npcs, start + timedelta(minutes=minute)))
        await asyncio.sleep(0.5)
        await core.mind.stored()
    thread_cpu.clear()
    # Made before the clock starts: parsing 250 requests' JSON here (the transport's job, in C for
    # gRPC) cost ~0.2 ms per Decide, counted as the brain's before.
    asked = [_batch(npcs, start + timedelta(minutes=minute)) for minute in range(2, 2 + batches)]
    process_before = time.process_time()
    for batch in asked:
        answered = await asyncio.to_thread(transport, batch)
        assert not [r for r in answered.results if r.code], answered.results[0]
        await core.mind.stored()
    process = time.process_time() - process_before
    await core.close()
    await llm.close()
    store.close()
    decides = npcs * batches
    return {"npcs": npcs, "batches": batches, "answering_thread_ms_per_decide": 1000 * sum(thread_cpu) / decides,
            "process_ms_per_decide_with_recording": 1000 * process / decides}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--npcs", type=int, default=250)
    parser.add_argument("--batches", type=int, default=20)
    args = parser.parse_args()
    logs.configure(json=True)  # as the server in production logs: JSON lines (one per batch), to stderr
    with FakeOpenAI() as fake, tempfile.TemporaryDirectory() as data:
        result = asyncio.run(measure(args.npcs, args.batches, Path(data), fake))
    print(json.dumps({**result, "load": open("/proc/loadavg").read().split()[:3],
                      "threads": threading.active_count()}))


if __name__ == "__main__":
    main()
