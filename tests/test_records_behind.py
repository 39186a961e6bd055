"""Records written behind (persistence/records.py), a round at a time: every NPC's newest record
in one store call, a round gathering the saves of a while, an NPC's writes never overtaking each
other, `drain` waiting for what was saved before it, and a failed round written again by the next
save."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
import threading
from typing import Any

from brain_server.model.npc import NpcState, Persona
from brain_server.persistence.records import NPC_RECORD, Records
from brain_server.persistence.storage.edge import EdgeMemoryStore


class Watched:
    """The embedded engine, its record writes counted in the order made; a round behind waits for
    `go` (the records' own thread blocks, as on a slow disk), and one can be made to fail."""

    def __init__(self, path: Path) -> None:
        self.engine = EdgeMemoryStore(path, 4)
        self.writes: list[tuple[str, dict[str, str]]] = []  # (call, the outline written per NPC)
        self.go = threading.Event()
        self.go.set()
        self.fail = False

    def put_record(self, kind: str, key: str, data: dict[str, Any]) -> None:
        self.writes.append(("put_record", {key: "".join(data["day_outline"])}))
        self.engine.put_record(kind, key, data)

    def put_records(self, kind: str, records: dict[str, str]) -> None:
        self.go.wait(10)
        read = {key: json.loads(text) for key, text in records.items()}
        self.writes.append(("put_records", {key: "".join(data["day_outline"]) for key, data in read.items()}))
        if self.fail:
            raise OSError("disk full")
        self.engine.put_records(kind, records)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def _npc(npc_id: str, outline: str = "") -> NpcState:
    return NpcState(npc_id=npc_id, world_name="w", persona=Persona(name=npc_id.title()),
                    day_outline=[outline] if outline else [])


def test_records_behind_go_in_rounds_and_never_overtake(tmp_path: Path) -> None:
    store = Watched(tmp_path / "store")

    async def scenario() -> None:
        records = Records(store, shared_store=False, gather_s=0)  # type: ignore[arg-type] - the engine, watched
        store.go.clear()
        for npc_id in ("ada", "bo", "cy"):  # a batch's Decides, recorded on the mind's loop
            await records.save(_npc(npc_id, "a"))
        await asyncio.sleep(0.05)  # the round of the three is under way, held
        await records.save(_npc("ada", "b"))  # behind the round: the next one
        await records.save(_npc("bo", "b"))
        edited = asyncio.create_task(records.save(_npc("cy", "b"), wait=True))  # waits for the round with cy
        await asyncio.sleep(0.05)
        assert not edited.done() and store.writes == []
        store.go.set()
        await edited
        await records.drain()
        first, *then = store.writes
        assert first == ("put_records", {"ada": "a", "bo": "a", "cy": "a"})
        assert sorted(then) == [("put_record", {"cy": "b"}), ("put_records", {"ada": "b", "bo": "b"})]
        assert {r["npc_id"]: r["day_outline"] for r in store.engine.list_records(NPC_RECORD)} == {
            "ada": ["b"], "bo": ["b"], "cy": ["b"]}

        store.fail = True
        await records.save(_npc("ada", "c"))
        await records.drain()
        store.fail = False
        await records.save(_npc("ada", "c"))  # the same record: written again, the failed write forgotten
        await records.drain()
        assert store.writes[-2:] == [("put_records", {"ada": "c"}), ("put_records", {"ada": "c"})]
        assert store.engine.get_record(NPC_RECORD, "ada")["day_outline"] == ["c"]
        assert NpcState.model_validate(store.engine.get_record(NPC_RECORD, "bo")) == records.cached("bo")

    try:
        asyncio.run(scenario())
    finally:
        store.go.set()
        store.engine.close()


def test_a_record_is_made_into_text_once_per_write_and_never_to_find_it_unchanged(tmp_path: Path, monkeypatch) -> None:
    """Issue 44: every save made the whole record's JSON text to tell whether it changed (twice a
    Decide at 1,000 NPCs). Now an unchanged save makes none and writes nothing, a changed one is
    made into text by the writer, and an NPC saved twice before its round is made into text once;
    what is read back is the newest record, and a saved object changed in place is still written."""
    store = Watched(tmp_path / "store")
    made: list[str] = []
    dump = NpcState.model_dump_json

    def counted(npc: NpcState, **kwargs: Any) -> str:
        made.append(npc.npc_id)
        return dump(npc, **kwargs)

    monkeypatch.setattr(NpcState, "model_dump_json", counted)

    async def scenario() -> None:
        records = Records(store, shared_store=False, gather_s=0)  # type: ignore[arg-type] - the engine, watched
        await records.save(_npc("ada", "a"))
        await records.drain()
        assert (made, len(store.writes)) == (["ada"], 1)
        live = records.cached("ada")
        assert live is not None
        for copy in (live.model_copy(), live.model_copy(deep=True)):  # the record as it is, copied
            await records.save(copy)
        await records.merge("ada", lambda npc: None)
        await records.drain()
        assert (made, len(store.writes), records.cached("ada").revision) == (["ada"], 1, 1)

        store.go.clear()  # the disk is slow: both of a Decide's saves wait for the next round
        await records.save(_npc("bo", "a"))
        await asyncio.sleep(0.05)
        await records.save((await records.npc("ada")).model_copy(update={"day_outline": ["b"]}))
        await records.merge("ada", lambda npc: npc.day_outline.append("c"))
        store.go.set()
        await records.drain()
        assert made == ["ada", "bo", "ada"]
        assert store.writes[-1] == ("put_records", {"ada": "bc"})
        assert store.engine.get_record(NPC_RECORD, "ada")["revision"] == 3

        kept = records.cached("ada")
        assert kept is not None
        kept.day_outline.append("d")  # changed in place, against the rule: not lost
        await records.save(kept)
        await records.drain()
        assert store.writes[-1] == ("put_records", {"ada": "bcd"})

    try:
        asyncio.run(scenario())
    finally:
        store.go.set()
        store.engine.close()


def test_a_round_gathers_the_saves_of_a_while_and_drain_does_not_wait_for_it(tmp_path: Path) -> None:
    """Issue 44: at 1,000 NPCs in view a record was saved ~115 times a second and each went in a
    round of its own, a store call and a thread's turn each. A round now waits `gather_s` for
    other NPCs' saves; `drain` (a save file, closing) takes it at once."""
    store = Watched(tmp_path / "store")

    async def scenario() -> None:
        records = Records(store, shared_store=False, gather_s=60)  # type: ignore[arg-type] - the engine, watched
        for npc_id in ("ada", "bo", "cy"):  # Decides a few ms apart
            await records.save(_npc(npc_id, "a"))
            await asyncio.sleep(0.01)
        await records.save(_npc("ada", "b"))  # saved again before its round: the newest goes
        assert store.writes == []
        await records.drain()
        assert store.writes == [("put_records", {"ada": "b", "bo": "a", "cy": "a"})]

    try:
        asyncio.run(scenario())
    finally:
        store.engine.close()
