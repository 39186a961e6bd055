"""Reflection, step one: the few salient high-level questions the recent memories raise."""

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt

MAX_QUESTIONS = 3


class ReflectionQuestions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    questions: list[str] = Field(min_length=1, max_length=MAX_QUESTIONS)


PROMPT = Prompt("reflection_questions", ReflectionQuestions, max_tokens=300)
