"""The LLM layer against the fake OpenAI-compatible server: the real `openai` client on loopback."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from brain_server.llm.client import LLM, ROOM_GROWTH, AnswerError, parse_answer
from brain_server.llm.retries import echoes_complaint
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.trace import Trace
from brain_server.prompts import PromptLibrary
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from brain_server.prompts.interview import PROMPT as INTERVIEW
from brain_server.prompts.interview import InterviewAnswer
from npc_lab.fake_openai import FakeOpenAI

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


VARS = {"npc_name": "Isabella Rodriguez", "persona": "Name: Isabella Rodriguez", "memory": "the cafe opened"}


def make_llm(fake: FakeOpenAI, **kwargs: object) -> LLM:
    return LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(),
               backoff_s=0.01, timeout_s=kwargs.pop("timeout_s", 5.0), **kwargs)  # type: ignore[arg-type]


def rate(llm: LLM, trace: Trace | None = None) -> Importance:
    return asyncio.run(llm.complete(IMPORTANCE, VARS, npc_id="isabella", trace=trace,
                                    fallback=lambda: Importance(importance=3), work=WORK))


def trace() -> Trace:
    return Trace(npc_id="isabella", kind="decide", game_time=datetime(2026, 2, 13, tzinfo=UTC))


def test_valid_answer_is_parsed_counted_and_traced(fake_llm: FakeOpenAI) -> None:
    llm, t = make_llm(fake_llm), trace()
    result = rate(llm, t)
    assert 1 <= result.importance <= 10
    [request] = fake_llm.chat_requests("importance")
    sent = request["body"]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"]["properties"]["importance"]["maximum"] == 10
    assert "the cafe opened" in sent["messages"][1]["content"]
    [call] = t.llm_calls
    assert call.attempts == 1 and not call.fallback_used and call.prompt_tokens > 0
    assert call.raw_completion and Importance.model_validate_json(call.parsed_json) == result
    counter = llm.usage.counter("isabella", "importance")
    assert (counter.calls, counter.failed_attempts, counter.fallbacks) == (1, 0, 0)


def test_same_request_same_answer(fake_llm: FakeOpenAI) -> None:
    llm = make_llm(fake_llm)

    async def twice() -> list[Importance]:
        fallback = lambda: Importance(importance=3)  # noqa: E731
        return [await llm.complete(IMPORTANCE, VARS, npc_id="i", fallback=fallback, work=WORK) for _ in range(2)]

    first, second = asyncio.run(twice())
    assert first == second


@pytest.mark.parametrize("bad", [
    {"content": "I think it is a 7"},
    {"content": '{"importance": 42}'},
    {"content": '{"importance": "high"}'},
    {"content": ""},
    {"refusal": "I can't help with that"},
    {"status": 503},
    {"status": 429},
])
def test_bad_answers_are_retried_then_succeed(fake_llm: FakeOpenAI, bad: dict) -> None:
    fake_llm.queue(bad)
    llm, t = make_llm(fake_llm), trace()
    assert 1 <= rate(llm, t).importance <= 10
    [call] = t.llm_calls
    assert call.attempts == 2 and not call.fallback_used and len(call.errors) == 1
    assert llm.usage.counter("isabella", "importance").failed_attempts == 1


def test_an_unusable_answer_is_shown_back_when_asking_again(fake_llm: FakeOpenAI) -> None:
    """A model at temperature 0 (or a stand-in deterministic per request) answers the same request
    the same way: asked again with the very same messages, it gave the same unusable answer, and
    a host's interview fell back to "my mind is elsewhere". The retry carries the answer and what
    was wrong with it; a transient failure (503) is asked again as it was."""
    fake_llm.queue({"content": "I think it is a 7"}, {"status": 503})
    llm, t = make_llm(fake_llm), trace()
    assert 1 <= rate(llm, t).importance <= 10
    first, second, third = (r["body"]["messages"] for r in fake_llm.chat_requests("importance"))
    assert second[:-2] == first and second[-2] == {"role": "assistant", "content": "I think it is a 7"}
    assert second[-1]["role"] == "user" and "could not be used: no JSON object in the answer" in second[-1]["content"]
    assert third == second  # the 503 changed nothing in what was asked
    assert t.llm_calls[0].attempts == 3


def test_an_answer_that_repeats_the_complaint_is_not_an_answer(fake_llm: FakeOpenAI) -> None:
    """Asked again after an answer with a field too many, a small model answered in the
    character's voice with the complaint itself ("Answer does not match the InterviewAnswer
    schema ..."), and an interview showed it as what the resident said."""
    fake_llm.queue({"content": '{"answer": "I keep the cafe.", "mood": "glad"}'},
                   {"content": '{"answer": "Answer does not match the InterviewAnswer schema: 1 error(s): mood '
                               'Extra inputs are not permitted."}'},
                   {"content": '{"answer": "I keep the cafe on the square."}'})
    llm, t = make_llm(fake_llm, max_attempts=3), trace()
    said = asyncio.run(llm.complete(INTERVIEW, {"persona": "Name: Isabella Rodriguez", "time": "9 am", "npc_name":
                                                "Isabella Rodriguez", "memories": "- the cafe opened",
                                                "question": "What do you do?"}, npc_id="isabella", trace=t,
                                    fallback=lambda: InterviewAnswer(answer="Ask me later."), work=WORK))
    assert said.answer == "I keep the cafe on the square."
    [call] = t.llm_calls
    assert call.attempts == 3 and "repeats the note" in call.errors[1]
    # Words the request or the answer before hold are no echo when the complaint quotes them.
    asked = [{"role": "user", "content": "Is the extra schema field fine for the mood here?"},
             {"role": "assistant", "content": '{"act": "going over to tell Bo about the fair"}'},
             {"role": "user", "content": "Is the extra schema field fine for the mood? 'going over to tell Bo "
                                         "about the fair' is not one of the choices."}]
    assert not echoes_complaint(asked, '{"answer": "is the extra schema field fine for the mood"}')
    assert not echoes_complaint(asked, '{"react": "going over to tell Bo about the fair"}')
    assert echoes_complaint(asked, '{"react": "the fair is not one of the choices"}')


def test_fallback_after_bounded_attempts(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(*[{"content": "garbage"}] * 5)
    llm, t = make_llm(fake_llm, max_attempts=3), trace()
    assert rate(llm, t) == Importance(importance=3)
    assert len(fake_llm.chat_requests()) == 3
    [call] = t.llm_calls
    assert call.fallback_used and call.attempts == 3 and len(call.errors) == 3
    assert llm.usage.counter("isabella", "importance").fallbacks == 1


def test_client_errors_are_not_retried(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue({"status": 400})
    llm, t = make_llm(fake_llm), trace()
    assert rate(llm, t) == Importance(importance=3)
    assert len(fake_llm.chat_requests()) == 1 and "HTTP 400" in t.llm_calls[0].errors[0]


def test_timeout_is_retried(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue({"delay_s": 8})  # the retry's answer has the rest of a loaded machine's 3 s
    llm, t = make_llm(fake_llm, timeout_s=3.0), trace()
    assert 1 <= rate(llm, t).importance <= 10
    assert "timed out" in t.llm_calls[0].errors[0]


def test_unreachable_endpoint_falls_back() -> None:
    llm = LLM(base_url="http://127.0.0.1:9/v1", model="m", api_key="k", prompts=PromptLibrary(),
              max_attempts=2, backoff_s=0.01)
    t = trace()
    assert asyncio.run(llm.complete(IMPORTANCE, VARS, npc_id="x", trace=t,
                                    fallback=lambda: Importance(importance=3), work=WORK)).importance == 3
    assert "cannot connect" in t.llm_calls[0].errors[0]


def test_parse_answer_tolerates_fences_and_rejects_garbage() -> None:
    assert parse_answer('```json\n{"importance": 4}\n```', Importance).importance == 4
    with pytest.raises(AnswerError):
        parse_answer("no json here", Importance)
    with pytest.raises(AnswerError):
        parse_answer('{"importance": 4, "extra": 1}', Importance)


def test_prompt_override_dir(tmp_path) -> None:
    (tmp_path / "importance.md").write_text("Rate $memory for $npc_name please.")
    messages = PromptLibrary(tmp_path).render("importance", VARS)
    assert messages[1]["content"] == "Rate the cafe opened for Isabella Rodriguez please."
    assert "Isabella Rodriguez" in messages[0]["content"]


def test_a_fallback_purpose_is_not_asked(fake_llm: FakeOpenAI) -> None:
    """A purpose the model is too weak for (the embedded SmolLM2's defaults) is answered by its
    fallback at once: no request, counted as a fallback and not as a call, traced."""
    llm, t = make_llm(fake_llm, fallback_purposes={"importance"}), trace()
    assert rate(llm, t) == Importance(importance=3)
    assert fake_llm.chat_requests("importance") == []
    [call] = t.llm_calls
    assert call.fallback_used and call.attempts == 0 and "not asked" in call.errors[0]
    counter = llm.usage.counter("isabella", "importance")
    assert (counter.calls, counter.fallbacks) == (0, 1)


def test_fallback_purposes_setting() -> None:
    from brain_server.config import Settings
    from brain_server.llm.embedded import FALLBACK_PURPOSES
    from brain_server.prompts import BUILTIN_DIR

    assert Settings().llm_fallback_purposes is None  # the embedded model's own, or none with an endpoint
    assert Settings(llm_fallback_purposes="daily_plan, decompose").llm_fallback_purposes == {"daily_plan", "decompose"}
    assert Settings(llm_fallback_purposes="").llm_fallback_purposes == frozenset()  # ask for everything
    assert all((BUILTIN_DIR / f"{purpose}.md").is_file() for purpose in FALLBACK_PURPOSES)


@pytest.mark.parametrize("first", ["", '{"importance": ', "<think>It could be a 3, or"])
def test_an_answer_that_ran_out_of_tokens_is_asked_again_with_more(fake_llm: FakeOpenAI, first: str) -> None:
    """A model that thinks before it answers spends its tokens on the thinking: an empty answer, one
    cut in its JSON or in its thinking, was asked again with as few, and came back so again (blind33's
    writer: an 8B thinking model on Ollama). It is asked again with ROOM_GROWTH times as many; an
    answer unusable for another reason is asked again with the same."""
    fake_llm.queue({"content": first}, purpose="importance")
    llm, t = make_llm(fake_llm), trace()

    async def twice() -> Importance:
        """Both in one event loop: a kept-alive connection from a loop that is gone fails its request."""
        fallback = lambda: Importance(importance=3)  # noqa: E731
        try:
            rated = await llm.complete(IMPORTANCE, VARS, npc_id="isabella", trace=t, fallback=fallback, work=WORK)
            sent = [r["body"]["max_tokens"] for r in fake_llm.chat_requests("importance")]
            assert sent == [IMPORTANCE.max_tokens, IMPORTANCE.max_tokens * ROOM_GROWTH]
            fake_llm.queue({"content": '{"importance": "high"}'}, purpose="importance")
            await llm.complete(IMPORTANCE, VARS, npc_id="isabella", fallback=fallback, work=WORK)
            return rated
        finally:
            await llm.close()

    assert asyncio.run(twice()).importance >= 1
    assert not t.llm_calls[0].fallback_used
    assert [r["body"]["max_tokens"] for r in fake_llm.chat_requests("importance")][2:] == [IMPORTANCE.max_tokens] * 2
