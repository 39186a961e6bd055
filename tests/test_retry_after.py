"""Retry-After on 429/503 is honoured, bounded: the real `openai` client against the fake endpoint."""

from __future__ import annotations

import time

from brain_server.llm.client import LLM
from brain_server.prompts import PromptLibrary
from npc_lab.fake_openai import FakeOpenAI
from tests.test_llm import rate, trace


def _llm(fake: FakeOpenAI, **kwargs: float) -> LLM:
    # backoff_s near zero: any wait seen comes from the endpoint's Retry-After.
    return LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(), backoff_s=0.001,
               timeout_s=5.0, **kwargs)


def _asked_at(fake: FakeOpenAI) -> list[float]:
    return [r["at"] for r in fake.chat_requests("importance")]


def test_a_429_with_retry_after_2_is_retried_after_about_2_seconds(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue({"status": 429, "retry_after": 2}, purpose="importance")
    t = trace()
    started = time.monotonic()
    result = rate(_llm(fake_llm), t)
    assert 1 <= result.importance <= 10
    [call] = t.llm_calls
    assert call.attempts == 2 and not call.fallback_used
    assert call.errors == ["attempt 1: HTTP 429 from the LLM endpoint (Retry-After 2 s)"]
    first, second = _asked_at(fake_llm)
    assert 1.9 <= second - first <= 3.0, second - first
    assert time.monotonic() - started < 4


def test_a_503_s_retry_after_is_bounded(fake_llm: FakeOpenAI) -> None:
    """An endpoint asking for an hour is asked again after the bound, not after an hour."""
    fake_llm.queue({"status": 503, "retry_after": 3600}, purpose="importance")
    t = trace()
    rate(_llm(fake_llm, retry_after_max_s=0.5), t)
    first, second = _asked_at(fake_llm)
    assert 0.45 <= second - first < 1.5
    assert t.llm_calls[0].attempts == 2


def test_without_retry_after_the_backoff_stays(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue({"status": 429}, purpose="importance")
    rate(_llm(fake_llm))
    first, second = _asked_at(fake_llm)
    assert second - first < 0.5
