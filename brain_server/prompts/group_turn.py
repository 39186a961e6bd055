"""One line of a conversation of three or more: what the speaker says, to whom (a name, which
makes that person speak next, or everyone), and whether the speaker leaves with it."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt, Spoken

EVERYONE = "everyone"


class GroupTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    utterance: Spoken = Field(min_length=1, max_length=400)
    addressed_to: str = Field(min_length=1, max_length=80)
    end_conversation: bool


def _listeners(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """A line is addressed to one of the others present, or to everyone."""
    schema["properties"]["addressed_to"]["enum"] = [*variables["other_names"], EVERYONE]


PROMPT = Prompt("group_turn", GroupTurn, refine_schema=_listeners, max_tokens=220)
