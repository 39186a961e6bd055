"""Edges a game developer hits in the first week, driven through a real brain on loopback (fake
LLM) as a newcomer's game would: an edited "currently", verb outcomes and verb declarations that
disagree with what was declared, and a player's conversation that runs to its line limit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
import re
from typing import Any

import grpc
import pytest

from brain_server.api.personas import currently
from brain_server.llm.embedded import MODEL_NAME
from brain_server.model.names import called
from brain_server.model.npc import NpcState, Persona
from npc_lab.fake_openai import FakeOpenAI
from npc_lab.standin_openai import StandInOpenAI
from tests.clients import Clients
from tests.conftest import BrainProcess

pytestmark = pytest.mark.brain  # one brain process for the module
W = "Lantern Quay"


BELL = {"name": "ring_bell", "description": "ring the fog bell"}


def world(*verbs: dict[str, Any], name: str = W) -> dict[str, Any]:
    arenas = [{"name": arena, "objects": [{"name": o} for o in objects]}
              for arena, objects in (("Lamp Room", ["great lens"]), ("Cottage", ["bed"]))]
    return {"world": {"name": name, "sectors": [{"name": "Point", "arenas": arenas}], "verbs": list(verbs)}}


def keeper(now: str = "", npc_id: str = "keeper", world_name: str = W, name: str = "Odile Marsh",
           **more: Any) -> dict[str, Any]:
    persona = {"name": name, "age": 58, "identity": f"{name} keeps the lighthouse.", "currently": now,
               "lifestyle": "works in the Lamp Room from 6 am, sleeps at 10 pm", "home": f"{world_name}:Point:Cottage"}
    return {"worldName": world_name, "npcId": npc_id, "persona": persona, **more}


def refused(c: Clients, method: str, body: dict[str, Any], *says: str) -> None:
    """Refused as invalid_argument over both transports, the message saying each of `says`."""
    answer = c.connect(method, body)
    assert answer.status_code == 400 and all(s in answer.json()["message"] for s in says), answer.text
    with pytest.raises(grpc.RpcError) as failed:
        c.grpc(method, body)
    assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def outcome(verb: str, when: str = "2026-03-02T10:00:00Z", npc_id: str = "keeper") -> dict[str, Any]:
    return {"npcId": npc_id, "gameTime": when, "verbOutcomes": [{"name": verb, "done": True, "detail": "it rang"}]}


def told(fake: FakeOpenAI) -> str:
    """What the model was last asked in an interview (the persona's summary leads it)."""
    return fake.chat_requests("interview")[-1]["body"]["messages"][-1]["content"]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as model:
        yield model


@contextmanager
def started(tmp_path_factory: pytest.TempPathFactory, url: str, model: str) -> Iterator[tuple[Clients, BrainProcess]]:
    """A brain on the model at `url`, its world registered."""
    process = BrainProcess({"llm_base_url": url, "llm_model": model, "data_dir": tmp_path_factory.mktemp("edges"),
                            "background_thinking": False}).start()
    clients = Clients(process)
    try:
        clients.grpc("RegisterWorld", world())
        yield clients, process
    finally:
        clients.close()
        process.stop()


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Iterator[tuple[Clients, FakeOpenAI, BrainProcess]]:
    with started(tmp_path_factory, fake.base_url, "fake-model") as (clients, process):
        yield clients, fake, process


@pytest.fixture(scope="module")
def offline_brain(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Iterator[Clients]:
    """A brain whose lines are composed, as on the embedded model (its name), the model only picking one."""
    with started(tmp_path_factory, fake.base_url, MODEL_NAME) as (clients, _):
        yield clients


@pytest.fixture(scope="module")
def standin_brain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clients]:
    """A brain on the cooperative stand-in model, which writes lines from what its prompt says."""
    with StandInOpenAI(seed=1) as model, started(tmp_path_factory, model.base_url, "stand-in") as (clients, _):
        yield clients


def test_an_edited_currently_replaces_the_brains_and_a_resent_one_keeps_it(
        brain: tuple[Clients, FakeOpenAI, BrainProcess]) -> None:
    """The brain's revision of "currently" stays while the game sends what it sent before; the
    developer's edit replaces it (noted and remembered), after a restart and after a load too."""
    c, fake, process = brain
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


def test_an_outcome_of_a_verb_never_declared_is_refused(brain: tuple[Clients, FakeOpenAI, BrainProcess]) -> None:
    """VerbOutcome is the game's answer to a VerbCall: one for a verb neither the world nor the NPC
    declared (a typo, the game's own action) was remembered as done; it is refused, naming the
    declared verbs, and nothing of that Decide is kept."""
    c, _, _ = brain
    c.grpc("RegisterWorld", world(BELL, {**BELL, "name": "open_gate", "users": ["porter"]}, name="Fog Point"))
    c.grpc("SpawnNpc", keeper(npc_id="fogkeeper", world_name="Fog Point",
                              verbs=[{"name": "trim_wick", "description": "trim the lamp's wick"}]))
    for verb in ("ring_bell", "trim_wick"):
        c.grpc("Decide", outcome(verb, npc_id="fogkeeper"))
    for verb in ("ring_the_bell", "open_gate"):  # a typo; a world verb for another NPC
        refused(c, "Decide", outcome(verb, "2026-03-02T10:05:00Z", "fogkeeper"), repr(verb), "'ring_bell', 'trim_wick'")
    batch = c.grpc("DecideBatch", {"requests": [outcome("ring_the_bell", "2026-03-02T10:06:00Z", "fogkeeper")]})
    assert batch["results"][0]["code"] == "invalid_argument", batch
    remembered = " ".join(m["description"] for m in c.grpc("ListMemories", {"npcId": "fogkeeper"})["memories"])
    assert "did trim_wick" in remembered and "ring_the_bell" not in remembered and "open_gate" not in remembered


def test_a_world_registered_again_with_an_npcs_verb(brain: tuple[Clients, FakeOpenAI, BrainProcess]) -> None:
    """A verb the world now declares under the name of a spawned NPC's: declared otherwise, the
    RegisterWorld is refused naming the NPC, and the world stays as it was; declared the same
    (the verb moved from the NPC to the world), it is the world's, for every NPC and in SpawnNpc."""
    c, _, _ = brain
    c.grpc("RegisterWorld", world(name="Bell Rock"))
    c.grpc("SpawnNpc", keeper(npc_id="ringer", world_name="Bell Rock", verbs=[BELL]))
    refused(c, "RegisterWorld", world({**BELL, "description": "ring it three times"}, name="Bell Rock"),
            "'ring_bell'", "'ringer'", "differently")
    assert c.grpc("SpawnNpc", keeper(npc_id="ringer", world_name="Bell Rock", verbs=[BELL]))["resumed"]

    c.grpc("RegisterWorld", world(BELL, name="Bell Rock"))
    assert c.grpc("SpawnNpc", keeper(npc_id="ringer", world_name="Bell Rock"))["resumed"]
    assert c.grpc("SpawnNpc", keeper(npc_id="ringer", world_name="Bell Rock", verbs=[BELL]))["resumed"]
    refused(c, "SpawnNpc", keeper(npc_id="ringer", world_name="Bell Rock", verbs=[{**BELL, "description": "clang"}]),
            "'ring_bell'", "differently")
    c.grpc("RegisterWorld", world(name="Bell Rock"))  # the world's: gone with it
    refused(c, "Decide", outcome("ring_bell", npc_id="ringer"), "'ring_bell'", "it has none")


@pytest.mark.parametrize(("speaker", "called"), [("the player", ""), ("Guard #2", ""), ("Ada Kern", "Ada")])
def test_the_stand_in_addresses_a_player_by_a_name_only_when_it_is_one(standin_brain: Clients, speaker: str,
                                                                       called: str) -> None:
    """Talked to by "the player" it said "Hi the!" and "It was good to talk, the."."""
    npc_id = f"keeper{len(speaker)}"  # one each: a conversation remembered shows in the next one's prompt
    standin_brain.grpc("SpawnNpc", keeper(npc_id=npc_id, name=f"Odile {npc_id.title()}"))
    lines = {f"Hi{' ' + called if called else ''}! How are you doing?",
             f"It was good to talk{', ' + called if called else ''}. See you around!"}
    for text in ("Hello!", "Nice day."):
        said = standin_brain.grpc("Talk", {"npcId": npc_id, "speakerName": speaker, "text": text,
                                           "gameTime": "2026-03-02T11:00:00Z"})["reply"]
        assert said in lines, said


@pytest.mark.parametrize(("name", "said"), [
    ("Isabella Rodriguez", "Isabella"), ("Bob", "Bob"), ("Dr. Ana Lee", "Dr. Lee"), ("Captain", "Captain"),
    ("Mr.", ""), ("the player", ""), ("stranger", ""), ("Guard #2", ""), ("npc_07", ""), ("", "")])
def test_what_a_name_is_called(name: str, said: str) -> None:
    assert called(name) == said


def test_a_players_talk_at_the_line_limit_ends_with_a_goodbye(offline_brain: Clients) -> None:
    """At the limit (converse.MAX_LINES, 8 lines each) the NPC's last line answered the question
    heard and the conversation was over without a word; now it takes its leave, and says it ended."""
    offline_brain.grpc("SpawnNpc", keeper(npc_id="talker"))
    asked = ["Hello!", "What is your job?", "Where do you live?", "What are you doing tomorrow?", "How old are you?",
             "What time is it?", "Your lighthouse is beautiful.", "What do you do in the evening?"]
    said = [offline_brain.grpc("Talk", {"npcId": "talker", "speakerName": "Ada Kern", "text": text,
                                        "gameTime": "2026-03-02T11:00:00Z"}) for text in asked]
    assert [bool(s.get("endConversation")) for s in said] == [False] * 7 + [True], said
    assert re.match(r"(Goodbye, Ada|See you later, Ada|Take care)!", said[-1]["reply"]), said[-1]
