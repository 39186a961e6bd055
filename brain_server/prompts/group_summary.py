"""A conversation of three or more that nobody watches, in one call (cognitive level of detail,
as `conversation_summary` for two): whether they talk, the gist, and each participant's memo."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt
from brain_server.prompts.conversation_memo import ConversationMemo, offer_days
from brain_server.prompts.conversation_summary import GistLine

MAX_GROUP_GIST_LINES = 10


class GroupMemo(ConversationMemo):
    """What one participant takes away (a memo, named)."""

    name: str = Field(min_length=1, max_length=80)


class GroupSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    talk: bool
    lines: list[GistLine] = Field(default_factory=list, max_length=MAX_GROUP_GIST_LINES)
    memos: list[GroupMemo] = Field(default_factory=list, max_length=8)


def _people_and_days(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """Lines are spoken and memos written by those present; plan days are the days offered; every
    field required, as for two (`conversation_summary`)."""
    defs = schema["$defs"]
    defs["GistLine"]["properties"]["speaker"]["enum"] = list(variables["name_list"])
    defs["GroupMemo"]["properties"]["name"]["enum"] = list(variables["name_list"])
    offer_days(defs["GroupMemo"], variables)
    schema["required"] = list(schema["properties"])


PROMPT = Prompt("group_summary", GroupSummary, refine_schema=_people_and_days, max_tokens=1200)
