"""LLM_SEND_PRIORITY: each completion carries its scheduler class as vLLM's request priority."""

from __future__ import annotations

import asyncio

from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import PromptLibrary
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from npc_lab.fake_openai import FakeOpenAI
from tests.test_llm import VARS


def _ask(fake: FakeOpenAI, priority: Priority, *, send_priority: bool) -> dict:
    llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(), timeout_s=5.0,
              send_priority=send_priority)

    async def ask() -> None:
        await llm.complete(IMPORTANCE, VARS, npc_id="isabella", work=Work(priority, "isabella"),
                           fallback=lambda: Importance(importance=3))
        await llm.close()

    fake.reset()
    asyncio.run(ask())
    [request] = fake.chat_requests("importance")
    return request["body"]


def test_the_class_is_sent_as_priority_when_asked(fake_llm: FakeOpenAI) -> None:
    assert _ask(fake_llm, Priority.PLAYER, send_priority=True)["priority"] == 0
    assert _ask(fake_llm, Priority.BACKGROUND, send_priority=True)["priority"] == 4


def test_no_priority_field_by_default(fake_llm: FakeOpenAI) -> None:
    assert "priority" not in _ask(fake_llm, Priority.PLAYER, send_priority=False)
