"""Importance of several new memories in one call (a decision's perceptions, a conversation)."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class Ratings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ratings: list[int] = Field(min_length=1)


def _one_per_memory(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """Exactly as many ratings as memories, each 1-10, so a constrained decoder cannot miscount."""
    ratings = schema["properties"]["ratings"]
    ratings["minItems"] = ratings["maxItems"] = variables["count"]
    ratings["items"] = {"type": "integer", "minimum": 1, "maximum": 10}


PROMPT = Prompt("importance_batch", Ratings, refine_schema=_one_per_memory, max_tokens=200)
