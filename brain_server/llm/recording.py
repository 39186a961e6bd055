"""Record and replay LLM completions.

`NPC_BRAIN_LLM_RECORD=calls.jsonl` appends one line per completion the brain receives: its
purpose, a hash of the request (purpose + messages), the messages, the raw answer and the
token counts. `NPC_BRAIN_LLM_REPLAY=calls.jsonl` starts `ReplayServer`, an OpenAI-compatible
server on loopback that answers each request from the recording, so the real `openai` client
and the whole validation path keep being used, with no endpoint at all. Requests with the same
hash are answered in recorded order (the last answer repeats when the recording runs out); a
request that was never recorded gets HTTP 404, which the brain treats like any unusable answer
(no retry, the purpose's fallback) and which is counted in `ReplayServer.misses`.
Embeddings are not recorded: the default local MiniLM model is deterministic.
"""

from __future__ import annotations

from collections import defaultdict
import hashlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
from pathlib import Path
import threading
from typing import Any

PURPOSE_HEADER = "X-NPC-Brain-Purpose"


def request_hash(purpose: str, messages: list[dict[str, Any]]) -> str:
    text = json.dumps([purpose, [[m.get("role", ""), m.get("content", "")] for m in messages]], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class Recorder:
    """Appends completions to a JSONL file; safe to call from the event loop and from threads."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def __call__(self, purpose: str, messages: list[dict[str, Any]], content: str, prompt_tokens: int,
                 completion_tokens: int) -> None:
        line = json.dumps({"purpose": purpose, "hash": request_hash(purpose, messages), "messages": messages,
                           "content": content, "prompt_tokens": prompt_tokens,
                           "completion_tokens": completion_tokens}, ensure_ascii=False)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()


def load_recording(path: Path | str) -> dict[str, list[dict[str, Any]]]:
    answers: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                entry = json.loads(line)
                answers[entry["hash"]].append(entry)
    return dict(answers)


class ReplayServer:
    """An OpenAI-compatible chat endpoint answering from a recording: `with ReplayServer(p) as r: r.base_url`."""

    def __init__(self, path: Path | str, host: str = "127.0.0.1", port: int = 0) -> None:
        self.answers = load_recording(path)
        self.used: dict[str, int] = defaultdict(int)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> ReplayServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def answer(self, purpose: str, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
        key = request_hash(purpose, messages)
        with self._lock:
            recorded = self.answers.get(key)
            if not recorded:
                self.misses += 1
                return None
            self.hits += 1
            index = min(self.used[key], len(recorded) - 1)
            self.used[key] += 1
            return recorded[index]


def _handler(replay: ReplayServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "replay", "object": "model", "owned_by": "replay"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "request body is not JSON"}})
                return
            if not self.path.endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path} (only chat completions are replayed)"}})
                return
            entry = replay.answer(self.headers.get(PURPOSE_HEADER, ""), body.get("messages", []))
            if entry is None:
                self._send(404, {"error": {"message": "this request is not in the recording", "type": "not_found"}})
                return
            self._send(200, {
                "id": "chatcmpl-replay", "object": "chat.completion", "created": 0, "model": body.get("model", "replay"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": entry["content"]}}],
                "usage": {"prompt_tokens": entry["prompt_tokens"], "completion_tokens": entry["completion_tokens"],
                          "total_tokens": entry["prompt_tokens"] + entry["completion_tokens"]},
            })

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
