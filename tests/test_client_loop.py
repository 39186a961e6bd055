"""The `openai` client's whole completions run on a loop of their own (llm/client_loop.py): the
caller's loop only awaits them, a cancelled caller cancels them there, and closing stops the thread."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from brain_server.llm import client as client_module
from brain_server.llm.client_loop import ClientLoop
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from npc_lab.fake_openai import FakeOpenAI
from tests.test_llm import VARS, WORK, make_llm
from tests.waits import wait_until_async


def test_a_whole_completion_is_asked_and_read_off_the_callers_loop(fake_llm: FakeOpenAI, monkeypatch) -> None:
    read_on: list[str] = []
    real = client_module.chat_message

    def reading(raw: object) -> object:
        read_on.append(threading.current_thread().name)
        return real(raw)

    monkeypatch.setattr(client_module, "chat_message", reading)
    llm = make_llm(fake_llm)

    async def ask() -> tuple[Importance, bool]:
        try:
            answer = await llm.complete(IMPORTANCE, VARS, npc_id="isabella", work=WORK,
                                        fallback=lambda: Importance(importance=1))
            return answer, llm._client_loop.running
        finally:
            await llm.close()

    answer, running = asyncio.run(ask())
    assert 1 <= answer.importance <= 10
    assert read_on == ["npc-brain-llm"]  # not MainThread, where the caller's loop runs
    assert running and not llm._client_loop.running  # started by the call, stopped by close


async def nothing() -> None:
    """A client with nothing to close."""


def test_a_cancelled_caller_cancels_the_work_on_the_client_loop() -> None:
    there = ClientLoop()
    began, cancelled = threading.Event(), threading.Event()

    async def forever() -> None:
        began.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def caller() -> None:
        task = asyncio.create_task(there.run(forever))
        await asyncio.to_thread(began.wait, 60)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await wait_until_async(cancelled.is_set, what="the work on the client loop to be cancelled")
        await there.close(nothing)

    asyncio.run(caller())
    assert cancelled.is_set() and not there.running


def test_a_loop_never_started_closes_on_the_callers_loop() -> None:
    there, closed_on = ClientLoop(), []

    async def closing() -> None:
        closed_on.append(threading.current_thread().name)

    asyncio.run(there.close(closing))
    assert closed_on == [threading.current_thread().name] and not there.running
