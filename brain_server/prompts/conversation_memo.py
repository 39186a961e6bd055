"""What a conversation meant to one participant, how much it matters (its importance, so the stored
conversation needs no rating call of its own), and the plan change it implies, if any: today or on
another day (the days offered are an enum, so no model has to do calendar arithmetic), at the
place the conversation named among those the participant knows (an enum too; "" when it named
none, and then the place is chosen as for any activity)."""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt, Summary


class ConversationMemo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: Summary = Field(min_length=1, max_length=400)
    importance: int = Field(ge=1, le=10)
    plan_activity: str = Field(max_length=120)
    plan_date: str = Field(default="", pattern=r"^([0-9]{4}-[0-9]{2}-[0-9]{2})?$",
                           description="YYYY-MM-DD, one of the days offered; empty: no plan change")
    plan_start: str = Field(pattern=r"^(([01]?[0-9]|2[0-3]):[0-5][0-9])?$")
    plan_minutes: int = Field(ge=0, le=600)
    plan_place: str = Field(default="", max_length=200,
                            description="one of the places offered, the one the conversation named; empty: none")


def offer_days(schema: dict[str, Any], variables: Mapping[str, Any], places: str = "place_list") -> None:
    """The plan's day is one of the days offered (today and the two weeks after), or empty; its
    place one of the participant's places (`variables[places]`), or empty. Both are required, as
    the prompt asks for them: a model held to the schema by a grammar leaves out what it may, and
    a plan item with no day is booked today (blind27's writer)."""
    schema["properties"]["plan_date"]["enum"] = ["", *variables["date_list"]]
    schema["properties"]["plan_place"]["enum"] = ["", *variables[places]]
    schema["required"] = list(dict.fromkeys([*schema.get("required", []), "plan_date", "plan_place"]))


PROMPT = Prompt("conversation_memo", ConversationMemo, refine_schema=offer_days, max_tokens=300)
