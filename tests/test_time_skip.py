"""SkipTime (cognition/catch_up.py) through the real transports: a small town sleeps through eight
hours of the game's clock; afterwards each NPC remembers those hours at their game times, has a
plan for the new time that its next Decide follows, and news told before the skip reached the
NPC it shared a place with."""

from __future__ import annotations

import pytest

from tests.clients import Clients
from tests.test_crowd import town
from tests.test_mind import klaus
from tests.town import WORLD

FROM, TO = "2026-02-13T06:00:00Z", "2026-02-13T14:00:00Z"
NEWS = "The cafe hosts a Valentine's party tomorrow at 5 pm"


@pytest.fixture
def clients(brain_factory):
    c = town(brain_factory())
    yield c
    c.close()


def memories(clients: Clients, npc_id: str) -> list[dict]:
    return clients.grpc("ListMemories", {"npcId": npc_id, "limit": 200})["memories"]


def test_eight_skipped_hours_are_lived_remembered_and_pass_the_news(brain_factory, fake_llm) -> None:
    """As in production: the mind thinks in the background, the skip runs on its loop."""
    clients = town(brain_factory(background_thinking=True))
    fake_llm.queue({"json": {"currently": f"Isabella Rodriguez is telling everyone: {NEWS}."}},
                   purpose="revise_currently")
    clients.grpc("Whisper", {"npcId": "isabella", "gameTime": "2026-02-13T05:50:00Z", "text": NEWS})
    skipped = clients.grpc("SkipTime", {"worldName": WORLD, "fromTime": FROM, "toTime": TO})
    assert skipped["npcCount"] == 2 and skipped["hours"] == 8 and skipped["callsCap"] == 64
    assert 0 < skipped["llmCalls"] <= skipped["callsCap"] and skipped["conversations"] >= 1
    for npc_id in ("isabella", "klaus"):
        inside = [m for m in memories(clients, npc_id) if FROM < m["created"] <= TO]
        assert len({m["created"] for m in inside}) >= 2, f"{npc_id} remembers the skipped hours at their times"
    kept = NEWS.replace("tomorrow", "tomorrow (Saturday February 14)")  # a whisper is kept dated
    heard = [m for m in memories(clients, "klaus") if m["description"] == f"Isabella Rodriguez told Klaus Mueller: {kept}"]
    assert heard and FROM < heard[0]["created"] <= TO
    asked = len(fake_llm.chat_requests())
    after = clients.grpc("Decide", {"npcId": "klaus", "gameTime": "2026-02-13T14:01:00Z",
                                    "attention": "ATTENTION_OUT_OF_VIEW"})
    assert after["action"]["source"] == "ACTION_SOURCE_NEW_PLAN", "the plan made during the skip, not a routine"
    assert not fake_llm.chat_requests("daily_plan")[asked:]
    clients.close()


def test_a_skip_caps_its_calls_and_the_rest_plan_when_asked(clients: Clients, fake_llm) -> None:
    """One skipped hour allows 8 calls, a day plan counted as 2: four of seven NPCs plan during
    the skip, the other three follow their routine until their first Decide after it."""
    for n in range(5):
        clients.grpc("SpawnNpc", klaus() | {"npcId": f"student{n}", "persona": klaus()["persona"] | {
            "name": f"Student {n}"}})
    skipped = clients.grpc("SkipTime", {"worldName": WORLD, "fromTime": "2026-02-13T09:30:00Z",
                                        "toTime": "2026-02-13T10:00:00Z"})
    assert (skipped["npcCount"], skipped["hours"], skipped["callsCap"], skipped["llmCalls"]) == (7, 1, 8, 4)
    assert len(fake_llm.chat_requests("daily_plan")) == 4
    late = clients.grpc("Decide", {"npcId": "student4", "gameTime": "2026-02-13T10:01:00Z"})
    assert late["action"]["source"] == "ACTION_SOURCE_NEW_PLAN" and len(fake_llm.chat_requests("daily_plan")) == 5


def test_a_bad_skip_is_refused_with_what_to_fix(clients: Clients) -> None:
    for body, code, words in [
        ({"fromTime": TO, "toTime": FROM}, "invalid_argument", "is not after from_time"),
        ({"fromTime": FROM}, "invalid_argument", "to_time is missing"),
        ({"fromTime": "2026-02-01T00:00:00Z", "toTime": TO}, "invalid_argument", "at most a week"),
        ({"worldName": "Nowhere", "fromTime": FROM, "toTime": TO}, "failed_precondition", "call RegisterWorld first"),
    ]:
        refused = clients.connect("SkipTime", {"worldName": WORLD} | body).json()
        assert refused["code"] == code and words in refused["message"], refused
