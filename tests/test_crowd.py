"""The crowd level (DecideRequest.attention = ATTENTION_CROWD, cognition/attention.py) through the
real transports: no LLM call until something concerns the NPC, news passed between crowd NPCs
without a call, and out-of-view NPCs demoted to the crowd beyond the town's call budget."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_server.cognition.attention import Levels
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import PromptLibrary
from tests.clients import Clients
from tests.test_attention import UNSEEN, decide, notes
from tests.test_godot_web import _game_time, _needs_browser, _scene_2d, _StandInBrain
from tests.test_mind import CAFE, klaus
from tests.town import spawn_json, world_json
from tests.waits import wait_until
from tools import godot_web

CROWD = "ATTENTION_CROWD"


def town(brain) -> Clients:
    c = Clients(brain)
    c.grpc("RegisterWorld", world_json())
    c.grpc("SpawnNpc", spawn_json())
    c.grpc("SpawnNpc", klaus())
    return c


@pytest.fixture
def clients(brain_factory):
    c = town(brain_factory())
    yield c
    c.close()


def test_a_crowd_npc_follows_its_routine_and_stores_what_it_sees_without_a_call(clients: Clients, fake_llm) -> None:
    first = decide(clients, "isabella", "09:00", CROWD, "Klaus Mueller")
    later = decide(clients, "isabella", "10:30", CROWD, f"{CAFE}:coffee machine")
    assert fake_llm.chat_requests() == [], "a crowd makes no LLM call"
    assert first["action"]["source"] == later["action"]["source"] == "ACTION_SOURCE_PROVISIONAL"
    assert any(n.startswith("attention: crowd") for n in notes(clients, first))
    seen = clients.grpc("ListMemories", {"npcId": "isabella", "kind": "MEMORY_KIND_OBSERVATION"})["memories"]
    assert {"Klaus Mueller is reading", f"{CAFE}:coffee machine is reading"} <= {m["description"] for m in seen}
    assert not later.get("thinking")


def test_a_crowd_npc_on_its_routine_stores_one_memory_per_step_not_per_decide(clients: Clients, fake_llm) -> None:
    """A game day of Decides as the answers ask (a step of up to an hour, several per block): the
    NPC perceives each new action of its own once, as the paper's agents do; what it keeps doing is
    not stored again, and what it did lately is not stored twice (its retention)."""
    when, actions = "2026-02-13T00:00:00Z", []
    while when < "2026-02-14T00:00:00Z":
        reply = clients.grpc("Decide", {"npcId": "isabella", "gameTime": when, "address": CAFE, "attention": CROWD})
        actions.append(reply["action"]["description"])
        when = reply["askAgainAt"]
    steps = [a for i, a in enumerate(actions) if i == 0 or a != actions[i - 1]]
    stored = wait_until(  # stored after the Decides answered
        lambda: len(s := [m["description"] for m in clients.grpc("ListMemories", {"npcId": "isabella", "limit": 100})[
            "memories"]]) >= 6 and s, what="six of the day's steps stored", poll_s=0.1)
    assert fake_llm.chat_requests() == []
    assert 6 <= len(stored) <= len(steps) < len(actions), (stored, steps)
    assert set(stored) <= set(steps)


def test_the_player_in_sight_promotes_a_crowd_npc_for_an_hour(clients: Clients, fake_llm) -> None:
    """Someone who is no NPC of the world is the player: seeing them concerns the NPC, which plans its day."""
    decide(clients, "isabella", "09:00", CROWD)
    promoted = decide(clients, "isabella", "09:10", CROWD, "the player")
    assert any("promoted from the crowd: the player" in n for n in notes(clients, promoted))
    assert len(fake_llm.chat_requests("daily_plan")) == 1
    assert promoted["action"]["source"] != "ACTION_SOURCE_PROVISIONAL"
    back = decide(clients, "isabella", "10:15", CROWD)
    assert any(n.startswith("attention: crowd") for n in notes(clients, back)), "an hour later, the crowd again"


def test_crowd_npcs_pass_news_on_without_a_call(clients: Clients, fake_llm) -> None:
    clients.grpc("Whisper", {"npcId": "isabella", "gameTime": "2026-02-13T07:00:00Z",
                             "text": "The cafe hosts a Valentine's party tomorrow at 5 pm"})
    for npc_id in ("isabella", "klaus"):
        decide(clients, npc_id, "09:00", CROWD)
    before = len(fake_llm.chat_requests())
    decide(clients, "isabella", "09:40", CROWD, "Klaus Mueller")
    assert len(fake_llm.chat_requests()) == before, "the meeting costs no call"
    heard = clients.grpc("ListMemories", {"npcId": "klaus", "kind": "MEMORY_KIND_THOUGHT"})["memories"]
    assert any(m["description"] == "Isabella Rodriguez told Klaus Mueller: The cafe hosts a Valentine's party "
               "tomorrow (Saturday February 14) at 5 pm" and m["created"] == "2026-02-13T09:40:00Z" for m in heard), heard
    decide(clients, "isabella", "09:45", CROWD, "Klaus Mueller")  # met already: the chat cooldown
    assert len(clients.grpc("ListMemories", {"npcId": "klaus", "kind": "MEMORY_KIND_THOUGHT"})["memories"]) == 1


def test_beyond_the_call_budget_the_least_concerned_think_as_a_crowd(brain_factory, fake_llm) -> None:
    """NPC_BRAIN_LLM_CALLS_PER_HOUR=2 pays for one thinking NPC: of two out of view, the one a
    whisper concerned thinks, the other is demoted to the crowd."""
    c = town(brain_factory(llm_calls_per_hour=2))
    c.grpc("Whisper", {"npcId": "klaus", "gameTime": "2026-02-13T08:55:00Z", "text": "I should study today"})
    decide(c, "klaus", "09:00", UNSEEN)
    isabella = decide(c, "isabella", "09:00", UNSEEN)
    assert any(n.startswith("attention: crowd") for n in notes(c, isabella)), notes(c, isabella)
    assert isabella["action"]["source"] == "ACTION_SOURCE_PROVISIONAL"
    assert [r["purpose"] for r in fake_llm.chat_requests() if "Isabella" in str(r["body"])] == []
    c.close()


def plan_queue(c: Clients) -> dict:
    return next(q for q in c.grpc("GetUsage", {"npcId": "-"})["queues"] if q["priority"] == "plan_now")


def test_an_npc_that_became_a_crowd_is_not_thinking_and_its_waiting_plan_makes_no_call(brain_factory, fake_llm) -> None:
    """One endpoint slot, held 3 s by Klaus's day plan: Isabella's waits behind it. Asked as a
    crowd meanwhile she is not thinking (asks again when her action ends, not within minutes), and
    her plan is dropped (before, it was asked once Klaus's was answered)."""
    c = town(brain_factory(llm_max_concurrency=1, background_thinking=True))
    fake_llm.queue({"delay_s": 3}, purpose="daily_plan")
    decide(c, "klaus", "09:00", UNSEEN)
    assert decide(c, "isabella", "09:00", UNSEEN)["thinking"]
    crowd = decide(c, "isabella", "09:05", CROWD)
    assert not crowd.get("thinking") and crowd["askAgainAt"] >= "2026-02-13T09:10:00Z", crowd
    wait_until(lambda: (q := plan_queue(c)).get("served") and not q.get("waiting") and not q.get("running"),
               what="Klaus's plan served, and nothing after it", poll_s=0.2)
    assert [r for r in fake_llm.chat_requests("daily_plan") if "Isabella" in str(r["body"])] == []
    c.close()


def test_a_conversation_with_one_who_thinks_promotes_the_crowd_npc(clients: Clients, fake_llm) -> None:
    decide(clients, "isabella", "09:00", UNSEEN)
    decide(clients, "klaus", "09:00", CROWD)
    memo = {"summary": "Isabella invited me", "importance": 6, "plan_activity": "", "plan_date": "",
            "plan_start": "", "plan_minutes": 0}
    fake_llm.queue({"json": {"talk": True, "lines": [{"speaker": "Isabella Rodriguez", "text": "Come tomorrow!"}],
                             "first": memo, "second": memo}}, purpose="conversation_summary")
    decide(clients, "isabella", "09:40", UNSEEN, "Klaus Mueller")
    promoted = decide(clients, "klaus", "09:45", CROWD)
    assert any(n.startswith("attention: thinks again") for n in notes(clients, promoted)), notes(clients, promoted)
    assert [r for r in fake_llm.chat_requests("daily_plan") if "Klaus Mueller" in str(r["body"])]


def test_a_backlog_at_the_endpoint_demotes_the_least_concerned_until_it_drains() -> None:
    """In process, the real scheduler: five completions wait for one slot (over 4 per slot), so
    the share of out-of-view NPCs that think shrinks each second; the two never concerned are
    the crowd; once the queue drains they think again. In view is never demoted."""
    clock_at = [0.0]
    llm = LLM(base_url="http://127.0.0.1:9/v1", model="m", api_key="k", prompts=PromptLibrary(), max_concurrency=1)
    levels = Levels(llm, clock=lambda: clock_at[0])
    now = datetime(2026, 2, 13, 9, tzinfo=UTC)

    async def main() -> None:
        gate = asyncio.Event()

        async def completion() -> None:
            async with llm.scheduler.slot(Work(Priority.BACKGROUND, "someone")):
                await gate.wait()

        queued = [asyncio.create_task(completion()) for _ in range(6)]
        await asyncio.sleep(0)
        levels.concern("b", now - timedelta(minutes=30))
        levels.concern("a", now - timedelta(minutes=10))
        for npc_id in "abcde":
            levels.asked(npc_id, in_view=False, crowd=False)
        levels.asked("v", in_view=True, crowd=False)
        for _ in range(3):
            clock_at[0] += 1
            levels.rebalance()
        assert [n for n in "abcdev" if levels.crowd(n, now, in_view=n == "v", asked=False)] == ["d", "e"]
        gate.set()
        await asyncio.gather(*queued)
        for _ in range(5):
            clock_at[0] += 1
            levels.rebalance()
        assert not [n for n in "abcde" if levels.crowd(n, now, in_view=False, asked=False)]

    asyncio.run(main())


def test_work_stuck_before_the_endpoint_demotes_as_a_queue_at_it_does() -> None:
    """A brain too busy to reach its endpoint (the NPCs' plans wait for a quiet moment between
    the game's Decides, none in the scheduler's queue) falls behind all the same: 40 pieces under
    way for one slot shrink the share that thinks; once they are done it grows back."""
    clock_at, pending = [0.0], [40]
    llm = LLM(base_url="http://127.0.0.1:9/v1", model="m", api_key="k", prompts=PromptLibrary(), max_concurrency=1)
    levels = Levels(llm, clock=lambda: clock_at[0], pending=lambda: pending[0])
    now = datetime(2026, 2, 13, 9, tzinfo=UTC)
    for npc_id in "abcde":
        levels.asked(npc_id, in_view=False, crowd=False)
    for _ in range(5):
        clock_at[0] += 1
        levels.rebalance()
    assert sum(levels.crowd(n, now, in_view=False, asked=False) for n in "abcde") >= 3
    pending[0] = 1
    for _ in range(10):
        clock_at[0] += 1
        levels.rebalance()
    assert not [n for n in "abcde" if levels.crowd(n, now, in_view=False, asked=False)]


_SLEEPER_2D = '''extends Node2D
## Stays put; the one named `sleeper` sleeps eight game hours once its first decision came.

@export var sleeper: bool = false

@onready var _agent: NpcBrainAgent = $NpcBrainAgent


func _ready() -> void:
	_agent.move_requested.connect(func(_address: String, _target: Vector2) -> void: _agent.report_arrived())
	if sleeper:
		_agent.decided.connect(_on_first_decision, CONNECT_ONE_SHOT)


func _on_first_decision(_decision: NpcBrainDecision) -> void:
	var clock := NpcBrainGameClock.get_instance()
	var reply := await clock.skip_time(clock.now() + 8 * 3600, "Town2D")
	print("NPCBRAIN " + JSON.stringify({"event": "slept", "ok": reply.ok, "now": clock.now_rfc3339()}))
'''


@pytest.mark.godot
@pytest.mark.slow
def test_the_addon_says_crowd_far_off_screen_and_skips_time_through_the_brain(tmp_path: Path) -> None:
    """The real engine, 960x640 window: Nora on screen is in view; Tom and Jill start off screen
    ~1,300 px from its middle: Tom (crowd_distance 600) says ATTENTION_CROWD, Jill (5,000) out of
    view. Nora's body then sleeps eight hours: SkipTime from the clock's time to eight hours on,
    and the clock stands there afterwards."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "bot.gd").write_text(_SLEEPER_2D)
    bots = [("Near", "near", "Nora Near", "Home:room", 80, 80, "sleeper = true\n", ""),
            ("Traveler", "traveler", "Tom Traveler", "Far:yard", 1712, 80, "", "crowd_distance = 600.0\n"),
            ("Jiggler", "jiggler", "Jill Jiggler", "Far:yard", 1776, 112, "", "crowd_distance = 5000.0\n")]
    (project / "town.tscn").write_text(_scene_2d(bots))
    web_dir = godot_web.build_web(tmp_path / "web", project)
    with _StandInBrain(web_dir, lambda method, request: None) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&npc-brain-log=events",
                                   viewport={"width": 960, "height": 640}) as game:
        slept = game.wait_for(lambda e: e["event"] == "slept", timeout_s=90)
        assert slept, "\n".join(game.lines[-30:])
        game.pump(2)
    first = {r["npcId"]: r["attention"] for m, r in reversed(brain.calls) if m == "Decide"}
    assert first == {"near": "ATTENTION_IN_VIEW", "traveler": "ATTENTION_CROWD",
                     "jiggler": "ATTENTION_OUT_OF_VIEW"}, first
    [skip] = [r for m, r in brain.calls if m == "SkipTime"]
    jump = _game_time(skip["toTime"]) - _game_time(skip["fromTime"])
    assert skip["worldName"] == "Town2D" and jump == timedelta(hours=8), skip
    assert slept["ok"] and _game_time(slept["now"]) >= _game_time(skip["toTime"]), slept
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)
