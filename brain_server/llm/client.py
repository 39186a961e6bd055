"""Completions with a purpose: schema-constrained, validated, retried, counted, traced.

Every call names its purpose (a prompt file), asks for JSON matching that purpose's pydantic
schema (`response_format` json_schema where the endpoint supports it), validates the answer,
retries bounded times with backoff on transient errors, and falls back to a caller-supplied
default so an NPC keeps acting when the model misbehaves. Each call is counted per NPC and per
purpose and recorded in the decision trace.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
import random
import re
import time
from typing import Any, TypeVar

import openai
from pydantic import BaseModel, ValidationError
import structlog

from brain_server.prompts import Prompt, PromptLibrary
from brain_server.trace import LlmCallRecord, Trace

Out = TypeVar("Out", bound=BaseModel)
log = structlog.get_logger(__name__)
PURPOSE_HEADER = "X-NPC-Brain-Purpose"
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
# Statuses worth another attempt: rate limits, timeouts, server-side trouble.
_RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}


@dataclass
class UsageCounter:
    calls: int = 0
    failed_attempts: int = 0
    fallbacks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_latency_ms: float = 0.0

    def add(self, call: LlmCallRecord, *, calls: int = 0) -> None:
        self.calls += calls
        self.fallbacks += call.fallback_used
        self.prompt_tokens += call.prompt_tokens
        self.completion_tokens += call.completion_tokens
        self.total_latency_ms += call.latency_ms


class Usage:
    """LLM usage per (npc_id, purpose) and per (npc_id, game hour): the cost that matters."""

    def __init__(self) -> None:
        self.counters: dict[tuple[str, str], UsageCounter] = {}
        self.hourly: dict[tuple[str, datetime], UsageCounter] = {}

    def counter(self, npc_id: str, purpose: str) -> UsageCounter:
        return self.counters.setdefault((npc_id, purpose), UsageCounter())

    def hour(self, npc_id: str, game_time: datetime) -> UsageCounter:
        return self.hourly.setdefault((npc_id, game_time.replace(minute=0, second=0, microsecond=0)), UsageCounter())

    def total_calls(self) -> int:
        return sum(c.calls for c in self.counters.values())


class AnswerError(Exception):
    """The completion arrived but is not usable JSON for the schema."""


def parse_answer(text: str, schema: type[Out]) -> Out:
    """Validate a completion against the schema, tolerating code fences and chatter around the JSON."""
    match = _JSON_OBJECT.search(text or "")
    if not match:
        raise AnswerError(f"no JSON object in the answer: {text[:120]!r}")
    try:
        return schema.model_validate_json(match.group(0))
    except ValidationError as exc:
        raise AnswerError(f"answer does not match the {schema.__name__} schema: {exc.error_count()} error(s): "
                          f"{exc.errors()[0]['loc']} {exc.errors()[0]['msg']}") from exc


class LLM:
    """One OpenAI-compatible endpoint, shared by all NPCs, with bounded concurrency."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str,
        prompts: PromptLibrary,
        timeout_s: float = 60.0,
        max_attempts: int = 3,
        json_schema: bool = True,
        max_concurrency: int = 8,
        backoff_s: float = 0.5,
        recorder: Callable[[str, list[dict[str, str]], str, int, int], None] | None = None,
    ) -> None:
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)
        self.model = model
        self.prompts = prompts
        self.usage = Usage()
        self._max_attempts = max_attempts
        self._json_schema = json_schema
        self._slots = asyncio.Semaphore(max_concurrency)
        self._backoff_s = backoff_s
        self._recorder = recorder  # llm/recording.py: sees every completion received

    async def close(self) -> None:
        await self._client.close()

    async def complete(
        self,
        prompt: Prompt[Out],
        variables: Mapping[str, Any],
        *,
        npc_id: str,
        fallback: Callable[[], Out],
        trace: Trace | None = None,
    ) -> Out:
        """The validated answer, or `fallback()` once the attempts are spent; never raises for LLM trouble."""
        messages = self.prompts.render(prompt.purpose, variables, prompt.system)
        record = LlmCallRecord(purpose=prompt.purpose, model=self.model, messages=messages)
        counter = self.usage.counter(npc_id, prompt.purpose)
        counter.calls += 1  # counted up front, so a call in flight shows
        started = time.perf_counter()
        result: Out | None = None
        for attempt in range(1, self._max_attempts + 1):
            record.attempts = attempt
            try:
                result = await self._attempt(prompt, variables, messages, record)
                break
            except (AnswerError, openai.APIError) as exc:
                counter.failed_attempts += 1
                record.errors.append(f"attempt {attempt}: {_describe(exc)}")
                log.warning("llm_attempt_failed", purpose=prompt.purpose, attempt=attempt, error=_describe(exc))
                if not _worth_retrying(exc) or attempt == self._max_attempts:
                    break
                await asyncio.sleep(self._backoff_s * 2 ** (attempt - 1) * (0.5 + random.random()))
        if result is None:
            result = fallback()
            record.fallback_used = True
        record.parsed_json = result.model_dump_json()
        record.latency_ms = (time.perf_counter() - started) * 1000
        counter.add(record)
        if trace is not None:
            self.usage.hour(npc_id, trace.game_time).add(record, calls=1)
            trace.llm_calls.append(record)
        return result

    async def _attempt(
        self, prompt: Prompt[Out], variables: Mapping[str, Any], messages: list[dict[str, str]], record: LlmCallRecord
    ) -> Out:
        kwargs: dict[str, Any] = {}
        if self._json_schema:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": prompt.purpose, "schema": prompt.json_schema(variables)},
            }
        async with self._slots:
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=0.7,
                max_tokens=prompt.max_tokens,
                extra_headers={PURPOSE_HEADER: prompt.purpose},
                **kwargs,
            )
        if response.usage:
            record.prompt_tokens += response.usage.prompt_tokens
            record.completion_tokens += response.usage.completion_tokens
        choice = response.choices[0] if response.choices else None
        record.raw_completion = (choice.message.content or "") if choice else ""
        if self._recorder is not None and response.usage is not None:
            self._recorder(prompt.purpose, messages, record.raw_completion, response.usage.prompt_tokens,
                           response.usage.completion_tokens)
        if choice and getattr(choice.message, "refusal", None):
            raise AnswerError(f"the model refused: {choice.message.refusal}")
        return parse_answer(record.raw_completion, prompt.schema)


def _worth_retrying(exc: Exception) -> bool:
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRYABLE_STATUS
    return True  # bad answers, timeouts and refused connections may pass on another try


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code} from the LLM endpoint"
    if isinstance(exc, openai.APITimeoutError):
        return "the LLM endpoint timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "cannot connect to the LLM endpoint"
    return str(exc)

