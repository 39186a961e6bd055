"""A deterministic fake OpenAI-compatible server for tests, demos and benchmarks.

It speaks the real wire format (`/v1/chat/completions`, `/v1/embeddings`, `/v1/models`) so the
real `openai` client is exercised end to end. Answers are generated from the request's
`response_format` JSON schema, seeded by a hash of the messages: the same request always gets
the same answer. Tests can queue scripted replies (garbage, HTTP errors, delays) through
`POST /_fake/script` and read what was asked through `GET /_fake/requests`.

    python -m tools.fake_openai --port 8999 [--latency 0.5]
"""

from __future__ import annotations

import argparse
from collections import deque
from datetime import datetime, timedelta
import hashlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import math
import random
import re
import threading
import time
from typing import Any

WORDS = ("quiet", "morning", "coffee", "friendly", "garden", "book", "music", "neighbour", "market", "walk",
         "painting", "lecture", "bread", "river", "festival", "letter", "window", "recipe", "lantern", "chess")
ACTIVITIES = (("waking up and getting ready", "🪥"), ("having breakfast", "🍳"), ("working", "💼"),
              ("having lunch", "🥪"), ("reading a book", "📖"), ("taking a walk", "🚶"),
              ("chatting with neighbours", "💬"), ("cooking dinner", "🍲"), ("relaxing", "🛋️"),
              ("going to sleep", "😴"))


class FakeOpenAI:
    """The fake server, run in a background thread: `with FakeOpenAI() as fake: fake.base_url`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s
        self.script: dict[str | None, deque[dict[str, Any]]] = {}
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = _QuietServer((host, port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def queue(self, *replies: dict[str, Any], purpose: str | None = None) -> None:
        """Replies used by the next chat requests (of one purpose, if given), in order:
        {"status": 503}, {"content": "not json"}, {"json": {...}}, {"delay_s": 3}, {"refusal": "no"};
        anything else is answered normally."""
        with self._lock:
            self.script.setdefault(purpose, deque()).extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.script.clear()
            self.requests.clear()

    def chat_requests(self, purpose: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r["path"].endswith("/chat/completions")
                    and (purpose is None or r["purpose"] == purpose)]

    def _next_scripted(self, purpose: str | None) -> dict[str, Any] | None:
        with self._lock:
            for key in (purpose, None):
                if self.script.get(key):
                    return self.script[key].popleft()
            return None

    def _log(self, path: str, purpose: str | None, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append({"path": path, "purpose": purpose, "body": body})


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that time out hang up mid-answer: expected here, not worth a traceback."""


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read /_fake/requests
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "fake"}]})
            elif self.path == "/_fake/requests":
                self._send(200, {"requests": fake.requests})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "request body is not JSON"}})
                return
            purpose = self.headers.get("X-NPC-Brain-Purpose")
            if self.path == "/_fake/script":
                fake.queue(*body.get("replies", []), purpose=body.get("purpose"))
                self._send(200, {"queued": len(body.get("replies", []))})
            elif self.path == "/_fake/reset":
                fake.reset()
                self._send(200, {})
            elif self.path.endswith("/chat/completions"):
                fake._log(self.path, purpose, body)
                self._chat(body, purpose)
            elif self.path.endswith("/embeddings"):
                fake._log(self.path, purpose, body)
                self._send(200, embeddings_response(body))
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def _chat(self, body: dict[str, Any], purpose: str | None) -> None:
            if fake.latency_s:
                time.sleep(fake.latency_s)
            scripted = fake._next_scripted(purpose) or {}
            time.sleep(scripted.get("delay_s", 0))
            if "status" in scripted:
                self._send(scripted["status"], {"error": {"message": "scripted failure", "type": "server_error"}})
                return
            if "refusal" in scripted:
                self._send(200, completion(body, None, refusal=scripted["refusal"]))
                return
            content = scripted.get("content")
            if "json" in scripted:
                content = json.dumps(scripted["json"], ensure_ascii=False)
            if content is None:
                content = json.dumps(answer(body, purpose), ensure_ascii=False)
            self._send(200, completion(body, content))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def completion(body: dict[str, Any], content: str | None, refusal: str | None = None) -> dict[str, Any]:
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    completion_tokens = len((content or "").split())
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content, "refusal": refusal}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


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
    """A schema-valid answer, deterministic in the messages."""
    seed = hashlib.sha256(json.dumps(body.get("messages", []), sort_keys=True).encode()).hexdigest()
    rng = random.Random(seed)
    fmt = body.get("response_format") or {}
    schema = (fmt.get("json_schema") or {}).get("schema") or {}
    if purpose == "daily_plan" or "blocks" in schema.get("properties", {}):
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
    return text[: node.get("maxLength", 200)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8999)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each chat answer")
    args = parser.parse_args()
    fake = FakeOpenAI(args.host, args.port, args.latency)
    print(f"fake OpenAI-compatible server on {fake.base_url}", flush=True)
    fake._server.serve_forever()


if __name__ == "__main__":
    main()
