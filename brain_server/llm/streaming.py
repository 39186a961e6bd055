"""A completion streamed to someone waiting for its words: the player reading an NPC's line.

Answers are JSON (`{"utterance": "...", "end_conversation": false}`), so the words the player may
see are one string field of a JSON object that arrives a few characters at a time. `FieldText`
reads that field's value as far as it has arrived (escapes decoded, an escape cut by a chunk held
back), and the `Listener` hears it grow. A listener is set for the code that writes one line
(`listening`), and the LLM client streams the completions of its purpose to it; every other
completion is asked for as before. An endpoint that does not stream (it answers stream=true with
an error, or with a whole completion) gives the line in one piece.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
import json
import re
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class FieldText:
    """The value of one string field of a JSON object being written, as far as it has arrived."""

    def __init__(self, name: str) -> None:
        self._key = re.compile(f'"{re.escape(name)}"' + r'\s*:\s*"')
        self.buffer = ""

    def feed(self, chunk: str) -> str:
        """The field's text so far, after `chunk` arrived ("" until its value has begun)."""
        self.buffer += chunk
        found = self._key.search(self.buffer)
        return "" if found is None else _decoded_prefix(self.buffer, found.end())


def _decoded_prefix(text: str, start: int) -> str:
    """The JSON string starting at `start` (after its opening quote), decoded up to its closing
    quote or as far as it is complete."""
    out: list[str] = []
    i = start
    while i < len(text):
        char = text[i]
        if char == '"':
            break
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= len(text):
            break  # an escape cut by the chunk: the rest comes with the next one
        code = text[i + 1]
        if code == "u":
            digits = text[i + 2:i + 6]
            if len(digits) < 4:
                break
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:
                break  # not JSON: the whole answer will say so when it is parsed
            i += 6
            continue
        out.append(_ESCAPES.get(code, code))
        i += 2
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16", "replace")


@dataclass
class Listener:
    """Who waits for the words of one field of the completions of one purpose. `text` is the
    field's text as last heard; a retried completion starts it over."""

    purpose: str
    field_name: str
    on_text: Callable[[str], None]
    text: str = ""
    _reader: FieldText | None = field(default=None, repr=False)

    def start(self) -> None:
        """A completion begins (again): its field is read from nothing."""
        self._reader = FieldText(self.field_name)

    def heard(self, chunk: str) -> None:
        assert self._reader is not None, "start() first"
        text = self._reader.feed(chunk)
        if text != self.text:
            self.text = text
            self.on_text(text)


_LISTENER: ContextVar[Listener | None] = ContextVar("npc_brain_listener", default=None)


@contextmanager
def listening(listener: Listener | None) -> Iterator[None]:
    """Completions of the listener's purpose asked within this block stream to it (None: none do)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def listener_for(purpose: str) -> Listener | None:
    listener = _LISTENER.get()
    return listener if listener is not None and listener.purpose == purpose else None


@dataclass
class Streamed:
    """What a streamed completion added up to."""

    content: str
    refusal: str | None
    usage: object


async def stream_completion(client: openai.AsyncOpenAI, listener: Listener, **create: Any) -> Streamed:
    """One completion asked with stream=true, each chunk of its text told to the listener. An
    endpoint that answers with a whole completion instead is read as one chunk; one that answers
    HTTP 400/422 raises NoStreaming. Leaving early (a cancelled call) closes the connection, which
    is how an OpenAI-compatible server learns to stop generating."""
    listener.start()
    async with client.chat.completions.with_streaming_response.create(
            stream=True, stream_options={"include_usage": True}, **create) as response:
        if "text/event-stream" not in response.headers.get("content-type", ""):
            return _whole(await response.read(), listener)
        parts: list[str] = []
        refusals: list[str] = []
        usage = None
        async for chunk in await response.parse():
            if not isinstance(chunk, ChatCompletionChunk):
                raise ValueError(f"the endpoint streamed {type(chunk).__name__}, not chat completion chunks")
            usage = chunk.usage or usage
            delta = chunk.choices[0].delta if chunk.choices else None
            if delta is not None and delta.content:
                parts.append(delta.content)
                listener.heard(delta.content)
            if delta is not None and delta.refusal:
                refusals.append(delta.refusal)
        return Streamed("".join(parts), "".join(refusals) or None, usage)


def _whole(body: bytes, listener: Listener) -> Streamed:
    """A whole completion where a stream was asked for: an endpoint that ignores `stream`."""
    try:
        completion = ChatCompletion.model_validate(json.loads(body))
        message = completion.choices[0].message
    except (ValueError, IndexError) as exc:
        raise ValueError(f"the endpoint answered a streamed request with neither a stream nor a chat completion: "
                         f"{body[:120]!r}") from exc
    listener.heard(message.content or "")
    return Streamed(message.content or "", message.refusal, completion.usage)
