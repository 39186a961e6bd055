"""LLM faults: the fake endpoint's fault mode injects every way a model server misbehaves; each
is retried or falls back, the NPC keeps acting, the trace records it and GetUsage counts it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
import json

import grpc
import pytest

from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.trace import Trace
from brain_server.model.world import arena_of
from brain_server.prompts import PromptLibrary
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from npc_lab.fake_openai import ALL_FAULTS, FAULTS, FakeOpenAI
from tests.clients import Clients
from tests.test_day import HOMES, NAMES, _addresses, town_with_three
from tests.town import WORLD, spawn_json, world_json
from tests.waits import wait_until

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for
# Where a good answer must arrive within the client's timeout (the retry after a fault, the model's
# plan once the endpoint recovers), the timeout leaves a loaded machine room, and a slow fault outwaits it.
TIMEOUT_S, SLOW_S = 5.0, 30.0


VARS = {"npc_name": "Isabella Rodriguez", "persona": "Name: Isabella Rodriguez", "memory": "the cafe opened"}
FALLBACK = Importance(importance=3)


def rate(fake: FakeOpenAI, **kwargs: object) -> tuple[Importance, Trace, LLM]:
    llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(), backoff_s=0.01,
              **kwargs)  # type: ignore[arg-type]
    trace = Trace(npc_id="isabella", kind="decide", game_time=datetime(2026, 2, 13, tzinfo=UTC))

    async def run() -> Importance:
        try:
            return await llm.complete(IMPORTANCE, VARS, npc_id="isabella", trace=trace, fallback=lambda: FALLBACK, work=WORK)
        finally:
            await llm.close()

    return asyncio.run(run()), trace, llm


@pytest.mark.parametrize("fault", ALL_FAULTS)
def test_each_fault_is_retried_traced_and_counted(fake_llm: FakeOpenAI, fault: str) -> None:
    # The timeout is far from both the slow fault's wait and a good answer's time on a loaded machine.
    fake_llm.slow_s = SLOW_S
    fake_llm.queue({"fault": fault})
    result, trace, llm = rate(fake_llm, timeout_s=TIMEOUT_S)
    assert 1 <= result.importance <= 10
    [call] = trace.llm_calls
    assert call.attempts == 2 and not call.fallback_used and len(call.errors) == 1, call.errors
    counter = llm.usage.counter("isabella", "importance")
    assert (counter.calls, counter.failed_attempts, counter.fallbacks) == (1, 1, 0)
    assert fake_llm.faults == {fault: 1}


def test_faults_every_time_fall_back_after_bounded_attempts(fake_llm: FakeOpenAI) -> None:
    fake_llm.slow_s, fake_llm.fault_rate = 1.0, 1.0
    result, trace, llm = rate(fake_llm, timeout_s=0.4, max_attempts=3)
    assert result == FALLBACK
    [call] = trace.llm_calls
    assert call.fallback_used and call.attempts == 3 and len(call.errors) == 3
    assert llm.usage.counter("isabella", "importance").fallbacks == 1
    # Each attempt met a fault; on a loaded machine the client may give an attempt up (0.4 s) before
    # the fake's thread has even read it, so its count comes later (a hang guard, not a time check).
    wait_until(lambda: sum(fake_llm.faults.values()) == 3, what="the fake's count of the three faulted attempts")


def test_fault_mode_is_seeded_and_covers_every_kind() -> None:
    def draws(seed: int) -> list[str]:
        with FakeOpenAI(fault_rate=0.5, seed=seed) as fake:
            return [(fake._next_scripted(None) or {}).get("fault", "ok") for _ in range(400)]

    first = draws(7)
    assert first == draws(7) and first != draws(8)
    assert set(first) == {*FAULTS, "ok"}
    assert 0.4 < first.count("ok") / len(first) < 0.6


def test_the_npc_keeps_acting_when_every_answer_is_a_fault(brain_factory, fake_llm: FakeOpenAI) -> None:
    brain = brain_factory(llm_timeout_s=TIMEOUT_S, llm_max_attempts=2, prepare_ahead_minutes=0)
    clients = Clients(brain)
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    # Every kind of fault but the slow one (each costs the timeout, tested above), so the test is short.
    fake_llm.fault_kinds, fake_llm.fault_rate = tuple(f for f in FAULTS if f != "slow"), 1.0
    decided = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"})
    action = decided["action"]
    assert action["source"] == "ACTION_SOURCE_FALLBACK" and action["description"].startswith("Isabella Rodriguez")
    assert action["address"] in set(_addresses(world_json()["world"]))
    trace = clients.connect("GetTrace", {"traceId": decided["traceId"]}).json()["trace"]
    [plan] = [c for c in trace["llmCalls"] if c["purpose"] == "daily_plan"]
    assert plan["fallbackUsed"] and plan["attempts"] == 2 and len(plan["errors"]) == 2
    usage = {c["purpose"]: c for c in clients.grpc("GetUsage", {"npcId": "isabella"})["counters"]}
    assert int(usage["daily_plan"]["failedAttempts"]) == 2 and int(usage["daily_plan"]["fallbacks"]) == 1
    # The endpoint recovers: the next game day is planned by the model again.
    fake_llm.fault_rate = 0.0
    later = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-14T09:00:00Z"})
    assert later["action"]["source"] == "ACTION_SOURCE_NEW_PLAN"
    clients.close()


@pytest.mark.slow
def test_soak_three_npcs_a_day_under_heavy_faults(brain_factory, fake_llm: FakeOpenAI) -> None:
    """A game day for three NPCs with 40% of answers faulty, until 60 decisions were made and more
    than 20 faults injected (counted: a loaded machine takes longer, not fewer steps)."""
    brain = brain_factory(llm_timeout_s=0.5, reflection_threshold=60)
    fake_llm.slow_s, fake_llm.fault_rate = 0.8, 0.4
    fake_llm._rng.seed(2026)
    call, valid = town_with_three(brain)
    actions: dict[str, dict] = {}
    decisions, errors = 0, []
    now, end = datetime(2026, 2, 13, 6, tzinfo=UTC), datetime(2026, 2, 13, 23, tzinfo=UTC)
    while now < end and (decisions < 60 or sum(fake_llm.faults.values()) <= 20):
        for npc_id in NAMES:
            here = arena_of(actions[npc_id]["address"]) if npc_id in actions else f"{WORLD}:{HOMES[npc_id]}:bedroom"
            perceptions = [
                {"subject": NAMES[other], "predicate": "is", "object": "busy", "description": a["description"],
                 "address": a["address"], "distance": 2}
                for other, a in actions.items() if other != npc_id and arena_of(a["address"]) == here]
            try:
                decided = call("Decide", {"npcId": npc_id, "gameTime": now.isoformat(), "address": here,
                                          "perceptions": perceptions})
            except grpc.RpcError as exc:
                errors.append(f"{npc_id} {now:%H:%M}: {exc.code()} {exc.details()}")
                continue
            action = decided["action"]
            decisions += 1
            assert action["address"] in valid, action
            assert action["description"] and int(action.get("durationMinutes", 0)) > 0, action
            actions[npc_id] = action
        now += timedelta(minutes=15)
    assert not errors, errors
    assert decisions >= 60, f"only {decisions} decisions in the day"
    counters = call("GetUsage", {})["counters"]
    failed = sum(int(c.get("failedAttempts", 0)) for c in counters)
    injected = sum(fake_llm.faults.values())
    assert injected > 20 and failed >= injected * 0.9, (failed, fake_llm.faults)
    print(f"soak: {decisions} decisions to {now:%H:%M}, faults {json.dumps(fake_llm.faults, sort_keys=True)}, "
          f"failed attempts {failed}, fallbacks {sum(int(c.get('fallbacks', 0)) for c in counters)}")
