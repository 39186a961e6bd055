"""What a completion sends: the same bytes as openai's own `create` given the prompt and schema
as keywords, posted without the client's request and response models (`dialects.posted`: ~20% of
the brain's CPU per completion, issue 44), and a streamed one without its per-key transform
walking the prompt or its schema (`dialects.as_is`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import openai
import openai.resources.chat.completions.completions as completions
import pytest

from brain_server.llm.client import LLM, PURPOSE_HEADER
from brain_server.llm.dialects import as_is
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import PromptLibrary
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance

WORK = Work(Priority.BACKGROUND, "npc")
ANSWER = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
          "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '{"importance": 3}'}}],
          "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _client(sent: list[bytes], headers: list[httpx2.Headers] | None = None) -> openai.AsyncOpenAI:
    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(request.content)
        if headers is not None:
            headers.append(request.headers)
        return httpx2.Response(200, json=ANSWER)

    return openai.AsyncOpenAI(base_url="http://endpoint.test/v1", api_key="k", max_retries=0,
                              http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(answer)))


def _as_keywords(request: dict[str, Any]) -> dict[str, Any]:
    """The request as `create` takes it: the prompt and schema as keywords, not in `extra_body`."""
    extra = dict(request["extra_body"])
    moved = {key: extra.pop(key) for key in ("messages", "response_format") if key in extra}
    return {**request, **moved, "extra_body": extra or None}


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "prompt"])
@pytest.mark.parametrize("refused", [(), ("max_tokens", "temperature")])
@pytest.mark.parametrize("extra", [{}, {"think": False}])
def test_a_completion_sends_the_bytes_openai_would(mode: str, refused: tuple[str, ...], extra: dict[str, Any]) -> None:
    llm = LLM(base_url="http://endpoint.test/v1", model="m", api_key="k", prompts=PromptLibrary(), extra_body=extra,
              send_priority=bool(extra), refused=refused, response_mode=mode)  # type: ignore[arg-type]
    variables = {"npc_name": "Ada", "persona": "Ada is a baker.", "memory": "Ada is baking bread"}
    messages = [{"role": "system", "content": "You are Ada."}, {"role": "user", "content": "How important? " * 40}]
    schema = IMPORTANCE.json_schema(variables)
    request = as_is(llm._request(IMPORTANCE, schema, messages, mode, WORK))  # type: ignore[arg-type]
    ours: list[bytes] = []
    theirs: list[bytes] = []
    headers: list[httpx2.Headers] = []

    async def send() -> None:
        llm._client = _client(ours, headers)
        answer = await llm._create(IMPORTANCE, schema, messages, WORK)  # type: ignore[arg-type]
        assert answer.json() == ANSWER
        await _client(theirs).chat.completions.with_raw_response.create(**_as_keywords(request))
        async with _client(ours).chat.completions.with_streaming_response.create(
                stream=True, stream_options={"include_usage": True}, **request):
            pass
        async with _client(theirs).chat.completions.with_streaming_response.create(
                stream=True, stream_options={"include_usage": True}, **_as_keywords(request)):
            pass
        await llm.close()

    asyncio.run(send())
    assert ours == theirs and len(ours) == 2
    body = json.loads(ours[0])
    assert body["messages"] == messages[:1] + [body["messages"][1]] and body["messages"][1]["content"].startswith(
        messages[1]["content"])
    assert ("response_format" in body) == (mode != "prompt")
    assert headers[0]["authorization"] == "Bearer k" and headers[0][PURPOSE_HEADER] == "importance"


def test_the_clients_transform_never_walks_the_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    """openai's `create` transforms its body key by key (for aliases and formats our plain JSON
    has none of): a completion is posted without it."""
    seen: list[dict[str, Any]] = []
    transform = completions.async_maybe_transform

    async def counted(data: Any, expected: Any) -> Any:
        seen.append(data)
        return await transform(data, expected)

    monkeypatch.setattr(completions, "async_maybe_transform", counted)
    llm = LLM(base_url="http://endpoint.test/v1", model="m", api_key="k", prompts=PromptLibrary())
    sent: list[bytes] = []
    llm._client = _client(sent)

    async def ask() -> Any:
        try:
            return await llm.complete(IMPORTANCE, {"npc_name": "Ada", "persona": "Ada is a baker.",
                                                   "memory": "Ada is baking bread"}, npc_id="npc", work=WORK,
                                      fallback=lambda: Importance(importance=1))
        finally:
            await llm.close()

    assert asyncio.run(ask()).importance == 3
    assert len(sent) == 1 and json.loads(sent[0])["messages"] and json.loads(sent[0])["response_format"]
    assert seen == []
