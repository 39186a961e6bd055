"""One hour-level block broken into 5-15 minute steps, about an hour before it starts."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt

MIN_STEP_MINUTES, MAX_STEP_MINUTES = 5, 15


class VerbArgumentValue(BaseModel):
    """One argument of a step's verb: the declaration's type is checked in code, whatever is written."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=64)
    value: str = Field(max_length=100)


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")
    activity: str = Field(min_length=1, max_length=80)
    duration_minutes: int = Field(ge=MIN_STEP_MINUTES, le=MAX_STEP_MINUTES)
    # The game object used for the step (the paper's object choice), "" for none.
    object: str = Field(default="", max_length=80)
    object_state: str = Field(default="", max_length=60)
    # A game verb the step performs (brain_server/model/verbs.py), "" for none; only asked when the NPC has verbs there.
    verb: str = Field(default="", max_length=64)
    arguments: list[VerbArgumentValue] = Field(default_factory=list, max_length=8)


class Decomposition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: list[Step] = Field(min_length=1, max_length=24)


def _step_count(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """As many steps as the block's length allows at 5-15 minutes each (capped to keep answers short)."""
    schema["properties"]["steps"]["minItems"] = variables["min_steps"]
    schema["properties"]["steps"]["maxItems"] = variables["max_steps"]
    step = schema["$defs"]["Step"]["properties"]
    step["object"]["enum"] = ["", *variables["object_list"]]
    step.pop("default", None)
    step["object_state"].pop("default", None)
    schema["$defs"]["Step"]["required"] = ["activity", "duration_minutes", "object", "object_state"]
    if not variables.get("verb_list"):  # no verbs here: the schema (and prompt) of a game without verbs
        del step["verb"], step["arguments"]
        del schema["$defs"]["VerbArgumentValue"]
        return
    step["verb"] = {"type": "string", "enum": ["", *variables["verb_list"]]}
    step.pop("arguments")
    names = variables.get("argument_list") or []
    step["arguments"] = {"type": "array", "items": {"$ref": "#/$defs/VerbArgumentValue"}, "maxItems": 8 if names else 0}
    schema["$defs"]["VerbArgumentValue"]["properties"]["name"]["enum"] = names or [""]
    schema["$defs"]["Step"]["required"] += ["verb", "arguments"]


PROMPT = Prompt("decompose", Decomposition, refine_schema=_step_count, max_tokens=900)
