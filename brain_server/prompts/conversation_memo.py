"""What a conversation meant to one participant, how much it matters (its importance, so the stored
conversation needs no rating call of its own), and the plan change it implies, if any."""

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt


class ConversationMemo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: str = Field(min_length=1, max_length=400)
    importance: int = Field(ge=1, le=10)
    plan_activity: str = Field(max_length=120)
    plan_start: str = Field(pattern=r"^(([01]?[0-9]|2[0-3]):[0-5][0-9])?$")
    plan_minutes: int = Field(ge=0, le=600)


PROMPT = Prompt("conversation_memo", ConversationMemo, max_tokens=250)
