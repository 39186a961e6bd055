"""Save slots: a world's whole brain state under a name, restored exactly (SaveWorld, LoadWorld,
ListSaves, DeleteSave).

A save is one file, DATA_DIR/saves/<world>/<slot>.npcsave, whatever the store (the embedded
engine or a Qdrant server: the snapshot is read and written through the store's interface, so a
server needs no collection per slot, and the brain's DATA_DIR holds the saves). Its first line is
a JSON header (what ListSaves shows, read without the rest); the second is the body: the world's
record (object states), and every NPC's record (persona, plans, conversation in progress,
reflection counters) with its memories as stored (importance and access times included) and
their embeddings as float32 (what both engines store), so loading embeds nothing.

Atomic: a save is written to a temporary name, fsynced, renamed over the slot and its folder
fsynced, so a brain killed while saving leaves the slot's previous version. Bounded: slot names
are file names on every OS (`validation.slot`), a world holds at most `max_slots` saves of at
most `max_bytes` each.
"""

from __future__ import annotations

import asyncio
import base64
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import struct
import time
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError
import structlog

from brain_server.cognition.mind import Mind
from brain_server.errors import BrainError, Status, not_found
from brain_server.memory import MemoryNode
from brain_server.npc import NpcState
from brain_server.records import Records
from brain_server.validation import shown
from brain_server.world import World

log = structlog.get_logger(__name__)
FORMAT = 1
SUFFIX = ".npcsave"
MAX_SLOTS = 64  # per world
MAX_SAVE_BYTES = 1 << 30
PAUSE_ENV = "NPC_BRAIN_TEST_SAVE_PAUSE_S"  # tests only: a pause before the rename (a kill mid-save)
Dump = tuple[list[MemoryNode], list[list[float]]]  # an NPC's memories and their embeddings
Saved = tuple[NpcState, list[MemoryNode], list[list[float]]]  # an NPC as a slot holds it


@dataclass(frozen=True)
class SaveInfo:
    world_name: str
    slot: str
    game_time: datetime | None
    saved_at: datetime
    npc_count: int
    memory_count: int
    size_bytes: int = 0


class SaveFiles:
    """The slot files of every world under one folder; blocking calls (run them in a thread)."""

    def __init__(self, root: Path, *, max_slots: int = MAX_SLOTS, max_bytes: int = MAX_SAVE_BYTES) -> None:
        self.root = root
        self.max_slots = max_slots
        self.max_bytes = max_bytes
        self.pause_s = float(os.environ.get(PAUSE_ENV, "0") or 0)

    def folder(self, world_name: str) -> Path:
        return self.root / quote(world_name, safe="")  # a world's name may hold '/', '.', spaces

    def path(self, world_name: str, slot: str) -> Path:
        return self.folder(world_name) / f"{slot}{SUFFIX}"

    def write(self, info: SaveInfo, body: bytes) -> SaveInfo:
        header = json.dumps(_header(info)).encode()
        size = len(header) + len(body) + 2
        if size > self.max_bytes:
            raise BrainError(Status.RESOURCE_EXHAUSTED, f"the save of world {shown(info.world_name)} would take "
                             f"{size / 2**20:.1f} MiB, over the limit of {self.max_bytes / 2**20:.0f} MiB")
        folder, target = self.folder(info.world_name), self.path(info.world_name, info.slot)
        folder.mkdir(parents=True, exist_ok=True)
        if not target.exists() and len(self.slots(info.world_name)) >= self.max_slots:
            raise BrainError(Status.RESOURCE_EXHAUSTED, f"world {shown(info.world_name)} has {self.max_slots} saves, "
                             "the most it may keep: delete one (DeleteSave) or save over one")
        temporary = folder / f".{info.slot}.{os.getpid()}.tmp"
        try:
            with open(temporary, "wb") as out:
                out.write(header + b"\n" + body + b"\n")
                out.flush()
                os.fsync(out.fileno())
            if self.pause_s:
                time.sleep(self.pause_s)
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
        _fsync_folder(folder)
        return SaveInfo(**{**info.__dict__, "size_bytes": size})

    def read(self, world_name: str, slot: str) -> tuple[SaveInfo, dict[str, Any]]:
        path = self.path(world_name, slot)
        try:
            size = path.stat().st_size
            if size > self.max_bytes:
                raise BrainError(Status.RESOURCE_EXHAUSTED, f"save {slot!r} is {size / 2**20:.1f} MiB, over the "
                                 f"limit of {self.max_bytes / 2**20:.0f} MiB")
            with open(path, "rb") as file:
                header, body = file.readline(), file.readline()
            return _info(json.loads(header), size), json.loads(body)
        except FileNotFoundError:
            raise not_found(f"world {shown(world_name)} has no save {slot!r}: ListSaves lists its saves") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise _damaged(slot, exc) from None

    def slots(self, world_name: str) -> list[Path]:
        folder = self.folder(world_name)
        return sorted(folder.glob(f"[!.]*{SUFFIX}")) if folder.is_dir() else []

    def list(self, world_name: str) -> list[SaveInfo]:
        """The world's saves, the most recent first; a damaged file is skipped (and logged)."""
        saves = []
        for path in self.slots(world_name):
            try:
                with open(path, "rb") as file:
                    saves.append(_info(json.loads(file.readline()), path.stat().st_size))
            except (OSError, ValueError, KeyError, TypeError):
                log.warning("save_unreadable", path=str(path))
        return sorted(saves, key=lambda s: s.saved_at, reverse=True)

    def delete(self, world_name: str, slot: str) -> bool:
        try:
            self.path(world_name, slot).unlink()
        except FileNotFoundError:
            return False
        _fsync_folder(self.folder(world_name))
        return True


class Saves:
    """SaveWorld and LoadWorld on the records, the store and the mind."""

    def __init__(self, files: SaveFiles, records: Records, mind: Mind) -> None:
        self.files = files
        self.records = records
        self.store = records.store
        self.mind = mind

    async def save(self, world_name: str, slot: str, game_time: datetime | None) -> SaveInfo:
        """Every NPC of the world read under its lock (all of them held: one instant of the
        world), then written to the slot without them."""
        async with self.records.world_lock(world_name):
            world = await self.records.world(world_name)
            npcs = await self.records.world_npcs(world_name)
            async with AsyncExitStack() as held:
                for npc in sorted(npcs, key=lambda n: n.npc_id):  # in id order, as conversations take two
                    await held.enter_async_context(self.records.lock(npc.npc_id))
                npcs = await self.records.world_npcs(world_name)  # as they are, now that nobody changes them
                dumps = [await asyncio.to_thread(self.store.dump, npc.npc_id) for npc in npcs]
        info = SaveInfo(world_name=world_name, slot=slot, game_time=game_time, saved_at=datetime.now(UTC),
                        npc_count=len(npcs), memory_count=sum(len(nodes) for nodes, _ in dumps))
        # Encoded off the mind's loop: ~0.5 s for a 25-NPC town's day, which Decides would wait out.
        info = await asyncio.to_thread(lambda: self.files.write(info, _encoded(world, npcs, dumps)))
        log.info("world_saved", world=world_name, slot=slot, npcs=info.npc_count, memories=info.memory_count,
                 bytes=info.size_bytes)
        return info

    async def load(self, world_name: str, slot: str) -> SaveInfo:
        """The world as saved: the slot is read and checked whole first (a bad one changes
        nothing); then the world's NPCs' thinking is dropped, the NPCs now in the world are
        forgotten and the saved ones written back."""
        def read() -> tuple[SaveInfo, World, list[Saved]]:
            info, body = self.files.read(world_name, slot)
            return info, *_decoded(slot, world_name, body)

        info, world, saved = await asyncio.to_thread(read)  # off the mind's loop, as the save's encoding
        async with self.records.world_lock(world_name):
            now = await self.records.world_npcs(world_name)
            for npc, _, _ in saved:
                other = await self.records.npc_or_none(npc.npc_id)
                if other is not None and other.world_name != world_name:
                    raise BrainError(Status.FAILED_PRECONDITION, f"save {slot!r} holds NPC {npc.npc_id!r}, which "
                                     f"now lives in world {shown(other.world_name)}: delete it there first (DeleteNpc)")
            revisions = {npc.npc_id: npc.revision for npc in now}
            ids = sorted({n.npc_id for n in now} | {n.npc_id for n, _, _ in saved})
            await self.mind.forget(ids)
            async with AsyncExitStack() as held:
                for npc_id in ids:
                    await held.enter_async_context(self.records.lock(npc_id))
                for npc in now:
                    await self.records.forget(npc)
                for npc, nodes, vectors in saved:
                    await asyncio.to_thread(self.store.add, nodes, vectors)
                    npc.revision = max(npc.revision, revisions.get(npc.npc_id, 0))  # replicas see a newer one
                    await self.records.save(npc, wait=True)
                    self.mind.spawned(npc)
                await self.records.put_world(world)
        log.info("world_loaded", world=world_name, slot=slot, npcs=info.npc_count, memories=info.memory_count)
        return info


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
        raise _damaged(slot, exc) from None
    if world.name != world_name:
        raise _damaged(slot, ValueError(f"it is a save of world {shown(world.name)}"))
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


def _header(info: SaveInfo) -> dict[str, Any]:
    return {"format": FORMAT, "world_name": info.world_name, "slot": info.slot,
            "game_time": info.game_time.isoformat() if info.game_time else None,
            "saved_at": info.saved_at.isoformat(), "npc_count": info.npc_count, "memory_count": info.memory_count}


def _info(header: dict[str, Any], size: int) -> SaveInfo:
    if header.get("format") != FORMAT:
        raise ValueError(f"format {header.get('format')!r}: this brain reads format {FORMAT}")
    game_time = header["game_time"]
    return SaveInfo(world_name=header["world_name"], slot=header["slot"],
                    game_time=datetime.fromisoformat(game_time) if game_time else None,
                    saved_at=datetime.fromisoformat(header["saved_at"]), npc_count=int(header["npc_count"]),
                    memory_count=int(header["memory_count"]), size_bytes=size)


def _damaged(slot: str, exc: Exception) -> BrainError:
    return BrainError(Status.FAILED_PRECONDITION, f"save {slot!r} cannot be read ({shown(str(exc), 200)}): it is "
                      "damaged or from another version of the brain")


def _fsync_folder(folder: Path) -> None:
    """The rename or unlink on the disk too (POSIX; Windows has no folder handles to fsync)."""
    if os.name == "nt":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
