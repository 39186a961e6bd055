"""The LLM boundary holds whatever comes back: an endpoint that answers HTTP 200 with something that
is not a chat completion (a proxy's page, plain text, another API's JSON, a broken completion, megabytes,
a reset mid-body, a redirect) costs a failed attempt, traced and counted, then a retry or the fallback;
`LLM.complete` never raises and no RPC answers `internal`."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
import openai
import pytest

from brain_server.llm.answers import NotACompletion, tokens_of
from brain_server.llm.streaming import Listener, Streamed, stream_completion
from brain_server.prompts.converse_turn import spoken
from brain_server.prompts.importance import Importance
from brain_server.runtime.loopback import JsonHandler, LoopbackServer, chat_completion
from npc_lab.fake_openai import BOUNDARY_FAULTS, FakeOpenAI
from tests.clients import Clients
from tests.test_day import HOMES, NAMES, town_with_three
from tests.test_faults import FALLBACK, rate
from tests.town import WORLD


def test_the_trace_says_what_came_instead(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue({"fault": "html_200"}, {"fault": "redirect"}, {"fault": "huge_body"})
    result, trace, _ = rate(fake_llm, max_attempts=4)
    [call] = trace.llm_calls
    assert call.attempts == 4 and not call.fallback_used and 1 <= result.importance <= 10
    html, redirect, huge = call.errors
    assert "HTTP 200 with text/html, not a chat completion" in html and "NPC_BRAIN_LLM_BASE_URL" in html
    assert "redirected to" in redirect and "/_fake/login" in redirect
    assert "Importance schema" in huge
    assert len(call.raw_completion) < 100  # the good answer's; a huge one is cut to a few KB (below)


def test_a_huge_answer_is_cut_in_the_trace(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(*[{"fault": "huge_body"}] * 2)
    result, trace, _ = rate(fake_llm, max_attempts=2)
    [call] = trace.llm_calls
    assert result is FALLBACK and call.fallback_used and call.completion_tokens > 0
    assert 4000 <= len(call.raw_completion) < 4100 and "more characters" in call.raw_completion


def test_every_answer_broken_falls_back_after_bounded_attempts(fake_llm: FakeOpenAI) -> None:
    fake_llm.fault_kinds, fake_llm.fault_rate = BOUNDARY_FAULTS, 1.0
    for _ in range(4):
        result, trace, llm = rate(fake_llm, max_attempts=3)
        [call] = trace.llm_calls
        assert result is FALLBACK and call.attempts == 3 and len(call.errors) == 3
        counter = llm.usage.counter("isabella", "importance")
        assert (counter.calls, counter.failed_attempts, counter.fallbacks) == (1, 3, 1)
    assert sum(fake_llm.faults.values()) == 12 and set(fake_llm.faults) <= set(BOUNDARY_FAULTS)


def test_a_completion_labelled_otherwise_or_without_usage_is_used() -> None:
    """Leniency where nothing is lost: the openai client reads JSON under any label, and tokens
    missing or not counts count as 0 (some servers omit usage); the recorder sees real completions."""
    recorded: list[tuple] = []
    with Scripted() as server:
        good = chat_completion("fake-model", '{"importance": 8}', 1, 1)
        for content_type, usage in (("text/plain", good["usage"]), ("application/json", None),
                                    ("application/json", {"prompt_tokens": "ten"}), (None, "lots")):
            server.answer = (200, content_type, json.dumps({**good, "usage": usage}).encode(), {})
            recorded.clear()
            result, trace, _ = rate(server, recorder=lambda *call: recorded.append(call))  # type: ignore[arg-type]
            [call] = trace.llm_calls
            assert result == Importance(importance=8) and call.attempts == 1 and not call.errors
            assert [r[2] for r in recorded] == ['{"importance": 8}']
            assert (call.prompt_tokens, call.completion_tokens) == ((1, 1) if usage == good["usage"] else (0, 0))
        server.answer = (200, "text/html", b"<html>sign in</html>", {})
        recorded.clear()
        result, trace, _ = rate(server, max_attempts=2, recorder=lambda *call: recorded.append(call))  # type: ignore[arg-type]
        assert result is FALLBACK and not recorded and trace.llm_calls[0].raw_completion == "<html>sign in</html>"


class Scripted(LoopbackServer):
    """Answers every request, whatever its method and path, with `answer`: (status, Content-Type, body, headers)."""

    def __init__(self) -> None:
        self.answer: tuple[int, str | None, bytes, dict[str, str]] = (200, "application/json", b"{}", {})
        server = self

        class Handler(JsonHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, content_type, body, headers = server.answer
                self.send_body(status, content_type, b"" if status in (204, 304) else body, **headers)

            do_GET = do_POST

        super().__init__(Handler)


@pytest.fixture(scope="module")
def scripted() -> Any:
    with Scripted() as server:
        yield server


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=10)
CONTENT = st.sampled_from(['{"importance": 7}', '```json\n{"importance": 2}\n```', '{"importance": 42}', "",
                           "{" * 50]) | st.text(max_size=40) | JSON
MESSAGE = JSON | st.fixed_dictionaries({"role": st.just("assistant")}, optional={
    "content": CONTENT, "refusal": st.none() | st.text(max_size=12) | JSON})
CHOICE = JSON | st.fixed_dictionaries({}, optional={"index": st.integers(-1, 3), "message": MESSAGE,
                                                    "finish_reason": st.sampled_from(["stop", "length", None])})
COUNT = st.integers(-3, 10**6) | JSON
USAGE = JSON | st.fixed_dictionaries({}, optional={"prompt_tokens": COUNT, "completion_tokens": COUNT,
                                                   "total_tokens": COUNT})
# Partial chat completions: any of the keys, each right or of another shape.
COMPLETION = st.fixed_dictionaries({}, optional={
    "id": st.text(max_size=8), "object": st.sampled_from(["chat.completion", "list", "error"]),
    "created": st.integers(0, 2**40), "model": st.text(max_size=8), "choices": JSON | st.lists(CHOICE, max_size=3),
    "usage": USAGE, "error": JSON})
BODY = (st.binary(max_size=200) | st.text(max_size=200).map(str.encode) | JSON.map(lambda v: json.dumps(v).encode())
        | COMPLETION.map(lambda v: json.dumps(v).encode()))
STATUS = st.sampled_from([200] * 6 + [201, 202, 204, 206, 301, 302, 303, 307, 308, 400, 401, 404, 408, 418, 429,
                                      500, 502, 503])
CONTENT_TYPE = st.sampled_from([None, "application/json", "application/json; charset=utf-8", "text/html; charset=utf-8",
                                "text/plain", "application/octet-stream", "application/problem+json",
                                "text/event-stream"])
HEADERS = st.fixed_dictionaries({}, optional={"Location": st.sampled_from(["/elsewhere", "http://127.0.0.1:9/v1"]),
                                              "Retry-After": st.sampled_from(["0", "soon"])})
GOOD = json.dumps(chat_completion("fake-model", '{"importance": 7}', 3, 4)).encode()


@pytest.mark.slow  # 60 generated answers through the real client
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(status=STATUS, content_type=CONTENT_TYPE, headers=HEADERS, body=BODY)
@example(status=200, content_type="application/json", headers={}, body=GOOD)
@example(status=200, content_type="text/plain", headers={}, body=GOOD)
@example(status=200, content_type="application/json", headers={}, body=b"<html>proxy</html>")
@example(status=302, content_type="text/html", headers={"Location": "/elsewhere"}, body=b"")
def test_complete_holds_whatever_comes_back(scripted: Scripted, status: int, content_type: str | None,
                                            headers: dict[str, str], body: bytes) -> None:
    scripted.answer = (status, content_type, body, headers)
    result, trace, llm = rate(scripted, timeout_s=2.0, max_attempts=2)  # type: ignore[arg-type]
    [call] = trace.llm_calls
    counter = llm.usage.counter("isabella", "importance")
    assert isinstance(result, Importance) and 1 <= result.importance <= 10
    assert call.fallback_used == (result is FALLBACK)
    assert 1 <= call.attempts <= 2 and len(call.errors) == call.attempts - (0 if call.fallback_used else 1)
    assert (counter.calls, counter.failed_attempts, counter.fallbacks) == (1, len(call.errors), int(call.fallback_used))
    assert len(call.raw_completion) < 4100 and call.prompt_tokens >= 0 and call.completion_tokens >= 0
    if body == GOOD and status == 200:
        assert result == Importance(importance=7) and (call.prompt_tokens, call.completion_tokens) == (3, 4)


def test_rpcs_answer_while_every_chat_answer_is_broken(brain_factory, fake_llm: FakeOpenAI) -> None:
    """Decide, Talk, Whisper and Interview over gRPC and Connect with every chat answer not a chat
    completion: no `internal`, every NPC acts at a valid address, GetUsage counts the fallbacks."""
    brain = brain_factory(llm_timeout_s=2.0, llm_max_attempts=2, prepare_ahead_minutes=0)
    _, valid = town_with_three(brain)
    clients = Clients(brain)
    fake_llm.fault_kinds, fake_llm.fault_rate = BOUNDARY_FAULTS, 1.0
    failures: list[str] = []

    def both(method: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        answers = [clients.grpc(method, body)]  # a gRPC error raises, and fails the test with its code
        reply = clients.connect(method, body)
        if reply.status_code != 200:
            failures.append(f"Connect {method}: {reply.status_code} {reply.text[:200]}")
        else:
            answers.append(reply.json())
        return answers

    def everyone_acts(when: str) -> None:
        for npc_id in NAMES:
            here = f"{WORLD}:{HOMES[npc_id]}:bedroom"
            for decided in both("Decide", {"npcId": npc_id, "gameTime": when, "address": here}):
                action = decided["action"]
                assert action["address"] in valid and action["description"], action
                assert int(action.get("durationMinutes", 0)) > 0, action

    everyone_acts("2026-02-13T08:00:00Z")
    when = "2026-02-13T09:30:00Z"
    for reply in both("Talk", {"npcId": "isabella", "speakerName": "Player", "text": "Hello!", "gameTime": when}):
        assert reply["reply"]
    both("Whisper", {"npcId": "klaus", "text": "You want to throw a party.", "gameTime": when})
    for reply in both("Interview", {"npcId": "maria", "question": "What are you doing today?", "gameTime": when}):
        assert reply["answer"]
    everyone_acts("2026-02-13T10:00:00Z")
    assert not failures, failures
    counters = clients.grpc("GetUsage", {})["counters"]
    failed = sum(int(c.get("failedAttempts", 0)) for c in counters)
    fallbacks = sum(int(c.get("fallbacks", 0)) for c in counters)
    injected = sum(fake_llm.faults.values())
    assert fallbacks >= 10 and failed >= injected * 0.9, (failed, fallbacks, fake_llm.faults)
    assert len(fake_llm.faults) >= 6, fake_llm.faults
    print(f"boundary: faults {json.dumps(fake_llm.faults, sort_keys=True)}, failed attempts {failed}, "
          f"fallbacks {fallbacks}")
    clients.close()


def test_a_streamed_ask_answered_whole_is_read_and_checked_as_an_unstreamed_one() -> None:
    """An endpoint that ignores `stream` and answers whole gives its line as one piece; one that
    answers a page or another API's JSON is NotACompletion, as an unstreamed ask's answer is (the
    client counts it an invalid answer), not a bare ValueError."""
    told: list[str] = []

    async def ask(server: Scripted) -> Streamed:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        try:
            listener = Listener("converse_turn", lambda: spoken("Isabella Rodriguez"), told.append)
            return await stream_completion(client, listener, model="fake-model",
                                           messages=[{"role": "user", "content": "Say hello."}])
        finally:
            await client.close()

    with Scripted() as server:
        whole = chat_completion("fake-model", "Morning, Klaus!\n[continue]", 5, 4)
        server.answer = (200, "application/json", json.dumps(whole).encode(), {})
        streamed = asyncio.run(ask(server))
        assert (streamed.content, streamed.refusal, tokens_of(streamed.usage)) == (
            "Morning, Klaus!\n[continue]", None, (5, 4))
        assert told[-1] == "Morning, Klaus!"
        for content_type, body, said in (("text/html", b"<html>sign in</html>", "with text/html, not a chat completion"),
                                         ("application/json", b'{"data": []}', "JSON with no choices")):
            server.answer = (200, content_type, body, {})
            with pytest.raises(NotACompletion, match=said):
                asyncio.run(ask(server))
