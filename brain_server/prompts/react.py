"""Whether an NPC continues its plan, reacts to an observation, or starts a conversation."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class Reaction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    choice: Literal["continue", "talk", "react"]
    reason: str = Field(max_length=300)
    new_activity: str = Field(max_length=120)


PROMPT = Prompt("react", Reaction, max_tokens=200)
