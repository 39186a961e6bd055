"""One line of dialogue and whether the conversation ends with it."""

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt, Spoken


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    utterance: Spoken = Field(min_length=1, max_length=400)
    end_conversation: bool


PROMPT = Prompt("converse_turn", Turn, max_tokens=200)
