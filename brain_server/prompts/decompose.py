"""One hour-level block broken into 5-15 minute steps, about an hour before it starts."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt

MIN_STEP_MINUTES, MAX_STEP_MINUTES = 5, 15


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")
    activity: str = Field(min_length=1, max_length=80)
    duration_minutes: int = Field(ge=MIN_STEP_MINUTES, le=MAX_STEP_MINUTES)


class Decomposition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: list[Step] = Field(min_length=1, max_length=24)


def _step_count(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """As many steps as the block's length allows at 5-15 minutes each (capped to keep answers short)."""
    schema["properties"]["steps"]["minItems"] = variables["min_steps"]
    schema["properties"]["steps"]["maxItems"] = variables["max_steps"]


PROMPT = Prompt("decompose", Decomposition, refine_schema=_step_count, max_tokens=900)
