"""Where an activity happens: sector, then arena, then object, in one answer.

The paper asks three questions (sector, arena, object). One call carries the same hierarchy: the
answer's keys come in that order, so a constrained decoder commits to a sector before an arena
and to an arena before an object, and the schema is narrowed per call to one branch per arena
the NPC may enter, so only consistent (sector, arena, object) triples can be decoded.
"""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.prompts import Prompt

NO_OBJECT = ""


class Place(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sector: str = Field(max_length=200)
    arena: str = Field(max_length=200)
    object: str = Field(max_length=200, description='an object in the arena, or "" for none in particular')


class AddressChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    place: Place


def _only_accessible(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """One branch per accessible arena (current first), so a decoder cannot mix up levels or invent a place.

    `place_choices` holds (sector, arena, objects) triples; the root stays an object, as OpenAI requires.
    """
    schema.pop("$defs", None)
    schema["properties"]["place"] = {"anyOf": [
        {"type": "object", "additionalProperties": False, "required": ["sector", "arena", "object"], "properties": {
            "sector": {"type": "string", "enum": [sector]},
            "arena": {"type": "string", "enum": [arena]},
            "object": {"type": "string", "enum": [*objects, NO_OBJECT]},
        }}
        for sector, arena, objects in variables["place_choices"]
    ]}


PROMPT = Prompt("choose_address", AddressChoice, refine_schema=_only_accessible, max_tokens=120)
