"""Edges a game developer hits in the first week, driven through a real brain on loopback (fake
LLM) as a newcomer's game would: an edited "currently", verb outcomes and verb declarations that
disagree with what was declared, and a player's conversation that runs to its line limit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brain_server.npc import NpcState, Persona
from brain_server.personas import currently
from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.conftest import BrainProcess

pytestmark = pytest.mark.brain  # one brain process for the module
W = "Lantern Quay"


def world(*verbs: dict[str, Any]) -> dict[str, Any]:
    arenas = [{"name": name, "objects": [{"name": o} for o in objects]}
              for name, objects in (("Lamp Room", ["great lens"]), ("Cottage", ["bed"]))]
    return {"world": {"name": W, "sectors": [{"name": "Point", "arenas": arenas}], "verbs": list(verbs)}}


def keeper(now: str = "", npc_id: str = "keeper", name: str = "Odile Marsh", **more: Any) -> dict[str, Any]:
    persona = {"name": name, "age": 58, "identity": f"{name} keeps the lighthouse.", "currently": now,
               "lifestyle": "works in the Lamp Room from 6 am, sleeps at 10 pm", "home": f"{W}:Point:Cottage"}
    return {"worldName": W, "npcId": npc_id, "persona": persona, **more}


def told(fake: FakeOpenAI) -> str:
    """What the model was last asked in an interview (the persona's summary leads it)."""
    return fake.chat_requests("interview")[-1]["body"]["messages"][-1]["content"]


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Clients, FakeOpenAI, BrainProcess]]:
    data: Path = tmp_path_factory.mktemp("edges")
    with FakeOpenAI() as fake:
        process = BrainProcess({"llm_base_url": fake.base_url, "llm_model": "fake-model", "data_dir": data,
                                "background_thinking": False}).start()
        clients = Clients(process)
        try:
            yield clients, fake, process
        finally:
            clients.close()
            process.stop()


def test_an_edited_currently_replaces_the_brains_and_a_resent_one_keeps_it(
        brain: tuple[Clients, FakeOpenAI, BrainProcess]) -> None:
    """The brain's revision of "currently" stays while the game sends what it sent before; the
    developer's edit replaces it (noted and remembered), after a restart and after a load too."""
    c, fake, process = brain
    c.grpc("RegisterWorld", world())
    c.grpc("SpawnNpc", keeper("Odile is polishing the lens."))
    c.grpc("Decide", {"npcId": "keeper", "gameTime": "2026-03-02T09:00:00Z", "address": f"{W}:Point:Lamp Room"})
    fake.queue({"json": {"currently": "Odile is planning the lantern festival."}}, purpose="revise_currently")
    c.grpc("Whisper", {"npcId": "keeper", "text": "I should hold a lantern festival", "gameTime": "2026-03-02T09:10:00Z"})
    assert c.grpc("SpawnNpc", keeper("Odile is polishing the lens."))["resumed"]
    c.grpc("Interview", {"npcId": "keeper", "question": "What now?", "gameTime": "2026-03-02T09:20:00Z"})
    assert "Currently: Odile is planning the lantern festival." in told(fake)

    process.restart()  # on the same ports: the clients reconnect
    edited = c.grpc("SpawnNpc", keeper("Odile is repainting the tower."))
    assert edited["updated"] and edited["changed"] == ["currently"], edited
    trace = c.grpc("GetTrace", {"npcId": "keeper"})["trace"]
    assert trace["kind"] == "edit" and "currently changed" in str(trace), trace
    memories = [m["description"] for m in c.grpc("ListMemories", {"npcId": "keeper"})["memories"]]
    assert "Odile Marsh now: Odile is repainting the tower." in memories, memories
    c.grpc("Interview", {"npcId": "keeper", "question": "What now?", "gameTime": "2026-03-02T09:30:00Z"})
    assert "Currently: Odile is repainting the tower." in told(fake)

    c.grpc("SaveWorld", {"worldName": W, "slot": "before-storm"})
    c.grpc("SpawnNpc", keeper("Odile is bracing for the storm."))
    c.grpc("LoadWorld", {"worldName": W, "slot": "before-storm"})
    assert c.grpc("SpawnNpc", keeper("Odile is bracing for the storm."))["changed"] == ["currently"]


def test_a_record_from_before_keeps_the_brains_currently() -> None:
    """A record written before the game's "currently" was kept cannot tell an edit from the
    brain's revision: it keeps the revision, as before (and the next spawn keeps what was sent)."""
    record = NpcState(npc_id="keeper", world_name=W, persona=Persona(name="Odile Marsh", currently="revised"))
    old = NpcState.model_validate(record.model_dump(mode="json", exclude={"sent_currently"}))
    assert old.sent_currently is None and currently(old, "as sent") == "revised"
    assert currently(old.model_copy(update={"sent_currently": "as sent"}), "edited") == "edited"
