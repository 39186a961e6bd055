"""A conversation nobody is watching, resolved in one call (cognitive level of detail): whether
the two stop to talk, the gist in a few lines, and what each takes away (the memo each would write,
with any plan change, so both remember it as they would a conversation written turn by turn)."""

from collections.abc import Mapping
import copy
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt, Spoken
from brain_server.prompts.conversation_memo import ConversationMemo, offer_days

MAX_GIST_LINES = 6


class GistLine(BaseModel):
    model_config = ConfigDict(extra="forbid")
    speaker: str = Field(min_length=1, max_length=80)
    text: Spoken = Field(min_length=1, max_length=300)


class ConversationSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    talk: bool
    lines: list[GistLine] = Field(default_factory=list, max_length=MAX_GIST_LINES)
    # None when they do not talk (a model need not write memos for a conversation that did not happen).
    first: ConversationMemo | None = None
    second: ConversationMemo | None = None


def _speakers_and_days(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """Lines are spoken by the two of them; plan days are the days offered (as in the memo), plan
    places each one's own (the second memo gets a copy of the memo's definition for its places).
    Every field is required: under a grammar `{"talk": true}` alone was a valid answer, and a model
    that stops early told a conversation with no lines and no memos (blind29's writer)."""
    defs = schema["$defs"]
    defs["GistLine"]["properties"]["speaker"]["enum"] = [variables["npc_name"], variables["partner"]]
    defs["PartnerMemo"] = copy.deepcopy(defs["ConversationMemo"])
    for option in schema["properties"]["second"]["anyOf"]:
        if option.get("$ref") == "#/$defs/ConversationMemo":
            option["$ref"] = "#/$defs/PartnerMemo"
    offer_days(defs["ConversationMemo"], variables)
    offer_days(defs["PartnerMemo"], variables, "partner_place_list")
    schema["required"] = list(schema["properties"])  # null memos when they do not talk, but said


PROMPT = Prompt("conversation_summary", ConversationSummary, refine_schema=_speakers_and_days, max_tokens=800)
