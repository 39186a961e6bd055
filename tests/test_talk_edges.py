"""Conversations a game developer sees on day one, through a real brain on loopback: a player the
game names "the player" (the addon's default) or "Guard #2" is spoken to as a person would be, a
model's line at the line limit is asked to take its leave, and a "currently" the developer edits
while the brain revises it stays."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
import re
import time

import pytest

from brain_server.cognition.converse import MAX_LINES
from brain_server.llm.embedded import MODEL_NAME
from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.test_edges import keeper, started, told

pytestmark = pytest.mark.brain
WHEN = "2026-03-02T11:00:00Z"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as model:
        yield model


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Iterator[Clients]:
    """Lines composed by the brain, as on the embedded model (its name), the model only picking."""
    with started(tmp_path_factory, fake.base_url, MODEL_NAME) as (clients, _):
        yield clients


def talk(c: Clients, npc_id: str, speaker: str, text: str) -> dict[str, str]:
    return c.grpc("Talk", {"npcId": npc_id, "speakerName": speaker, "text": text, "gameTime": WHEN})


@pytest.mark.parametrize(("speaker", "called"), [("the player", ""), ("Guard #2", ""), ("Ada Kern", ", Ada")])
def test_offline_lines_call_a_player_by_a_name_only_when_it_is_one(offline: Clients, speaker: str,
                                                                   called: str) -> None:
    """To "the player" the composed lines said "Hello, the!" and "Goodbye, the!"."""
    npc_id = f"greeter{len(speaker)}"
    offline.grpc("SpawnNpc", keeper(npc_id=npc_id, name=f"Odile {npc_id.title()}"))
    hello, thanks, bye = (talk(offline, npc_id, speaker, text)["reply"] for text in ("Hello!", "Thanks!", "Bye!"))
    assert re.match(rf"Hello{called}!", hello), hello
    assert re.match(rf"(You're welcome{called}!|Any time\.)$", thanks), thanks
    assert re.match(rf"(Goodbye{called}! Back to|See you later{called}!|Take care!)", bye), bye


def test_the_player_is_no_word_of_what_the_npc_remembers(offline: Clients, fake: FakeOpenAI) -> None:
    """Named "the player", its partner seemed named in every memory with "the" in it, and an NPC
    asked of something it remembered said it could not say."""
    offline.grpc("SpawnNpc", keeper("Odile is polishing the lens.", npc_id="rememberer", name="Odile Rememberer"))
    fake.queue({"json": {"currently": "Odile is polishing the lens."}}, purpose="revise_currently")
    offline.grpc("Whisper", {"npcId": "rememberer", "text": "The lantern float starts at the quay on Saturday",
                             "gameTime": WHEN})
    said = talk(offline, "rememberer", "the player", "Tell me about the lantern float.")["reply"]
    assert "lantern float" in said, said


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Iterator[Clients]:
    """Lines written by a model (the fake one), as with a developer's own."""
    with started(tmp_path_factory, fake.base_url, "fake-model") as (clients, _):
        yield clients


def test_a_models_line_at_the_line_limit_is_asked_to_take_leave(model: Clients, fake: FakeOpenAI) -> None:
    """At MAX_LINES the model was not told its line was the last, and wrote whatever it wrote."""
    model.grpc("SpawnNpc", keeper(npc_id="leaver", name="Odile Leaver"))
    fake.queue(*[{"content": "Fine, thanks.\n[continue]"}] * (MAX_LINES // 2), purpose="converse_turn")
    said = [talk(model, "leaver", "Ada Kern", f"Question {n}?") for n in range(MAX_LINES // 2)]
    assert [bool(s.get("endConversation")) for s in said] == [False] * (MAX_LINES // 2 - 1) + [True], said
    prompts = [r["body"]["messages"][-1]["content"] for r in fake.chat_requests("converse_turn")[-MAX_LINES // 2:]]
    leaving = ["Odile Leaver has to go now: this is Odile Leaver's last line" in p for p in prompts]
    assert leaving == [False] * (MAX_LINES // 2 - 1) + [True]


def test_a_line_without_the_model_calls_the_player_by_no_word_of_a_description(model: Clients,
                                                                               fake: FakeOpenAI) -> None:
    """When the model could not write the line, the NPC said "Good to see you, the, but I have to get going"."""
    model.grpc("SpawnNpc", keeper(npc_id="unwritten", name="Odile Unwritten"))
    fake.queue({"status": 400}, purpose="converse_turn")
    said = talk(model, "unwritten", "the player", "Hello there.")
    assert said["reply"] == "Good to see you, but I have to get going. Talk later!", said


@pytest.mark.parametrize(("npc_id", "revising"), [
    ("planner", ("Decide", {"gameTime": "2026-03-03T09:00:00Z"})),  # the next day's plan
    ("whispered", ("Whisper", {"text": "I should hold a lantern festival", "gameTime": "2026-03-02T09:10:00Z"}))])
def test_a_currently_edited_while_the_brain_revises_it_stays(model: Clients, fake: FakeOpenAI, npc_id: str,
                                                             revising: tuple[str, dict[str, str]]) -> None:
    """A revision of "currently" (a new day's plan, a whisper) is written from the record as it
    was; a SpawnNpc edit landing meanwhile was overwritten by it when the revision was adopted."""
    name = f"Odile {npc_id.title()}"
    model.grpc("SpawnNpc", keeper("Odile is polishing the lens.", npc_id=npc_id, name=name))
    model.grpc("Decide", {"npcId": npc_id, "gameTime": "2026-03-02T09:00:00Z"})
    asked = len(fake.chat_requests("revise_currently"))
    fake.queue({"delay_s": 1.5, "json": {"currently": "Odile is planning the lantern festival."}},
               purpose="revise_currently")
    with ThreadPoolExecutor(1) as pool:
        revised = pool.submit(model.grpc, revising[0], {"npcId": npc_id, **revising[1]})
        while len(fake.chat_requests("revise_currently")) == asked and not revised.done():
            time.sleep(0.05)
        assert not revised.done(), f"{revising[0]} revised no currently"
        assert model.grpc("SpawnNpc", keeper("Odile is repainting the tower.", npc_id=npc_id, name=name))["updated"]
        revised.result()
    model.grpc("Interview", {"npcId": npc_id, "question": "What now?", "gameTime": "2026-03-03T09:30:00Z"})
    assert "Currently: Odile is repainting the tower." in told(fake)
