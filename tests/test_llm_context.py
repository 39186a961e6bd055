"""Prompts that fit the model's context (issue 42): the window learned from each kind of server
(the fake's discovery routes, through the brain's own calls on loopback) or the setting, and
every prompt fitted to it in tokens, memories dropped before the persona is cut."""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import AsyncExitStack
import socket
import threading

import pytest

from brain_server.config import Settings
from brain_server.llm.context import (
    LM_STUDIO_DEFAULT_CONTEXT,
    MESSAGE_TOKENS,
    OLLAMA_DEFAULT_CONTEXT,
    ContextWindow,
    EmbeddedTokens,
    context_at_start,
    discover_context,
    embedded_counting,
    estimate_tokens,
    fit_to_context,
    prompt_tokens,
)
from brain_server.llm.embedded import EmbeddedLLMUnavailable, model_path
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.budget import CUT_MARK, Bullets, Item
from brain_server.prompts.react import PROMPT as REACT
from brain_server.prompts.react import Reaction
from brain_server.server import build_core
from npc_lab.fake_openai import FakeOpenAI
from tests.test_llm import make_llm, trace

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


PERSONA = "Name: Isabella Rodriguez. " + "She runs Hobbs Cafe and loves to throw parties for her regulars. " * 6


def discovered(**options: object) -> ContextWindow | None:
    with FakeOpenAI(**options) as fake:  # type: ignore[arg-type]
        return asyncio.run(discover_context(fake.base_url, "fake-model", "k"))


@pytest.mark.parametrize(("api", "source"), [
    ("vllm", "vLLM /v1/models max_model_len"),
    ("llama.cpp", "llama.cpp /props n_ctx"),
    ("ollama", "Ollama /api/ps context_length"),
    ("lmstudio", "LM Studio /api/v1/models: fake-model loaded with 3000"),
    ("lmstudio_v0", "LM Studio /api/v0/models: fake-model loaded with 3000"),
])
def test_each_server_says_its_context(api: str, source: str) -> None:
    assert discovered(context_api=api, context_tokens=3000) == ContextWindow(3000, source)


def test_ollama_without_the_model_loaded_is_taken_at_its_default() -> None:
    found = discovered(context_api="ollama_unloaded", context_tokens=3000)
    assert found is not None and found.tokens == OLLAMA_DEFAULT_CONTEXT and "Ollama" in found.source


def test_lm_studio_without_the_model_loaded_is_taken_at_its_default() -> None:
    """LM Studio loads a model on its first request with its default context (blind35's writer: a
    24B model at LM Studio's defaults refused 11 of 16 group conversations, each over 4,096 tokens)."""
    found = discovered(context_api="lmstudio_unloaded", context_tokens=3000)
    assert found == ContextWindow(LM_STUDIO_DEFAULT_CONTEXT, "LM Studio's default for a model it has not loaded (4096)")


def test_a_server_that_does_not_say_gives_none_and_the_setting_wins() -> None:
    assert discovered() is None
    with FakeOpenAI(context_api="vllm", context_tokens=3000) as fake:
        settings = Settings(llm_base_url=fake.base_url, llm_model="fake-model", llm_context_tokens=1500)
        assert asyncio.run(context_at_start(settings, fake.base_url)) == ContextWindow(
            1500, "NPC_BRAIN_LLM_CONTEXT_TOKENS")
        unset = Settings(llm_base_url=fake.base_url, llm_model="fake-model")
        assert asyncio.run(context_at_start(unset, fake.base_url)).tokens == 3000  # type: ignore[union-attr]


def test_the_estimate_errs_long() -> None:
    """Three bytes a token: English runs about four in the models' tokenizers."""
    assert estimate_tokens("abcdef") == 2 and estimate_tokens("abcdefg") == 3
    assert prompt_tokens([{"content": "abc"}, {"content": ""}]) == 1 + 2 * MESSAGE_TOKENS


def react_variables(memories: int) -> dict:
    lines = Bullets([Item(f"Isabella Rodriguez remembers the market stall number {i} selling fresh bread", (i, i))
                     for i in range(memories)])
    return {"npc_name": "Isabella Rodriguez", "persona": PERSONA, "time": "Friday February 13, 15:00",
            "current_activity": "serving coffee", "place": "the cafe", "observation": "Klaus Mueller is reading",
            "subject": "Klaus Mueller", "status": "Klaus Mueller is reading", "untold": "", "relationship_memories": lines,
            "status_memories": Bullets([]), "choices": '- "continue": carry on.', "choice_names": '"continue"',
            "choice_list": ["continue"]}


def test_a_prompt_over_the_window_drops_memories_first_and_keeps_the_persona(fake_llm: FakeOpenAI) -> None:
    """Sent through the real client: with a window too small for 200 memories, the request fits
    it with the answer's max_tokens, some memories are gone and the persona is whole."""
    llm = make_llm(fake_llm, context=ContextWindow(1200, "a test"))
    variables, t = react_variables(200), trace()
    asyncio.run(llm.complete(REACT, variables, npc_id="isabella", trace=t,
                             fallback=lambda: Reaction(choice="continue", reason="", new_activity=""), work=WORK))
    [request] = fake_llm.chat_requests("react")
    messages = request["body"]["messages"]
    assert prompt_tokens(messages) + REACT.max_tokens <= 1200
    assert PERSONA.strip() in messages[1]["content"] and CUT_MARK not in messages[1]["content"]
    assert 1 <= len(variables["relationship_memories"].kept) < 200
    assert any("1200-token context (a test" in note for note in t.notes)


def test_the_fake_counts_a_prompt_over_its_context_and_the_brain_sends_none() -> None:
    """Without the window the brain sends what NPC_BRAIN_PROMPT_MAX_BYTES allows, past a 1200-token
    context (what Ollama cuts from the start); with the window learned from the server, nothing."""
    with FakeOpenAI(context_api="llama.cpp", context_tokens=1200) as fake:
        variables = react_variables(200)
        fallback = lambda: Reaction(choice="continue", reason="", new_activity="")  # noqa: E731
        asyncio.run(make_llm(fake).complete(REACT, variables, npc_id="i", fallback=fallback, work=WORK))
        assert fake.over_context == 1
        window = asyncio.run(discover_context(fake.base_url, "fake-model", "k"))
        asyncio.run(make_llm(fake, context=window).complete(REACT, react_variables(200), npc_id="i",
                                                            fallback=fallback, work=WORK))
        assert fake.over_context == 1


def test_fitting_counts_with_the_given_tokenizer() -> None:
    """A tokenizer that counts every byte a token (a worst case) gets a prompt within its count."""
    render = lambda v: [{"role": "user", "content": f"{v['persona']}\n{v['memories']}"}]  # noqa: E731
    variables = {"persona": PERSONA, "memories": Bullets([Item(f"memory {i} " * 5, (i, i)) for i in range(100)])}
    messages = fit_to_context(render, variables, 24_000, ContextWindow(900, "a test"), 100, "test", None,
                              count=lambda text: len(text.encode()))
    assert len(messages[0]["content"].encode()) + MESSAGE_TOKENS <= 800
    assert messages[0]["content"].startswith(PERSONA)


def test_the_persona_is_cut_only_after_every_other_part() -> None:
    """A long persona beside a long situation: the situation is cut to make room, the persona kept."""
    render = lambda v: [{"role": "user", "content": f"{v['persona']}\n{v['situation']}"}]  # noqa: E731
    variables = {"persona": "p" * 3000, "situation": "s" * 3000}
    [message] = fit_to_context(render, variables, 4000, None, 0, "test", None)
    assert message["content"].startswith("p" * 3000) and message["content"].endswith(CUT_MARK)


def test_the_embedded_model_counts_with_its_own_tokenizer() -> None:
    try:
        gguf = model_path()
    except EmbeddedLLMUnavailable as exc:
        pytest.skip(f"embedded-llm extra not installed ({exc})")
    count = embedded_counting(str(gguf))
    assert isinstance(count, EmbeddedTokens)
    assert 0 < count(PERSONA) < estimate_tokens(PERSONA)  # the estimate errs long


def test_serve_learns_the_window_at_start(tmp_path) -> None:
    """build_core, as serve runs it, against a vLLM-like fake: the client fits to its max_model_len."""
    settings = Settings(data_dir=tmp_path, llm_model="fake-model", background_thinking=False)

    async def window_of(fake: FakeOpenAI) -> ContextWindow | None:
        async with AsyncExitStack() as stack:
            core = await build_core(settings.model_copy(update={"llm_base_url": fake.base_url}), stack)
            return core.llm.context

    with FakeOpenAI(context_api="vllm", context_tokens=6000) as fake:
        assert asyncio.run(window_of(fake)) == ContextWindow(6000, "vLLM /v1/models max_model_len")


def test_a_server_that_hangs_up_is_asked_once() -> None:
    """A port that accepts and closes at once (a server going down): None after the first route,
    not after every route's timeout."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        accepted = []

        def hang_up() -> None:
            with contextlib.suppress(OSError):
                while True:
                    connection, _ = listener.accept()
                    accepted.append(connection)
                    connection.close()

        threading.Thread(target=hang_up, daemon=True).start()
        port = listener.getsockname()[1]
        assert asyncio.run(discover_context(f"http://127.0.0.1:{port}/v1", "m", "k")) is None
    assert len(accepted) == 1
