"""Which of the lines composed from what the NPC knows it says (cognition/offline/offline_lines.py): a
model too small to write a line (the embedded SmolLM2) only picks one, by its number, the
schema's range narrowed to the lines offered so no other answer can come out."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt

MAX_OPTIONS = 6


class ChosenLine(BaseModel):
    model_config = ConfigDict(extra="forbid")
    choice: int = Field(ge=1, le=MAX_OPTIONS)


def offer_lines(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """Only the numbers of the lines offered."""
    schema["properties"]["choice"]["maximum"] = int(variables["count"])


PROMPT = Prompt("choose_line", ChosenLine, refine_schema=offer_lines, max_tokens=12, system="choose_line_system")
