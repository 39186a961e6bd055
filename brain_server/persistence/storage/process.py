"""The embedded engine in a process of its own, the brain's default store.

Qdrant Edge's calls keep Python's interpreter for as long as they run: every query, scroll and
upsert, and the periodic flush (measured at 1,000 NPCs: 60-125 ms each; an upsert of 500 points,
20 ms). In the brain's process every other thread waits for them meanwhile, the one answering
the game too. Here `EdgeMemoryStore` runs in a child process (`serve`): each call goes over its
stdin as a pickled (method, arguments), and its result or error comes back over its stdout; the
brain's threads wait on the pipe without the interpreter. Calls run one at a time, as they did
in the brain's process, where the engine held the interpreter.

Durability is the engine's: a call returns once the child's call returned (an acknowledged write
is in the WAL; `persistence/storage/edge.py`). The child ends with its brain (the end of its stdin, also
when the brain was killed), closing the engine; a child that died is started again by the next
call, and one still finishing for a brain before it is waited for (`LOCKED_WAIT_S`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
import json
from pathlib import Path
import pickle
import sys
import time
from typing import IO, Any, cast

from brain_server.config import SYNC_AFTER_S
from brain_server.model.memory import MemoryKind, MemoryNode, ScoredNode, ScoreFormula, StreamSpan
from brain_server.persistence.storage.base import MemoryStore, StoreLockedError, StoreUnavailable
from brain_server.persistence.storage.edge import EdgeMemoryStore
from brain_server.persistence.storage.recent import RecentObservations
from brain_server.runtime.pipes import Child, receive, replies, send

CLOSE_WAIT_S = 30.0  # how long closing waits for a call in flight, then for the engine's flush, before it kills
LOCKED_WAIT_S = 3.0  # how long a new child waits for the files of a child still closing them (a flush: ~0.1 s)
# The child's command (not `-m` this module: the package imports it before runpy would run it).
CHILD = "import json, sys; from brain_server.persistence.storage.process import serve; serve(json.loads(sys.argv[1]), sys.stdin.buffer)"


class ProcessMemoryStore(MemoryStore):
    """MemoryStore on the embedded engine in a child process (module docstring)."""

    scores_in_python = EdgeMemoryStore.scores_in_python

    def __init__(self, data_dir: Path | str, dim: int, *, sync_after_s: float = SYNC_AFTER_S) -> None:
        self.dim = dim
        self.data_dir = Path(data_dir)
        options = {"data_dir": str(self.data_dir), "dim": dim, "sync_after_s": sync_after_s}
        self._child = Child([sys.executable, "-c", CHILD, json.dumps(options)], "store", _unavailable)
        self.recent = RecentObservations()  # perception's retention answered here (recent.py)
        self._child.process_id()  # open (or refused: StoreLockedError) before the first call

    def process_id(self) -> int:
        return self._child.process_id()

    def _call(self, method: str, *args: Any) -> Any:
        """The engine's `method` called in the child; writes are upserts by id, safe to repeat."""
        reply = self._child.ask(pickle.dumps((method, args), protocol=pickle.HIGHEST_PROTOCOL))
        if reply[:1] == b"E":
            raise pickle.loads(reply[1:])
        return pickle.loads(reply[1:])

    def add(self, nodes: Sequence[MemoryNode], vectors: Sequence[Sequence[float]]) -> None:
        try:
            self._call("add", list(nodes), [list(v) for v in vectors])
        except BaseException:
            for npc_id in {n.npc_id for n in nodes}:  # written or not: asked of the engine again
                self.recent.changed(npc_id)
            raise
        self.recent.written(nodes)

    def get(self, npc_id: str, ids: Sequence[str]) -> list[MemoryNode]:
        return cast("list[MemoryNode]", self._call("get", npc_id, list(ids)))

    def nearest(self, npc_id: str, vector: Sequence[float], limit: int, kind: MemoryKind | None = None,
                exclude: Collection[MemoryKind] = (), ids: Sequence[str] = ()) -> list[ScoredNode]:
        return cast("list[ScoredNode]", self._call("nearest", npc_id, list(vector), limit, kind, tuple(exclude),
                                                   list(ids)))

    def span(self, npc_id: str, vector: Sequence[float], kind: MemoryKind | None = None,
             exclude: Collection[MemoryKind] = ()) -> StreamSpan | None:
        return cast("StreamSpan | None", self._call("span", npc_id, list(vector), kind, tuple(exclude)))

    def top_scored(self, npc_id: str, vector: Sequence[float], formula: ScoreFormula, limit: int, count: int,
                   kind: MemoryKind | None = None, exclude: Collection[MemoryKind] = ()) -> list[ScoredNode]:
        return cast("list[ScoredNode]", self._call("top_scored", npc_id, list(vector), formula, limit, count, kind,
                                                   tuple(exclude)))

    def latest(self, npc_id: str, limit: int, kind: MemoryKind | None = None) -> list[MemoryNode]:
        if kind is not MemoryKind.OBSERVATION:
            return cast("list[MemoryNode]", self._call("latest", npc_id, limit, kind))
        kept = self.recent.latest(npc_id, limit)
        if kept is not None:
            return kept
        version = self.recent.version()
        found = cast("list[MemoryNode]", self._call("latest", npc_id, limit, kind))
        self.recent.answered_by_engine(npc_id, limit, version, found)
        return found

    def touch(self, npc_id: str, ids: Sequence[str], when: datetime) -> None:
        try:
            self._call("touch", npc_id, list(ids), when)
        finally:
            self.recent.changed(npc_id)

    def set_importance(self, npc_id: str, ratings: dict[str, int]) -> None:
        try:
            self._call("set_importance", npc_id, dict(ratings))
        finally:
            self.recent.changed(npc_id)

    def count(self, npc_id: str) -> int:
        return cast("int", self._call("count", npc_id))

    def dump(self, npc_id: str) -> tuple[list[MemoryNode], list[list[float]]]:
        return cast("tuple[list[MemoryNode], list[list[float]]]", self._call("dump", npc_id))

    def forget(self, npc_id: str) -> None:
        try:
            self._call("forget", npc_id)
        finally:
            self.recent.changed(npc_id)

    def put_record(self, kind: str, key: str, data: dict[str, Any]) -> None:
        self._call("put_record", kind, key, data)

    def put_records(self, kind: str, records: dict[str, str]) -> None:
        self._call("put_records", kind, records)

    def get_record(self, kind: str, key: str) -> dict[str, Any] | None:
        return cast("dict[str, Any] | None", self._call("get_record", kind, key))

    def delete_record(self, kind: str, key: str) -> None:
        self._call("delete_record", kind, key)

    def list_records(self, kind: str) -> list[dict[str, Any]]:
        return cast("list[dict[str, Any]]", self._call("list_records", kind))

    def close(self) -> None:
        # It closes the engine (a flush) at the end of its input; killed, it loses nothing acknowledged (the WAL).
        self._child.close(timeout_s=CLOSE_WAIT_S)


def _unavailable(said: bytes | None) -> Exception:
    """Why the child would not start (its pickled error), or that it keeps dying."""
    if said and said[:1] == b"E":
        return cast(Exception, pickle.loads(said[1:]))
    return StoreUnavailable("embedded Qdrant process", "exited; its errors are in the brain's log")


def _pickled_error(exc: Exception) -> bytes:
    """The error as the caller should see it; as a RuntimeError if it does not survive pickling."""
    try:
        data = pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)
    except Exception:  # noqa: BLE001 - an exception type with its own constructor arguments
        data = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))
    return b"E" + data


def _open(options: dict[str, Any]) -> EdgeMemoryStore:
    """The engine, waiting up to LOCKED_WAIT_S for a child that is still closing it for a brain before."""
    give_up = time.monotonic() + LOCKED_WAIT_S
    while True:
        try:
            return EdgeMemoryStore(options["data_dir"], options["dim"], sync_after_s=options["sync_after_s"])
        except StoreLockedError:
            if time.monotonic() > give_up:
                raise
            time.sleep(0.1)


def serve(options: dict[str, Any], requests: IO[bytes]) -> None:
    """The store process: "R" once the engine is open (or "E" + the error), then one reply per
    request, "V" + the pickled result or "E" + the pickled error, until its input ends."""
    out = replies()
    try:
        store = _open(options)
    except Exception as exc:  # noqa: BLE001 - told to the brain, which raises it
        send(out, _pickled_error(exc))
        return
    send(out, b"R")
    try:
        while (request := receive(requests)) is not None:
            method, args = pickle.loads(request)
            try:
                reply = b"V" + pickle.dumps(getattr(store, method)(*args), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # noqa: BLE001 - one failed call fails that call, not the process
                reply = _pickled_error(exc)
            send(out, reply)
    finally:
        store.close()
