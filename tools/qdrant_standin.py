"""A stand-in for a Qdrant server's REST API, for tests only: NOT Qdrant.

No Qdrant server can be installed on our build machines, and both embedded stores (Qdrant Edge,
qdrant-client's local mode) belong to one process. To test several brain processes sharing one
store, this serves on loopback the REST endpoints that `brain_server/persistence/storage/qdrant_server.py`
calls through qdrant-client (collection exists/create/get, payload index, upsert, scroll, query,
set payload, count, retrieve, delete): each body is parsed with `qdrant_client.http.models` and run on
qdrant-client's own local engine (pure Python, brute force) behind one lock, and answered as
Qdrant answers, `{"result": ..., "status": "ok", "time": ...}`. It is a test double like
`npc_lab/fake_openai.py`: the same client code and wire format as against a real server, none of
the server's engine (no HNSW, no payload indexes, no sharding, no consistency settings).

    python -m tools.qdrant_standin --port 6333 [--path folder]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
import importlib.metadata
import re
import threading
import time
from typing import Any
import warnings

from pydantic import BaseModel
from qdrant_client import QdrantClient, models

from brain_server.runtime.loopback import JsonHandler, LoopbackServer

Route = Callable[[QdrantClient, str, dict[str, Any]], Any]


def _update(_: Any) -> dict[str, Any]:
    return {"operation_id": 0, "status": "completed"}


def _create_collection(engine: QdrantClient, name: str, body: dict[str, Any]) -> bool:
    if engine.collection_exists(name):
        raise ValueError(f"Wrong input: Collection `{name}` already exists!")
    request = models.CreateCollection.model_validate(body)
    return engine.create_collection(name, vectors_config=request.vectors or {},
                                    sparse_vectors_config=request.sparse_vectors)


def _create_index(engine: QdrantClient, name: str, body: dict[str, Any]) -> dict[str, Any]:
    request = models.CreateFieldIndex.model_validate(body)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _update(engine.create_payload_index(name, request.field_name, request.field_schema))


def _upsert(engine: QdrantClient, name: str, body: dict[str, Any]) -> dict[str, Any]:
    request = models.PointsList.model_validate(body)
    return _update(engine.upsert(name, request.points))


def _scroll(engine: QdrantClient, name: str, body: dict[str, Any]) -> dict[str, Any]:
    r = models.ScrollRequest.model_validate(body)
    points, next_offset = engine.scroll(name, scroll_filter=r.filter, limit=r.limit or 10, offset=r.offset,
                                        order_by=r.order_by, with_payload=r.with_payload if r.with_payload is not None
                                        else True, with_vectors=r.with_vector or False)
    return {"points": points, "next_page_offset": next_offset}


def _query(engine: QdrantClient, name: str, body: dict[str, Any]) -> Any:
    r = models.QueryRequest.model_validate(body)
    return engine.query_points(name, query=r.query, using=r.using, prefetch=r.prefetch, query_filter=r.filter,
                               limit=r.limit or 10, offset=r.offset, score_threshold=r.score_threshold,
                               with_payload=r.with_payload if r.with_payload is not None else False,
                               with_vectors=r.with_vector or False)


def _set_payload(engine: QdrantClient, name: str, body: dict[str, Any]) -> dict[str, Any]:
    r = models.SetPayload.model_validate(body)
    selector = r.points if r.points is not None else r.filter
    return _update(engine.set_payload(name, r.payload, points=selector, key=r.key))


def _delete(engine: QdrantClient, name: str, body: dict[str, Any]) -> dict[str, Any]:
    selector: models.PointsSelector = (models.PointIdsList.model_validate(body) if "points" in body
                                       else models.FilterSelector.model_validate(body))
    return _update(engine.delete(name, selector))


def _count(engine: QdrantClient, name: str, body: dict[str, Any]) -> Any:
    r = models.CountRequest.model_validate(body)
    return engine.count(name, count_filter=r.filter, exact=r.exact if r.exact is not None else True)


def _retrieve(engine: QdrantClient, name: str, body: dict[str, Any]) -> Any:
    r = models.PointRequest.model_validate(body)
    return engine.retrieve(name, r.ids, with_payload=r.with_payload if r.with_payload is not None else True,
                           with_vectors=r.with_vector or False)


ROUTES: dict[tuple[str, str], Route] = {
    ("GET", ""): lambda engine, name, body: engine.get_collection(name),
    ("GET", "exists"): lambda engine, name, body: {"exists": engine.collection_exists(name)},
    ("PUT", ""): _create_collection,
    ("PUT", "index"): _create_index,
    ("PUT", "points"): _upsert,
    ("POST", "points/scroll"): _scroll,
    ("POST", "points/query"): _query,
    ("POST", "points/payload"): _set_payload,
    ("POST", "points/count"): _count,
    ("POST", "points/delete"): _delete,
    ("POST", "points"): _retrieve,
}
PATH = re.compile(r"^/collections/(?P<name>[^/?]+)/?(?P<rest>[^?]*)")


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


class QdrantStandIn(LoopbackServer):
    """The stand-in in a background thread: `with QdrantStandIn() as q: q.url`. `path` keeps the data
    in a folder (qdrant-client local mode's format); by default it lives in memory."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, path: str | None = None) -> None:
        self.engine = QdrantClient(path=path) if path else QdrantClient(location=":memory:")
        self.lock = threading.Lock()
        self.requests = 0
        self.closed = False
        super().__init__(_handler_for(self), host, port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stops serving, then closes the engine once no request is inside it: a request being
        answered goes on in its own thread after the server stops, and an engine closed under it
        (its SQLite connection) crashed the process."""
        super().stop()
        with self.lock:
            self.closed = True
            self.engine.close()

    def call(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        """(HTTP status, body) for one request, answered as a Qdrant server would."""
        began = time.perf_counter()
        if method == "GET" and path.split("?")[0].rstrip("/") == "":
            return 200, {"title": "qdrant stand-in for tests (tools/qdrant_standin.py)",
                         "version": importlib.metadata.version("qdrant-client")}
        match = PATH.match(path)
        route = ROUTES.get((method, match.group("rest").rstrip("/"))) if match else None
        if route is None or match is None:
            return 404, {"status": {"error": f"Not found: {method} {path} (not served by the stand-in)"}, "time": 0.0}
        try:
            with self.lock:
                if self.closed:
                    return 503, {"status": {"error": "Service unavailable: the stand-in is stopping"}, "time": 0.0}
                self.requests += 1
                result = route(self.engine, match.group("name"), body)
        except (ValueError, KeyError) as exc:
            status = 404 if "not found" in str(exc).lower() else 400
            return status, {"status": {"error": str(exc)}, "time": time.perf_counter() - began}
        return 200, {"result": _jsonable(result), "status": "ok", "time": time.perf_counter() - began}


def _handler_for(standin: QdrantStandIn) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def answer(self) -> None:
            body = self.read_json()
            if body is not None:
                self.send_json(*standin.call(self.command, self.path, body))

        do_GET = do_PUT = do_POST = answer

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=6333)
    parser.add_argument("--path", help="folder for the data (default: in memory)")
    args = parser.parse_args()
    with QdrantStandIn(args.host, args.port, args.path) as standin:
        print(f"Qdrant REST stand-in (tests only) on {standin.url}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
