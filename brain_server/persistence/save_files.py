"""Save slots as files: one per slot, DATA_DIR/saves/<world, URL-encoded>/<slot>.npcsave, a JSON
header line (what ListSaves reads without the rest) and a body line; written whole or not at all
(`replace_file`), bounded in number and size, names that only case tells apart refused (Windows
and macOS file systems take them for one). `saves.py` makes and reads the bodies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
import json
import os
from pathlib import Path
import signal
import sys
import tempfile
import threading
import time
from typing import Any
from urllib.parse import quote

import structlog

from brain_server.model.errors import BrainError, Status, invalid, not_found
from brain_server.model.validation import shown

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, so temporary files killed writers left stay
    fcntl = None  # type: ignore[assignment]

log = structlog.get_logger(__name__)
FORMAT = 1
SUFFIX = ".npcsave"
MAX_SLOTS = 64  # per world
MAX_SAVE_BYTES = 1 << 30
PAUSE_ENV = "NPC_BRAIN_TEST_SAVE_PAUSE_S"  # tests only: a pause before the rename (saves that overlap)
KILL_ENV = "NPC_BRAIN_TEST_KILL_AT_STEP"  # tests and `npc-lab bench kills` only: "N" or "N+MS" (Steps)
EXPORT_PAGE = 1 << 20  # bytes of a slot per ExportWorld answer: under gRPC's 4 MiB message, base64 in JSON
IMPORT = ".import"  # a slot being imported, page by page: DATA_DIR/saves/<world>/.<slot>.npcsave.import
JOURNAL = ".loading"  # under the saves' root: the worlds being loaded, as they will be
ORPHAN_SUFFIX = ".tmp"  # a file written aside: .<slot>.<random>.tmp


class Steps:
    """The steps of SaveWorld, LoadWorld and ImportWorld (each NPC read, each file written aside,
    renamed and its folder fsynced, each NPC forgotten and written back, the world, the journal
    gone), counted from the brain's start. Started with KILL_ENV=N the brain SIGKILLs itself
    right after the Nth, or MS milliseconds later (N+MS, while the work goes on: inside the next
    write): `npc-lab bench kills` places its kills by counted events, not by a clock."""

    def __init__(self, kill_at: str = "") -> None:
        step, _, delay_ms = kill_at.partition("+")
        self.kill_at, self.delay_s = int(step or 0), float(delay_ms or 0) / 1000
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, what: str) -> None:
        with self._lock:
            self.count += 1
            if self.count != self.kill_at:
                return
        log.warning("killed_at_step", step=self.kill_at, what=what, delay_ms=round(self.delay_s * 1000, 1))
        sys.stderr.flush()
        if self.delay_s:
            threading.Timer(self.delay_s, _kill).start()
        else:
            _kill()


def _kill() -> None:
    os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))  # no SIGKILL on Windows


def no_steps(what: str) -> None:
    """Steps not counted (a load finished at start: `Saves.recover`)."""


@dataclass(frozen=True)
class SaveInfo:
    world_name: str
    slot: str
    game_time: datetime | None
    saved_at: datetime
    npc_count: int
    memory_count: int
    size_bytes: int = 0
    reembedded: int = 0  # memories embedded again by this load (the slot's embedder had another size)


class SaveFiles:
    """The slot files of every world under one folder; blocking calls (run them in a thread)."""

    def __init__(self, root: Path, *, max_slots: int = MAX_SLOTS, max_bytes: int = MAX_SAVE_BYTES) -> None:
        self.root = root
        self.max_slots = max_slots
        self.max_bytes = max_bytes
        self.pause_s = float(os.environ.get(PAUSE_ENV, "0") or 0)
        self.steps = Steps(os.environ.get(KILL_ENV, ""))

    def folder(self, world_name: str) -> Path:
        return self.root / quote(world_name, safe="")  # a world's name may hold '/', '.', spaces

    def path(self, world_name: str, slot: str) -> Path:
        return self.folder(world_name) / f"{slot}{SUFFIX}"

    def write(self, info: SaveInfo, body: bytes) -> SaveInfo:
        header = json.dumps(header_of(info)).encode()
        size = len(header) + len(body) + 2
        if size > self.max_bytes:
            raise BrainError(Status.RESOURCE_EXHAUSTED, f"the save of world {shown(info.world_name)} would take "
                             f"{size / 2**20:.1f} MiB, over the limit of {self.max_bytes / 2**20:.0f} MiB")
        folder, target = self.folder(info.world_name), self.path(info.world_name, info.slot)
        self._one_case(self.root, folder.name, f"world {shown(info.world_name)}")
        folder.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            self._one_case(folder, target.name, f"slot {info.slot!r}")
            if len(self.slots(info.world_name)) >= self.max_slots:
                raise BrainError(Status.RESOURCE_EXHAUSTED, f"world {shown(info.world_name)} has {self.max_slots} "
                                 "saves, the most it may keep: delete one (DeleteSave) or save over one")
        replace_file(folder, target, header + b"\n" + body + b"\n", self.steps, self.pause_s)
        return SaveInfo(**{**info.__dict__, "size_bytes": size})

    @staticmethod
    def _one_case(folder: Path, name: str, what: str) -> None:
        """No two names that only case tells apart: Windows and macOS file systems take them as one."""
        if not folder.is_dir():
            return
        for other in os.listdir(folder):
            if other != name and other.casefold() == name.casefold():
                raise BrainError(Status.ALREADY_EXISTS, f"{what} differs only by case from {other!r}, which exists: "
                                 "Windows and macOS file systems take them for one; save over that one or pick "
                                 "a name that differs by more than case")

    def journal(self, world_name: str, info: SaveInfo, body: bytes) -> Path:
        """The world a load makes, written aside (durably) before the live world is touched."""
        folder = self.root / JOURNAL
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{quote(world_name, safe='')}{SUFFIX}"
        replace_file(folder, target, json.dumps(header_of(info)).encode() + b"\n" + body + b"\n", self.steps)
        return target

    @staticmethod
    def finished(journal: Path, step: Callable[[str], None] = no_steps) -> None:
        """The load is whole: its journal goes, on the disk too (applied again after a power cut,
        it would undo what was played since)."""
        journal.unlink(missing_ok=True)
        _fsync_folder(journal.parent)
        step("journal removed")

    def sweep(self) -> int:
        """Removes what writers killed mid-write left, in every world's folder and the journal's."""
        if not self.root.is_dir():
            return 0
        return sum(sweep_orphans(folder) for folder in self.root.iterdir() if folder.is_dir())

    def journals(self) -> list[Path]:
        """Loads a brain was killed in (`Saves.recover` finishes them)."""
        folder = self.root / JOURNAL
        return sorted(folder.glob(f"[!.]*{SUFFIX}")) if folder.is_dir() else []

    def read(self, world_name: str, slot: str) -> tuple[SaveInfo, dict[str, Any]]:
        path = self.path(world_name, slot)
        try:
            size = path.stat().st_size
            if size > self.max_bytes:
                raise BrainError(Status.RESOURCE_EXHAUSTED, f"save {slot!r} is {size / 2**20:.1f} MiB, over the "
                                 f"limit of {self.max_bytes / 2**20:.0f} MiB")
            return read_slot(path, size)
        except FileNotFoundError:
            raise not_found(f"world {shown(world_name)} has no save {slot!r}: ListSaves lists its saves") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise damaged(slot, exc) from None

    def page(self, world_name: str, slot: str, offset: int) -> tuple[SaveInfo, bytes]:
        """At most EXPORT_PAGE bytes of the slot's file from `offset` (ExportWorld)."""
        if offset < 0:
            raise invalid(f"offset {offset} is negative: start from 0, then send each answer's next_offset")
        try:
            with open(self.path(world_name, slot), "rb") as file:
                info = info_of(json.loads(file.readline()), os.fstat(file.fileno()).st_size)
                file.seek(offset)
                data = file.read(EXPORT_PAGE)
        except FileNotFoundError:
            raise not_found(f"world {shown(world_name)} has no save {slot!r}: ListSaves lists its saves") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise damaged(slot, exc) from None
        if offset > info.size_bytes:
            raise invalid(f"offset {offset} is past the end of save {slot!r} ({info.size_bytes} bytes)")
        return info, data

    def receive(self, world_name: str, slot: str, offset: int, data: bytes, total: int) -> tuple[Path, int]:
        """A page of a slot being imported, added to its part file (offset 0 starts it again): the
        part file and the bytes it holds. Bounded as saves are: `max_bytes`, and at most
        `max_slots` imports under way per world."""
        if total > self.max_bytes:
            raise BrainError(Status.RESOURCE_EXHAUSTED, f"total_bytes {total} is over the limit of a save, "
                             f"{self.max_bytes / 2**20:.0f} MiB")
        if total <= 0 or offset < 0 or offset + len(data) > total:
            raise invalid(f"a page of {len(data)} bytes at offset {offset} does not fit in total_bytes {total}: "
                          "send ExportWorld's pages as they came, with its total_bytes")
        folder = self.folder(world_name)
        self._one_case(self.root, folder.name, f"world {shown(world_name)}")
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f".{slot}{SUFFIX}{IMPORT}"
        have = part.stat().st_size if part.exists() else None
        if offset == 0 and have is None and len(list(folder.glob(f".*{IMPORT}"))) >= self.max_slots:
            raise BrainError(Status.RESOURCE_EXHAUSTED, f"world {shown(world_name)} has {self.max_slots} imports "
                             "under way, the most it may: finish one (its last page) first")
        if offset and have != offset:
            raise BrainError(Status.FAILED_PRECONDITION, f"the import of slot {slot!r} holds {have or 0} bytes, "
                             f"not {offset}: send the page from offset {have or 0}, or start again from 0")
        with open(part, "wb" if offset == 0 else "ab") as out:
            out.write(data)
        return part, offset + len(data)

    def slots(self, world_name: str) -> list[Path]:
        folder = self.folder(world_name)
        return sorted(folder.glob(f"[!.]*{SUFFIX}")) if folder.is_dir() else []

    def list(self, world_name: str) -> list[SaveInfo]:
        """The world's saves, the most recent first; a damaged file is skipped (and logged)."""
        saves = []
        for path in self.slots(world_name):
            try:
                with open(path, "rb") as file:
                    saves.append(info_of(json.loads(file.readline()), path.stat().st_size))
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


def read_slot(path: Path, size: int) -> tuple[SaveInfo, dict[str, Any]]:
    with open(path, "rb") as file:
        header, body = file.readline(), file.readline()
    return info_of(json.loads(header), size), json.loads(body)


def replace_file(folder: Path, target: Path, data: bytes, step: Callable[[str], None], pause_s: float = 0) -> None:
    """`target` holds `data` whole or is left as it was: written to a temporary file of its own
    (saves of one slot at once never share one), fsynced, renamed over it, the folder fsynced.
    The temporary file is locked until renamed, so what a killed writer left can be told from what
    a live one (another replica's) is writing, and is removed first (`sweep_orphans`)."""
    sweep_orphans(folder)
    fd, temporary = _locked_temporary(folder, target)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            step(f"{target.name} written aside")
            if pause_s:
                time.sleep(pause_s)
            if fcntl is not None:
                os.replace(temporary, target)  # while its lock is held
        if fcntl is None:
            os.replace(temporary, target)  # Windows renames no open file
        step(f"{target.name} renamed")
    finally:
        temporary.unlink(missing_ok=True)
    _fsync_folder(folder)
    step(f"{target.parent.name}/ synced")


def _locked_temporary(folder: Path, target: Path) -> tuple[int, Path]:
    while True:
        fd, name = tempfile.mkstemp(dir=folder, prefix=f".{target.stem}.", suffix=ORPHAN_SUFFIX)
        if fcntl is None:
            return fd, Path(name)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_nlink:
            return fd, Path(name)
        os.close(fd)  # a sweep took it for an orphan between its making and its lock: another


def sweep_orphans(folder: Path) -> int:
    """Removes the temporary files that writers killed before their rename left in `folder`: one
    whose lock can be taken has no writer (a lock ends with its process). Returns how many."""
    if fcntl is None or not folder.is_dir():
        return 0
    removed = 0
    for path in folder.glob(f".*{ORPHAN_SUFFIX}"):
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue  # being written
        try:
            path.unlink(missing_ok=True)
            removed += 1
        finally:
            os.close(fd)
    if removed:
        log.warning("orphan_files_removed", folder=str(folder), files=removed,
                    reason="a brain was stopped while writing them")
    return removed


def header_of(info: SaveInfo) -> dict[str, Any]:
    return {"format": FORMAT, "world_name": info.world_name, "slot": info.slot,
            "game_time": info.game_time.isoformat() if info.game_time else None,
            "saved_at": info.saved_at.isoformat(), "npc_count": info.npc_count, "memory_count": info.memory_count}


def info_of(header: dict[str, Any], size: int) -> SaveInfo:
    if header.get("format") != FORMAT:
        raise ValueError(f"format {header.get('format')!r}: this brain reads format {FORMAT}")
    game_time = header["game_time"]
    return SaveInfo(world_name=header["world_name"], slot=header["slot"],
                    game_time=datetime.fromisoformat(game_time) if game_time else None,
                    saved_at=datetime.fromisoformat(header["saved_at"]), npc_count=int(header["npc_count"]),
                    memory_count=int(header["memory_count"]), size_bytes=size)


def damaged(slot: str, exc: Exception) -> BrainError:
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
