"""One line of dialogue and whether the conversation ends with it, answered as plain text (the
words, then `[end]` or `[continue]`) so that a streamed line's first token is already a word."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.llm.streaming import SpokenText
from brain_server.prompts import Prompt, Spoken

END, GO_ON = "[end]", "[continue]"
MAX_CHARS = 400


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    utterance: Spoken = Field(min_length=1, max_length=MAX_CHARS)
    end_conversation: bool


def spoken(npc_name: str) -> SpokenText:
    """The reader of one answer: the speaker's name (or first name) before the line is not part of it."""
    return SpokenText((npc_name, npc_name.split()[0] if npc_name.split() else npc_name), (END, GO_ON))


def read(text: str, variables: Mapping[str, Any]) -> Turn:
    """The answer's line and tag; a model that answered JSON anyway is read from its fields."""
    reader = spoken(str(variables.get("npc_name", "")))
    reader.feed(text)
    line = reader.final()
    if not line:
        raise ValueError(f"no line in the answer: {text[:120]!r}")
    ended = reader.tag == END.strip("[]") if reader.json is None else reader.json.get("end_conversation") is True
    return Turn(utterance=_bounded(line), end_conversation=ended)


def _bounded(line: str) -> str:
    """A line that ran on (a model looping until max_tokens), cut after its last whole sentence
    within MAX_CHARS: the player has read its start already, so it is kept rather than asked again."""
    if len(line) <= MAX_CHARS:
        return line
    cut = line[:MAX_CHARS]
    end = max(cut.rfind(mark) for mark in ".!?")
    return cut[:end + 1] if end > 0 else cut.rsplit(" ", 1)[0]


# Its own system prompt: the shared one asks for JSON, which a plain-text answer is not.
PROMPT = Prompt("converse_turn", Turn, max_tokens=200, system="system_line", read=read)
