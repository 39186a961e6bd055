"""The model's context window, and prompts fitted to it in its tokens.

A prompt longer than the context is not refused everywhere: Ollama's OpenAI route ignores a
per-request context size and keeps the end of a prompt that does not fit, so the system prompt and
the NPC's identity are lost first, silently. So the brain learns the window once, at start:
NPC_BRAIN_LLM_CONTEXT_TOKENS if set, else what the server says (`discover_context`: vLLM's
`/v1/models` `max_model_len`, llama.cpp's `/props` `default_generation_settings.n_ctx`, Ollama's
`/api/ps` `context_length` of the loaded model, else `/api/show`'s `num_ctx` parameter, else
Ollama's default capped by the model's own `*.context_length`; LM Studio's `/api/v1/models` context
of the loaded instance, or `/api/v0/models` `loaded_context_length`, else LM Studio's default capped
by the model's `max_context_length`), and the embedded model's is its n_ctx. Every prompt is then
fitted to the window less its answer's max_tokens (`fit_to_context`), with `budget.fit_prompt`'s
order: memories dropped first, the persona cut last, the instructions never. Tokens are counted
with the embedded model's own tokenizer when it is the model (`EmbeddedTokens`), else estimated
(`estimate_tokens`) so that the estimate errs long.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
import math
import re
import threading
from typing import Any

import httpx
import structlog

from brain_server.config import Settings
from brain_server.model.budget import fit_prompt, size
from brain_server.model.trace import Trace

log = structlog.get_logger(__name__)

# English prose runs about 4 UTF-8 bytes a token in the tokenizers of Llama 3, Qwen 2.5, Mistral
# and SmolLM2; counting 3 errs long by a quarter, so an estimated prompt fits a real window.
BYTES_PER_TOKEN = 3
MESSAGE_TOKENS = 8  # a chat template's tokens around each message (role, start and end markers)
# Ollama's context when it does not say (a model not loaded, no num_ctx in its Modelfile): the
# default of its releases since 0.6 (2048 before); OLLAMA_CONTEXT_LENGTH on the server changes it,
# NPC_BRAIN_LLM_CONTEXT_TOKENS tells the brain.
OLLAMA_DEFAULT_CONTEXT = 4096
LM_STUDIO_DEFAULT_CONTEXT = 4096  # what LM Studio loads a model with unless its settings say otherwise
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)", re.MULTILINE)

Render = Callable[[Mapping[str, Any]], list[dict[str, str]]]
Count = Callable[[str], int]


@dataclass(frozen=True)
class ContextWindow:
    tokens: int
    source: str  # where the brain learned it, for logs, the trace and `npc-brain check`


def estimate_tokens(text: str) -> int:
    return math.ceil(size(text) / BYTES_PER_TOKEN)


def prompt_tokens(messages: list[dict[str, str]], count: Count = estimate_tokens) -> int:
    return sum(count(m["content"]) + MESSAGE_TOKENS for m in messages)


def fit_to_context(render: Render, variables: Mapping[str, Any], budget_bytes: int, window: ContextWindow | None,
                   answer_tokens: int, purpose: str, trace: Trace | None,
                   count: Count = estimate_tokens) -> list[dict[str, str]]:
    """The rendered messages within `budget_bytes` and, with a `window`, within its tokens less
    `answer_tokens`: the byte budget narrowed in proportion to the tokens over until they fit."""
    messages = fit_prompt(render, variables, budget_bytes, purpose, trace)
    if window is None:
        return messages
    room = max(window.tokens - answer_tokens, 1)
    why = f"room for it in the model's {window.tokens}-token context ({window.source}; {answer_tokens} kept for the answer)"
    for _ in range(4):  # the ratio of bytes to tokens shifts as parts are dropped: a few rounds settle it
        if sum(size(m["content"]) + MESSAGE_TOKENS for m in messages) <= room:
            break  # a token is at least a byte: no need to count
        tokens = prompt_tokens(messages, count)
        if tokens <= room:
            break
        budget_bytes = min(budget_bytes, sum(size(m["content"]) for m in messages)) * room // tokens - 1
        messages = fit_prompt(render, variables, max(budget_bytes, 1), purpose, trace, why=why)
    return messages


class EmbeddedTokens:
    """The embedded GGUF's own tokenizer (its vocabulary alone, no weights: a few MB), for counting."""

    def __init__(self, gguf: str) -> None:
        from llama_cpp import Llama

        self._vocab = Llama(model_path=gguf, vocab_only=True, verbose=False)
        self._lock = threading.Lock()  # counted in worker threads (llm/client.py): one at a time

    def __call__(self, text: str) -> int:
        with self._lock:
            return len(self._vocab.tokenize(text.encode(), add_bos=False, special=True))


def embedded_counting(gguf: str) -> Count:
    """The embedded model's tokenizer, else (llama_cpp missing or the file unreadable) the estimate."""
    try:
        return EmbeddedTokens(gguf)
    except Exception as exc:  # noqa: BLE001 - counting falls back to the estimate, which errs long
        log.warning("embedded_tokenizer_unavailable", error=str(exc)[:200], note="prompt tokens are estimated")
        return estimate_tokens


async def context_at_start(settings: Settings, base_url: str | None) -> ContextWindow | None:
    """NPC_BRAIN_LLM_CONTEXT_TOKENS, else what the configured endpoint says (None: it does not say,
    or there is no endpoint yet: the embedded model's is its own n_ctx)."""
    if settings.llm_context_tokens:
        return ContextWindow(settings.llm_context_tokens, "NPC_BRAIN_LLM_CONTEXT_TOKENS")
    if not base_url or settings.llm_replay:
        return None
    found = await discover_context(base_url, settings.llm_model, settings.llm_api_key.get_secret_value())
    if found is None:
        log.info("llm_context_unknown", note="the endpoint does not say its context window: prompts are kept to "
                 "NPC_BRAIN_PROMPT_MAX_BYTES; set NPC_BRAIN_LLM_CONTEXT_TOKENS to fit them to it")
    else:
        log.info("llm_context", tokens=found.tokens, source=found.source)
    return found


async def discover_context(base_url: str, model: str, api_key: str, timeout_s: float = 5.0) -> ContextWindow | None:
    """The context window the server at `base_url` (its /v1 address) runs `model` with, or None
    when it does not say (hosted APIs)."""
    root = base_url.rstrip("/").removesuffix("/v1")
    headers = {"Authorization": f"Bearer {api_key}"}
    async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as client:
        for ask in (_vllm, _llama_cpp, _ollama, _lm_studio):
            try:
                found = await ask(client, base_url.rstrip("/"), root, model)
            except httpx.TransportError:
                return None  # down or unreachable: the other routes would only wait as long again
            except (httpx.HTTPError, ValueError, TypeError, AttributeError, KeyError):
                found = None  # not this kind of server
            if found is not None:
                return found
    return None


async def _json(client: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> Any:
    response = await client.request(method, url, **kwargs)
    response.raise_for_status()
    return response.json()


async def _vllm(client: httpx.AsyncClient, base: str, root: str, model: str) -> ContextWindow | None:
    listed = (await _json(client, "GET", f"{base}/models")).get("data") or []
    lengths = {m.get("id"): m.get("max_model_len") for m in listed if isinstance(m, dict)}
    tokens = lengths.get(model) or next((n for n in lengths.values() if n), None)
    return ContextWindow(int(tokens), "vLLM /v1/models max_model_len") if tokens else None


async def _llama_cpp(client: httpx.AsyncClient, base: str, root: str, model: str) -> ContextWindow | None:
    tokens = (await _json(client, "GET", f"{root}/props"))["default_generation_settings"]["n_ctx"]
    return ContextWindow(int(tokens), "llama.cpp /props n_ctx") if tokens else None


async def _ollama(client: httpx.AsyncClient, base: str, root: str, model: str) -> ContextWindow | None:
    names = {model, f"{model}:latest"}
    for running in (await _json(client, "GET", f"{root}/api/ps")).get("models") or []:
        if (running.get("name") in names or running.get("model") in names) and running.get("context_length"):
            return ContextWindow(int(running["context_length"]), "Ollama /api/ps context_length")
    shown = await _json(client, "POST", f"{root}/api/show", json={"model": model})
    num_ctx = _NUM_CTX.search(shown.get("parameters") or "")
    if num_ctx:
        return ContextWindow(int(num_ctx.group(1)), "Ollama /api/show num_ctx")
    trained = [int(v) for k, v in (shown.get("model_info") or {}).items() if k.endswith(".context_length")]
    return ContextWindow(min([OLLAMA_DEFAULT_CONTEXT, *trained]),
                         f"Ollama's default for a model it has not loaded ({OLLAMA_DEFAULT_CONTEXT})")


async def _lm_studio(client: httpx.AsyncClient, base: str, root: str, model: str) -> ContextWindow | None:
    """The context LM Studio loaded `model` with (its own maximum is more, and a prompt past the loaded
    context is refused): `/api/v1/models` (0.4 and later), else `/api/v0/models` (0.3.6 and later). A
    model not loaded yet is loaded by its first request with LM Studio's default, capped by its maximum."""
    try:
        listed = (await _json(client, "GET", f"{root}/api/v1/models"))["models"]
        models = [(m.get("key"), [i.get("id") for i in m.get("loaded_instances") or []],
                   [i.get("config", {}).get("context_length") for i in m.get("loaded_instances") or []],
                   m.get("max_context_length")) for m in listed if m.get("type") == "llm"]
        route = "LM Studio /api/v1/models"
    except (httpx.HTTPStatusError, KeyError):
        listed = (await _json(client, "GET", f"{root}/api/v0/models"))["data"]
        models = [(m.get("id"), [m.get("id")] if m.get("state") == "loaded" else [], [m.get("loaded_context_length")],
                   m.get("max_context_length")) for m in listed if m.get("type") in ("llm", "vlm") and "state" in m]
        route = "LM Studio /api/v0/models"
    named = [m for m in models if m[0] == model or model in m[1]] or [m for m in models if m[1]][:1]
    if not named:
        return None
    key, instances, loaded, most = named[0]
    if instances and (tokens := next((n for n in loaded if n), None)):
        return ContextWindow(int(tokens), f"{route}: {key} loaded with {int(tokens)}")
    return ContextWindow(min(LM_STUDIO_DEFAULT_CONTEXT, int(most or LM_STUDIO_DEFAULT_CONTEXT)),
                         f"LM Studio's default for a model it has not loaded ({LM_STUDIO_DEFAULT_CONTEXT})")
