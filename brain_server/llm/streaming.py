"""A completion streamed to someone waiting for its words: the player reading an NPC's line.

A line is asked for as plain text, the words first (`SpokenText`: a tag after them, such as
`[end]`, says what else the line means), so its first token is already a word; a model that
ignores the format (a name before the line, quotes around it, JSON anyway, a code fence or a
reasoning block first) still shows only the words, and none of a line in its assistant voice
("As an AI language model, ..."), which is dropped as soon as its phrase is whole. `FieldText`
reads one string field of a JSON object as far as it has arrived (escapes decoded, an escape cut
by a chunk held back). The `Listener` hears the visible text grow. The code that writes one line passes its listener
to that completion (`LLM.complete(listener=...)`), which is streamed to it; every other
completion is asked for whole. An endpoint that does not stream (it answers stream=true with
an error, or with a whole completion) gives the line in one piece.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
import json
import re
import time
from typing import Any, Protocol

import httpx2
import openai
from openai.types.chat import ChatCompletionChunk

from brain_server.llm.answers import AnswerError, chat_message
from brain_server.llm.dialects import closes_reasoning, without_reasoning
from brain_server.prompts import assistant_phrase, assistant_tail

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class FieldText:
    """The value of one string field of a JSON object being written, as far as it has arrived
    (`name` None: the first field whose value is a string)."""

    def __init__(self, name: str | None) -> None:
        self._key = re.compile((r'"(?:[^"\\]|\\.)*"' if name is None else f'"{re.escape(name)}"') + r'\s*:\s*"')
        self.buffer = ""

    def feed(self, chunk: str) -> str:
        """The field's text so far, after `chunk` arrived ("" until its value has begun)."""
        self.buffer += chunk
        found = self._key.search(self.buffer)
        return "" if found is None else _decoded_prefix(self.buffer, found.end())

    def final(self) -> str:
        """The field's whole text, once the object is complete."""
        return self.feed("")


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


_FENCE = re.compile(r"^```[\w-]*\n?")
_QUOTES = {'"': '"', "\u201c": "\u201d"}


class InAssistantVoice(AnswerError):
    """A line being written turned out to be the model's assistant voice ("As an AI language
    model, I cannot..."): a refusal, not a line (prompts/__init__.py, `Spoken`)."""


class SpokenText:
    """A line of speech asked for as plain text: the words, then one of `tags` (`[end]`), read
    as far as it has arrived. What a model adds despite the prompt is not shown: a reasoning
    block, a code fence, the speaker's name before the line, quotes around it, a JSON object
    (its first string field is the line). A tag is also taken bare on a line of its own ("END").
    What could still turn out to be one of these (`Isab` of "Isabella:", `[con` of "[continue]"),
    or the start of an assistant phrase ("As an", "I can"), is held back until it is clear."""

    def __init__(self, names: tuple[str, ...], tags: tuple[str, ...]) -> None:
        self._prefixes = [f"{n}:".lower() for n in dict.fromkeys(names) if n]
        self._tags = [t.strip("[]").lower() for t in tags]
        self.buffer = ""
        self.tag: str | None = None  # the tag the answer ended with, once read
        self.json: dict[str, Any] | None = None  # the object a model answered instead, once whole

    def feed(self, chunk: str) -> str:
        """The words so far, after `chunk` arrived, less a tail that may still become an assistant
        phrase (held until it cannot); `InAssistantVoice` once one is whole."""
        self.buffer += chunk
        words = self._visible(final=False)
        growing = self.tag is None  # a tag read ends the line: nothing after it can change its words
        if phrase := assistant_phrase(words, growing=growing):
            raise InAssistantVoice(f"the model answered as an assistant ({phrase!r}), not as the character, in the "
                                   f"line it was writing, dropped there: {words[:200]!r}")
        return words[:assistant_tail(words)].rstrip() if growing else words

    def final(self) -> str:
        """The whole line, once the answer is complete (its tag in `tag`, an object in `json`)."""
        return self._visible(final=True)

    def _visible(self, *, final: bool) -> str:
        text = without_reasoning(self.buffer).lstrip()
        if not final and any(start.startswith(text) for start in ("<think>", "```")):
            return ""
        if text.startswith("```"):
            if "\n" not in text and not final:
                return ""
            text = _FENCE.sub("", text).rsplit("```", 1)[0].strip() if final else _FENCE.sub("", text).lstrip()
        if text.startswith("{"):
            return self._from_json(text, final)
        for prefix in self._prefixes:
            if text.lower().startswith(prefix):
                text = text[len(prefix):].lstrip()
                break
            if prefix.startswith(text.lower()) and not final:
                return ""
        words = self._words(text, final)
        if text[:1] in _QUOTES:
            words = words[1:]
            close = _QUOTES[text[0]]
            words = words[:-1] if words.endswith(close) else words
        return " ".join(words.split())

    def _words(self, text: str, final: bool) -> str:
        """The text before its tag (noting which), lines joined; an unfinished line or bracket
        that may become a tag held back."""
        kept: list[str] = []
        lines = text.split("\n")
        for n, line in enumerate(lines):
            last = n == len(lines) - 1 and not final
            bracket = line.find("[")
            while bracket >= 0:
                inside = line[bracket + 1:].split("]", 1)
                word = inside[0].strip().lower()
                if self._is_tag(word):
                    self.tag = next(t for t in self._tags if word.startswith(t))
                    return "\n".join([*kept, line[:bracket]]).strip()
                if last and len(inside) == 1 and any(t.startswith(word) for t in self._tags):
                    return "\n".join([*kept, line[:bracket]]).strip()
                bracket = line.find("[", bracket + 1)
            bare = line.strip(" .!()*").lower()
            if n and bare in self._tags:
                self.tag = bare
                break
            if last and n and any(t.startswith(bare) for t in self._tags):
                break
            kept.append(line)
        return "\n".join(kept).strip()

    def _is_tag(self, word: str) -> bool:
        return any(word == t or word.startswith(f"{t} ") for t in self._tags)

    def _from_json(self, text: str, final: bool) -> str:
        if not final:
            return FieldText(None).feed(text)
        try:
            found = json.loads(text[:text.rfind("}") + 1])
        except ValueError:
            return ""
        if not isinstance(found, dict):
            return ""
        self.json = found
        said = next((v for v in (found.get("utterance"), *found.values()) if isinstance(v, str)), "")
        return " ".join(said.split())


class Reader(Protocol):
    """What a listener reads a completion with: the text to show after each chunk (`SpokenText`);
    AnswerError where the completion so far already cannot be used."""

    def feed(self, chunk: str) -> str: ...

    def final(self) -> str: ...


@dataclass
class Listener:
    """Who waits for the words of the completions of one purpose, as a `reader` (made anew for
    each completion: a retried one starts over) shows them. `text` is what was last heard;
    `asked` and `first_words` when the completion was asked and its first words came
    (time.perf_counter), for the trace."""

    purpose: str
    reader: Callable[[], Reader]
    on_text: Callable[[str], None]
    text: str = ""
    asked: float | None = None
    first_words: float | None = None
    reasoning_first: bool = False  # the model's answers begin inside a reasoning block its template opened
    _reader: Reader | None = field(default=None, repr=False)
    _held: str | None = field(default=None, repr=False)  # what came before that block's close, unread

    def start(self) -> None:
        """A completion begins (again): its words are read from nothing (after the reasoning's close,
        where the template opens it: `reasoning_first`, learned by the client from earlier answers)."""
        self._reader, self.asked = self.reader(), time.perf_counter()
        self._held = "" if self.reasoning_first else None

    def heard(self, chunk: str) -> None:
        """The reader's text after `chunk`, told if it changed. A reader that finds the completion
        unusable mid-way (`InAssistantVoice`) ends it: what it showed is taken back (the text
        starts over from ""), and the call is asked again or falls back."""
        assert self._reader is not None, "start() first"
        if self._held is not None:
            self._held += chunk
            if not closes_reasoning(self._held):
                return
            chunk, self._held = self._held, None
        try:
            text = self._reader.feed(chunk)
        except AnswerError:
            self._tell("")
            raise
        if text and self.first_words is None:
            self.first_words = time.perf_counter()
        self._tell(text)

    def ended(self) -> None:
        """The completion is whole. One that ends on an assistant phrase ("... made by OpenAI":
        while it grew, the phrase might have gone on into another word) is taken back and refused
        as in `heard`, so its first words do not stay up until the next attempt's replace them."""
        assert self._reader is not None, "start() first"
        if self._held:  # no reasoning came after all: the whole answer is the line
            held, self._held = self._held, None
            self.heard(held)
        line = self._reader.final()
        if self.text and (phrase := assistant_phrase(line)):
            self._tell("")
            raise InAssistantVoice(f"the model answered as an assistant ({phrase!r}), not as the character, at the "
                                   f"end of the line it was writing: {line[:200]!r}")

    def _tell(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.on_text(text)


@dataclass
class Streamed:
    """What a streamed completion added up to."""

    content: str
    refusal: object  # a model's refusal: text, or whatever its JSON holds there
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
            await response.read()
            return _whole(response.http_response, listener)
        said: list[str] = []
        refusals: list[str] = []
        usage = None
        async for chunk in await response.parse():
            if not isinstance(chunk, ChatCompletionChunk):
                raise ValueError(f"the endpoint streamed {type(chunk).__name__}, not chat completion chunks")
            usage = chunk.usage or usage
            delta = chunk.choices[0].delta if chunk.choices else None
            if delta is not None and delta.content:
                said.append(delta.content)
                listener.heard(delta.content)
            if delta is not None and delta.refusal:
                refusals.append(delta.refusal)
        listener.ended()
        return Streamed("".join(said), "".join(refusals) or None, usage)


def _whole(http: httpx2.Response, listener: Listener) -> Streamed:
    """A whole completion where a stream was asked for (an endpoint that ignores `stream`), read and
    checked as an unstreamed one is (`answers.chat_message`: NotACompletion says what came instead)."""
    content, refusal, usage = chat_message(http)
    listener.heard(content)
    listener.ended()
    return Streamed(content, refusal, usage)
