"""MemoryStore on a Qdrant server or cluster through qdrant-client, or on its local mode.

Same layout as the embedded store: one collection for all NPCs' memories (tenant index on
npc_id, range index on created_ts) and `<collection>_records` for records, a collection
without vectors. Local mode (`path=` or ":memory:") is pure Python brute force: it accepts but
ignores payload indexes (their creation warns; silenced here) and supports scroll order_by, so
the code path is the same as against a server. Writes use wait=True: acknowledged = applied.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast
import warnings

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from brain_server.model.errors import ConfigError, root_cause
from brain_server.model.memory import MemoryKind, MemoryNode, ScoredNode, ScoreFormula, StreamSpan
from brain_server.persistence.storage import _payload as pl
from brain_server.persistence.storage.base import PREFETCH_SLACK, MemoryStore, StoreLockedError, StoreUnavailable

_SCROLL_PAGE = 256
_EXACT = models.SearchParams(exact=True)
_OPS = pl.FormulaOps[models.Expression](
    constant=float, variable=str, sum=lambda terms: models.SumExpression(sum=terms),
    mult=lambda terms: models.MultExpression(mult=terms),
    exp_decay=lambda x, target, midpoint, scale: models.ExpDecayExpression(exp_decay=models.DecayParamsExpression(
        x=x, target=target, midpoint=midpoint, scale=scale)))


class _Reachable:
    """qdrant-client with a server that cannot be reached, or answers 5xx, raised as StoreUnavailable
    (RPCs answer `unavailable`); its connection pool reconnects on a later call."""

    def __init__(self, client: QdrantClient, url: str) -> None:
        self._client, self._url = client, url

    @staticmethod
    def wrap(client: QdrantClient, url: str) -> QdrantClient:
        """The client behind this guard, typed as the client whose every method it answers."""
        return cast(QdrantClient, _Reachable(client, url))

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)
        if not callable(method):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except ResponseHandlingException as exc:
                raise StoreUnavailable(f"Qdrant at {self._url}", f"cannot be reached ({root_cause(exc)})") from exc
            except UnexpectedResponse as exc:
                if (exc.status_code or 0) < 500:
                    raise
                raise StoreUnavailable(f"Qdrant at {self._url}", f"answers HTTP {exc.status_code}") from exc

        return call


def _server_error(url: str, exc: Exception) -> ConfigError:
    """A Qdrant server that cannot serve as configured, as one line naming the setting to fix."""
    if isinstance(exc, StoreUnavailable):
        return ConfigError(f"the Qdrant server at NPC_BRAIN_QDRANT_URL={url} {exc.reason}: is it running?")
    if isinstance(exc, UnexpectedResponse) and exc.status_code in (401, 403):
        return ConfigError(f"the Qdrant server at {url} refuses the API key (HTTP {exc.status_code}): "
                           "set NPC_BRAIN_QDRANT_API_KEY to a key it accepts")
    if isinstance(exc, UnexpectedResponse):
        return ConfigError(f"NPC_BRAIN_QDRANT_URL={url} answers HTTP {exc.status_code}: is it a Qdrant server's "
                           "REST URL (port 6333)?")
    return ConfigError(f"NPC_BRAIN_QDRANT_URL={url}: {exc}")


def _at_start(url: str | None, start: Callable[[], Any]) -> Any:
    """`start()`, with a server that is wrong or down (url set) raised as ConfigError."""
    try:
        return start()
    except (StoreUnavailable, UnexpectedResponse) as exc:
        if url is None:
            raise
        raise _server_error(url, exc) from None


def check_server(url: str, api_key: str | None, collection: str, dim: int | None) -> str:
    """`npc-brain check`: the server answers, and the collection, if it exists, fits the embedder;
    creates nothing. ConfigError otherwise."""
    client = _Reachable.wrap(QdrantClient(url=url, api_key=api_key), url)
    try:
        size = _at_start(url, lambda: _vector_size(client, collection) if client.collection_exists(collection)
                         else None)
    finally:
        client.close()
    if size is not None and dim and size != dim:
        raise _dim_mismatch(collection, size, dim)
    return f"Qdrant server at {url}, collection {collection} " + (f"({size}-dim)" if size else "(serve creates it)")


def _vector_size(client: Any, collection: str) -> int | None:
    vectors = client.get_collection(collection).config.params.vectors
    params = vectors.get(pl.VECTOR) if isinstance(vectors, dict) else None
    return params.size if params else None


def _dim_mismatch(collection: str, size: int, dim: int) -> ConfigError:
    return ConfigError(f"collection {collection} holds {size}-dim vectors, the embedder makes {dim}: use the "
                       "embedder it was made with, or another NPC_BRAIN_COLLECTION")


class QdrantClientMemoryStore(MemoryStore):
    """url= for a server/cluster; path= (a folder or ":memory:") for qdrant-client local mode."""

    def __init__(
        self,
        dim: int,
        collection: str = "npc_memories",
        *,
        url: str | None = None,
        api_key: str | None = None,
        path: Path | str | None = None,
    ) -> None:
        self.dim = dim
        self.collection = collection
        self.records = f"{collection}_records"
        # Local mode is brute force (exact) and warns about search params; a server is told to be exact.
        self._exact = _EXACT if url is not None else None
        self.scores_in_python = url is None
        if url is not None:
            self._client = _Reachable.wrap(QdrantClient(url=url, api_key=api_key), url)
        elif path is None or str(path) == ":memory:":
            self._client = QdrantClient(location=":memory:")
        else:
            try:
                self._client = QdrantClient(path=str(path))
            except RuntimeError as exc:
                if "already accessed" not in str(exc):
                    raise
                raise StoreLockedError(
                    f"{path} is in use by another brain process (qdrant-client local mode allows "
                    "one owner); stop it or use a Qdrant server"
                ) from exc
        try:
            _at_start(url, self._ensure_collections)
            if (size := _vector_size(self._client, collection)) != dim:
                raise _dim_mismatch(collection, size or 0, dim)
        except BaseException:
            self._client.close()
            raise

    def _ensure_collections(self) -> None:
        self._ensure_collection(
            self.collection,
            {pl.VECTOR: models.VectorParams(size=self.dim, distance=models.Distance.COSINE)},
            {
                pl.TENANT: models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
                pl.KIND: models.PayloadSchemaType.KEYWORD,
                pl.CREATED_TS: models.PayloadSchemaType.FLOAT,
                pl.LAST_ACCESSED_TS: models.PayloadSchemaType.FLOAT,
                pl.IMPORTANCE: models.IntegerIndexParams(type=models.IntegerIndexType.INTEGER, lookup=False,
                                                         range=True),
            },
        )
        self._ensure_collection(self.records, {}, {pl.RECORD_KIND: models.PayloadSchemaType.KEYWORD})

    def _ensure_collection(
        self,
        name: str,
        vectors: dict[str, models.VectorParams],
        indexes: dict[str, models.PayloadSchemaType | models.KeywordIndexParams | models.IntegerIndexParams],
    ) -> None:
        """Idempotent: another brain process may have created it, even concurrently."""
        if not self._client.collection_exists(name):
            try:
                self._client.create_collection(name, vectors_config=vectors)
            except Exception:
                if not self._client.collection_exists(name):
                    raise
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Payload indexes have no effect in the local Qdrant")
            for field, schema in indexes.items():
                self._client.create_payload_index(name, field, schema, wait=True)

    @staticmethod
    def _filter(npc_id: str, kind: MemoryKind | None = None, ids: Sequence[str] = (),
                exclude: Collection[MemoryKind] = ()) -> models.Filter:
        must: list[models.Condition] = [
            models.FieldCondition(key=pl.TENANT, match=models.MatchValue(value=npc_id))
        ]
        if kind is not None:
            must.append(models.FieldCondition(key=pl.KIND, match=models.MatchValue(value=kind.value)))
        if ids:
            must.append(models.HasIdCondition(has_id=list(ids)))
        must_not: list[models.Condition] = [models.FieldCondition(
            key=pl.KIND, match=models.MatchAny(any=sorted(k.value for k in exclude)))] if exclude else []
        return models.Filter(must=must, must_not=must_not or None)

    def add(self, nodes: Sequence[MemoryNode], vectors: Sequence[Sequence[float]]) -> None:
        if len(nodes) != len(vectors):
            raise ValueError(f"{len(nodes)} nodes but {len(vectors)} vectors")
        if not nodes:
            return
        points = [
            models.PointStruct(
                id=node.id, vector={pl.VECTOR: [float(x) for x in vector]}, payload=pl.node_to_payload(node)
            )
            for node, vector in zip(nodes, vectors, strict=True)
        ]
        self._client.upsert(self.collection, points, wait=True)

    def get(self, npc_id: str, ids: Sequence[str]) -> list[MemoryNode]:
        wanted = pl.point_ids(ids)
        if not wanted:
            return []
        found, _ = self._client.scroll(
            self.collection, scroll_filter=self._filter(npc_id, ids=wanted), limit=len(wanted), with_payload=True
        )
        return pl.order_like([pl.node_from_payload(r.payload or {}) for r in found], wanted)

    def nearest(
        self, npc_id: str, vector: Sequence[float], limit: int, kind: MemoryKind | None = None,
        exclude: Collection[MemoryKind] = (), ids: Sequence[str] = (),
    ) -> list[ScoredNode]:
        wanted = pl.point_ids(ids)
        if ids and not wanted:
            return []
        hits = self._client.query_points(
            self.collection,
            query=[float(x) for x in vector],
            using=pl.VECTOR,
            query_filter=self._filter(npc_id, kind, wanted, exclude),
            limit=limit,
            with_payload=True,
            search_params=self._exact,
        ).points
        return [ScoredNode(node=pl.node_from_payload(h.payload or {}), similarity=h.score) for h in hits]

    def span(self, npc_id: str, vector: Sequence[float], kind: MemoryKind | None = None,
             exclude: Collection[MemoryKind] = ()) -> StreamSpan | None:
        only = self._filter(npc_id, kind, exclude=exclude)
        count = self._client.count(self.collection, count_filter=only, exact=True).count
        if not count:
            return None

        def best(query: list[float]) -> float:
            [hit] = self._client.query_points(self.collection, query=query, using=pl.VECTOR, query_filter=only,
                                              limit=1, search_params=self._exact).points
            return hit.score

        def end(key: str, direction: models.Direction) -> float:
            [record], _ = self._client.scroll(self.collection, scroll_filter=only, limit=1, with_payload=[key],
                                              order_by=models.OrderBy(key=key, direction=direction))
            return float((record.payload or {})[key])

        v = [float(x) for x in vector]
        asc, desc = models.Direction.ASC, models.Direction.DESC
        return StreamSpan(count=count, similarity=(-best([-x for x in v]), best(v)),
                          importance=(end(pl.IMPORTANCE, asc), end(pl.IMPORTANCE, desc)),
                          last_accessed=(end(pl.LAST_ACCESSED_TS, asc), end(pl.LAST_ACCESSED_TS, desc)))

    def top_scored(self, npc_id: str, vector: Sequence[float], formula: ScoreFormula, limit: int, count: int,
                   kind: MemoryKind | None = None, exclude: Collection[MemoryKind] = ()) -> list[ScoredNode]:
        only = self._filter(npc_id, kind, exclude=exclude)
        v = [float(x) for x in vector]
        every = models.Prefetch(query=v, using=pl.VECTOR, filter=only, limit=count + PREFETCH_SLACK,
                                params=self._exact)
        hits = self._client.query_points(self.collection, prefetch=every, query_filter=only, limit=limit + pl.TIE_SLACK,
                                         query=models.FormulaQuery(formula=pl.score_expression(_OPS, formula)),
                                         with_payload=False).points
        ids = pl.ranked_ids(((str(h.id), h.score) for h in hits), limit)
        return pl.order_scored(self.nearest(npc_id, v, len(ids), kind, exclude, ids), ids) if ids else []

    def latest(self, npc_id: str, limit: int, kind: MemoryKind | None = None) -> list[MemoryNode]:
        found, _ = self._client.scroll(
            self.collection,
            scroll_filter=self._filter(npc_id, kind),
            limit=limit + pl.TIE_SLACK,
            order_by=models.OrderBy(key=pl.CREATED_TS, direction=models.Direction.DESC),
            with_payload=True,
        )
        return pl.newest((pl.node_from_payload(r.payload or {}) for r in found), limit)

    def touch(self, npc_id: str, ids: Sequence[str], when: datetime) -> None:
        wanted = pl.point_ids(ids)
        if wanted:
            self._client.set_payload(
                self.collection,
                pl.time_fields("last_accessed", when),
                points=self._filter(npc_id, ids=wanted),
                wait=True,
            )

    def set_importance(self, npc_id: str, ratings: dict[str, int]) -> None:
        for importance, ids in pl.ids_by_value(ratings).items():
            self._client.set_payload(self.collection, {"importance": importance},
                                     points=self._filter(npc_id, ids=ids), wait=True)

    def count(self, npc_id: str) -> int:
        return self._client.count(self.collection, count_filter=self._filter(npc_id), exact=True).count

    def dump(self, npc_id: str) -> tuple[list[MemoryNode], list[list[float]]]:
        nodes: list[MemoryNode] = []
        vectors: list[list[float]] = []
        offset: models.ExtendedPointId | None = None
        while True:
            page, offset = self._client.scroll(self.collection, scroll_filter=self._filter(npc_id), limit=_SCROLL_PAGE,
                                               offset=offset, with_payload=True, with_vectors=True)
            for r in page:
                nodes.append(pl.node_from_payload(r.payload or {}))
                vectors.append(list(pl.vector_of(r.vector)))
            if offset is None:
                return nodes, vectors

    def forget(self, npc_id: str) -> None:
        self._client.delete(self.collection, models.FilterSelector(filter=self._filter(npc_id)), wait=True)

    def put_record(self, kind: str, key: str, data: dict[str, Any]) -> None:
        point = models.PointStruct(id=pl.record_id(kind, key), vector={}, payload=pl.record_payload(kind, key, data))
        self._client.upsert(self.records, [point], wait=True)

    def put_records(self, kind: str, records: dict[str, str]) -> None:
        points = [models.PointStruct(id=pl.record_id(kind, key), vector={}, payload=pl.record_payload_text(kind, key, text))
                  for key, text in records.items()]
        self._client.upsert(self.records, points, wait=True)

    def get_record(self, kind: str, key: str) -> dict[str, Any] | None:
        found = self._client.retrieve(self.records, [pl.record_id(kind, key)], with_payload=True)
        return pl.record_data(found[0].payload) if found else None

    def delete_record(self, kind: str, key: str) -> None:
        self._client.delete(self.records, models.PointIdsList(points=[pl.record_id(kind, key)]), wait=True)

    def list_records(self, kind: str) -> list[dict[str, Any]]:
        only_kind = models.Filter(
            must=[models.FieldCondition(key=pl.RECORD_KIND, match=models.MatchValue(value=kind))]
        )
        out: list[dict[str, Any]] = []
        offset: models.ExtendedPointId | None = None
        while True:
            page, offset = self._client.scroll(
                self.records, scroll_filter=only_kind, limit=_SCROLL_PAGE, offset=offset, with_payload=True
            )
            out.extend(data for r in page if (data := pl.record_data(r.payload)) is not None)
            if offset is None:
                return out

    def close(self) -> None:
        self._client.close()
