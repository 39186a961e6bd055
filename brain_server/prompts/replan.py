"""The next hour or two re-planned after something happened (a reaction or a conversation)."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class ReplanBlock(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: str = Field(description="HH:MM, one of the allowed start times")
    activity: str = Field(min_length=1, max_length=120)
    emoji: str = Field(max_length=8)
    address: str


class Replan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    new_blocks: list[ReplanBlock] = Field(min_length=1, max_length=6)


def _window_and_places(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """Start times inside the re-planned window and known places only (the window's times are an
    enum: constrained decoders cannot step outside it, and no model has to do clock arithmetic)."""
    block = schema["$defs"]["ReplanBlock"]["properties"]
    block["start"]["enum"] = list(variables["start_times"])
    block["address"]["enum"] = list(variables["place_list"])


PROMPT = Prompt("replan", Replan, refine_schema=_window_and_places, max_tokens=600, verbatim=frozenset({"time", "end"}))
