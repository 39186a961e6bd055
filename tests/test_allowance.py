"""Ceilings on LLM calls per game hour (llm/allowance.py) through a real brain: over the NPC's
ceiling its thinking falls back to coarser answers instead of calling, the game still gets a
valid action, GetUsage shows the refusals, and the player's Talk is never refused."""

from __future__ import annotations

from datetime import datetime

from brain_server.llm.allowance import Allowance
from brain_server.llm.scheduler import Priority
from tests.clients import Clients
from tests.town import WORLD, spawn_json, world_json

NINE = datetime.fromisoformat("2026-02-13T09:00:00+00:00")


def test_ceilings_count_per_npc_and_town_hour_and_never_the_player() -> None:
    allowance = Allowance(per_npc_hour=2, per_hour=3)
    assert allowance.take("a", NINE, Priority.PLAN_NOW) is None
    assert allowance.take("a", NINE.replace(minute=40), Priority.AHEAD) is None
    assert "NPC_BRAIN_LLM_CALLS_PER_NPC_HOUR" in (allowance.take("a", NINE, Priority.SOCIAL) or "")
    assert allowance.take("a", NINE, Priority.PLAYER) is None  # a person is waiting: never refused
    assert allowance.take("b", NINE, Priority.SOCIAL) is None
    assert "NPC_BRAIN_LLM_CALLS_PER_HOUR" in (allowance.take("c", NINE, Priority.SOCIAL) or "")
    assert allowance.take("a", NINE.replace(hour=10), Priority.PLAN_NOW) is None  # a new game hour
    assert allowance.refused == 2
    assert Allowance().take("a", NINE, Priority.BACKGROUND) is None  # no ceilings by default


def test_an_npc_over_its_ceiling_thinks_coarser_and_still_acts(brain_factory, fake_llm) -> None:
    clients = Clients(brain_factory(llm_calls_per_npc_hour=1))
    try:
        assert clients.connect("RegisterWorld", world_json()).status_code == 200
        assert clients.connect("SpawnNpc", spawn_json()).status_code == 200
        decided = clients.connect("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"}).json()
        assert decided["action"]["address"].startswith(f"{WORLD}:")  # an action, from the fallbacks' plan
        thinking_calls = len(fake_llm.chat_requests())
        assert thinking_calls == 1  # the day plan; its first block's steps wanted another
        usage = clients.connect("GetUsage", {}).json()
        assert usage["allowance"]["callsPerNpcHour"] == 1
        assert int(usage["allowance"]["refused"]) >= 1
        refused = [c for c in usage["counters"] if c.get("fallbacks")]
        assert refused, usage["counters"]
        talk = clients.connect("Talk", {"npcId": "isabella", "speakerName": "Sam", "text": "Morning! Busy today?",
                                        "gameTime": "2026-02-13T09:05:00Z"}).json()
        assert talk["reply"]
        assert len(fake_llm.chat_requests()) > thinking_calls  # the player's conversation asked the model
        trace = clients.connect("GetTrace", {"traceId": talk["traceId"]}).json()["trace"]
        # The reply's own calls (the player's class, never refused); the memo written after the
        # conversation ends is background work, which the ceiling may make coarser.
        player_calls = [c for c in trace["llmCalls"] if c["purpose"] in ("relationship", "converse_turn")]
        assert player_calls and not any(c.get("fallbackUsed") for c in player_calls)
    finally:
        clients.close()
