"""A judge's ranking of anonymized interview answers (npc_lab/evaluate/judge.py): the
paper's believability ranking, asked of an LLM instead of human evaluators."""

from collections.abc import Mapping
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class Judgement(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(max_length=600, description="what decided the order, before the order itself")
    ranking: list[str] = Field(max_length=26, description="the answers' letters, most believable first")


def _only_shown_letters(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """A ranking of exactly the letters shown, so constrained decoders cannot invent or drop one."""
    letters = json.loads(f"[{variables['labels']}]")
    schema["properties"]["ranking"].update(
        items={"type": "string", "enum": letters}, minItems=len(letters), maxItems=len(letters))


PROMPT = Prompt("judge", Judgement, refine_schema=_only_shown_letters, max_tokens=400, system="judge_system")
