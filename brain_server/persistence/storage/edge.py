"""The embedded default: Qdrant's own engine in-process (qdrant-edge-py), files under data_dir.

Two shards: `memories` (all NPCs, tenant key npc_id) and `records`. Records live apart so that
the memory shard holds only real embeddings: counts, the HNSW graph and the tenant index are not
polluted by dummy vectors. The records shard declares a 1-dim vector that no point uses (Edge
requires at least one vector in a shard's config; points may omit it).

Durability (measured, qdrant-edge-py 0.9.0): `update` returns after appending to the WAL, a
memory-mapped file, so an acknowledged write survives SIGKILL of this process (the page cache
belongs to the kernel) and is replayed on the next load. Surviving a power cut or a kernel crash
needs those pages on the disk: a thread of the store fsyncs the WAL files at most `sync_after_s`
after a write (0: before the write returns). It is not the engine's `flush()`, which holds the
GIL for 10-30 ms (every thread of the brain stops; os.fsync lets them run), and which is still
what truncates the WAL: done at most every FLUSH_INTERVAL_S after a write (bounding replay time
at start) and on close.

One owner at a time, from before the first file is read to after the last is written: the
store's folder lock (LOCK_FILE). The engine's own lock is on each shard's WAL folder, taken by
`EdgeShard.load` only after it has read the shard's segments, so a load tried while the last owner
was closing (flushing its segments, then truncating its WAL) could read the segments from before
that flush and the WAL from after it, losing every write since the last flush; a brain restarted
at once after a crash did that (its new store process tries again while the old one closes), and
wrote the loss back on its next flush.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
import os
from pathlib import Path
import threading
import time
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; the engine's own lock is all there is
    fcntl = None  # type: ignore[assignment]
from qdrant_edge import (
    CountRequest,
    DecayKind,
    Direction,
    Distance,
    EdgeConfig,
    EdgeShard,
    EdgeVectorParams,
    Expression,
    FieldCondition,
    Filter,
    FloatIndexParams,
    Formula,
    HasIdCondition,
    IntegerIndexParams,
    KeywordIndexParams,
    MatchAny,
    MatchValue,
    OrderBy,
    Point,
    Prefetch,
    Query,
    QueryRequest,
    ScrollRequest,
    SearchParams,
    UpdateOperation,
)
import structlog

from brain_server.config import SYNC_AFTER_S
from brain_server.model.memory import MemoryKind, MemoryNode, ScoredNode, ScoreFormula, StreamSpan
from brain_server.persistence.storage import _payload as pl
from brain_server.persistence.storage.base import PREFETCH_SLACK, MemoryStore, StoreLockedError

log = structlog.get_logger(__name__)
FLUSH_INTERVAL_S = 30.0
LOCK_FILE = "store.lock"  # flocked by the store's owner while it has the shards open (module docstring)
_SCROLL_PAGE = 256
_EXACT = SearchParams(exact=True)
_OPS = pl.FormulaOps(
    constant=Expression.Constant, variable=Expression.Variable, sum=Expression.Sum, mult=Expression.Mult,
    exp_decay=lambda x, target, midpoint, scale: Expression.Decay(DecayKind.Exp, x, target, midpoint, scale))


def _in_use(folder: Path) -> StoreLockedError:
    return StoreLockedError(f"{folder} is in use by another brain process (the embedded Qdrant engine allows "
                            "one owner); stop it or point data_dir elsewhere")


def _lock_folder(folder: Path) -> int | None:
    """The store's folder locked for this owner (StoreLockedError if another has it), before any
    shard file is read: the fd to close once the shards are closed (None where there is no flock)."""
    if fcntl is None:
        return None
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise _in_use(folder) from None
    return fd


def _open_shard(path: Path, config: EdgeConfig, indexes: dict[str, Any]) -> EdgeShard:
    """Load the shard if its files exist, else create it; (re)create payload indexes (idempotent)."""
    try:
        if (path / "edge_config.json").exists():
            shard = EdgeShard.load(str(path), config)
        else:
            shard = EdgeShard.create(str(path), config)
    except Exception as exc:
        if "WouldBlock" in str(exc):
            raise _in_use(path.parent) from exc
        raise
    for field, params in indexes.items():
        shard.update(UpdateOperation.create_field_index(field, params))
    return shard


class EdgeMemoryStore(MemoryStore):
    """MemoryStore on two Edge shards under data_dir; every query is filtered by npc_id inside Qdrant."""

    def __init__(self, data_dir: Path | str, dim: int, *, sync_after_s: float = SYNC_AFTER_S) -> None:
        self.dim = dim
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock = _lock_folder(self.data_dir)
        try:
            self._memories, self._records = self._open_shards(dim)
        except BaseException:
            self._unlock()
            raise
        self._last_flush = time.monotonic()
        self.sync_after_s = sync_after_s
        self._unsynced = threading.Event()  # a write not yet on the disk
        self._closing = threading.Event()
        self._syncer = threading.Thread(target=self._sync_loop, name="store-sync", daemon=True)
        if sync_after_s > 0:
            self._syncer.start()

    def _open_shards(self, dim: int) -> tuple[EdgeShard, EdgeShard]:
        memories = _open_shard(
            self.data_dir / "memories",
            EdgeConfig(vectors={pl.VECTOR: EdgeVectorParams(size=dim, distance=Distance.Cosine)}),
            {
                pl.TENANT: KeywordIndexParams(is_tenant=True),
                pl.KIND: KeywordIndexParams(),
                pl.CREATED_TS: FloatIndexParams(),
                pl.LAST_ACCESSED_TS: FloatIndexParams(),
                pl.IMPORTANCE: IntegerIndexParams(lookup=False, range=True),
            },
        )
        try:
            records = _open_shard(
                self.data_dir / "records",
                EdgeConfig(vectors={pl.VECTOR: EdgeVectorParams(size=1, distance=Distance.Dot)}),
                {pl.RECORD_KIND: KeywordIndexParams()},
            )
        except BaseException:
            memories.close()
            raise
        return memories, records

    def _unlock(self) -> None:
        """The folder's lock released (the shards closed first: the next owner reads what they wrote)."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _write(self, shard: EdgeShard, operation: UpdateOperation) -> None:
        shard.update(operation)
        if time.monotonic() - self._last_flush > FLUSH_INTERVAL_S:
            self.flush()
        elif self.sync_after_s > 0:
            self._unsynced.set()
        else:
            self.sync()

    def sync(self) -> None:
        """fsync the write-ahead logs (and their folders, for new segments): what was written is
        on the disk when this returns. Releases the GIL while the disk works."""
        for shard in ("memories", "records"):
            wal = self.data_dir / shard / "wal"
            for path in (*wal.iterdir(), wal):
                try:
                    fd = os.open(path, os.O_RDONLY)
                except FileNotFoundError:
                    continue  # a segment the engine retired meanwhile
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)

    def _sync_loop(self) -> None:
        while not self._closing.is_set():
            self._unsynced.wait()
            self._closing.wait(self.sync_after_s)  # writes gather: one fsync for all of them
            self._unsynced.clear()
            try:
                self.sync()
            except OSError:
                log.exception("store_sync_failed", data_dir=str(self.data_dir))

    def flush(self) -> None:
        """Persist segments and truncate the WAL (also makes writes survive a power cut)."""
        self._memories.flush()
        self._records.flush()
        self._last_flush = time.monotonic()

    @staticmethod
    def _filter(npc_id: str, kind: MemoryKind | None = None, ids: Sequence[str] = (),
                exclude: Collection[MemoryKind] = ()) -> Filter:
        must: list[Any] = [FieldCondition(key=pl.TENANT, match=MatchValue(npc_id))]
        if kind is not None:
            must.append(FieldCondition(key=pl.KIND, match=MatchValue(kind.value)))
        if ids:
            must.append(HasIdCondition(set(ids)))
        must_not: list[Any] | None = (
            [FieldCondition(key=pl.KIND, match=MatchAny(sorted(k.value for k in exclude)))] if exclude else None)
        return Filter(must=must, must_not=must_not)

    def add(self, nodes: Sequence[MemoryNode], vectors: Sequence[Sequence[float]]) -> None:
        if len(nodes) != len(vectors):
            raise ValueError(f"{len(nodes)} nodes but {len(vectors)} vectors")
        if not nodes:
            return
        points = [
            Point(id=node.id, vector={pl.VECTOR: [float(x) for x in vector]}, payload=pl.node_to_payload(node))
            for node, vector in zip(nodes, vectors, strict=True)
        ]
        self._write(self._memories, UpdateOperation.upsert_points(points))

    def get(self, npc_id: str, ids: Sequence[str]) -> list[MemoryNode]:
        wanted = pl.point_ids(ids)
        if not wanted:
            return []
        records, _ = self._memories.scroll(
            ScrollRequest(limit=len(wanted), filter=self._filter(npc_id, ids=wanted), with_payload=True)
        )
        return pl.order_like([pl.node_from_payload(r.payload or {}) for r in records], wanted)

    def nearest(
        self, npc_id: str, vector: Sequence[float], limit: int, kind: MemoryKind | None = None,
        exclude: Collection[MemoryKind] = (), ids: Sequence[str] = (),
    ) -> list[ScoredNode]:
        wanted = pl.point_ids(ids)
        if ids and not wanted:
            return []
        hits = self._memories.query(
            QueryRequest(
                limit=limit,
                query=Query.Nearest([float(x) for x in vector], using=pl.VECTOR),
                filter=self._filter(npc_id, kind, wanted, exclude),
                with_payload=True,
                params=_EXACT,
            )
        )
        return [ScoredNode(node=pl.node_from_payload(h.payload or {}), similarity=h.score) for h in hits]

    def span(self, npc_id: str, vector: Sequence[float], kind: MemoryKind | None = None,
             exclude: Collection[MemoryKind] = ()) -> StreamSpan | None:
        only = self._filter(npc_id, kind, exclude=exclude)
        count = self._memories.count(CountRequest(exact=True, filter=only))
        if not count:
            return None

        def best(query: list[float]) -> float:
            [hit] = self._memories.query(QueryRequest(limit=1, query=Query.Nearest(query, using=pl.VECTOR),
                                                      filter=only, params=_EXACT))
            return hit.score

        def end(key: str, direction: Direction) -> float:
            [record], _ = self._memories.scroll(ScrollRequest(limit=1, filter=only, with_payload=True,
                                                              order_by=OrderBy(key, direction=direction)))
            return float((record.payload or {})[key])

        v = [float(x) for x in vector]
        return StreamSpan(count=count, similarity=(-best([-x for x in v]), best(v)),
                          importance=(end(pl.IMPORTANCE, Direction.Asc), end(pl.IMPORTANCE, Direction.Desc)),
                          last_accessed=(end(pl.LAST_ACCESSED_TS, Direction.Asc),
                                         end(pl.LAST_ACCESSED_TS, Direction.Desc)))

    def top_scored(self, npc_id: str, vector: Sequence[float], formula: ScoreFormula, limit: int, count: int,
                   kind: MemoryKind | None = None, exclude: Collection[MemoryKind] = ()) -> list[ScoredNode]:
        only = self._filter(npc_id, kind, exclude=exclude)
        v = [float(x) for x in vector]
        every = Prefetch(limit=count + PREFETCH_SLACK, query=Query.Nearest(v, using=pl.VECTOR), filter=only,
                         params=_EXACT)
        hits = self._memories.query(QueryRequest(limit=limit + pl.TIE_SLACK, prefetches=[every],
                                                 query=Formula(pl.score_expression(_OPS, formula)), filter=only))
        ids = pl.ranked_ids(((str(h.id), h.score) for h in hits), limit)
        return pl.order_scored(self.nearest(npc_id, v, len(ids), kind, exclude, ids), ids) if ids else []

    def latest(self, npc_id: str, limit: int, kind: MemoryKind | None = None) -> list[MemoryNode]:
        records, _ = self._memories.scroll(
            ScrollRequest(
                limit=limit + pl.TIE_SLACK,
                filter=self._filter(npc_id, kind),
                with_payload=True,
                order_by=OrderBy(pl.CREATED_TS, direction=Direction.Desc),
            )
        )
        return pl.newest((pl.node_from_payload(r.payload or {}) for r in records), limit)

    def touch(self, npc_id: str, ids: Sequence[str], when: datetime) -> None:
        wanted = pl.point_ids(ids)
        if wanted:
            self._write(
                self._memories,
                UpdateOperation.set_payload_by_filter(
                    self._filter(npc_id, ids=wanted), pl.time_fields("last_accessed", when)
                ),
            )

    def set_importance(self, npc_id: str, ratings: dict[str, int]) -> None:
        for importance, ids in pl.ids_by_value(ratings).items():
            self._write(self._memories, UpdateOperation.set_payload_by_filter(
                self._filter(npc_id, ids=ids), {"importance": importance}))

    def count(self, npc_id: str) -> int:
        return self._memories.count(CountRequest(exact=True, filter=self._filter(npc_id)))

    def dump(self, npc_id: str) -> tuple[list[MemoryNode], list[list[float]]]:
        nodes: list[MemoryNode] = []
        vectors: list[list[float]] = []
        offset: Any = None
        while True:
            page, offset = self._memories.scroll(ScrollRequest(offset=offset, limit=_SCROLL_PAGE,
                                                               filter=self._filter(npc_id), with_payload=True,
                                                               with_vector=True))
            for r in page:
                nodes.append(pl.node_from_payload(r.payload or {}))
                vectors.append(list(pl.vector_of(r.vector)))
            if offset is None:
                return nodes, vectors

    def forget(self, npc_id: str) -> None:
        self._write(self._memories, UpdateOperation.delete_points_by_filter(self._filter(npc_id)))

    def put_record(self, kind: str, key: str, data: dict[str, Any]) -> None:
        point = Point(id=pl.record_id(kind, key), vector={}, payload=pl.record_payload(kind, key, data))
        self._write(self._records, UpdateOperation.upsert_points([point]))

    def put_records(self, kind: str, records: dict[str, str]) -> None:
        points = [Point(id=pl.record_id(kind, key), vector={}, payload=pl.record_payload_text(kind, key, text))
                  for key, text in records.items()]
        self._write(self._records, UpdateOperation.upsert_points(points))

    def get_record(self, kind: str, key: str) -> dict[str, Any] | None:
        found = self._records.retrieve([pl.record_id(kind, key)], with_payload=True, with_vector=False)
        return pl.record_data(found[0].payload) if found else None

    def delete_record(self, kind: str, key: str) -> None:
        self._write(self._records, UpdateOperation.delete_points([pl.record_id(kind, key)]))

    def list_records(self, kind: str) -> list[dict[str, Any]]:
        only_kind = Filter(must=[FieldCondition(key=pl.RECORD_KIND, match=MatchValue(kind))])
        out: list[dict[str, Any]] = []
        offset: Any = None
        while True:
            page, offset = self._records.scroll(
                ScrollRequest(offset=offset, limit=_SCROLL_PAGE, filter=only_kind, with_payload=True)
            )
            out.extend(data for r in page if (data := pl.record_data(r.payload)) is not None)
            if offset is None:
                return out

    def close(self) -> None:
        self._closing.set()
        self._unsynced.set()
        if self._syncer.is_alive():
            self._syncer.join()
        try:
            self._memories.close()
            self._records.close()
        finally:
            self._unlock()
