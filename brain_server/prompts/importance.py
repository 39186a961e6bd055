"""Importance (the paper's poignancy) of a new memory, 1-10."""

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class Importance(BaseModel):
    model_config = ConfigDict(extra="forbid")
    importance: int = Field(ge=1, le=10)


PROMPT = Prompt("importance", Importance)
