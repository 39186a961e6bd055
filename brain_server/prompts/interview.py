"""An in-character answer to an interviewer's question, grounded in retrieved memories."""

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt, Spoken


class InterviewAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: Spoken = Field(min_length=1, max_length=600)


PROMPT = Prompt("interview", InterviewAnswer)
