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
import json
from pathlib import Path
import threading
from typing import Any

from brain_server.llm.client import PURPOSE_HEADER
from brain_server.runtime.loopback import JsonHandler, LoopbackServer, chat_completion


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


class ReplayServer(LoopbackServer):
    """An OpenAI-compatible chat endpoint answering from a recording: `with ReplayServer(p) as r: r.base_url`."""

    def __init__(self, path: Path | str, host: str = "127.0.0.1", port: int = 0) -> None:
        self.answers = load_recording(path)
        self.used: dict[str, int] = defaultdict(int)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        super().__init__(_handler(self), host, port)

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


def _handler(replay: ReplayServer) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def do_GET(self) -> None:
            if not self.answer_models("replay"):
                self.not_found()

        def do_POST(self) -> None:
            body = self.read_json()
            if body is None:
                return
            if not self.path.endswith("/chat/completions"):
                self.send_json(404, {"error": {"message": f"no route {self.path} (only chat completions are replayed)"}})
                return
            entry = replay.answer(self.headers.get(PURPOSE_HEADER, ""), body.get("messages", []))
            if entry is None:
                self.send_json(404, {"error": {"message": "this request is not in the recording", "type": "not_found"}})
                return
            self.send_json(200, chat_completion(body.get("model", "replay"), entry["content"], entry["prompt_tokens"],
                                                entry["completion_tokens"]))

    return Handler
