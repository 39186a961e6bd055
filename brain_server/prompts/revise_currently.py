"""The identity's "currently" status, rewritten each morning from the NPC's memories (paper 4.3)."""

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt

MAX_CHARS = 700  # a game's whispered thought of 600-700 characters kept whole


class Currently(BaseModel):
    model_config = ConfigDict(extra="forbid")
    currently: str = Field(min_length=1, max_length=MAX_CHARS)


PROMPT = Prompt("revise_currently", Currently, max_tokens=250)
