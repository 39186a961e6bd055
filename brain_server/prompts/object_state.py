"""The state an object is in while an NPC uses it (the paper's object events: "bed is occupied")."""

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class ObjectStateAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    state: str = Field(min_length=1, max_length=80)


PROMPT = Prompt("object_state", ObjectStateAnswer, max_tokens=60)
