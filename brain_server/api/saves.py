"""Save slots: a world's whole brain state under a name, restored exactly (SaveWorld, LoadWorld,
ListSaves, DeleteSave).

A save is one file (save_files.py), DATA_DIR/saves/<world>/<slot>.npcsave, whatever the store (the embedded
engine or a Qdrant server: the snapshot is read and written through the store's interface, so a
server needs no collection per slot, and the brain's DATA_DIR holds the saves). Its first line is
a JSON header (what ListSaves shows, read without the rest); the second is the body: the world's
record (object states), and every NPC's record (persona, plans, conversation in progress,
reflection counters) with its memories as stored (importance and access times included) and
their embeddings as float32 (what both engines store), so loading embeds nothing, unless the slot
was saved under an embedder of another size: then its memories are embedded again from their text.

Atomic: a save is written to a temporary file of its own, fsynced, renamed over the slot and its
folder fsynced, so a brain killed while saving leaves the slot's previous version; saves of one
world are written one at a time, each of the world as it was when it began, with every
perception of the Decides answered before it. A load checks the whole slot before it touches the
world, then writes the world it will become aside (a journal, DATA_DIR/saves/.loading/<world>)
and applies it; a brain killed meanwhile finishes the load when it starts again (`recover`), so
the world is the old one or the loaded one, never a mix. Bounded: slot names are file names on
every OS (`validation.slot`), a world holds at most `max_slots` saves of at most `max_bytes` each.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from contextlib import AsyncExitStack
from datetime import UTC, datetime
import json
import struct
import time
from typing import Any

from pydantic import ValidationError
import structlog

from brain_server.cognition.inbox import Load, Saved
from brain_server.cognition.mind import Mind
from brain_server.llm.embeddings import Embedder
from brain_server.model.errors import BrainError, Status
from brain_server.model.memory import MemoryNode
from brain_server.model.npc import NpcState
from brain_server.model.validation import shown
from brain_server.model.world import World
from brain_server.persistence.records import Records
from brain_server.persistence.save_files import SUFFIX, SaveFiles, SaveInfo, damaged, info_of, no_steps, read_slot  # noqa: F401 - SUFFIX

log = structlog.get_logger(__name__)
EMBED_BATCH = 256  # memories embedded again per call when a slot's vectors have another size
Dump = tuple[list[MemoryNode], list[list[float]]]  # an NPC's memories and their embeddings


class Saves:
    """SaveWorld, LoadWorld, ExportWorld and ImportWorld on the records, the store and the mind."""

    def __init__(self, files: SaveFiles, records: Records, mind: Mind, embedder: Embedder) -> None:
        self.files = files
        self.records = records
        self.store = records.store
        self.mind = mind
        self.embedder = embedder
        self.step = files.steps

    def _writing(self, world_name: str) -> asyncio.Lock:
        """One save of a world written at a time, in the order they began (not the world's lock:
        Decides need that one, and the file takes a while)."""
        return self.records.lock(f"saves:{world_name}")  # ':' is never in an npc_id

    async def save(self, world_name: str, slot: str, game_time: datetime | None) -> SaveInfo:
        """Every NPC of the world read under its lock (all of them held: one instant of the
        world), once what the Decides answered before saw is stored, then written to the slot."""
        async with self._writing(world_name):
            began = self.step.count
            await self.mind.stored()
            async with self.records.world_lock(world_name):
                world = await self.records.world(world_name)
                npcs = await self.records.world_npcs(world_name)
                async with AsyncExitStack() as held:
                    for npc in sorted(npcs, key=lambda n: n.npc_id):  # in id order, as conversations take two
                        await held.enter_async_context(self.records.lock(npc.npc_id))
                    npcs = await self.records.world_npcs(world_name)  # as they are, now that nobody changes them
                    dumps = []
                    for npc in npcs:
                        dumps.append(await asyncio.to_thread(self.store.dump, npc.npc_id))
                        self.step(f"read {npc.npc_id}")
            info = SaveInfo(world_name=world_name, slot=slot, game_time=game_time, saved_at=datetime.now(UTC),
                            npc_count=len(npcs), memory_count=sum(len(nodes) for nodes, _ in dumps))
            # Encoded off the mind's loop: ~0.5 s for a 25-NPC town's day, which Decides would wait out.
            info = await asyncio.to_thread(lambda: self.files.write(info, _encoded(world, npcs, dumps)))
            steps = self.step.count - began
        log.info("world_saved", world=world_name, slot=slot, npcs=info.npc_count, memories=info.memory_count,
                 bytes=info.size_bytes, steps=steps)
        return info

    async def load(self, world_name: str, slot: str) -> SaveInfo:
        """The world as saved, or as it was: the slot is read and checked whole (a bad one changes
        nothing), its memories embedded again if the slot's embedder had another size, and the
        world it makes written aside (`SaveFiles.journal`) before the live one is replaced."""
        def read() -> tuple[SaveInfo, World, list[Saved]]:
            info, body = self.files.read(world_name, slot)
            return info, *_decoded(slot, world_name, body)

        info, world, saved = await asyncio.to_thread(read)  # off the mind's loop, as the save's encoding
        await self._check_homes(slot, world_name, saved)
        saved, reembedded = await self._fitted(slot, saved)
        async with self._writing(world_name), self.records.world_lock(world_name):
            began = self.step.count
            await self._check_homes(slot, world_name, saved)  # again: an NPC may have spawned meanwhile
            journal = await asyncio.to_thread(
                lambda: self.files.journal(world_name, info, _encoded(world, *_columns(saved))))
            await self._apply(world, saved, self.step)
            await asyncio.to_thread(self.files.finished, journal, self.step)
            steps = self.step.count - began
        log.info("world_loaded", world=world_name, slot=slot, npcs=info.npc_count, memories=info.memory_count,
                 reembedded=reembedded, steps=steps)
        return SaveInfo(**{**info.__dict__, "reembedded": reembedded})

    async def export_page(self, world_name: str, slot: str, offset: int) -> tuple[SaveInfo, bytes]:
        """A page of the slot's bytes (ExportWorld): a save of the world is not written meanwhile."""
        async with self._writing(world_name):
            return await asyncio.to_thread(self.files.page, world_name, slot, offset)

    async def import_page(self, world_name: str, slot: str, offset: int, data: bytes,
                          total: int) -> tuple[int, SaveInfo | None]:
        """A page of a slot coming back (ImportWorld): the bytes received, and with the last page
        the slot as written, once the whole of it is checked as a load checks it (a bad one is
        refused and dropped, the slot of that name untouched)."""
        async with self._writing(world_name):
            part, received = await asyncio.to_thread(self.files.receive, world_name, slot, offset, data, total)
            if received < total:
                return received, None

            def finish() -> SaveInfo:
                try:
                    header, body = part.read_bytes().split(b"\n", 1)
                    info = info_of(json.loads(header), total)
                    _decoded(slot, world_name, json.loads(body))
                except (ValueError, KeyError, TypeError) as exc:
                    raise damaged(slot, exc) from None
                finally:
                    part.unlink(missing_ok=True)
                return self.files.write(SaveInfo(**{**info.__dict__, "world_name": world_name, "slot": slot}), body.rstrip(b"\n"))

            info = await asyncio.to_thread(finish)
        log.info("world_imported", world=world_name, slot=slot, npcs=info.npc_count, memories=info.memory_count)
        return received, info

    async def recover(self) -> None:
        """Finish the loads a killed brain left (at start, before any call): the world becomes the
        loaded one, as the journal holds it; and remove the files its writes left half done."""
        await asyncio.to_thread(self.files.sweep)
        for journal in self.files.journals():
            try:
                info, body = await asyncio.to_thread(read_slot, journal, journal.stat().st_size)
                world, saved = _decoded(journal.name, info.world_name, body)
            except (OSError, ValueError, KeyError, TypeError, BrainError) as exc:  # a disk's fault: no load
                log.error("load_journal_unreadable", path=str(journal), error=str(exc))
                self.files.finished(journal)
                continue
            async with self.records.world_lock(world.name):
                await self._apply(world, saved, no_steps)
            await asyncio.to_thread(self.files.finished, journal)
            log.warning("world_load_finished", world=world.name, slot=info.slot, npcs=info.npc_count,
                        reason="the brain stopped during the load")

    async def _check_homes(self, slot: str, world_name: str, saved: list[Saved]) -> None:
        for npc, _, _ in saved:
            other = await self.records.npc_or_none(npc.npc_id)
            if other is not None and other.world_name != world_name:
                raise BrainError(Status.FAILED_PRECONDITION, f"save {slot!r} holds NPC {npc.npc_id!r}, which "
                                 f"now lives in world {shown(other.world_name)}: delete it there first (DeleteNpc)")

    async def _fitted(self, slot: str, saved: list[Saved]) -> tuple[list[Saved], int]:
        """The saved memories with vectors of the store's size: a slot saved under another embedder
        has its memories embedded again from their text (progress logged)."""
        sizes = {len(vectors[0]) for _, _, vectors in saved if vectors}
        if sizes <= {self.store.dim}:
            return saved, 0
        nodes = [node for _, memories, _ in saved for node in memories]
        log.info("load_reembedding", slot=slot, memories=len(nodes), saved_size=min(sizes), size=self.store.dim)
        started, vectors = time.perf_counter(), []
        for start in range(0, len(nodes), EMBED_BATCH):
            vectors += await self.embedder.embed([n.embedded_text for n in nodes[start:start + EMBED_BATCH]])
            log.info("load_reembedding_progress", slot=slot, done=len(vectors), of=len(nodes))
        seconds = time.perf_counter() - started
        log.info("load_reembedded", slot=slot, memories=len(nodes), seconds=round(seconds, 2),
                 seconds_per_1000=round(seconds * 1000 / max(1, len(nodes)), 2))
        fitted, at = [], 0
        for npc, memories, _ in saved:
            fitted.append((npc, memories, vectors[at:at + len(memories)]))
            at += len(memories)
        return fitted, len(nodes)

    async def _apply(self, world: World, saved: list[Saved], step: Callable[[str], None]) -> None:
        """The world's NPCs now and those of the slot forgotten, the saved ones written (the mind's
        `Load`; idempotent: `recover` applies a journal again). The caller holds the world's lock."""
        now = await self.records.world_npcs(world.name)
        revisions = {npc.npc_id: npc.revision for npc in now}
        for npc, _, _ in saved:
            npc.revision = max(npc.revision, revisions.get(npc.npc_id, 0))  # replicas see a newer one
        gone = {npc.npc_id: npc for npc in [*[n for n, _, _ in saved], *now]}  # the live record, if any
        await self.mind.handle(Load(world, list(gone.values()), saved, step))


def _columns(saved: list[Saved]) -> tuple[list[NpcState], list[Dump]]:
    return [npc for npc, _, _ in saved], [(nodes, vectors) for _, nodes, vectors in saved]


def _encoded(world: World, npcs: list[NpcState], dumps: list[Dump]) -> bytes:
    return json.dumps({"world": world.model_dump(mode="json"), "npcs": [
        {"record": npc.model_dump(mode="json"), "memories": [n.model_dump(mode="json") for n in nodes],
         "vectors": _pack(vectors)}
        for npc, (nodes, vectors) in zip(npcs, dumps, strict=True)]}).encode()


def _decoded(slot: str, world_name: str, body: dict[str, Any]) -> tuple[World, list[Saved]]:
    try:
        world = World.model_validate(body["world"])
        saved = []
        for entry in body["npcs"]:
            npc = NpcState.model_validate(entry["record"])
            nodes = [MemoryNode.model_validate(m) for m in entry["memories"]]
            vectors = _unpack(entry["vectors"], len(nodes))
            if npc.world_name != world_name or any(n.npc_id != npc.npc_id for n in nodes):
                raise ValueError(f"NPC {npc.npc_id!r} or its memories belong elsewhere")
            saved.append((npc, nodes, vectors))
    except (ValidationError, ValueError, KeyError, TypeError, struct.error) as exc:
        raise damaged(slot, exc) from None
    if world.name != world_name:
        raise damaged(slot, ValueError(f"it is a save of world {shown(world.name)}"))
    sizes = {len(vectors[0]) for _, _, vectors in saved if vectors}
    if len(sizes) > 1 or 0 in sizes:
        raise damaged(slot, ValueError(f"its embeddings have sizes {sorted(sizes)}, not one"))
    return world, saved


def _pack(vectors: list[list[float]]) -> str:
    return base64.b64encode(b"".join(struct.pack(f"<{len(v)}f", *v) for v in vectors)).decode()


def _unpack(text: str, count: int) -> list[list[float]]:
    data = base64.b64decode(text, validate=True)
    if count == 0:
        return []
    dim, rest = divmod(len(data) // 4, count)
    if rest or len(data) % 4:
        raise ValueError(f"{len(data)} bytes of embeddings do not split into {count} vectors")
    flat = struct.unpack(f"<{dim * count}f", data)
    return [list(flat[i * dim:(i + 1) * dim]) for i in range(count)]
