"""A deterministic fake OpenAI-compatible server for tests, demos and benchmarks.

It speaks the real wire format (`/v1/chat/completions`, `/v1/embeddings`, `/v1/models`) so the
real `openai` client is exercised end to end. Answers are generated from the request's
`response_format` JSON schema, seeded by a hash of the messages: the same request always gets
the same answer. Tests can queue scripted replies (garbage, HTTP errors, delays) through
`POST /_fake/script` and read what was asked through `GET /_fake/requests`.

Fault mode (`FakeOpenAI(fault_rate=0.3, seed=1)`, `--fault-rate 0.3`) answers that share of chat
requests with a fault drawn from `FAULTS` by a seeded generator: garbage, truncated JSON,
schema-violating JSON, an empty answer, a refusal, wrong types, HTTP 429/500/503, an answer slower
than the client's timeout, or a dropped connection. `fake.faults` counts what was injected.
A single fault can also be scripted: `fake.queue({"fault": "truncated"})`. `BOUNDARY_FAULTS` are
answers that are not a chat completion at all (a proxy's HTML page, plain text, JSON of another
shape, a reset mid-body...): scripted the same way, or drawn with `FakeOpenAI(faults=BOUNDARY_FAULTS)`.

Streaming: a chat request with `"stream": true` is answered with server-sent events, one chunk a
token (a word's run of up to four characters), the first after `latency_s` and the others at
`tokens_per_s` (`FakeOpenAI(latency_s=0.3, tokens_per_s=30)`: what a hosted model does); a request
without it waits as long for the whole answer. `streaming="ignore"` answers a streamed request whole
(as some OpenAI-compatible servers do), `streaming="refuse"` with HTTP 400. `fake.streams_cut`
counts streams the client hung up on before their end (a cancelled line).

Thinking (`FakeOpenAI(think_words=200)`, `--think 200`): every answer starts with a reasoning block
of that many words (`<think>...</think>`, braces and a draft included, as DeepSeek-R1 and Qwen3
write in the content) and is cut at the request's `max_tokens` words (`finish_reason` "length"):
a model whose thinking eats the tokens it was given. `think_opened=True`: the chat template opened the
block in the prompt (llama.cpp's forced-open thinking, DeepSeek-R1's template), so the content has only its close.

Misconfiguration (constructor options) answers as real endpoints answer a client set up wrong:
`models=` (another model: 404 model_not_found), `api_key=` (another key: 401), `path_prefix="/v1"`
(paths outside it: 404, so a base URL without /v1 fails), `response_formats=("json_object",
"text")` (json_schema: HTTP 400, as older vLLM and llama.cpp servers answer) and
`reasoning_api=True` (HTTP 400 to `max_tokens` and to a temperature other than 1, word for word
as OpenAI's reasoning models, o-series and GPT-5, answer them).

Context discovery (`FakeOpenAI(context_api="ollama", context_tokens=2048)`): the routes where a
server says its context window, as each answers them: "vllm" (`max_model_len` in `/v1/models`),
"llama.cpp" (`GET /props`), "ollama" (`GET /api/ps` with the model loaded, `POST /api/show` with
`num_ctx` and the model's own `llama.context_length`), "ollama_unloaded" (`/api/ps` empty, no
`num_ctx`), "lmstudio" (`GET /api/v1/models`, the model loaded with `context_tokens`),
"lmstudio_unloaded" (listed, not loaded) and "lmstudio_v0" (`GET /api/v0/models`, LM Studio 0.3). `fake.over_context` counts chat requests whose prompt and max_tokens would not fit
`context_tokens` (estimated as the brain estimates, erring long): what such a server cuts or refuses.

    python -m npc_lab.fake_openai --port 8999 [--latency 0.5] [--fault-rate 0.3 --seed 1] [--context-api ollama]
"""

from __future__ import annotations

import argparse
from collections import deque
from datetime import datetime, timedelta
import hashlib
import json
import math
from pathlib import Path
import random
import re
import socket
import struct
import threading
import time
from typing import Any

from brain_server.llm.client import PURPOSE_HEADER
from brain_server.llm.context import prompt_tokens
from brain_server.llm.probe import PROBE_PURPOSE
from brain_server.prompts.converse_turn import END, GO_ON
from brain_server.runtime.loopback import JsonHandler, LoopbackServer, chat_completion
from brain_server.runtime.parent import end_with

WORDS = ("quiet", "morning", "coffee", "friendly", "garden", "book", "music", "neighbour", "market", "walk",
         "painting", "lecture", "bread", "river", "festival", "letter", "window", "recipe", "lantern", "chess")
ACTIVITIES = (("waking up and getting ready", "🪥"), ("having breakfast", "🍳"), ("working", "💼"),
              ("having lunch", "🥪"), ("reading a book", "📖"), ("taking a walk", "🚶"),
              ("chatting with neighbours", "💬"), ("cooking dinner", "🍲"), ("relaxing", "🛋️"),
              ("going to sleep", "😴"))
# Everything an unreliable endpoint does, as fault mode injects it.
FAULTS = ("garbage", "truncated", "schema_violation", "empty", "refusal", "wrong_types", "http_429", "http_500",
          "http_503", "slow", "drop")
# What an endpoint that is not (only) a chat completions API answers: a proxy's sign-in page as HTTP 200
# (or behind a redirect, or labelled JSON), plain text, JSON without choices or with empty ones, a null
# message, content that is not text, a runaway multi-megabyte answer, a connection reset mid-body.
# Not in FAULTS, so fault mode's seeded draws stay as they were; ask for them with `faults=`.
BOUNDARY_FAULTS = ("html_200", "text_200", "json_no_choices", "empty_choices", "null_message", "non_text_content",
                   "huge_body", "reset_mid_body", "redirect", "wrong_content_type")
ALL_FAULTS = FAULTS + BOUNDARY_FAULTS
LOGIN_PAGE = (b"<!DOCTYPE html><html><head><title>Sign in</title></head>"
              b"<body><form action='/_fake/login' method='post'><input name='user'></form></body></html>")
HUGE_BODY_BYTES = 4 << 20
HELD_S = 120  # the longest a scripted answer waits for its test's "until" event
STREAMING = ("sse", "ignore", "refuse")
CONTEXT_APIS = (None, "vllm", "llama.cpp", "ollama", "ollama_unloaded", "lmstudio", "lmstudio_unloaded", "lmstudio_v0")
TRAINED_CONTEXT = 131_072  # the model's own context length that a fake Ollama's /api/show reports
_TOKEN = re.compile(r"\s*\S{1,4}|\s+")


class FakeOpenAI(LoopbackServer):
    """The fake server, run in a background thread: `with FakeOpenAI() as fake: fake.base_url`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, latency_s: float = 0.0, *, fault_rate: float = 0.0,
                 seed: int = 0, slow_s: float = 3.0, faults: tuple[str, ...] = FAULTS,
                 models: tuple[str, ...] | None = None, api_key: str | None = None, path_prefix: str | None = None,
                 response_formats: tuple[str, ...] = ("json_schema", "json_object", "text"),
                 tokens_per_s: float = 0.0, streaming: str = "sse", think_words: int = 0, think_opened: bool = False,
                 reasoning_api: bool = False, context_api: str | None = None,
                 context_tokens: int = 4096, capture: Path | None = None) -> None:
        if streaming not in STREAMING:
            raise ValueError(f"streaming {streaming!r} is not one of {STREAMING}")
        self.latency_s = latency_s
        self.tokens_per_s = tokens_per_s  # 0: the whole answer at once after latency_s
        self.streaming = streaming
        self.streams_cut = 0
        self.streams_done = 0  # streams written to their end: a client can tell what arrived before the last token
        self.think_words = think_words  # a reasoning block of this many words before every answer
        self.think_opened = think_opened  # that block's opening tag left to the template (not in the content)
        self.reasoning_api = reasoning_api  # max_tokens and temperature refused, as OpenAI's reasoning models do
        if context_api not in CONTEXT_APIS:
            raise ValueError(f"context_api {context_api!r} is not one of {CONTEXT_APIS}")
        self.context_api, self.context_tokens = context_api, context_tokens
        self.over_context = 0  # chat requests that would not fit context_tokens
        self.fault_rate = fault_rate  # share of chat requests answered with a fault (settable while running)
        self.fault_kinds = faults
        self.slow_s = slow_s  # how long a "slow" fault waits: set it above the client's timeout
        self.faults: dict[str, int] = {}  # injected faults by kind
        self._rng = random.Random(seed)
        self.script: dict[str | None, deque[dict[str, Any]]] = {}
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.models = models  # served models (None: any name answers; "fake-model" is listed)
        self.api_key = api_key
        self.path_prefix = path_prefix  # None: any path ending in a route answers
        self.response_formats = response_formats
        self.capture = capture  # a JSON line per chat request appended here: what a model receives, for a blind writer
        super().__init__(_handler_for(self), host, port)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path_prefix or '/v1'}"

    def refusal(self, path: str, authorization: str | None, body: dict[str, Any] | None) -> tuple[int, dict] | None:
        """(status, body) that a real endpoint answers a misconfigured client with, per the options; or None."""
        if self.path_prefix is not None and not path.startswith(f"{self.path_prefix}/"):
            return 404, {"error": {"message": f"no route {path}"}}
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return 401, _error("Incorrect API key provided.", "invalid_api_key")
        if body is None:
            return None
        if self.models is not None and body.get("model") not in self.models:
            return 404, _error(f"The model `{body.get('model')}` does not exist or you do not have access to it.",
                               "model_not_found")
        if self.reasoning_api and "max_tokens" in body:
            return 400, _error("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                               "'max_completion_tokens' instead.", "unsupported_parameter", param="max_tokens")
        if self.reasoning_api and body.get("temperature", 1) != 1:
            return 400, _error(f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
                               "model. Only the default (1) value is supported.", "unsupported_value",
                               param="temperature")
        if body.get("stream") and self.streaming == "refuse":
            return 400, _error("stream is not supported by this server", None, param="stream")
        kind = (body.get("response_format") or {}).get("type", "text")
        if kind not in self.response_formats:
            return 400, _error(f"response_format type {kind!r} is not supported; supported: "
                               f"{', '.join(self.response_formats)}", None, param="response_format")
        return None

    def queue(self, *replies: dict[str, Any], purpose: str | None = None) -> None:
        """Replies used by the next chat requests (of one purpose, if given), in order:
        {"status": 503}, {"status": 429, "retry_after": 2} (a Retry-After header), {"content": "not json"}, {"json": {...}}, {"delay_s": 3}, {"refusal": "no"};
        {"until": threading.Event()} holds the answer until the test sets it (HELD_S at most), so a
        test sees the brain while a completion is under way whatever the machine's load;
        anything else is answered normally."""
        with self._lock:
            self.script.setdefault(purpose, deque()).extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.script.clear()
            self.requests.clear()

    def chat_requests(self, purpose: str | None = None) -> list[dict[str, Any]]:
        """Chat requests (of one purpose); the brain's start-up probe only when asked for by its purpose."""
        with self._lock:
            return [r for r in self.requests if r["path"].endswith("/chat/completions")
                    and (r["purpose"] == purpose if purpose else r["purpose"] != PROBE_PURPOSE)]

    def _next_scripted(self, purpose: str | None) -> dict[str, Any] | None:
        with self._lock:
            # The brain's start-up probe takes only replies scripted for its purpose, and no random faults.
            for key in (purpose,) if purpose == PROBE_PURPOSE else (purpose, None):
                if self.script.get(key):
                    return self.script[key].popleft()
            if self.fault_rate and purpose != PROBE_PURPOSE and self._rng.random() < self.fault_rate:
                return {"fault": self._rng.choice(self.fault_kinds)}
            return None

    def _count_fault(self, kind: str) -> None:
        with self._lock:
            self.faults[kind] = self.faults.get(kind, 0) + 1

    def _log(self, path: str, purpose: str | None, body: dict[str, Any]) -> None:
        messages = body.get("messages") if isinstance(body.get("messages"), list) else []
        asked = [{"content": str(m.get("content") or "")} for m in messages if isinstance(m, dict)]
        over = path.endswith("/chat/completions") and prompt_tokens(asked) + (
            body.get("max_tokens") or body.get("max_completion_tokens") or 0) > self.context_tokens
        with self._lock:
            self.requests.append({"path": path, "purpose": purpose, "body": body, "at": time.monotonic()})
            self.over_context += over
            if self.capture is not None and path.endswith("/chat/completions"):
                with self.capture.open("a", encoding="utf-8") as out:
                    out.write(json.dumps({"purpose": purpose, "body": body}, ensure_ascii=False) + "\n")

    def context_route(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any] | None:
        """The answer of a context discovery route of `context_api`'s server, or None."""
        api, tokens, model = self.context_api, self.context_tokens, (self.models or ("fake-model",))[0]
        if api == "vllm" and method == "GET" and path.rstrip("/").endswith("/models"):
            return {"object": "list", "data": [{"id": m, "object": "model", "max_model_len": tokens}
                                               for m in (self.models or ("fake-model",))]}
        if api == "llama.cpp" and method == "GET" and path == "/props":
            return {"default_generation_settings": {"n_ctx": tokens}, "total_slots": 1}
        if api in ("ollama", "ollama_unloaded") and method == "GET" and path == "/api/ps":
            loaded = [{"name": f"{model}:latest", "model": f"{model}:latest", "context_length": tokens}]
            return {"models": loaded if api == "ollama" else []}
        if api in ("ollama", "ollama_unloaded") and method == "POST" and path == "/api/show":
            return {"parameters": f"num_ctx {tokens}\nstop \"<|eot_id|>\"" if api == "ollama" else "",
                    "model_info": {"general.architecture": "llama", "llama.context_length": TRAINED_CONTEXT}}
        if api in ("lmstudio", "lmstudio_unloaded") and method == "GET" and path == "/api/v1/models":
            loaded = [{"id": model, "config": {"context_length": tokens}}] if api == "lmstudio" else []
            return {"models": [{"type": "llm", "key": model, "loaded_instances": loaded,
                                "max_context_length": TRAINED_CONTEXT},
                               {"type": "embedding", "key": "an-embedder", "loaded_instances": [],
                                "max_context_length": 2048}]}
        if api == "lmstudio_v0" and method == "GET" and path == "/api/v0/models":
            return {"object": "list", "data": [{"id": model, "type": "llm", "state": "loaded",
                                                "loaded_context_length": tokens, "max_context_length": TRAINED_CONTEXT}]}
        return None

    def answer(self, body: dict[str, Any], purpose: str | None) -> Any:
        """The answer to a chat request that nothing scripted: schema-valid random words. A
        subclass answers otherwise over the same server (npc_lab/standin_openai.py reads the prompt)."""
        return answer(body, purpose)

    def describe(self) -> str:
        """What the command line prints once the server listens."""
        return f"fake OpenAI-compatible server on {self.base_url}" + (
            f" (faults in {self.fault_rate:.0%} of chat answers)" if self.fault_rate else "")


def _handler_for(fake: FakeOpenAI) -> type[JsonHandler]:
    class Handler(JsonHandler):

        def do_GET(self) -> None:
            if self.path.startswith("/_fake/login"):  # where the "redirect" fault sends the client
                self.send_body(200, "text/html; charset=utf-8", LOGIN_PAGE)
                return
            if (found := fake.context_route("GET", self.path, None)) is not None:
                self.send_json(200, found)
                return
            if self.path != "/_fake/requests" and self.refused(None):
                return
            if self.answer_models(*(fake.models or ("fake-model",))):
                return
            if self.path == "/_fake/requests":
                self.send_json(200, {"requests": fake.requests})
            else:
                self.not_found()

        def do_POST(self) -> None:
            body = self.read_json()
            if body is None:
                return
            purpose = self.headers.get(PURPOSE_HEADER)
            if self.path == "/_fake/script":
                fake.queue(*body.get("replies", []), purpose=body.get("purpose"))
                self.send_json(200, {"queued": len(body.get("replies", []))})
            elif self.path == "/_fake/reset":
                fake.reset()
                self.send_json(200, {})
            elif (found := fake.context_route("POST", self.path, body)) is not None:
                self.send_json(200, found)
            elif self.path.endswith("/chat/completions"):
                fake._log(self.path, purpose, body)
                if not self.refused(body):
                    self._chat(body, purpose)
            elif self.path.endswith("/embeddings"):
                fake._log(self.path, purpose, body)
                if not self.refused(body):
                    self.send_json(200, embeddings_response(body))
            else:
                self.not_found()

        def refused(self, body: dict[str, Any] | None) -> bool:
            """Answered as a misconfigured client is answered (`FakeOpenAI.refusal`)?"""
            refusal = fake.refusal(self.path, self.headers.get("Authorization"), body)
            if refusal:
                self.send_json(*refusal)
            return refusal is not None

        def _chat(self, body: dict[str, Any], purpose: str | None) -> None:
            if fake.latency_s:
                time.sleep(fake.latency_s)
            scripted = fake._next_scripted(purpose) or {}
            if "fault" in scripted:
                self._fault(scripted["fault"], body, purpose)
                return
            time.sleep(scripted.get("delay_s", 0))
            if "until" in scripted:
                scripted["until"].wait(HELD_S)
            if "status" in scripted:
                error = json.dumps({"error": {"message": "scripted failure", "type": "server_error"}}).encode()
                retry_after = {"Retry-After": str(scripted["retry_after"])} if "retry_after" in scripted else {}
                self.send_body(scripted["status"], "application/json", error, **retry_after)
                return
            if "refusal" in scripted:
                self.send_json(200, completion(body, None, refusal=scripted["refusal"]))
                return
            content = scripted.get("content")
            if "json" in scripted:
                content = json.dumps(scripted["json"], ensure_ascii=False)
            if content is None:
                content = as_text(fake.answer(body, purpose))
            finish = "stop"
            if fake.think_words:
                content, finish = thought_first(content, fake.think_words, body.get("max_tokens"),
                                                opened=fake.think_opened)
            tokens = _TOKEN.findall(content)
            if body.get("stream") and fake.streaming == "sse":
                self._stream(body, tokens)
                return
            if fake.tokens_per_s:
                time.sleep(len(tokens) / fake.tokens_per_s)  # a whole answer waits for its last token
            self.send_json(200, completion(body, content, finish_reason=finish))

        def _stream(self, body: dict[str, Any], tokens: list[str]) -> None:
            """Server-sent events as OpenAI's API sends them: a chunk per token, the usage last when asked."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            whole = completion(body, "".join(tokens))
            events = [{"content": token} for token in tokens] + [{}]
            try:
                for i, delta in enumerate(events):
                    if i and fake.tokens_per_s and delta:
                        time.sleep(1 / fake.tokens_per_s)
                    choice = {"index": 0, "delta": delta, "finish_reason": None if delta else "stop"}
                    self._event({**whole, "object": "chat.completion.chunk", "choices": [choice], "usage": None})
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._event({**whole, "object": "chat.completion.chunk", "choices": []})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                with fake._lock:
                    fake.streams_done += 1
            except OSError:  # the client hung up: a line cancelled while it was written
                with fake._lock:
                    fake.streams_cut += 1

        def _event(self, data: dict[str, Any]) -> None:
            self.wfile.write(b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n")
            self.wfile.flush()

        def _fault(self, kind: str, body: dict[str, Any], purpose: str | None) -> None:
            if kind not in ALL_FAULTS:
                raise ValueError(f"unknown fault {kind!r}; use one of {ALL_FAULTS}")
            fake._count_fault(kind)
            if kind in BOUNDARY_FAULTS:
                self._not_a_completion(kind, body, purpose)
            elif kind.startswith("http_"):
                self.send_json(int(kind[5:]), {"error": {"message": f"injected {kind}", "type": "server_error"}})
            elif kind == "drop":
                # Hang up without a word: the client sees the connection close mid-request.
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
            elif kind == "refusal":
                self.send_json(200, completion(body, None, refusal="I can't help with that."))
            else:
                if kind == "slow":
                    time.sleep(fake.slow_s)
                self.send_json(200, completion(body, faulty_content(kind, fake.answer(body, purpose))))

        def _not_a_completion(self, kind: str, body: dict[str, Any], purpose: str | None) -> None:
            good = as_text(fake.answer(body, purpose))
            if kind == "html_200":
                self.send_body(200, "text/html; charset=utf-8", LOGIN_PAGE)
            elif kind == "text_200":
                self.send_body(200, "text/plain", b"OK")
            elif kind == "wrong_content_type":  # a proxy's page labelled JSON
                self.send_body(200, "application/json", LOGIN_PAGE)
            elif kind == "redirect":  # the client follows it to the sign-in page
                self.send_body(302, "text/html", b"", Location="/_fake/login")
            elif kind == "reset_mid_body":
                data = json.dumps(completion(body, good)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                # SO_LINGER 0: closing sends a TCP reset, not a polite end of stream.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
            elif kind == "huge_body":  # a runaway generation: the answer over and over, megabytes of it
                self.send_json(200, completion(body, good * (HUGE_BODY_BYTES // len(good) + 1)))
            else:
                self.send_json(200, broken_completion(kind, completion(body, good)))

    return Handler


def _error(message: str, code: str | None, param: str | None = None) -> dict[str, Any]:
    """OpenAI's error body."""
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def completion(body: dict[str, Any], content: str | None, refusal: str | None = None, *,
               finish_reason: str = "stop") -> dict[str, Any]:
    """A completion whose token counts are word counts (what the benchmarks count as tokens)."""
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    return chat_completion(body.get("model", "fake-model"), content, prompt_tokens, len((content or "").split()),
                           refusal=refusal, finish_reason=finish_reason)


def thought_first(answer: str, words: int, max_tokens: object, *, opened: bool = False) -> tuple[str, str]:
    """The answer after `words` words of reasoning (a draft with braces among them; `opened`: the
    block's opening tag left to the template), cut at `max_tokens` words as a model's tokens run
    out; and its finish_reason."""
    thinking = " ".join(["Hmm, {let me think}"] + [f"step{i}" for i in range(max(words - 5, 0))]
                        + ['draft: {"x": 1}'])
    text = f"{'' if opened else '<think>'}{thinking}</think>\n{answer}"
    limit = max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else None
    parts = text.split(" ")
    if limit is None or len(parts) <= limit:
        return text, "stop"
    return " ".join(parts[:limit]), "length"


def broken_completion(kind: str, good: dict[str, Any]) -> dict[str, Any]:
    """A chat completion body broken the way `kind` says, made from the right one (changed in place)."""
    if kind == "json_no_choices":
        del good["choices"]
    elif kind == "empty_choices":
        good["choices"] = []
    elif kind == "null_message":
        good["choices"][0]["message"] = None
    elif kind == "non_text_content":  # the answer's JSON object itself where its text belongs
        message = good["choices"][0]["message"]
        message["content"] = json.loads(message["content"])
    return good


def as_text(answer: Any) -> str:
    """A completion's text: a plain-text answer as it is, any other as JSON."""
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def faulty_content(kind: str, good: Any) -> str:
    """The completion text of a content fault, made from the answer that would have been right."""
    text = as_text(good)
    if kind == "garbage":
        return "Sure! Here is what I think: the weather is lovely today."
    if kind == "truncated":
        return text[: max(1, len(text) // 2)]
    if kind == "schema_violation":
        return json.dumps({"answer": "I am not following the schema", "confidence": "high"})
    if kind == "empty":
        return ""
    if kind == "wrong_types" and isinstance(good, str):  # a line's words where the text belongs
        return json.dumps({"utterance": {"unexpected": [1, 2]}})
    if kind == "wrong_types":
        return json.dumps({key: {"unexpected": [1, 2]} for key in good} if isinstance(good, dict) else [good])
    return text  # "slow": a good answer, too late


def embeddings_response(body: dict[str, Any]) -> dict[str, Any]:
    inputs = body.get("input", [])
    inputs = [inputs] if isinstance(inputs, str) else inputs
    dim = int(body.get("dimensions") or 64)
    data = [{"object": "embedding", "index": i, "embedding": hashed_vector(text, dim)} for i, text in enumerate(inputs)]
    return {"object": "list", "data": data, "model": body.get("model", "fake-embed"),
            "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}}


def hashed_vector(text: str, dim: int) -> list[float]:
    """A unit vector from the text's words: texts sharing words are similar, deterministically."""
    vec = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
        vec[h % dim] += 1.0 if (h >> 32) % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def answer(body: dict[str, Any], purpose: str | None) -> Any:
    """A schema-valid answer, deterministic in the messages; a line of dialogue in plain text where
    the prompt asks for one (converse_turn's words, then its tag)."""
    seed = hashlib.sha256(json.dumps(body.get("messages", []), sort_keys=True).encode()).hexdigest()
    rng = random.Random(seed)
    fmt = body.get("response_format") or {}
    if not fmt and GO_ON in str((body.get("messages") or [{}])[-1].get("content", "")):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 9)))
        return f"{words[0].upper()}{words[1:]}.\n{rng.choice((END, GO_ON))}"
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    if "blocks" in schema.get("properties", {}):  # a day plan (without a schema, the fake answers {})
        return _day_plan(schema, rng)
    return _instance(schema, schema, rng, "value")


def _day_plan(schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A plausible day: hourly-ish blocks from 07:00 to bed, at the places the schema allows, and
    the day's broad strokes where the schema asks for them."""
    block = _resolve(schema, schema["properties"]["blocks"]["items"])
    places = block["properties"]["address"].get("enum") or ["home"]
    start, blocks = datetime(2000, 1, 1, 7), []
    for activity, emoji in ACTIVITIES:
        minutes = 8 * 60 if activity == "going to sleep" else rng.choice((60, 90, 120))
        blocks.append({"start": start.strftime("%H:%M"), "duration_minutes": minutes, "activity": activity,
                       "emoji": emoji, "address": places[0] if activity in ("waking up and getting ready", "going to sleep")
                       else rng.choice(places)})
        start += timedelta(minutes=minutes)
    plan: dict[str, Any] = {"wake_up_hour": 7, "blocks": blocks}
    if "outline" in schema["properties"]:
        plan["outline"] = [b["activity"] for b in blocks if b["activity"] != "going to sleep"][:6]
    return plan


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _instance(root: dict[str, Any], node: dict[str, Any], rng: random.Random, name: str) -> Any:
    node = _resolve(root, node)
    if "enum" in node:
        return rng.choice(node["enum"])
    if "anyOf" in node:
        return _instance(root, node["anyOf"][0], rng, name)
    kind = node.get("type", "object")
    if kind == "object":
        return {key: _instance(root, sub, rng, key) for key, sub in node.get("properties", {}).items()}
    if kind == "array":
        count = max(node.get("minItems", 0), min(3, node.get("maxItems", 3)))
        return [_instance(root, node.get("items", {}), rng, name) for _ in range(count)]
    if kind == "integer":
        return rng.randint(node.get("minimum", 0), node.get("maximum", 10))
    if kind == "number":
        return rng.uniform(node.get("minimum", 0.0), node.get("maximum", 1.0))
    if kind == "boolean":
        return rng.random() < 0.5
    text = f"{name} " + " ".join(rng.choice(WORDS) for _ in range(4))
    text = text[: node.get("maxLength", 200)]
    return _matching(node["pattern"], rng, text) if "pattern" in node else text


def _matching(pattern: str, rng: random.Random, text: str) -> str:
    """A string the pattern accepts. The brain's schemas use patterns for optional clock times, so
    the candidates are the generated text, a time of day (three times in ten) and nothing."""
    clock = f"{rng.randint(7, 21):02d}:{rng.choice((0, 15, 30, 45)):02d}"
    for candidate in (text, *((clock, "") if rng.random() < 0.3 else ("", clock))):
        if re.fullmatch(pattern, candidate):
            return candidate
    raise ValueError(f"the fake cannot write a string matching {pattern!r}")


def arguments(description: str) -> argparse.ArgumentParser:
    """The command line both loopback endpoints share (this fake and the stand-in model)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8999)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each chat answer")
    parser.add_argument("--fault-rate", type=float, default=0.0, help="share of chat requests answered with a fault")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fault generator (and of the stand-in's choices)")
    parser.add_argument("--slow", type=float, default=3.0, help="seconds a 'slow' fault waits (above the timeout)")
    parser.add_argument("--tokens-per-s", type=float, default=0.0,
                        help="tokens a second after the first (0: the whole answer after --latency)")
    parser.add_argument("--streaming", choices=STREAMING, default="sse",
                        help="a streamed request: streamed, answered whole (ignore) or refused (HTTP 400)")
    parser.add_argument("--think", type=int, default=0, metavar="WORDS",
                        help="a thinking model: each answer after a <think> block of WORDS words, cut at max_tokens")
    parser.add_argument("--think-opened", action="store_true",
                        help="with --think: the block's opening tag left to the chat template (only </think> sent)")
    parser.add_argument("--parent-pid", type=int, metavar="PID",
                        help="end when process PID ends (the lab process that started it)")
    parser.add_argument("--capture", type=Path, metavar="FILE",
                        help="append each chat request's body (messages, response_format, ...) to FILE as a JSON line "
                        "with its purpose: the requests as a model receives them, for writing a blind stand-in")
    return parser


def serve(server: FakeOpenAI, *, parent_pid: int | None = None) -> None:
    """Serve in the foreground until interrupted, or until process `parent_pid` is gone."""
    if parent_pid is not None:
        end_with(parent_pid)
    print(server.describe(), flush=True)
    server._server.serve_forever()


def main() -> None:
    parser = arguments(__doc__.split("\n\n")[0])
    parser.add_argument("--context-api", choices=[a for a in CONTEXT_APIS if a], default=None,
                        help="serve the routes where this kind of server says its context window")
    parser.add_argument("--context-tokens", type=int, default=4096, help="the context window those routes say")
    args = parser.parse_args()
    serve(FakeOpenAI(args.host, args.port, args.latency, fault_rate=args.fault_rate, seed=args.seed, slow_s=args.slow,
                     tokens_per_s=args.tokens_per_s, streaming=args.streaming, think_words=args.think,
                     think_opened=args.think_opened,
                     context_api=args.context_api, context_tokens=args.context_tokens, capture=args.capture),
          parent_pid=args.parent_pid)


if __name__ == "__main__":
    main()
