"""Save slots (issue 28): a world saved and loaded exactly, through both transports, on the
embedded engine and on a Qdrant server; nothing learned after the save is known after a load;
a kill during a save leaves the slot's previous version; slots bounded, and a damaged one changes
nothing; a result thought out before a load is not merged into the loaded NPC."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import subprocess
import sys
import threading
import time

import grpc
import httpx
import numpy as np
import pytest

from brain_server.api.saves import SUFFIX, SaveFiles, SaveInfo
from brain_server.api.service import BrainCore
from brain_server.config import Settings
from brain_server.model.errors import BrainError, Status
from brain_server.model.npc import NpcState, Persona
from brain_server.persistence.records import Records
from brain_server.persistence.storage import EdgeMemoryStore
from npc_brain.v1 import brain_pb2 as pb
from tests.clients import Clients
from tests.test_mind import decide, klaus
from tests.test_storage import DIM, Opener, node, opener, unit  # noqa: F401 - opener: the stores' fixture
from tests.test_untrusted_races import request
from tests.town import WORLD, spawn_json, world_json

CAFE = f"{WORLD}:Hobbs Cafe:cafe"
NEWS = "The mayor resigned this morning"


def memories(clients: Clients, npc_id: str) -> list[dict]:
    """Every memory as listed (ids, importance, access times), in a fixed order."""
    listed = clients.grpc("ListMemories", {"npcId": npc_id, "limit": 1000}).get("memories", [])
    return sorted(listed, key=lambda m: m["id"])


@pytest.fixture(params=["embedded", "server"])
def brain(request: pytest.FixtureRequest, brain_factory):
    """A brain on the embedded engine, or on a Qdrant server (its saves are files beside the brain)."""
    if request.param == "embedded":
        return brain_factory()
    from tools.qdrant_standin import QdrantStandIn  # imports qdrant-client: not at collection

    standin = QdrantStandIn().start()
    request.addfinalizer(standin.stop)
    return brain_factory(qdrant_url=standin.url)


def test_a_load_forgets_what_was_learned_after_the_save(brain, fake_llm) -> None:
    clients = Clients(brain)
    clients.grpc("RegisterWorld", world_json())
    clients.connect("SpawnNpc", spawn_json())
    clients.connect("SpawnNpc", klaus())
    for hour in ("09:00", "11:00", "12:00"):
        decide(clients, "isabella", hour)
        decide(clients, "klaus", hour)
    saved = clients.connect("SaveWorld", {"worldName": WORLD, "slot": "noon", "gameTime": "2026-02-13T12:00:00Z"})
    assert saved.status_code == 200, saved.text
    info = saved.json()["save"]
    assert info["slot"] == "noon" and info["npcCount"] == 2 and info["gameTime"] == "2026-02-13T12:00:00Z"
    at_noon = {npc: memories(clients, npc) for npc in ("isabella", "klaus")}
    assert int(info["memoryCount"]) == sum(map(len, at_noon.values())) > 0
    next_step = decide(clients, "isabella", "12:05")

    # After the save: news whispered to Isabella, told to Klaus in a conversation; a stove set on fire.
    clients.grpc("Whisper", {"npcId": "isabella", "text": NEWS, "gameTime": "2026-02-13T12:10:00Z"})
    fake_llm.queue({"json": {"choice": "talk", "reason": "tell Klaus", "new_activity": ""}}, purpose="react")
    fake_llm.queue({"json": {"utterance": f"Klaus! {NEWS}!", "end_conversation": False}},
                   {"json": {"utterance": "What news.", "end_conversation": True}}, purpose="converse_turn")
    assert decide(clients, "isabella", "12:15", "Klaus Mueller")["chattingWith"] == "klaus"
    assert any("mayor" in m["description"] for m in memories(clients, "klaus"))
    clients.grpc("SetObjectState", {"worldName": WORLD, "address": f"{CAFE}:coffee machine", "state": "on fire"})

    loaded = clients.grpc("LoadWorld", {"worldName": WORLD, "slot": "noon"})["save"]
    assert loaded["gameTime"] == "2026-02-13T12:00:00Z"
    # Exactly the memories at noon (importance and access times included): nobody knows the news.
    assert {npc: memories(clients, npc) for npc in ("isabella", "klaus")} == at_noon
    fake_llm.reset()
    clients.grpc("Interview", {"npcId": "klaus", "question": "What news have you heard today?",
                               "gameTime": "2026-02-13T12:20:00Z"})
    assert "mayor" not in str(fake_llm.chat_requests())
    # The saved plan goes on: the step after noon is the one given before the news.
    again = decide(clients, "isabella", "12:05")
    assert {k: again[k] for k in ("description", "address", "source")} == \
        {k: next_step[k] for k in ("description", "address", "source")}
    assert "daily_plan" not in {r["purpose"] for r in fake_llm.chat_requests()}
    clients.close()


def test_slots_are_listed_deleted_and_checked(brain_factory) -> None:
    clients = Clients(brain_factory())
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    for slot in ("first", "second"):
        clients.grpc("SaveWorld", {"worldName": WORLD, "slot": slot})
    listed = clients.connect("ListSaves", {"worldName": WORLD}).json()["saves"]
    assert [s["slot"] for s in listed] == ["second", "first"]  # the most recent first
    assert all(int(s["sizeBytes"]) > 0 and "gameTime" not in s for s in listed)
    assert clients.connect("DeleteSave", {"worldName": WORLD, "slot": "first"}).json() == {"deleted": True}
    assert clients.grpc("DeleteSave", {"worldName": WORLD, "slot": "first"}) == {}  # deleted: false
    assert [s["slot"] for s in clients.grpc("ListSaves", {"worldName": WORLD})["saves"]] == ["second"]
    for method, body, code in [
        ("SaveWorld", {"worldName": WORLD, "slot": "../escape"}, "invalid_argument"),
        ("SaveWorld", {"worldName": WORLD, "slot": ""}, "invalid_argument"),
        ("SaveWorld", {"worldName": "Atlantis", "slot": "a"}, "failed_precondition"),
        ("LoadWorld", {"worldName": WORLD, "slot": "first"}, "not_found"),
        ("LoadWorld", {"worldName": WORLD, "slot": "x" * 65}, "invalid_argument"),
        ("DeleteSave", {"worldName": WORLD, "slot": "a/b"}, "invalid_argument"),
    ]:
        assert clients.connect(method, body).json()["code"] == code, (method, body)
        with pytest.raises(grpc.RpcError) as info:
            clients.grpc(method, body)
        assert info.value.code().name.lower() == code
    clients.close()


def test_a_kill_during_a_save_leaves_the_previous_version(brain_factory, tmp_path: Path) -> None:
    """SIGKILL of the brain while it writes the slot (held before the rename by a test-only pause)."""
    brain = brain_factory(test_save_pause_s=4)
    clients = Clients(brain)
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    before = clients.grpc("SaveWorld", {"worldName": WORLD, "slot": "slot1"})["save"]
    clients.grpc("Whisper", {"npcId": "isabella", "text": NEWS, "gameTime": "2026-02-13T12:10:00Z"})
    folder = tmp_path / "data0" / "saves" / "the%20Ville"

    cut: list[Exception] = []

    def save_until_killed() -> None:
        try:
            clients.connect("SaveWorld", {"worldName": WORLD, "slot": "slot1"})
        except httpx.TransportError as exc:
            cut.append(exc)

    saving = threading.Thread(target=save_until_killed, daemon=True)
    saving.start()
    for _ in range(200):
        if list(folder.glob(".slot1.*.tmp")):
            break
        time.sleep(0.05)
    assert list(folder.glob(".slot1.*.tmp")), "the second save never started writing"
    brain.restart(same_ports=False)  # new clients follow: another process may have taken the old ports
    saving.join(10)
    assert cut, "the second save was answered: the brain was not killed during it"
    clients.close()
    clients = Clients(brain)
    assert [s["savedAt"] for s in clients.grpc("ListSaves", {"worldName": WORLD})["saves"]] == [before["savedAt"]]
    assert not list(folder.glob(".slot1.*.tmp")), "the restarted brain kept what the killed save wrote aside"
    clients.grpc("LoadWorld", {"worldName": WORLD, "slot": "slot1"})
    assert clients.grpc("ListMemories", {"npcId": "isabella"}).get("memories", []) == []
    clients.close()


def test_bounds_and_a_damaged_slot(tmp_path: Path) -> None:
    files = SaveFiles(tmp_path, max_slots=2, max_bytes=4096)
    info = SaveInfo(world_name="w/x", slot="a", game_time=None, saved_at=datetime.now(UTC),
                    npc_count=0, memory_count=0)
    files.write(info, b"{}")
    files.write(SaveInfo(**{**info.__dict__, "slot": "b"}), b"{}")
    files.write(info, b'{"again": 1}')  # over a slot: allowed at the limit
    with pytest.raises(BrainError) as full:
        files.write(SaveInfo(**{**info.__dict__, "slot": "c"}), b"{}")
    assert full.value.status == Status.RESOURCE_EXHAUSTED and "DeleteSave" in str(full.value)
    with pytest.raises(BrainError) as big:
        files.write(info, b"x" * 5000)
    assert big.value.status == Status.RESOURCE_EXHAUSTED and "MiB" in str(big.value)
    assert files.read("w/x", "a")[1] == {"again": 1}  # the refused write left the slot as it was
    files.path("w/x", "b").write_bytes(b"not json\n")
    with pytest.raises(BrainError) as damaged:
        files.read("w/x", "b")
    assert damaged.value.status == Status.FAILED_PRECONDITION and "damaged" in str(damaged.value)
    assert [s.slot for s in files.list("w/x")] == ["a"]  # the damaged one is skipped
    assert sorted(p.name for p in files.folder("w/x").iterdir()) == [f"a{SUFFIX}", f"b{SUFFIX}"]


WRITER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
print("writing", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="no advisory locks: the files stay on Windows")
def test_what_a_killed_writer_left_is_removed_and_a_live_writers_file_is_not(tmp_path: Path) -> None:
    """A save's file written aside is locked until renamed: the next write into its folder (or the
    next start) removes one whose writer was killed, and leaves one a live writer (another
    replica) holds."""
    files = SaveFiles(tmp_path)
    info = SaveInfo(world_name="w", slot="a", game_time=None, saved_at=datetime.now(UTC), npc_count=0,
                    memory_count=0)
    files.write(info, b"{}")
    folder = files.folder("w")
    killed, live = folder / ".a.killed.tmp", folder / ".a.live.tmp"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True) for path in (killed, live)]
    try:
        assert [w.stdout.readline() for w in writers] == ["writing\n"] * 2  # type: ignore[union-attr]
        writers[0].kill()
        writers[0].wait()
        files.write(info, b'{"again": 1}')
        assert sorted(p.name for p in folder.iterdir()) == [live.name, f"a{SUFFIX}"]
        assert files.read("w", "a")[1] == {"again": 1}
        writers[1].kill()
        writers[1].wait()
        (files.root / ".loading").mkdir()
        (files.root / ".loading" / ".w.npcsave.x.tmp").write_bytes(b"half")  # a load's journal, half written
        assert files.sweep() == 2  # as at a start
        assert sorted(p.name for p in folder.iterdir()) == [f"a{SUFFIX}"] and not list((files.root / ".loading").iterdir())
    finally:
        for writer in writers:
            writer.kill()
            writer.wait()


def test_a_result_thought_out_before_a_reset_is_dropped(tmp_path: Path) -> None:
    """`Records.revise`: a plan that lands after the NPC was forgotten (a load, a reset) is not merged."""

    async def scenario() -> None:
        store = EdgeMemoryStore(tmp_path / "store", 4)
        records = Records(store, shared_store=False, write_behind=False)
        npc = NpcState(npc_id="ada", world_name="w", persona=Persona(name="Ada"))
        await records.save(npc, wait=True)
        thinking, landed = asyncio.Event(), asyncio.Event()

        async def think(draft: NpcState):
            thinking.set()
            await landed.wait()
            return lambda live: setattr(live, "day_outline", ["a plan for the old timeline"])

        revising = asyncio.create_task(records.revise("ada", think))
        await thinking.wait()
        async with records.lock("ada"):
            await records.forget(npc, keep_record=True)
            await records.save(NpcState(npc_id="ada", world_name="w", persona=Persona(name="Ada")), wait=True)
        landed.set()
        assert await revising is False
        assert (await records.npc("ada")).day_outline == []
        assert await records.revise("ada", think_now) is True  # a result thought out after it merges
        assert (await records.npc("ada")).day_outline == ["a new plan"]
        store.close()

    async def think_now(draft: NpcState):
        return lambda live: setattr(live, "day_outline", ["a new plan"])

    asyncio.run(scenario())


def test_a_load_drops_the_thinking_under_way(run, fake_llm, tmp_path: Path) -> None:
    """Background thinking (production): a day plan still being written when the save is loaded
    is cancelled, and never lands in the loaded NPC; the next Decide starts thinking anew. The
    world's object states are the saved ones."""

    async def scenario(stream) -> None:
        core = BrainCore(Settings(data_dir=tmp_path / "brain", prepare_ahead_minutes=0), stream)
        try:
            await core.register_world(request(pb.RegisterWorldRequest, world_json()))
            await core.spawn_npc(request(pb.SpawnNpcRequest, spawn_json()))
            await core.save_world(request(pb.SaveWorldRequest, {"worldName": WORLD, "slot": "dawn"}))
            await core.set_object_state(request(pb.SetObjectStateRequest, {
                "worldName": WORLD, "address": f"{CAFE}:coffee machine", "state": "on fire"}))
            fake_llm.latency_s = 1.0
            first = await core.decide(request(pb.DecideRequest, {"npcId": "isabella",
                                                                "gameTime": "2026-02-13T09:00:00Z"}))
            assert first.thinking and core.mind.runtimes.jobs()  # its day plan is being written
            await core.load_world(request(pb.LoadWorldRequest, {"worldName": WORLD, "slot": "dawn"}))
            assert core.mind.runtimes.jobs() == []
            await asyncio.sleep(2.5)  # past the endpoint's answer: nothing merges
            npc = await core.records.npc("isabella")
            assert npc.plan == [] and npc.plan_day is None and npc.action is None
            world = await core.records.world(WORLD)
            assert world.sectors[0].arenas[0].objects[1].state == "idle"  # the object states as saved
            fake_llm.latency_s = 0.0
            again = await core.decide(request(pb.DecideRequest, {"npcId": "isabella",
                                                                "gameTime": "2026-02-13T09:00:00Z"}))
            assert again.thinking and again.action.source == pb.ACTION_SOURCE_PROVISIONAL
        finally:
            await core.close()

    run(scenario)


@pytest.fixture
def any_store(opener: Opener, tmp_path: Path):  # noqa: F811 - the imported fixture
    s = opener(tmp_path / "store", DIM)
    yield s
    s.close()


def test_every_store_dumps_forgets_and_deletes(any_store) -> None:
    """What saves and resets rest on, on each store (embedded in-process and in its process,
    qdrant-client's local mode, a Qdrant server): an NPC's memories come back whole with their
    embeddings, and go without touching another NPC's."""
    store = any_store
    rng = np.random.default_rng(3)
    mine = [node("ada", m) for m in range(300)]  # more than a scroll page
    theirs = [node("bob", 1)]
    vectors = unit(rng, 301)
    store.add(mine + theirs, vectors.tolist())
    store.touch("ada", [mine[0].id], mine[0].created + timedelta(hours=2))
    store.set_importance("ada", {mine[1].id: 9})
    nodes, dumped = store.dump("ada")
    by_id = {n.id: (n, v) for n, v in zip(nodes, dumped, strict=True)}
    assert sorted(by_id) == sorted(n.id for n in mine)
    assert by_id[mine[0].id][0].last_accessed == mine[0].created + timedelta(hours=2)
    assert by_id[mine[1].id][0].importance == 9
    for original, vector in zip(mine, vectors, strict=False):
        assert np.allclose(by_id[original.id][1], vector, atol=1e-6)
    store.forget("ada")
    assert store.count("ada") == 0 and store.count("bob") == 1
    store.put_record("npc", "ada", {"npc_id": "ada"})
    store.delete_record("npc", "ada")
    store.delete_record("npc", "never")
    assert store.get_record("npc", "ada") is None


def test_the_save_bench_runs() -> None:
    """`python -m npc_lab.saves_bench` on a tiny town: it saves, loads and reports (docs/benchmarks.md)."""
    done = subprocess.run([sys.executable, "-m", "npc_lab.saves_bench", "--npcs", "2", "--memories", "20",
                           "--repeat", "1"], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["npcs"] == 2 and report["memories"] == 40 and report["size_mib"] > 0
    assert report["save_s"] > 0 and report["load_s"] > 0 and report["reembed_s_per_1000"] > 0
