"""Retry-After on 429/503 is honoured, bounded: the real `openai` client against the fake endpoint."""

from __future__ import annotations

from brain_server.llm.client import LLM
from brain_server.prompts import PromptLibrary
from npc_lab.fake_openai import FakeOpenAI
from tests.test_llm import rate, trace


def _llm(fake: FakeOpenAI, waits: list[float], **kwargs: float) -> LLM:
    """An LLM whose waits between attempts are counted, not slept. backoff_s near zero: any wait
    seen that is longer comes from the endpoint's Retry-After."""
    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    return LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(), backoff_s=0.001,
               timeout_s=5.0, sleep=sleep, **kwargs)


def test_a_429_with_retry_after_2_is_retried_after_2_seconds(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue({"status": 429, "retry_after": 2}, purpose="importance")
    t, waits = trace(), []
    result = rate(_llm(fake_llm, waits), t)
    assert 1 <= result.importance <= 10
    [call] = t.llm_calls
    assert call.attempts == 2 and not call.fallback_used
    assert call.errors == ["attempt 1: HTTP 429 from the LLM endpoint (Retry-After 2 s)"]
    assert waits == [2.0] and len(fake_llm.chat_requests("importance")) == 2


def test_a_503_s_retry_after_is_bounded(fake_llm: FakeOpenAI) -> None:
    """An endpoint asking for an hour is asked again after the bound, not after an hour."""
    fake_llm.queue({"status": 503, "retry_after": 3600}, purpose="importance")
    t, waits = trace(), []
    rate(_llm(fake_llm, waits, retry_after_max_s=0.5), t)
    assert waits == [0.5]
    assert t.llm_calls[0].attempts == 2


def test_without_retry_after_the_backoff_stays(fake_llm: FakeOpenAI) -> None:
    """Exponential backoff with jitter: half to one and a half times backoff_s for the first retry."""
    fake_llm.queue({"status": 429}, purpose="importance")
    waits: list[float] = []
    rate(_llm(fake_llm, waits))
    assert len(waits) == 1 and 0.0005 <= waits[0] <= 0.0015, waits
