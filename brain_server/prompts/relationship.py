"""A speaker's view of the person they talk to, summarised from retrieved memories."""

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class Relationship(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: str = Field(min_length=1, max_length=400)


PROMPT = Prompt("relationship", Relationship, max_tokens=150)
