"""Fallbacks you can see (issue 42): per purpose, the attempts, retries, invalid answers and
fallbacks of the model's answers, counted by the real client against the fake endpoint on
loopback, shown in GetUsage and /metrics, and a warning when a purpose falls back too often."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from structlog.testing import capture_logs

from brain_server.cognition.react import decide_reaction
from brain_server.cognition.status import revise_currently
from brain_server.llm.scheduler import Priority, Work
from brain_server.llm.trial import built_in_prompts, trial
from brain_server.llm.usage import FALLBACK_WINDOW, FallbackWatch
from brain_server.model.memory import MemoryKind, MemoryNode
from brain_server.model.npc import NpcState, Persona
from brain_server.model.trace import Trace
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from brain_server.prompts.react import PROMPT as REACT
from brain_server.runtime import metrics
from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.test_llm import VARS, make_llm, rate, trace
from tests.town import spawn_json, world_json

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


NOW = datetime(2026, 2, 13, 15, tzinfo=UTC)


def sample(name: str, purpose: str) -> float:
    return metrics.PROCESS.get_sample_value(f"npc_brain_llm_{name}_total", {"purpose": purpose}) or 0.0


def test_attempts_retries_and_invalid_answers_are_told_apart(fake_llm: FakeOpenAI) -> None:
    """A garbage answer and a 503 before a good one: three requests, two retries, one invalid
    answer (the 503 is the endpoint's trouble, not the model's), no fallback."""
    fake_llm.queue({"content": "garbage"}, {"status": 503})
    before = {name: sample(name, "importance") for name in ("attempts", "retries", "invalid_answers", "fallbacks")}
    llm = make_llm(fake_llm)
    assert 1 <= rate(llm, trace()).importance <= 10
    counter = llm.usage.counter("isabella", "importance")
    assert (counter.calls, counter.attempts, counter.retries, counter.failed_attempts, counter.invalid_answers,
            counter.fallbacks) == (1, 3, 2, 2, 1, 0)
    after = {name: sample(name, "importance") - before[name] for name in before}
    assert after == {"attempts": 3, "retries": 2, "invalid_answers": 1, "fallbacks": 0}


def test_spent_attempts_and_not_asked_are_fallbacks(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(*[{"content": "garbage"}] * 3)
    llm = make_llm(fake_llm, max_attempts=3)
    before = sample("fallbacks", "importance")
    assert rate(llm, trace()) == Importance(importance=3)
    counter = llm.usage.counter("isabella", "importance")
    assert (counter.attempts, counter.invalid_answers, counter.fallbacks, counter.not_asked) == (3, 3, 1, 0)
    not_asked = make_llm(fake_llm, fallback_purposes={"importance"})
    rate(not_asked, trace())
    counter = not_asked.usage.counter("isabella", "importance")
    assert (counter.calls, counter.attempts, counter.fallbacks, counter.not_asked) == (0, 0, 1, 1)
    assert sample("fallbacks", "importance") - before == 2


def test_a_valid_answer_the_brain_cannot_use_is_counted_once(fake_llm: FakeOpenAI) -> None:
    """`LLM.unusable`: the call was answered, but the brain used its default: an invalid answer and
    a fallback, and the trace's call says so; a call that had fallen back already is not counted twice."""
    llm, t = make_llm(fake_llm), trace()
    rate(llm, t)
    assert llm.unusable(IMPORTANCE, "isabella", "kept", "a test's reason", t) == "kept"
    counter = llm.usage.counter("isabella", "importance")
    assert (counter.calls, counter.invalid_answers, counter.fallbacks) == (1, 1, 1)
    assert t.llm_calls[-1].fallback_used and "a test's reason" in t.llm_calls[-1].errors[-1]
    llm.unusable(IMPORTANCE, "isabella", "kept", "again", t)
    assert (counter.invalid_answers, counter.fallbacks) == (1, 1)


def test_a_reaction_not_offered_is_counted_as_a_fallback(stream, fake_llm: FakeOpenAI) -> None:
    """The model answers "talk" where talking was not offered (a prompt-mode model, no enum to hold
    it): the NPC continues, as before, and react's counters show a fallback."""
    fake_llm.queue({"json": {"choice": "talk", "reason": "wants to chat", "new_activity": ""}}, purpose="react")
    isabella = NpcState(npc_id="isabella", world_name="w", persona=Persona(name="Isabella Rodriguez", home="w:h:b"),
                        address="w:cafe:cafe")
    seen = MemoryNode(npc_id="isabella", kind=MemoryKind.OBSERVATION, subject="Klaus Mueller", importance=5,
                      description="Klaus Mueller is reading", created=NOW, last_accessed=NOW)
    t = Trace(npc_id="isabella", kind="decide", game_time=NOW)
    reaction = asyncio.run(decide_reaction(isabella, seen, NOW, False, stream, t, work=WORK))
    assert reaction.choice == "continue"
    counter = stream.llm.usage.counter("isabella", REACT.purpose)
    assert (counter.calls, counter.invalid_answers, counter.fallbacks) == (1, 1, 1)
    assert t.llm_calls[-1].fallback_used


def test_the_warning_comes_past_a_tenth_of_a_full_window_and_not_again_until_it_turns_over() -> None:
    watch = FallbackWatch()
    fell = [i % 10 == 9 for i in range(FALLBACK_WINDOW)]  # exactly a tenth: not more
    assert [watch.answered("react", f) for f in fell] == [None] * FALLBACK_WINDOW
    assert watch.answered("react", True) == (6, FALLBACK_WINDOW)  # 6 of the latest 50
    assert [watch.answered("react", True) for _ in range(FALLBACK_WINDOW - 1)] == [None] * (FALLBACK_WINDOW - 1)
    assert watch.answered("react", True) == (FALLBACK_WINDOW, FALLBACK_WINDOW)
    assert watch.answered("daily_plan", True) is None  # each purpose its own window
    early = FallbackWatch()
    assert [early.answered("x", True) for _ in range(FALLBACK_WINDOW - 1)] == [None] * (FALLBACK_WINDOW - 1)


def test_the_brain_logs_a_purpose_that_falls_back_too_often(fake_llm: FakeOpenAI) -> None:
    llm = make_llm(fake_llm, max_attempts=1)
    llm.fallback_watch = FallbackWatch(window=10)
    fake_llm.queue(*[{"content": "garbage"}] * 2, purpose="importance")

    async def ten() -> None:
        for _ in range(10):
            await llm.complete(IMPORTANCE, VARS, npc_id="isabella", fallback=lambda: Importance(importance=3), work=WORK)

    with capture_logs() as logs:
        asyncio.run(ten())
    warned = [e for e in logs if e["event"] == "llm_fallbacks_high"]
    assert [(e["purpose"], e["fallbacks"], e["answers"]) for e in warned] == [("importance", 2, 10)]
    assert warned[0]["log_level"] == "warning"


def test_get_usage_shows_the_counts(brain_factory, fake_llm: FakeOpenAI) -> None:
    clients = Clients(brain_factory())
    try:
        assert clients.connect("RegisterWorld", world_json()).status_code == 200
        assert clients.connect("SpawnNpc", spawn_json()).status_code == 200
        fake_llm.queue({"content": "not json"}, purpose="interview")
        answer = clients.connect("Interview", {"npcId": "isabella", "question": "How are you?",
                                               "gameTime": "2026-02-13T09:00:00Z"})
        assert answer.status_code == 200, answer.text
        usage = clients.connect("GetUsage", {"npcId": "isabella"}).json()
        [interview] = [c for c in usage["counters"] if c["purpose"] == "interview"]
        assert (interview["calls"], interview["attempts"], interview["retries"], interview["invalidAnswers"]) == (
            "1", "2", "1", "1")
        assert "fallbacks" not in interview and "notAsked" not in interview  # zero: left out of proto3 JSON
    finally:
        clients.close()


def test_the_probe_run_fills_every_built_in_prompt(fake_llm: FakeOpenAI) -> None:
    """check's probe run (llm/trial.py) asks every built-in purpose with its sample moment: a
    template given a placeholder the sample lacks would be left out of the run, so none may be."""
    llm = make_llm(fake_llm)
    shares, left_out = asyncio.run(trial(llm, built_in_prompts(), rounds=1))
    assert left_out == []
    assert {"react", "daily_plan", "conversation_summary", "interview", "importance"} <= set(shares)
    assert all(fell == 0 for fell, _ in shares.values()), shares


def test_an_empty_status_keeps_the_old_one_and_is_counted(run, fake_llm: FakeOpenAI) -> None:
    """revise_currently answered with blanks: the old status stays, as before, and the purpose's
    counters show the fallback."""
    fake_llm.queue({"json": {"currently": "   "}}, purpose="revise_currently")
    npc = NpcState(npc_id="isabella", world_name="w", address="w:cafe:cafe", persona=Persona(
        name="Isabella Rodriguez", home="w:h:b", currently="Isabella is planning a party."))
    t = Trace(npc_id="isabella", kind="decide", game_time=NOW)

    async def scenario(stream) -> tuple[str, object]:
        return await revise_currently(npc, NOW, stream, t, work=WORK), stream.llm.usage.counter("isabella", "revise_currently")

    status, counter = run(scenario)
    assert status == "Isabella is planning a party."
    assert (counter.calls, counter.invalid_answers, counter.fallbacks) == (1, 1, 1) and t.llm_calls[-1].fallback_used
