"""Completions with a purpose: schema-constrained, validated, retried, counted, traced.

Every call names its purpose (a prompt file), asks for JSON matching that purpose's pydantic
schema (`response_format` json_schema where the endpoint supports it), validates the answer,
retries bounded times with backoff on transient errors, and falls back to a caller-supplied
default so an NPC keeps acting when the model misbehaves. Each call is counted per NPC and per
purpose and recorded in the decision trace.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping
import functools
import random
import time
from typing import Any, TypeVar

import httpx2
import openai
from pydantic import BaseModel
import structlog

from brain_server.llm.allowance import Allowance
from brain_server.llm.answers import AnswerError, NotACompletion, chat_message, out_of_room, parse_answer, tokens_of
from brain_server.llm.context import ContextWindow, Count, estimate_tokens, fit_to_context, prompt_tokens
from brain_server.llm.dialects import (
    RESPONSE_MODES,
    ResponseMode,
    adapted,
    as_is,
    opened_by_template,
    posted,
    refused_parameter,
    rejects_response_format,
    response_format,
    schema_in_text,
)
from brain_server.llm.retries import (
    RETRY_AFTER_MAX_S,
    asked_again,
    described,
    echoes_complaint,
    retry_after_s,
    worth_retrying,
)
from brain_server.llm.scheduler import Scheduler, Work, WorkDropped
from brain_server.llm.spending import Ceilings
from brain_server.llm.streaming import Listener, Streamed, stream_completion
from brain_server.llm.usage import FallbackWatch, Usage
from brain_server.model.trace import LlmCallRecord, Trace
from brain_server.prompts import Prompt, PromptLibrary
from brain_server.runtime import metrics

Out = TypeVar("Out", bound=BaseModel)
Kept = TypeVar("Kept")
log = structlog.get_logger(__name__)
PURPOSE_HEADER = "X-NPC-Brain-Purpose"
ROOM_GROWTH = 4  # an answer that ran out of its tokens is asked again with this many times as many
# What the trace keeps of an answer or a body: a runaway answer or a proxy's page is megabytes.
_KEPT_CHARS = 4000


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
        response_mode: ResponseMode | None = None,
        max_concurrency: int = 8,
        backoff_s: float = 0.5,
        retry_after_max_s: float = RETRY_AFTER_MAX_S,
        recorder: Callable[[str, list[dict[str, str]], str, int, int], None] | None = None,
        fallback_purposes: Collection[str] = (),
        prompt_max_bytes: int = 24_000,
        allowance: Allowance | None = None,
        ceilings: Ceilings | None = None,
        send_priority: bool = False,
        extra_body: Mapping[str, Any] | None = None,
        extra_tokens: int = 0,
        refused: Collection[str] = (),
        context: ContextWindow | None = None,
        count_tokens: Count = estimate_tokens,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`response_mode` (what llm/probe.py found to work) beats `json_schema` (False: no response_format).
        `fallback_purposes` are answered by their fallback without asking the model (one too weak for them).
        A prompt over `prompt_max_bytes` has its longest parts cut (budget.py). Calls over the
        `allowance`'s ceilings per game hour, or a tenant's `ceilings` (llm/spending.py), get their fallback.
        `send_priority` sends each completion's class as vLLM's request `priority` (lower first, as in
        llm/scheduler.py), so a vLLM with --scheduling-policy priority orders the town's calls as the brain does.
        `extra_body` is merged into every request (a server's own options, e.g. turning a model's
        thinking off); `extra_tokens` is added to every purpose's max_tokens (room for thinking); `refused`
        are parameters the model is known not to take (the probe's finding), left out from the start.
        Each prompt also fits the model's `context` window less its answer, in tokens as `count_tokens`
        counts them (llm/context.py). `sleep` waits between attempts (a test counts the waits instead)."""
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)
        self.model = model
        self.prompts = prompts
        self.usage = Usage()
        self.fallback_watch = FallbackWatch()
        self._max_attempts = max_attempts
        self.response_mode: ResponseMode = response_mode or ("json_schema" if json_schema else "prompt")
        self.scheduler = Scheduler(max_concurrency)  # llm/scheduler.py: who waits for which slot
        self._backoff_s = backoff_s
        self._retry_after_max_s = retry_after_max_s
        self._sleep = sleep
        self._recorder = recorder  # llm/recording.py: sees every completion received
        self.fallback_purposes = frozenset(fallback_purposes)
        self.prompt_max_bytes = prompt_max_bytes
        self.allowance = allowance or Allowance()
        self.ceilings = ceilings or Ceilings()
        self.send_priority = send_priority
        self.extra_body = dict(extra_body or {})
        self.extra_tokens = extra_tokens
        self.refused: set[str] = set(refused)  # parameters the model refused (`refused_parameter`), left out from then on
        self.streams = True  # until the endpoint refuses a streamed completion
        self.reasoning_first = False  # answers begin inside a reasoning block the chat template opened (learned)
        self.context, self.count_tokens = context, count_tokens

    async def close(self) -> None:
        await self._client.close()

    async def complete(self, prompt: Prompt[Out], variables: Mapping[str, Any], *, npc_id: str, work: Work,
                       fallback: Callable[[], Out], trace: Trace | None = None, listener: Listener | None = None) -> Out:
        """The validated answer, or `fallback()` once the attempts are spent; never raises for LLM trouble
        (WorkDropped is no trouble: the scheduler dropped `work`, which waits in its class for its slot).
        A `listener` (of this prompt's purpose) hears the answer as the model writes it."""
        if listener is not None and listener.purpose != prompt.purpose:
            raise ValueError(f"a listener for {listener.purpose} cannot hear a {prompt.purpose} completion")
        if prompt.purpose in self.fallback_purposes:
            return self._not_asked(prompt, npc_id, fallback, trace, f"not asked: {prompt.purpose} is answered by its "
                                   "fallback with this model (NPC_BRAIN_LLM_FALLBACK_PURPOSES)")
        when = trace.game_time if trace is not None else None  # the game day a tenant's spend counts toward
        if (over := self.ceilings.refusal(npc_id, when)) is not None:
            return self._not_asked(prompt, npc_id, fallback, trace, f"not asked: {over}")
        if trace is not None and (over := self.allowance.take(npc_id, trace.game_time, work.priority)) is not None:
            return self._not_asked(prompt, npc_id, fallback, trace, f"not asked: {over}")
        self.ceilings.called(npc_id, game_time=when)  # before any wait, so a tenant's calls in flight count
        fit = functools.partial(fit_to_context, lambda filled: self.prompts.render(prompt.purpose, filled, prompt.system,
                                                                    prompt.verbatim),
                                variables, self.prompt_max_bytes, self.context, prompt.max_tokens + self.extra_tokens,
                                prompt.purpose, trace, self.count_tokens)
        # A tokenizer takes tens of ms for a long prompt (ctypes, the GIL released): off the mind's loop.
        messages = fit() if self.count_tokens is estimate_tokens else await asyncio.to_thread(fit)
        record = LlmCallRecord(purpose=prompt.purpose, model=self.model, messages=messages)
        counter = self.usage.counter(npc_id, prompt.purpose)
        counter.calls += 1  # counted up front, so a call in flight shows
        started = time.perf_counter()
        result: Out | None = None
        asked, room = messages, prompt.max_tokens + self.extra_tokens
        for attempt in range(1, self._max_attempts + 1):
            record.attempts = attempt
            try:
                result = await self._attempt(prompt, variables, asked, record, work, listener, room)
                break
            except WorkDropped:
                if attempt == 1:
                    counter.calls -= 1  # the scheduler dropped it before the endpoint was asked: no call
                    self.ceilings.called(npc_id, -1, when)
                raise
            except Exception as exc:  # whatever the endpoint or the client does (CancelledError is no Exception)
                invalid = isinstance(exc, AnswerError | NotACompletion)
                counter.failed_attempts += 1
                counter.invalid_answers += invalid
                metrics.LLM_FAILED_ATTEMPTS.labels(prompt.purpose).inc()
                metrics.LLM_INVALID.labels(prompt.purpose).inc(invalid)
                record.errors.append(f"attempt {attempt}: {described(exc)}")
                _said(npc_id, trace).warning("llm_attempt_failed", purpose=prompt.purpose, attempt=attempt,
                                             error=described(exc))
                if not worth_retrying(exc) or attempt == self._max_attempts:
                    break
                if isinstance(exc, AnswerError):
                    asked = asked_again(messages, record.raw_completion, exc, self.prompts.template("answer_again"))
                    if out_of_room(record.raw_completion):
                        room = self._more_room(prompt.purpose, room, asked, npc_id, trace)
                await self._sleep(self._retry_delay_s(exc, attempt))
        counter.attempts += record.attempts
        counter.retries += record.attempts - 1
        metrics.llm_attempts(prompt.purpose, record.attempts)
        if result is None:
            result = fallback()
            record.fallback_used = True
            metrics.LLM_FALLBACKS.labels(prompt.purpose).inc()
        self._watch(prompt.purpose, self.fallback_watch.answered(prompt.purpose, record.fallback_used))
        record.parsed_json = result.model_dump_json()
        record.latency_ms = (time.perf_counter() - started) * 1000
        counter.add(record)
        self.ceilings.answered(npc_id, record.prompt_tokens, record.completion_tokens, when)
        metrics.llm_call(prompt.purpose, "fallback" if record.fallback_used else "answered", record.latency_ms / 1000,
                         record.prompt_tokens, record.completion_tokens)
        if trace is not None:
            self.usage.hour(npc_id, trace.game_time).add(record, calls=1)
            trace.llm_calls.append(record)
        return result

    def _more_room(self, purpose: str, room: int, asked: list[dict[str, str]], npc_id: str, trace: Trace | None) -> int:
        """The tokens an answer that ran out of them (`out_of_room`) is asked again with: ROOM_GROWTH
        times as many, within what the context window leaves after the request. A model that thinks
        before it answers spends its tokens on the thinking, and the one retry at the same budget came
        back empty again (blind33's writer: an 8B thinking model on Ollama, a dialogue line's 200 tokens)."""
        wider = room * ROOM_GROWTH
        if self.context is not None:
            wider = min(wider, max(room, self.context.tokens - prompt_tokens(asked, estimate_tokens)))
        _said(npc_id, trace).info("llm_answer_out_of_room", purpose=purpose, max_tokens=room, again_with=wider,
                                  note="an empty or cut answer: a model that thinks first may need "
                                       "NPC_BRAIN_LLM_EXTRA_TOKENS (README)")
        return wider

    def _retry_delay_s(self, exc: Exception, attempt: int) -> float:
        """The endpoint's Retry-After where it sent one (bounded), else exponential backoff with jitter."""
        asked = retry_after_s(exc)
        if asked is not None:
            return min(asked, self._retry_after_max_s)
        return self._backoff_s * 2.0 ** (attempt - 1) * (0.5 + random.random())

    def _not_asked(self, prompt: Prompt[Out], npc_id: str, fallback: Callable[[], Out], trace: Trace | None,
                   why: str) -> Out:
        """A completion the model is not asked for: its fallback at once, counted as a fallback, not a call."""
        result = fallback()
        record = LlmCallRecord(purpose=prompt.purpose, model=self.model, messages=[], fallback_used=True,
                               errors=[why], parsed_json=result.model_dump_json())
        counter = self.usage.counter(npc_id, prompt.purpose)
        counter.add(record)
        counter.not_asked += 1
        metrics.llm_call(prompt.purpose, "not_asked", None, 0, 0)
        metrics.LLM_FALLBACKS.labels(prompt.purpose).inc()
        if trace is not None:
            self.usage.hour(npc_id, trace.game_time).add(record)
            trace.llm_calls.append(record)
        return result

    def unusable(self, prompt: Prompt[Any], npc_id: str, default: Kept, why: str, trace: Trace | None) -> Kept:
        """`default`, in place of an answer that was valid but that the brain cannot use (a choice not
        offered, an empty status): counted as an invalid answer and a fallback, as the trace's call says."""
        record = next((r for r in reversed(trace.llm_calls) if r.purpose == prompt.purpose), None) if trace else None
        if record is not None:
            if record.fallback_used:
                return default  # the model's answer was never used: that fallback is counted
            record.fallback_used = True
            record.errors.append(f"unusable answer: {why}")
        counter = self.usage.counter(npc_id, prompt.purpose)
        counter.invalid_answers += 1
        counter.fallbacks += 1
        metrics.LLM_INVALID.labels(prompt.purpose).inc()
        metrics.LLM_FALLBACKS.labels(prompt.purpose).inc()
        _said(npc_id, trace).info("llm_answer_unusable", purpose=prompt.purpose, npc_id=npc_id, why=why)
        self._watch(prompt.purpose, self.fallback_watch.unusable(prompt.purpose))
        return default

    def _watch(self, purpose: str, due: tuple[int, int] | None) -> None:
        if due is not None:
            log.warning("llm_fallbacks_high", purpose=purpose, fallbacks=due[0], answers=due[1],
                        note=f"{due[0]} of the last {due[1]} {purpose} answers fell back to a default: is the "
                             "model following the prompts? (GetUsage, /metrics npc_brain_llm_fallbacks)")

    async def _attempt(self, prompt: Prompt[Out], variables: Mapping[str, Any], messages: list[dict[str, str]],
                       record: LlmCallRecord, work: Work, listener: Listener | None, room: int) -> Out:
        schema = prompt.json_schema(variables)
        answer: Streamed | httpx2.Response | None = None
        async with self.scheduler.slot(work):
            if listener is not None and self.streams:
                answer = await self._create_streamed(prompt, schema, messages, work, listener, room)
            if answer is None:
                answer = await self._create(prompt, schema, messages, work, room)
        refusal: object  # a model's refusal: text, or whatever its JSON holds there
        if isinstance(answer, Streamed):
            content, refusal, usage = answer.content, answer.refusal, answer.usage
        else:
            try:
                content, refusal, usage = chat_message(answer)
            except NotACompletion:
                record.raw_completion = _kept(answer.text)  # what came instead, for the trace
                raise
        record.raw_completion = _kept(content)
        if not self.reasoning_first and opened_by_template(content):
            self.reasoning_first = True
            log.info("llm_reasoning_opened_by_template", purpose=prompt.purpose,
                     note="answers close a reasoning block the chat template opened: streamed lines are shown "
                          "from its close on")
        tokens = tokens_of(usage)
        record.prompt_tokens += tokens[0]
        record.completion_tokens += tokens[1]
        if self._recorder is not None:
            self._recorder(prompt.purpose, messages, content, *tokens)
        if refusal:
            raise AnswerError(f"the model refused: {str(refusal)[:200]}")
        if echoes_complaint(messages, content):
            raise AnswerError("the answer repeats the note about the last one instead of answering the request")
        if prompt.read is None:
            return parse_answer(content, prompt.schema)
        try:
            return prompt.read(content, variables)
        except ValueError as exc:  # pydantic's ValidationError included
            raise AnswerError(f"unusable {prompt.purpose} answer: {exc}") from exc

    def _request(self, prompt: Prompt[Out], schema: dict[str, Any], messages: list[dict[str, str]],
                 mode: ResponseMode, work: Work, room: int | None = None) -> dict[str, Any]:
        """The `create` keywords of one completion in a response mode (a plain-text answer: in none),
        its answer given `room` tokens (else the purpose's own and NPC_BRAIN_LLM_EXTRA_TOKENS)."""
        text = prompt.read is not None
        return adapted(dict(model=self.model, messages=schema_in_text(messages, schema) if mode == "prompt" and not text
                            else messages, temperature=0.7, max_tokens=room or prompt.max_tokens + self.extra_tokens,
                            extra_headers={PURPOSE_HEADER: prompt.purpose},
                            extra_body={**self.extra_body, **({"priority": int(work.priority)}
                                                              if self.send_priority else {})} or None,
                            **({} if text else response_format(mode, prompt.purpose, schema))), self.refused)

    async def _create(self, prompt: Prompt[Out], schema: dict[str, Any], messages: list[dict[str, str]],
                      work: Work, room: int | None = None) -> httpx2.Response:
        """One completion in the response mode, its answer as it arrived (`chat_message` reads and
        checks it); an endpoint that rejects the mode (HTTP 400 about response_format) is asked again
        in the next weaker one, which every later call uses too. Posted as `create` would post it
        (`dialects.posted`): the client's own request and response models were ~20% of the brain's
        CPU for one (docs/benchmarks.md)."""
        while True:
            mode = self.response_mode
            try:
                body, headers = posted(self._request(prompt, schema, messages, mode, work, room))
                return await self._client.post("/chat/completions", body=body, cast_to=httpx2.Response,
                                               options={"headers": headers, "security": {"bearer_auth": True}})
            except openai.APIStatusError as exc:
                if self._adapt(exc):
                    continue
                if mode == "prompt" or not rejects_response_format(exc):
                    raise
                self._downgrade(mode)

    async def _create_streamed(self, prompt: Prompt[Out], schema: dict[str, Any], messages: list[dict[str, str]],
                               work: Work, listener: Listener, room: int | None = None) -> Streamed | None:
        """Streamed to the listener (llm/streaming.py), stepping down as `_create` does; None where
        the endpoint refuses to stream (HTTP 400/422 about anything else): asked whole from then on."""
        while True:
            mode = self.response_mode
            try:
                listener.reasoning_first = self.reasoning_first
                return await stream_completion(self._client, listener,
                                               **as_is(self._request(prompt, schema, messages, mode, work, room)))
            except openai.APIStatusError as exc:
                if self._adapt(exc):
                    continue
                if mode != "prompt" and rejects_response_format(exc):
                    self._downgrade(mode)
                elif exc.status_code in (400, 422):
                    self.streams = False
                    log.warning("llm_streaming_refused", status=exc.status_code, note="lines are sent whole from now on")
                    return None
                else:
                    raise

    def _adapt(self, exc: openai.APIStatusError) -> bool:
        """Whether the call may be asked again without a parameter the model just refused."""
        param = refused_parameter(exc)
        if param is None:
            return False
        if param in self.refused:
            return True  # sent before another call learned it: the request leaves it out now
        self.refused.add(param)
        log.warning("llm_parameter_refused", parameter=param, note=f"the model does not take {param}: "
                    + ("sending max_completion_tokens from now on" if param == "max_tokens"
                       else "leaving it to the model from now on"))
        return True

    def _downgrade(self, rejected: ResponseMode) -> None:
        if self.response_mode != rejected:
            return  # a call in flight at the same time has stepped down already
        self.response_mode = RESPONSE_MODES[RESPONSE_MODES.index(rejected) + 1]
        log.warning("llm_response_format_rejected", rejected=rejected, now=self.response_mode,
                    note=f"the LLM endpoint rejects response_format {rejected}: "
                         f"asking with {self.response_mode} from now on")


def _kept(text: str) -> str:
    if len(text) <= _KEPT_CHARS:
        return text
    return f"{text[:_KEPT_CHARS]}… [{len(text) - _KEPT_CHARS} more characters]"


def _said(npc_id: str, trace: Trace | None) -> structlog.typing.FilteringBoundLogger:
    """The logger of a call's lines: its trace's (npc and trace ids), else one with the NPC's id."""
    if trace is not None:
        return trace.log
    bound: structlog.typing.FilteringBoundLogger = log.bind(npc_id=npc_id)
    return bound
