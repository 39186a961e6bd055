"""A model's assistant voice is a refusal, not a character's line (brain_server/prompts/__init__.py, `Spoken`):
the player's Talk asks again and the NPC says the model's next, in-character line."""

from __future__ import annotations

import pytest

from brain_server.llm.client import AnswerError, parse_answer
from brain_server.llm.streaming import InAssistantVoice, Listener
from brain_server.prompts.converse_turn import Turn, spoken
from brain_server.prompts.interview import InterviewAnswer
from tests.clients import Clients

NINE = "2026-02-13T09:00:00Z"


@pytest.mark.parametrize("line", [
    "As an AI language model, I don't have a favourite pastry.",
    "I'm sorry, but I can't assist with that request.",
    "I\u2019m an AI assistant created by OpenAI.",
    "I am unable to comply with that.",
    "As a language model I cannot attend parties.",
    "I'm sorry, but as an AI I can't continue this role-play.",
    "Okay, let me think about this. I'm Rosa here. The request wants a short answer in a set form.",
])
def test_an_assistants_voice_is_not_a_characters_line(line: str) -> None:
    with pytest.raises(AnswerError, match="answered as an assistant"):
        parse_answer(f'{{"utterance": "{line}", "end_conversation": false}}', Turn)
    with pytest.raises(AnswerError, match="answered as an assistant"):
        parse_answer(f'{{"answer": "{line}"}}', InterviewAnswer)


@pytest.mark.parametrize("line", [
    "Sorry, I can't help you with that, the forge is cold today.",
    "The old clockwork man claims he is an automaton, not a person.",
    "I can't stand the smell of the tannery.",
    "I am an AI, the station's caretaker, and I never sleep.",
    "As an AI, I cannot lie to you about the reactor.",
    "Let me think about this. The mayor's request asks a lot of us.",
])
def test_a_character_may_still_refuse_in_its_own_words(line: str) -> None:
    assert parse_answer(f'{{"utterance": "{line}", "end_conversation": false}}', Turn).utterance == line


def test_the_player_hears_the_next_in_character_line(clients: Clients, fake_llm) -> None:
    fake_llm.queue({"json": {"utterance": "As an AI language model, I cannot have opinions about coffee.",
                             "end_conversation": False}},
                   {"json": {"utterance": "Coffee? Our dark roast, always.", "end_conversation": False}},
                   purpose="converse_turn")
    reply = clients.grpc("Talk", {"npcId": "isabella", "gameTime": NINE, "speakerName": "Ada",
                                  "text": "Which coffee do you like?"})
    assert reply["reply"] == "Coffee? Our dark roast, always."


REFUSED = ["As an AI language model, I don't have a favourite pastry.", "I'm sorry, but I can't assist with that request.",
           "Well... as a large language model I cannot say.", "I\u2019m an AI assistant created by OpenAI."]
KEPT = ["Sorry, I can't help you with that, the forge is cold today.", "As a baker, I am up at four.",
        "I am an AI, the station's caretaker, and I never sleep.", "Oh, I can't help with the harvest, I'm sorry."]


@pytest.mark.parametrize("line", REFUSED + KEPT)
@pytest.mark.parametrize("size", [1, 4])
def test_a_streamed_line_shows_no_word_of_an_assistant_phrase(line: str, size: int) -> None:
    """Read as it streams (`size` characters a chunk), a line is dropped exactly when its whole
    answer would be refused, before its phrase shows; what shows is always the start of the line."""
    reader, answer, shown = spoken("Isabella Rodriguez"), f"{line}\n[continue]", [""]
    try:
        for at in range(0, len(answer), size):
            shown.append(reader.feed(answer[at:at + size]))
    except InAssistantVoice:
        assert line in REFUSED and shown[-1] in ("", "Well..."), shown  # not even the phrase's lead-in
        return
    assert line in KEPT and shown[-1] == line and all(line.startswith(text) for text in shown), shown
    assert parse_answer(f'{{"utterance": "{line}", "end_conversation": false}}', Turn).utterance == line


def test_a_streamed_line_that_ends_on_an_assistant_phrase_is_taken_back() -> None:
    """While it grew, "... made by OpenAI" might have gone on ("OpenAIs"); whole, it is refused, and
    what it showed is taken back at once, not left up until the next attempt's words replace it."""
    told: list[str] = []
    listener = Listener("converse_turn", lambda: spoken("Isabella Rodriguez"), told.append)
    listener.start()
    for word in "Well, I was made by OpenAI".split(" "):
        listener.heard(f"{word} ")
    assert told[-1].startswith("Well, I was made")
    with pytest.raises(InAssistantVoice):
        listener.ended()
    assert told[-1] == "" and listener.text == ""
    kept = Listener("converse_turn", lambda: spoken("Isabella Rodriguez"), told.append)
    kept.start()
    kept.heard("Well, I was made in Lisbon.")
    kept.ended()
    assert kept.text == "Well, I was made in Lisbon."
