"""The MemoryStore backends against the same contract: embedded Qdrant Edge, qdrant-client local mode, and
qdrant-client over REST to a server (the loopback stand-in `tools/qdrant_standin.py`, as no Qdrant server
can be installed here)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest
from qdrant_edge import Point, UpdateOperation

from brain_server.config import Settings
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.persistence.storage import (
    EdgeMemoryStore,
    MemoryStore,
    ProcessMemoryStore,
    StoreLockedError,
    open_store,
)
import brain_server.persistence.storage._payload as pl
from brain_server.persistence.storage.base import StoreUnavailable
import brain_server.persistence.storage.process as store_process
from tests.hung import assert_closes_while_hung, running

REPO = Path(__file__).resolve().parents[1]
T0 = datetime(2024, 2, 13, 7, 30, 15, 123456, tzinfo=UTC)
DIM = 12

Opener = Callable[[Path, int], MemoryStore]
OPENERS: dict[str, Opener] = {
    "edge": lambda path, dim: EdgeMemoryStore(path, dim),
    "process": lambda path, dim: ProcessMemoryStore(path, dim),
    "local": lambda path, dim: _qdrant_client_store(dim, "mem", path=path),
}


def _qdrant_client_store(dim: int, collection: str, **where: Any) -> MemoryStore:
    """qdrant-client's store, imported when a test opens one: not at collection, in every worker."""
    from brain_server.persistence.storage import QdrantClientMemoryStore

    return QdrantClientMemoryStore(dim, collection, **where)


@pytest.fixture(params=[*sorted(OPENERS), "server"])
def opener(request: pytest.FixtureRequest) -> Opener:
    """"server": one stand-in per test, each store path's name a collection (what a folder is to the others)."""
    if request.param in OPENERS:
        return OPENERS[request.param]
    from tools.qdrant_standin import QdrantStandIn

    standin = QdrantStandIn().start()
    request.addfinalizer(standin.stop)
    return lambda path, dim: _qdrant_client_store(dim, path.name, url=standin.url)


@pytest.fixture
def store(opener: Opener, tmp_path: Path) -> Iterator[MemoryStore]:
    s = opener(tmp_path / "store", DIM)
    yield s
    s.close()


def node(npc: str, minutes: float, kind: MemoryKind = MemoryKind.OBSERVATION, text: str = "") -> MemoryNode:
    at = T0 + timedelta(minutes=minutes)
    return MemoryNode(
        npc_id=npc,
        kind=kind,
        description=text or f"{npc} at {minutes}",
        subject=npc,
        predicate="is",
        object="here",
        importance=3,
        created=at,
        last_accessed=at,
        keywords=["bakery", "bread"],
        evidence_ids=["e1", "e2"],
    )


def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    v = rng.normal(size=(n, dim))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_add_get_nearest(store: MemoryStore) -> None:
    rng = np.random.default_rng(1)
    nodes = [node("a", i) for i in range(5)]
    vecs = unit(rng, 5)
    store.add(nodes, vecs.tolist())

    query = vecs[2] + 0.05 * rng.normal(size=DIM)
    hits = store.nearest("a", query.tolist(), limit=3)
    assert [h.node.id for h in hits][0] == nodes[2].id
    expected = vecs @ (query / np.linalg.norm(query))
    assert [h.node.id for h in hits] == [nodes[i].id for i in np.argsort(-expected)[:3]]
    for h in hits:
        assert -1.0 <= h.similarity <= 1.0
        assert h.similarity == pytest.approx(expected[nodes.index(h.node)], abs=1e-4)
    assert hits[0].node == nodes[2]

    got = store.get("a", [nodes[4].id, "not-a-uuid", nodes[0].id, "00000000-0000-0000-0000-00000000abcd"])
    assert got == [nodes[4], nodes[0]]
    assert got[0].created == nodes[4].created and got[0].created.utcoffset() == timedelta(0)
    assert got[0].created.microsecond == 123456


def test_kind_filter(store: MemoryStore) -> None:
    rng = np.random.default_rng(2)
    kinds = [MemoryKind.OBSERVATION, MemoryKind.THOUGHT, MemoryKind.CHAT, MemoryKind.THOUGHT, MemoryKind.PLAN]
    nodes = [node("a", i, k) for i, k in enumerate(kinds)]
    vecs = unit(rng, 5)
    store.add(nodes, vecs.tolist())

    thoughts = store.nearest("a", vecs[0].tolist(), limit=10, kind=MemoryKind.THOUGHT)
    assert sorted(h.node.id for h in thoughts) == sorted([nodes[1].id, nodes[3].id])
    assert [n.id for n in store.latest("a", 10, kind=MemoryKind.THOUGHT)] == [nodes[3].id, nodes[1].id]
    assert store.latest("a", 10, kind=MemoryKind.PLAN) == [nodes[4]]


def test_tenant_isolation(store: MemoryStore) -> None:
    rng = np.random.default_rng(3)
    va = unit(rng, 3)
    a_nodes = [node("a", i) for i in range(3)]
    b_node = node("b", 100)
    store.add(a_nodes, va.tolist())
    store.add([b_node], [(-va[0]).tolist()])

    hits = store.nearest("b", va[0].tolist(), limit=10)
    assert [h.node.id for h in hits] == [b_node.id]
    assert hits[0].similarity == pytest.approx(-1.0, abs=1e-4)
    assert store.get("b", [n.id for n in a_nodes]) == []
    assert [n.id for n in store.latest("b", 10)] == [b_node.id]
    assert store.nearest("nobody", va[0].tolist(), limit=5) == []

    store.touch("b", [a_nodes[0].id], T0 + timedelta(days=9))
    assert store.get("a", [a_nodes[0].id])[0].last_accessed == a_nodes[0].last_accessed
    assert (store.count("a"), store.count("b"), store.count("nobody")) == (3, 1, 0)


def test_latest_ordering_and_count(store: MemoryStore) -> None:
    rng = np.random.default_rng(4)
    minutes = [5, -30, 42.5, 0, 17, 1000, 3]
    nodes = [node("a", m) for m in minutes]
    for n, v in zip(nodes, unit(rng, len(nodes)), strict=True):
        store.add([n], [v.tolist()])
    store.add([node("b", 5000)], unit(rng, 1).tolist())

    newest = store.latest("a", 3)
    assert [n.created for n in newest] == [T0 + timedelta(minutes=m) for m in (1000, 42.5, 17)]
    assert [n.id for n in store.latest("a", 100)] == [n.id for n in sorted(nodes, key=lambda n: n.created, reverse=True)]
    assert store.count("a") == 7


def test_touch(store: MemoryStore) -> None:
    rng = np.random.default_rng(5)
    nodes = [node("a", i) for i in range(3)]
    store.add(nodes, unit(rng, 3).tolist())
    when = T0 + timedelta(hours=5, microseconds=7)
    store.touch("a", [nodes[0].id, nodes[2].id, "00000000-0000-0000-0000-000000000001"], when)

    got = {n.id: n for n in store.get("a", [n.id for n in nodes])}
    assert got[nodes[0].id].last_accessed == when
    assert got[nodes[2].id].last_accessed == when
    assert got[nodes[1].id].last_accessed == nodes[1].last_accessed
    assert got[nodes[0].id].created == nodes[0].created
    assert store.count("a") == 3


def test_records(store: MemoryStore) -> None:
    assert store.get_record("persona", "isabella") is None
    assert store.list_records("persona") == []
    store.put_record("persona", "isabella", {"name": "Isabella", "age": 34, "traits": ["warm"], "x": None})
    store.put_record("persona", "isabella", {"name": "Isabella", "age": 35, "nested": {"a": [1, 2.5]}})
    store.put_record("state", "isabella", {"plan": "open cafe"})
    for i in range(300):
        store.put_record("world", f"obj{i}", {"i": i})

    assert store.get_record("persona", "isabella") == {"name": "Isabella", "age": 35, "nested": {"a": [1, 2.5]}}
    assert store.list_records("persona") == [{"name": "Isabella", "age": 35, "nested": {"a": [1, 2.5]}}]
    assert store.list_records("state") == [{"plan": "open cafe"}]
    assert sorted(r["i"] for r in store.list_records("world")) == list(range(300))
    assert store.count("isabella") == 0


def test_records_put_in_one_call(store: MemoryStore) -> None:
    """A round of records written behind (persistence/records.py), each as its JSON text: each
    replaces its key's record."""
    store.put_record("npc", "ada", {"npc_id": "ada", "revision": 1})
    store.put_records("npc", {"ada": '{"npc_id":"ada","name":"Ada Łódź","revision":2}', "bo": '{"npc_id":"bo"}'})
    assert store.get_record("npc", "ada") == {"npc_id": "ada", "name": "Ada Łódź", "revision": 2}
    assert sorted(r["npc_id"] for r in store.list_records("npc")) == ["ada", "bo"]


def test_records_stored_as_a_nested_dict_are_still_read(store: MemoryStore) -> None:
    """Stores written before records were kept as one JSON text hold them as a nested `data` dict."""
    old = {"record_kind": "npc", "key": "ada", "data": {"npc_id": "ada", "plan": [{"what": "read", "minutes": 30}]}}
    point_id = pl.record_id("npc", "ada")
    if isinstance(store, ProcessMemoryStore):
        pytest.skip("the edge engine's own reading, run in a child process: written by the edge case")
    if isinstance(store, EdgeMemoryStore):
        store._records.update(UpdateOperation.upsert_points([Point(id=point_id, vector={}, payload=old)]))
    else:
        from qdrant_client import models

        from brain_server.persistence.storage import QdrantClientMemoryStore

        assert isinstance(store, QdrantClientMemoryStore)
        store._client.upsert(store.records, [models.PointStruct(id=point_id, vector={}, payload=old)], wait=True)
    assert store.get_record("npc", "ada") == old["data"]
    assert store.list_records("npc") == [old["data"]]
    store.put_record("npc", "ada", {"npc_id": "ada", "plan": []})
    assert store.list_records("npc") == [{"npc_id": "ada", "plan": []}]


def test_persistence_across_reopen(opener: Opener, tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    nodes = [node("a", i, text=f"memory {i}") for i in range(4)]
    vecs = unit(rng, 4)
    s = opener(tmp_path / "store", DIM)
    s.add(nodes, vecs.tolist())
    s.touch("a", [nodes[1].id], T0 + timedelta(days=1))
    s.put_record("world", "town", {"time": "08:00"})
    s.close()

    s = opener(tmp_path / "store", DIM)
    try:
        assert s.count("a") == 4
        assert s.nearest("a", vecs[3].tolist(), 1)[0].node == nodes[3]
        assert s.get("a", [nodes[1].id])[0].last_accessed == T0 + timedelta(days=1)
        assert [n.id for n in s.latest("a", 2)] == [nodes[3].id, nodes[2].id]
        assert s.get_record("world", "town") == {"time": "08:00"}
        s.add([node("a", 99)], unit(rng, 1).tolist())
        assert s.count("a") == 5
    finally:
        s.close()


def test_exact_top_k_at_384_dims(store_384: MemoryStore) -> None:
    rng = np.random.default_rng(7)
    npcs = [f"npc{i}" for i in range(4)]
    nodes = [node(npcs[i % 4], i) for i in range(200)]
    vecs = unit(rng, 200, 384)
    store_384.add(nodes, vecs.tolist())
    query = unit(rng, 1, 384)[0]

    hits = store_384.nearest("npc2", query.tolist(), limit=10)
    mine = [i for i, n in enumerate(nodes) if n.npc_id == "npc2"]
    best = sorted(mine, key=lambda i: -float(vecs[i] @ query))[:10]
    assert [h.node.id for h in hits] == [nodes[i].id for i in best]
    assert [h.similarity for h in hits] == pytest.approx([float(vecs[i] @ query) for i in best], abs=1e-4)


@pytest.fixture
def store_384(opener: Opener, tmp_path: Path) -> Iterator[MemoryStore]:
    s = opener(tmp_path / "store384", 384)
    yield s
    s.close()


def test_second_open_is_locked(opener: Opener, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    first = opener(tmp_path / "store", DIM)
    if request.node.callspec.params["opener"] == "server":
        second = opener(tmp_path / "store", DIM)  # a server is shared by design: both see each other's writes
        second.put_record("world", "w", {"by": "second"})
        assert first.get_record("world", "w") == {"by": "second"}
        second.close()
        first.close()
        return
    try:
        with pytest.raises(StoreLockedError, match="another brain process"):
            opener(tmp_path / "store", DIM)
    finally:
        first.close()
    opener(tmp_path / "store", DIM).close()


def test_add_rejects_mismatched_lengths(store: MemoryStore) -> None:
    with pytest.raises(ValueError):
        store.add([node("a", 0)], [])


def test_open_store_picks_backend(tmp_path: Path) -> None:
    s = open_store(Settings(data_dir=tmp_path / "data"), DIM)
    assert isinstance(s, ProcessMemoryStore) and (tmp_path / "data" / "qdrant" / "memories").is_dir()
    s.close()
    s = open_store(Settings(qdrant_path=tmp_path / "local", collection="c"), DIM)
    from brain_server.persistence.storage import QdrantClientMemoryStore

    assert isinstance(s, QdrantClientMemoryStore) and s.collection == "c" and s.records == "c_records"
    s.close()


def test_edge_periodic_flush(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("brain_server.persistence.storage.edge.FLUSH_INTERVAL_S", -1.0)
    s = EdgeMemoryStore(tmp_path / "edge", DIM)
    n = node("a", 0)
    s.add([n], unit(np.random.default_rng(8), 1).tolist())
    s.put_record("world", "w", {"ok": True})
    ack = json.loads((tmp_path / "edge" / "memories" / "wal" / "first-index").read_text())
    s.close()
    s = EdgeMemoryStore(tmp_path / "edge", DIM)
    assert ack["ack_index"] >= 1 and s.get("a", [n.id]) == [n] and s.get_record("world", "w") == {"ok": True}
    s.close()


_WRITER = """
import json, sys, time
from datetime import datetime, timedelta, timezone
from brain_server.model.memory import MemoryNode
from brain_server.persistence.storage import EdgeMemoryStore
store = EdgeMemoryStore(sys.argv[1], 8)
t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
ids = []
for i in range(int(sys.argv[2])):
    n = MemoryNode(npc_id="a", kind="observation", description=f"m{i}", created=t0 + timedelta(minutes=i),
                   last_accessed=t0)
    store.add([n], [[1.0 + i] + [0.5] * 7])
    ids.append(n.id)
store.touch("a", ids[:1], t0 + timedelta(days=3))
store.put_record("state", "a", {"ids": len(ids)})
print(json.dumps(ids), flush=True)
time.sleep(60)
"""


def test_edge_writes_survive_sigkill(tmp_path: Path) -> None:
    n = 40
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(tmp_path / "edge"), str(n)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        ids = json.loads(child.stdout.readline())
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    assert child.returncode == -signal.SIGKILL and len(ids) == n

    store = EdgeMemoryStore(tmp_path / "edge", 8)
    try:
        assert store.count("a") == n
        assert [x.id for x in store.get("a", ids)] == ids
        assert [x.description for x in store.latest("a", 2)] == [f"m{n - 1}", f"m{n - 2}"]
        assert store.get("a", ids[:1])[0].last_accessed == datetime(2024, 1, 4, tzinfo=UTC)
        assert store.get_record("state", "a") == {"ids": n}
    finally:
        store.close()


def test_the_store_process_is_started_again_after_it_died(tmp_path: Path) -> None:
    """The engine's process killed (out of memory, by hand): the next call starts another on the
    same files, and what was acknowledged before is there."""
    store = ProcessMemoryStore(tmp_path / "store", DIM)
    try:
        n = node("a", 0)
        store.add([n], unit(np.random.default_rng(3), 1).tolist())
        first = store.process_id()
        os.kill(first, signal.SIGKILL)
        assert store.get("a", [n.id]) == [n]
        assert store.process_id() != first
    finally:
        store.close()


def test_the_store_closes_while_its_process_hangs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hung engine process (here stopped) does not hold the brain's shutdown: closing waits
    CLOSE_WAIT_S for the call in flight, then kills the process; that call fails, and what was
    acknowledged before opens again."""
    monkeypatch.setattr(store_process, "CLOSE_WAIT_S", 1.0)
    store = ProcessMemoryStore(tmp_path / "store", DIM)
    n = node("a", 0)
    store.add([n], unit(np.random.default_rng(4), 1).tolist())
    assert_closes_while_hung(store.process_id(), lambda: store.get("a", [n.id]), store.close, StoreUnavailable)
    again = ProcessMemoryStore(tmp_path / "store", DIM)
    try:
        assert again.get("a", [n.id]) == [n]
    finally:
        again.close()


def test_the_store_process_ends_with_its_brain(tmp_path: Path) -> None:
    """A brain killed outright leaves no engine process holding its files: the next brain opens them."""
    script = ("import sys; from brain_server.persistence.storage import ProcessMemoryStore; "
              "s = ProcessMemoryStore(sys.argv[1], 8); print(s.process_id(), flush=True); sys.stdin.read()")
    brain = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "store")], cwd=REPO, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert brain.stdout is not None
    engine = int(brain.stdout.readline())
    brain.kill()
    brain.wait()
    for _ in range(200):
        if not running(engine):
            break
        time.sleep(0.05)
    assert not running(engine)
    ProcessMemoryStore(tmp_path / "store", 8).close()
