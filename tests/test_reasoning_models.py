"""A model that thinks before it answers (DeepSeek-R1, Qwen3, QwQ as Ollama, vLLM or llama.cpp
serve them): its `<think>` block is dropped before the answer is read, its thinking is given room
(NPC_BRAIN_LLM_EXTRA_TOKENS) or turned off (NPC_BRAIN_LLM_EXTRA_BODY), and one whose tokens run
out while thinking is named as such, with what to set, by the probe `serve` and `check` run."""

from __future__ import annotations

import asyncio

import pytest

from brain_server.config import Settings
from brain_server.llm.client import LLM, AnswerError, parse_answer
from brain_server.llm.probe import PROBE_PURPOSE, Asking, Endpoint, llm_dialect_at_start, probe_llm
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import Prompt, PromptLibrary, converse_turn
from brain_server.prompts.choose_address import AddressChoice
from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.town import spawn_json, world_json

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


PLACE = '{"place": {"sector": "Hobbs Cafe", "arena": "cafe", "object": ""}}'


@pytest.mark.parametrize("answer", [
    f"<think>They want {{a place}}. Maybe {{\"place\": \"park\"}}? No.</think>\n{PLACE}",
    f"<THINKING>\nfirst {{ then }}\n</THINKING>```json\n{PLACE}\n```",
    f"<think>one</think><think>two {{</think>{PLACE}",
    'Maybe {"place": {"sector": "the park", "arena": "", "object": ""}}? No.\n</think>\n\n' + PLACE,  # opened by the template
])
def test_the_reasoning_before_the_answer_is_not_read_as_the_answer(answer: str) -> None:
    assert parse_answer(answer, AddressChoice).place.sector == "Hobbs Cafe"


def test_a_line_after_reasoning_whose_block_the_chat_template_opened_is_the_line() -> None:
    """A chat template that starts the model's answer inside `<think>` (DeepSeek-R1's, Qwen3's as some
    servers apply them) leaves the content only the block's close: the reasoning before it ("The request
    wants ...") was read as the line, and dropped as an assistant's (blind33: 5 of 815 answers)."""
    answer = ("Okay, let me think. I'm Halvard here. The request wants a short answer in a set form.\n</think>\n\n"
              "Did you hear? I'm setting the sundial at the Varden tomorrow.\n[continue]")
    turn = converse_turn.read(answer, {"npc_name": "Halvard Iselvik"})
    assert turn.utterance == "Did you hear? I'm setting the sundial at the Varden tomorrow." and not turn.end_conversation


def test_thinking_cut_by_the_token_limit_says_what_to_set() -> None:
    with pytest.raises(AnswerError, match="still thinking when its tokens ran out.*NPC_BRAIN_LLM_EXTRA_TOKENS"):
        parse_answer('<think>The answer could be {"place": {"sector": "Hobbs Cafe"', AddressChoice)


def test_the_probe_names_a_model_that_runs_out_while_thinking_and_passes_once_it_has_room() -> None:
    with FakeOpenAI(think_words=200) as fake:
        endpoint = Endpoint("the LLM endpoint", "NPC_BRAIN_LLM", fake.base_url, "fake-model")
        cut = asyncio.run(probe_llm(endpoint, "k"))
        assert cut.verdict == "warn" and "tokens ran out while thinking" in cut.line, cut
        assert "NPC_BRAIN_LLM_EXTRA_TOKENS" in cut.line and "NPC_BRAIN_LLM_EXTRA_BODY" in cut.line
        roomy = asyncio.run(probe_llm(endpoint, "k", asking=Asking({"think": False}, 1024)))
        assert roomy.verdict == "ok" and roomy.mode == "json_schema", roomy
        sent = fake.chat_requests(PROBE_PURPOSE)[-1]["body"]
        assert sent["think"] is False and sent["max_tokens"] == 64 + 1024


@pytest.mark.slow
def test_a_thinking_model_with_room_plans_the_day(brain_factory, fake_llm) -> None:
    """Every purpose's answer comes from the model, none from a fallback, and every request carries
    the extra body and the extra tokens."""
    fake_llm.think_words = 200
    clients = Clients(brain_factory(llm_extra_tokens=1024, llm_extra_body='{"think": false}'))
    clients.grpc("RegisterWorld", world_json())
    clients.grpc("SpawnNpc", spawn_json())
    decided = clients.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"})
    trace = clients.grpc("GetTrace", {"traceId": decided["traceId"]})["trace"]
    calls = trace["llmCalls"]
    assert calls and not [c for c in calls if c.get("fallbackUsed")], calls
    assert decided["action"]["source"] != "ACTION_SOURCE_PROVISIONAL"
    asked = [r["body"] for r in fake_llm.chat_requests()]
    assert asked and all(b["think"] is False and b["max_tokens"] > 1024 for b in asked)
    clients.close()


def test_a_model_that_takes_no_max_tokens_or_temperature_is_probed_and_asked_without_them(tmp_path) -> None:
    """OpenAI's reasoning models (o-series, GPT-5) answer HTTP 400 to `max_tokens` and to any
    temperature but 1: the probe and the calls leave them out (the limit as max_completion_tokens)
    instead of stopping `serve` or falling back on every call."""
    with FakeOpenAI(reasoning_api=True) as fake:
        endpoint = Endpoint("the LLM endpoint", "NPC_BRAIN_LLM", fake.base_url, "fake-model")
        found = asyncio.run(probe_llm(endpoint, "k"))
        assert found.verdict == "ok" and found.mode == "json_schema", found
        assert "takes no max_tokens, temperature (left out)" in found.line, found.line
        sent = fake.chat_requests(PROBE_PURPOSE)[-1]["body"]
        assert "max_tokens" not in sent and "temperature" not in sent and sent["max_completion_tokens"] == 64

        (tmp_path / "system.md").write_text("You are a test.")
        (tmp_path / "where.md").write_text("Where do you go?")
        where = Prompt("where", AddressChoice, max_tokens=120)

        async def ask() -> tuple[AddressChoice, set[str]]:
            llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(tmp_path),
                      max_attempts=1, backoff_s=0.01)
            try:
                answer = await llm.complete(where, {}, npc_id="isabella", fallback=lambda: pytest.fail("fell back"), work=WORK)
                return answer, llm.refused
            finally:
                await llm.close()

        fake.queue({"json": {"place": {"sector": "Hobbs Cafe", "arena": "cafe", "object": ""}}}, purpose="where")
        answer, refused = asyncio.run(ask())
        assert answer.place.sector == "Hobbs Cafe" and refused == {"max_tokens", "temperature"}
        last = fake.chat_requests("where")[-1]["body"]
        assert last["max_completion_tokens"] == 120 and "temperature" not in last


def test_what_the_probe_found_refused_is_left_out_of_the_towns_first_call(tmp_path) -> None:
    """serve hands the probe's finding to the client: no NPC's call is asked with a refused
    parameter and answered HTTP 400 first (one wasted call per parameter and NPC call in flight)."""
    with FakeOpenAI(reasoning_api=True) as fake:
        settings = Settings(llm_base_url=fake.base_url, llm_model="fake-model", data_dir=tmp_path / "data")
        mode, refused = asyncio.run(llm_dialect_at_start(settings))
        assert mode == "json_schema" and refused == {"max_tokens", "temperature"}
        (tmp_path / "system.md").write_text("You are a test.")
        (tmp_path / "where.md").write_text("Where do you go?")

        async def ask() -> AddressChoice:
            llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(tmp_path),
                      max_attempts=1, backoff_s=0.01, response_mode=mode, refused=refused)
            try:
                return await llm.complete(Prompt("where", AddressChoice, max_tokens=120), {}, npc_id="isabella",
                                          fallback=lambda: pytest.fail("fell back"), work=WORK)
            finally:
                await llm.close()

        fake.queue({"json": {"place": {"sector": "Hobbs Cafe", "arena": "cafe", "object": ""}}}, purpose="where")
        assert asyncio.run(ask()).place.sector == "Hobbs Cafe"
        assert [r["body"]["max_completion_tokens"] for r in fake.chat_requests("where")] == [120]
