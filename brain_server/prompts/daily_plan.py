"""The day plan in one answer: wake-up hour, the day in broad strokes, then hour-level blocks
(each at an address the NPC knows). The outline comes first so the blocks are written from it."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt

ACTIVITY_CHARS = 120  # a block's activity: a label in the game and in every memory of it


class PlanBlock(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: str = Field(pattern=r"^([01]?[0-9]|2[0-3]):[0-5][0-9]$", description="HH:MM, 24-hour clock")
    duration_minutes: int = Field(ge=5, le=16 * 60)
    activity: str = Field(min_length=1, max_length=ACTIVITY_CHARS)
    emoji: str = Field(max_length=8)
    address: str


class DailyPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    wake_up_hour: int = Field(ge=0, le=23)
    outline: list[str] = Field(min_length=4, max_length=8)
    blocks: list[PlanBlock] = Field(min_length=1, max_length=16)


def _only_known_places(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """Constrain addresses to the NPC's known places so constrained decoders cannot invent one."""
    schema["$defs"]["PlanBlock"]["properties"]["address"]["enum"] = list(variables["place_list"])
    schema["properties"]["outline"]["items"]["maxLength"] = 120


PROMPT = Prompt("daily_plan", DailyPlan, refine_schema=_only_known_places, max_tokens=1800)
