"""Whether an NPC continues its plan, reacts to an observation, waits, or starts a conversation."""

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class Reaction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    choice: Literal["continue", "talk", "wait", "react"]
    reason: str = Field(max_length=300)
    new_activity: str = Field(max_length=120)


def _offered(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """Only the choices this moment offers (no talk with someone busy or with a thing, no wait
    without an end to wait for)."""
    schema["properties"]["choice"]["enum"] = list(variables["choice_list"])


PROMPT = Prompt("react", Reaction, refine_schema=_offered, max_tokens=200)
