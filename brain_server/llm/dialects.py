"""How OpenAI-compatible servers and models differ, and how a request and its answer are fitted to
each: the response_format modes an endpoint takes (json_schema, json_object, or the schema in the
prompt), the parameters a model refuses (OpenAI's reasoning models take no max_tokens and no
temperature), and the reasoning a thinking model writes before its answer."""

from __future__ import annotations

from collections.abc import Collection
import json
import re
from typing import Any, Literal

import openai

REASONING_HINT = ("give it room with NPC_BRAIN_LLM_EXTRA_TOKENS (e.g. 1024), or turn its thinking off with "
                  "NPC_BRAIN_LLM_EXTRA_BODY ('{\"think\": false}' for Ollama, "
                  "'{\"chat_template_kwargs\": {\"enable_thinking\": false}}' for vLLM or llama.cpp, "
                  "'{\"reasoning_effort\": \"low\"}' for OpenAI's)")
ResponseMode = Literal["json_schema", "json_object", "prompt"]
# Strictest first: an endpoint that rejects one mode is asked in the next.
RESPONSE_MODES: tuple[ResponseMode, ...] = ("json_schema", "json_object", "prompt")
_ABOUT_RESPONSE_FORMAT = re.compile(r"response_format|json_schema|json_object", re.IGNORECASE)
# A prompt that shows the answer's shape ('Answer as {"importance": ...}') needs no schema appended.
_SHOWS_SHAPE = re.compile(r'\{\s*"\w+"\s*:')


def response_format(mode: ResponseMode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The `create` keywords for a mode: response_format json_schema, json_object, or none (prompt)."""
    if mode == "json_schema":
        return {"response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}}
    if mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}


def rejects_response_format(exc: Exception) -> bool:
    """HTTP 400/422 about response_format: the endpoint does not support the mode it was asked in."""
    return (isinstance(exc, openai.APIStatusError) and exc.status_code in (400, 422)
            and bool(_ABOUT_RESPONSE_FORMAT.search(f"{exc} {exc.body}")))


_UNSUPPORTED = re.compile(r"unsupported|not supported|does not support|unrecognized|unknown parameter", re.IGNORECASE)
ADAPTABLE = ("max_tokens", "temperature")  # what a model may refuse, and the request still means the same without


def refused_parameter(exc: Exception) -> str | None:
    """The request parameter an HTTP 400/422 says this model does not take: `max_tokens` (OpenAI's
    reasoning models want max_completion_tokens) or `temperature` (they take only the default)."""
    if not (isinstance(exc, openai.APIStatusError) and exc.status_code in (400, 422)):
        return None
    text = f"{exc} {exc.body}"
    if not _UNSUPPORTED.search(text):
        return None
    param = exc.body.get("param") if isinstance(exc.body, dict) else None
    return param if param in ADAPTABLE else next((p for p in ADAPTABLE if f"'{p}'" in text), None)


def adapted(request: dict[str, Any], refused: Collection[str]) -> dict[str, Any]:
    """`create` keywords without what the model refused: its token limit as max_completion_tokens,
    its temperature left to the model."""
    request = dict(request)
    if "max_tokens" in refused and "max_tokens" in request:
        request["max_completion_tokens"] = request.pop("max_tokens")
    if "temperature" in refused:
        request.pop("temperature", None)
    return request


# What openai's `create` would walk key by key to transform (nothing in them needs it: plain JSON),
# ~0.6 ms of CPU a call for a prompt and its schema: sent in `extra_body`, each in its place.
_AS_IS: dict[str, Any] = {"messages": [], "response_format": {}}


def as_is(request: dict[str, Any]) -> dict[str, Any]:
    """`create` keywords whose messages and response_format ride in `extra_body`, their places in
    the body held by empty values (the client merges `extra_body` over its body key by key,
    keeping each key's place): the same bytes on the wire, without the client's transform
    walking the prompt and its schema. The caller's own `extra_body` keys still win."""
    moved = {key: request[key] for key in _AS_IS if key in request}
    return {**request, **{key: _AS_IS[key] for key in moved},
            "extra_body": {**moved, **(request.get("extra_body") or {})}}


# The order `create` gives the keys a completion sends (openai 3.x); extra_body's are merged after.
_CREATE_ORDER = ("model", "messages", "max_completion_tokens", "max_tokens", "response_format", "temperature")


def posted(request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The JSON body and the headers `create` would send for its keywords (`extra_body` merged over
    the rest key by key, as the client merges it): the same bytes, posted without the client's
    request and response models."""
    keywords = {key: value for key, value in request.items() if key not in ("extra_body", "extra_headers")}
    body = {key: keywords.pop(key) for key in _CREATE_ORDER if key in keywords}
    return {**body, **keywords, **(request.get("extra_body") or {})}, dict(request.get("extra_headers") or {})


def schema_in_text(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    """Prompt mode: the schema appended to the last message, unless the prompt already shows the shape."""
    if _SHOWS_SHAPE.search(messages[-1]["content"]):
        return messages
    shape = json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
    return [*messages[:-1], {**messages[-1], "content": f"{messages[-1]['content']}\n\n"
                             f"Answer with one JSON object matching this JSON schema: {shape}"}]


_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_REASONING_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_REASONING_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)


def without_reasoning(text: str) -> str:
    """The answer without the reasoning a thinking model writes first (`<think>...</think>`, as
    DeepSeek-R1, Qwen3 and QwQ do where the server leaves it in the content); a block never closed
    (the tokens ran out while thinking) leaves no answer. A chat template that opens the block
    itself, in the prompt, leaves the answer only its close: what comes before that is reasoning."""
    text = _REASONING.sub("", text)
    if (closes := list(_REASONING_CLOSE.finditer(text))) and not _REASONING_OPEN.search(text, 0, closes[-1].start()):
        text = text[closes[-1].end():]
    opened = _REASONING_OPEN.search(text)
    return text if opened is None else text[:opened.start()]


def closes_reasoning(text: str) -> bool:
    """Whether a reasoning block's close has arrived in `text`."""
    return _REASONING_CLOSE.search(text) is not None


def opened_by_template(text: str) -> bool:
    """Whether an answer closes a reasoning block it never opened: the chat template opened it."""
    closes = list(_REASONING_CLOSE.finditer(text))
    return bool(closes) and not _REASONING_OPEN.search(text, 0, closes[0].start())


def thought_past_its_tokens(text: str) -> bool:
    """Whether the answer is a reasoning block the token limit cut (nothing after it)."""
    opened = _REASONING_OPEN.search(text or "")
    return opened is not None and not without_reasoning(text).strip()
