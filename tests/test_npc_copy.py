"""An NPC's deep copy (`model/npc.py: _DeepCopied`, issue 44): equal to the original, sharing
only what cannot change (strings, numbers, times, the frozen plan items), so that any change to
the copy leaves the original as it was, as pydantic's own deep copy did."""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pydantic import BaseModel

from brain_server.model.npc import Action, DialogueLine, NpcState, ObjectState, Persona, PlanItem
from brain_server.model.verbs import Verb

T0 = datetime(2024, 2, 13, 8, tzinfo=UTC)
IMMUTABLE = (str, int, float, bool, type(None), datetime, date, timedelta, tuple, PlanItem)


def _npc() -> NpcState:
    step = PlanItem(start=T0, duration_minutes=10, activity="pouring coffee", address="town:cafe:counter")
    block = PlanItem(start=T0, duration_minutes=60, activity="opening the cafe", address="town:cafe:counter",
                     subtasks=[step])
    action = Action(description="Ada is chatting", address="town:cafe:counter", start_time=T0, duration_minutes=10,
                    object_states=[ObjectState(address="town:cafe:counter", state="busy")],
                    dialogue=[DialogueLine(speaker_npc_id="ada", speaker_name="Ada", text="Hello")], chatting_with="Bob", event=("Ada", "is", "chatting"))
    return NpcState(npc_id="ada", world_name="town", persona=Persona(name="Ada", traits=["kind"], known_areas=["town:cafe"]),
                    known_addresses=["town:cafe:counter"], unrated_ids=["m1"], unrated_since=T0, plan_day=T0.date(),
                    day_outline=["open the cafe"], plan=[block], commitments=[step], last_chat={"bob": T0},
                    last_reaction={"Bob": T0}, action=action, verbs=[Verb(name="sit", description="sits down")],
                    last_reflection=T0)


def _mutables(value: Any, path: str = "npc") -> list[tuple[str, Any]]:
    """Every list, dict and model inside `value` that could be changed in place (frozen plan items aside)."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, PlanItem) or isinstance(value, IMMUTABLE):
        return found
    found.append((path, value))
    if isinstance(value, BaseModel):
        for name, field in value.__dict__.items():
            found += _mutables(field, f"{path}.{name}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _mutables(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            found += _mutables(item, f"{path}[{key!r}]")
    return found


def test_a_deep_copy_is_equal_and_shares_nothing_that_can_change() -> None:
    npc = _npc()
    for copied in (npc.model_copy(deep=True), copy.deepcopy(npc)):
        assert copied == npc and copied.model_fields_set == npc.model_fields_set
        assert copied.model_dump_json() == npc.model_dump_json()
        ours, theirs = dict(_mutables(copied)), dict(_mutables(npc))
        assert ours.keys() == theirs.keys() and len(ours) > 15
        shared = [path for path in ours if ours[path] is theirs[path]]
        assert shared == []
        assert copied.plan[0] is npc.plan[0]  # frozen: shared, as PlanItem.__deepcopy__ has it


def test_a_deep_copy_keeps_what_refers_to_one_thing_as_one() -> None:
    npc = _npc()
    npc.day_outline = npc.known_addresses  # one list under two names
    held = [npc, npc]
    copied = copy.deepcopy(held)
    assert copied[0] is copied[1] and copied[0] is not npc
    assert copied[0].day_outline is copied[0].known_addresses and copied[0].day_outline is not npc.day_outline
