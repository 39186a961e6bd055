"""Reflection, step two: insights on the questions, each citing the numbered statements it rests on
and rated for importance (so the thoughts need no rating call of their own)."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.model.budget import Bullets
from brain_server.prompts import Prompt
from brain_server.prompts.reflection_questions import MAX_QUESTIONS

INSIGHTS_PER_QUESTION = 5  # the paper's ("What 5 high-level insights can you infer ...?")
MAX_INSIGHTS = INSIGHTS_PER_QUESTION * MAX_QUESTIONS


class Insight(BaseModel):
    model_config = ConfigDict(extra="forbid")
    insight: str = Field(min_length=1, max_length=300)
    about: str = Field(max_length=60, description="what or whom the insight is about, in a few words")
    evidence: list[int] = Field(min_length=1, max_length=10, description="numbers of the statements it rests on")
    importance: int = Field(ge=1, le=10, description="how much the insight matters to the NPC, 1-10")


class ReflectionInsights(BaseModel):
    model_config = ConfigDict(extra="forbid")
    insights: list[Insight] = Field(min_length=1, max_length=MAX_INSIGHTS)


def _only_listed_statements(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """Citations must be statement numbers 1..N, so constrained decoders cannot cite what was not shown."""
    schema["properties"]["insights"]["maxItems"] = int(variables["insight_count"])
    shown = variables["statements"]  # after the prompt budget: the statements it kept, renumbered
    count = len(shown.kept) if isinstance(shown, Bullets) else int(variables["statement_count"])
    schema["$defs"]["Insight"]["properties"]["evidence"]["items"] = {
        "type": "integer", "minimum": 1, "maximum": count, "enum": list(range(1, count + 1)),
    }


# Room for 15 insights of up to ~110 tokens each (sentence, subject, citations, rating).
PROMPT = Prompt("reflection_insights", ReflectionInsights, refine_schema=_only_listed_statements, max_tokens=2000)
