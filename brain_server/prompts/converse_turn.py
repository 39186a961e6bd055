"""One line of dialogue and whether the conversation ends with it, answered as plain text (the
words, then `[end]` or `[continue]`) so that a streamed line's first token is already a word."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.llm.streaming import SpokenText
from brain_server.prompts import Prompt

END, GO_ON = "[end]", "[continue]"


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    utterance: str = Field(min_length=1, max_length=400)
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
    return Turn(utterance=line, end_conversation=ended)


PROMPT = Prompt("converse_turn", Turn, max_tokens=200, read=read)
