"""A small JSON-over-HTTP/1.1 server on a background thread, for the OpenAI-compatible endpoints the
brain and its tests run on loopback: the replay endpoint (llm/recording.py) and the fake endpoint
(npc_lab/fake_openai.py). The standard library's threading server is enough for these: one thread a
connection, no dependency, and the real `openai` client on the other side.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import threading
from typing import Any, Self


class JsonHandler(BaseHTTPRequestHandler):
    """Keep-alive JSON request handler: `read_json()` and `send_json()`; quiet logs."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the servers' owners keep what they need to see (request logs, counters)."""

    def read_json(self) -> dict[str, Any] | None:
        """The request body as JSON, or None after answering 400."""
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body: dict[str, Any] | None = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self.send_json(400, {"error": {"message": "request body is not JSON"}})
            return None
        return body

    def send_json(self, status: int, payload: dict[str, Any]) -> None:
        self.send_body(status, "application/json", json.dumps(payload).encode())

    def send_body(self, status: int, content_type: str | None, data: bytes, **headers: str) -> None:
        """Any answer, as a misbehaving endpoint sends it: no Content-Type if None, extra headers."""
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def answer_models(self, *models: str) -> bool:
        """Answer `GET .../models` (clients list models to check the endpoint) with these models."""
        if not self.path.rstrip("/").endswith("/models"):
            return False
        self.send_json(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": m} for m in models]})
        return True

    def not_found(self) -> None:
        self.send_json(404, {"error": {"message": f"no route {self.path}"}})


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that time out hang up mid-answer: expected here, not worth a traceback."""


class LoopbackServer:
    """Serves `handler` on a background thread: `with Server(...) as s: s.base_url`."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = _QuietServer((host, port), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (`.../v1`) that clients are configured with."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def chat_completion(model: str, content: str | None, prompt_tokens: int, completion_tokens: int, *,
                    refusal: str | None = None, finish_reason: str = "stop") -> dict[str, Any]:
    """An OpenAI chat.completion body with one choice."""
    return {
        "id": "chatcmpl-loopback", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": content, "refusal": refusal}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
