"""TakeBack through a real brain on loopback, over gRPC and Connect JSON: the player's last line
and the NPC's answer leave the open conversation, so the next Talk's prompt (as the fake model
records it) and the memory written when the conversation ends hold neither; a take-back with
nothing to take back says why."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
import time
from typing import Any

from google.protobuf import json_format
import grpc
import pytest

from npc_brain.v1 import brain_pb2 as pb
from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.test_edges import keeper, started

pytestmark = pytest.mark.brain
WHEN = "2026-03-02T11:00:00Z"
TRANSPORTS = ["grpc", "connect"]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as model:
        yield model


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Iterator[Clients]:
    with started(tmp_path_factory, fake.base_url, "fake-model") as (clients, _):
        yield clients


def call(c: Clients, transport: str, method: str, body: dict[str, Any]) -> dict[str, Any]:
    """The answer over one transport; a failure as {"code": ..., "message": ...} over either."""
    if transport == "connect":
        answer = c.connect(method, body)
        return answer.json() | ({"http": answer.status_code} if answer.status_code != 200 else {})
    try:
        return c.grpc(method, body)
    except grpc.RpcError as exc:
        return {"code": exc.code().name.lower(), "message": exc.details()}


def talk(c: Clients, transport: str, npc_id: str, text: str) -> dict[str, Any]:
    return call(c, transport, "Talk", {"npcId": npc_id, "speakerName": "Ada Kern", "text": text, "gameTime": WHEN})


def take_back(c: Clients, transport: str, npc_id: str) -> dict[str, Any]:
    return call(c, transport, "TakeBack", {"npcId": npc_id, "speakerName": "Ada Kern"})


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_line_taken_back_reaches_no_later_prompt_and_no_memory(brain: Clients, fake: FakeOpenAI,
                                                                 transport: str) -> None:
    npc_id = f"taker_{transport}"
    brain.grpc("SpawnNpc", keeper(npc_id=npc_id, name=f"Odile {transport.title()}"))
    fake.queue({"content": "Good morning, Ada.\n[continue]"}, {"content": "Oh. Right.\n[continue]"},
               {"content": "Lovely weather for the boats.\n[end]"}, purpose="converse_turn")
    talk(brain, transport, npc_id, "Good morning!")
    talk(brain, transport, npc_id, "Your lamp is a wreck, frankly.")
    assert take_back(brain, transport, npc_id) == {"text": "Your lamp is a wreck, frankly.", "answers": 1}
    assert talk(brain, transport, npc_id, "Your lamp shines far tonight.")["endConversation"]
    prompt = fake.chat_requests("converse_turn")[-1]["body"]["messages"][-1]["content"]
    assert "Good morning, Ada." in prompt and "Your lamp shines far tonight." in prompt, prompt
    assert "wreck" not in prompt and "Oh. Right." not in prompt, prompt
    chats = brain.grpc("ListMemories", {"npcId": npc_id, "kind": "MEMORY_KIND_CHAT"})["memories"]
    [remembered] = [m["description"] for m in chats if "Ada Kern" in m["description"]]
    assert "Your lamp shines far tonight (" in remembered and "Good morning!" in remembered, remembered
    assert "wreck" not in remembered and "Oh. Right." not in remembered, remembered


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_nothing_to_take_back_says_why(brain: Clients, fake: FakeOpenAI, transport: str) -> None:
    npc_id = f"untaken_{transport}"
    brain.grpc("SpawnNpc", keeper(npc_id=npc_id, name=f"Odile Un{transport}"))
    unopened = take_back(brain, transport, npc_id)
    assert unopened["code"] == "failed_precondition" and "no open conversation" in unopened["message"], unopened
    fake.queue({"content": "Hello.\n[continue]"}, purpose="converse_turn")
    talk(brain, transport, npc_id, "Hello there.")
    assert take_back(brain, transport, npc_id)["text"] == "Hello there."
    again = take_back(brain, transport, npc_id)
    assert again["code"] == "failed_precondition" and "no line left" in again["message"], again
    unknown = take_back(brain, transport, "nobody_here")
    assert unknown["code"] == "not_found", unknown
    if transport == "connect":
        assert (again["http"], unknown["http"]) == (400, 404)


def test_an_answer_stopped_mid_line_goes_with_the_line_taken_back(brain: Clients, fake: FakeOpenAI) -> None:
    """The player stops the NPC's answer (cancels the TalkStream) and takes back their line at once:
    the take-back waits for the stopped answer, and the words it had said go too."""
    brain.grpc("SpawnNpc", keeper(npc_id="stopped", name="Odile Stopped"))
    fake.queue({"content": "Good morning, Ada.\n[continue]"}, purpose="converse_turn")
    talk(brain, "grpc", "stopped", "Good morning!")
    fake.queue({"content": "Well now, the wick wants trimming and the glass polishing before dusk.\n[continue]"},
               {"content": "Fair winds, Ada.\n[end]"}, purpose="converse_turn")
    fake.tokens_per_s = 4  # a slow model: the line takes seconds
    try:
        request = json_format.ParseDict({"npcId": "stopped", "speakerName": "Ada Kern", "text": "Tell me about wicks.",
                                         "gameTime": WHEN}, pb.TalkStreamRequest())
        call = brain.stub.TalkStream(request, timeout=60)
        said = next(m.text for m in call if len(m.text.split()) >= 2)
        call.cancel()
        assert take_back(brain, "grpc", "stopped") == {"text": "Tell me about wicks.", "answers": 1}
    finally:
        fake.tokens_per_s = 0
    talk(brain, "grpc", "stopped", "Farewell.")
    prompt = fake.chat_requests("converse_turn")[-1]["body"]["messages"][-1]["content"]
    assert "Good morning, Ada." in prompt and "Farewell." in prompt, prompt
    assert said not in prompt and "wicks" not in prompt, (said, prompt)


def test_a_take_back_right_after_a_talk_waits_for_its_answer(brain: Clients, fake: FakeOpenAI) -> None:
    """A TakeBack sent while the brain is still opening the conversation (recalling the player
    before the NPC's first line) takes back that line, not finding it "no open conversation"."""
    brain.grpc("SpawnNpc", keeper(npc_id="hasty", name="Odile Hasty"))
    asked = len(fake.chat_requests("relationship"))
    fake.queue({"delay_s": 1.5, "json": {"summary": "Ada is new here."}}, purpose="relationship")
    fake.queue({"content": "Morning.\n[continue]"}, purpose="converse_turn")
    with ThreadPoolExecutor(1) as pool:
        said = pool.submit(talk, brain, "grpc", "hasty", "Ahoy, keeper!")
        while len(fake.chat_requests("relationship")) == asked and not said.done():
            time.sleep(0.05)
        assert not said.done(), "the talk was answered before the take-back could be sent"
        assert take_back(brain, "grpc", "hasty") == {"text": "Ahoy, keeper!", "answers": 1}
        assert said.result()["reply"] == "Morning."
