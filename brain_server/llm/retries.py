"""When a failed completion is asked again: which answers are worth another attempt, how long
an endpoint that says when to come back (429/503 with Retry-After) asks the client to wait, what
is asked after an unusable answer, and how a failed attempt is described (`described`)."""

from __future__ import annotations

from datetime import UTC, datetime
import email.utils
import re
from string import Template

import openai

from brain_server.llm.answers import AnswerError, NotACompletion

# Statuses worth another attempt: rate limits, timeouts, server-side trouble.
RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}
# Retry-After on these is the endpoint saying when to come back (hosted APIs' rate limits, a loaded vLLM).
RETRY_AFTER_STATUS = {429, 503}
# The longest Retry-After honoured: a call waits no longer than this between attempts, whatever is asked.
RETRY_AFTER_MAX_S = 20.0
AGAIN_ANSWER_CHARS = 2000  # of an unusable answer shown back to the model when asking again
ECHO_WORDS = 6  # a run of this many words of the complaint, not of the request, in an answer is an echo


def retry_after_s(exc: Exception) -> float | None:
    """Seconds a 429/503 asks the client to wait (Retry-After as seconds or an HTTP date, or OpenAI's
    retry-after-ms); None where it asks nothing readable."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in RETRY_AFTER_STATUS:
        return None
    headers = exc.response.headers
    try:
        if "retry-after-ms" in headers:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        if value.strip().replace(".", "", 1).isdigit():
            return float(value)
        when = email.utils.parsedate_to_datetime(value)
    except (ValueError, TypeError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def worth_retrying(exc: Exception) -> bool:
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS
    return True  # bad answers, timeouts and refused connections may pass on another try


def asked_again(messages: list[dict[str, str]], answer: str, error: Exception, note: Template) -> list[dict[str, str]]:
    """The request again after an unusable `answer`, with that answer and what was wrong with it
    (`note`: answer_again.md): a model at temperature 0 gives the same unusable answer to the same request."""
    said = note.substitute(error=str(error)[:300]).strip()
    return [*messages, {"role": "assistant", "content": answer[:AGAIN_ANSWER_CHARS]}, {"role": "user", "content": said}]


def echoes_complaint(messages: list[dict[str, str]], answer: str) -> bool:
    """Whether an answer to a request asked again (`asked_again`) repeats what the complaint said
    and neither the request nor the answer before did (a complaint may quote either): a small model
    that answers "Answer does not match the schema ..." in a character's voice has not answered."""
    if len(messages) < 3 or messages[-2].get("role") != "assistant":
        return False
    said = _runs(messages[-1]["content"]) - _runs(" ".join(m["content"] for m in messages[:-1]))
    return not said.isdisjoint(_runs(answer))


def _runs(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i:i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)}


def described(exc: Exception) -> str:
    """Why an attempt failed, as a trace and a log line say it: the status and any Retry-After, a
    timeout, a connection that could not be made or broke, an unusable answer."""
    if isinstance(exc, openai.APIStatusError):
        asked = retry_after_s(exc)
        return f"HTTP {exc.status_code} from the LLM endpoint" + ("" if asked is None else
                                                                  f" (Retry-After {asked:g} s)")
    if isinstance(exc, openai.APITimeoutError):
        return "the LLM endpoint timed out"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        if cause is None or "Connect" in type(cause).__name__:
            return "cannot connect to the LLM endpoint"
        return f"the connection to the LLM endpoint broke: {type(cause).__name__}"
    if isinstance(exc, AnswerError | NotACompletion):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"[:500]  # an exception nobody expected: its type tells the most
